"""Whether gpu-cuda's default device (`auto`) is the simulated one on this machine, for
labels such as the editor's "Run on gpu-cuda (simulated)". What a run says in its notes
is the truth for that run; this is the forecast, asked often (every code-lens request),
so it must be quick and must not open a device in the asking process.

    simulated_reason() -> str | None   # why runs will be simulated; None: a GPU, or not known yet

The forecast follows the host a run takes (`run` in __init__.py, option `host`: auto):

- the host in C (c_host.py) where there is a C compiler: it dlopens the driver library
  itself (rt/gpu_cuda.c; `$CINT_LIBCUDA`, else libcuda.so.1), so cuda-python plays no
  part. Where libcuda.so.1 does not load, the answer is at once; where it loads (or
  `$CINT_LIBCUDA` names the library), a child process builds a program's library as a
  run does and opens the device with c_host.open_cuda, so the reason is the C host's own
  ("no CUDA driver (...)", "a CUDA driver but no CUDA device (...)", ...);
- the host in Python (python_host.py, driver.py) where there is none: without cuda-python, or
  where the driver library does not load, the answer is at once; else a child process
  opens the device with driver.CudaDevice.

A child runs once, on a background thread, so that the asking process never initialises
CUDA; until it answers the forecast is None, the usual answer on a machine with a driver.
A child that fails or hangs leaves it at None.
"""

from __future__ import annotations

import ctypes
import importlib.util
import json
import os
import subprocess
import sys
import threading

_LIBRARY = "nvcuda.dll" if os.name == "nt" else "libcuda.so.1"
LIBRARY_ENV = "CINT_LIBCUDA"  # the C host's driver library instead of libcuda.so.1 (c_host.open_cuda; tests)
# The same wording as the run's own note (driver.py; rt/gpu_cuda.c for the default
# library), so the label and the note agree.
NO_PYTHON = "cuda-python is not installed: pip install 'cint-ls[cuda]'"
NO_DRIVER = "no CUDA driver (the NVIDIA driver library libcuda is not installed)"
CHILD_TIMEOUT = 120.0  # seconds: the C host's child may compile cpu-c17's run-time first (a cold cache)

# argv[1]: "c" (the host in C) or "python"; prints the reason as JSON (null: a GPU).
_CHILD = """\
import json
import sys


def c_host():
    from cint_ls.exec.cuda.c_host import DeviceUnavailableHere, _load, library_for, open_cuda
    from cint_ls.ir.build import build

    ffi, lib = _load(library_for(build('"probe\\\\n";\\n', "cuda_probe.ci").program))
    try:
        device, _ = open_cuda(ffi, lib)
    except DeviceUnavailableHere as error:
        return str(error)
    device[0].close(device[0].user)
    return None


def python_host():
    from cint_ls.exec.cuda.device import DeviceUnavailable
    from cint_ls.exec.cuda.driver import CudaDevice

    try:
        CudaDevice().close()
    except DeviceUnavailable as error:
        return str(error)
    return None


print(json.dumps(c_host() if sys.argv[1] == "c" else python_host()))
"""

_lock = threading.Lock()
_answer: dict[str, str | None] = {}  # "reason" once known
_probing: threading.Thread | None = None


def _c_host() -> bool:
    """Whether a run takes the host in C: there is a C compiler (the run's own test,
    `c_host_unusable`, which also asks that cpu-c17 translate the program; the programs
    it does not are too rare to change a label)."""
    from ..c17.build import NoCompiler, find_compiler

    try:
        find_compiler()
    except NoCompiler:
        return False
    return True


def _has_python_binding() -> bool:
    for name in ("cuda.bindings", "cuda.cuda"):
        try:
            if importlib.util.find_spec(name) is not None:
                return True
        except (ImportError, ValueError):
            continue
    return False


def _driver_loads() -> bool:
    """Whether the driver library loads here (the default one: a host opens it by this name)."""
    try:
        ctypes.CDLL(_LIBRARY)
    except OSError:
        return False
    return True


def _open_in_child(host: str, answer: dict[str, str | None]) -> None:
    """Open the device in a child (so this process never initialises CUDA); a child
    that fails or hangs leaves the forecast at None."""
    reason = None
    try:
        done = subprocess.run([sys.executable, "-P", "-c", _CHILD, host], check=False, capture_output=True,
                              timeout=CHILD_TIMEOUT, text=True)
        if done.returncode == 0:
            reason = json.loads(done.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        reason = None
    with _lock:
        answer["reason"] = reason if isinstance(reason, str) else None


def simulated_reason() -> str | None:
    """Why gpu-cuda runs with the default device will run on the simulated device here
    (one line), or None when they will run on a GPU or the probe has not answered yet."""
    global _probing
    with _lock:
        if "reason" in _answer:
            return _answer["reason"]
        if _probing is not None:
            return None
        c_host = _c_host()
        if not c_host and not _has_python_binding():
            _answer["reason"] = NO_PYTHON
            return NO_PYTHON
        named = c_host and os.environ.get(LIBRARY_ENV)  # loaded or not: the child says so in the C host's words
        if not named and not _driver_loads():
            _answer["reason"] = NO_DRIVER
            return NO_DRIVER
        _probing = threading.Thread(target=_open_in_child, args=("c" if c_host else "python", _answer),
                                    name="cint-cuda-probe", daemon=True)
        _probing.start()
        return None


def wait(timeout: float | None = None) -> str | None:
    """The forecast once the probe has answered (tests; the CLI has no need)."""
    simulated_reason()
    thread = _probing
    if thread is not None:
        thread.join(timeout)
    return simulated_reason()
