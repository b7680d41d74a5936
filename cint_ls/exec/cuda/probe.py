"""Whether gpu-cuda's default device (`auto`) is the simulated one on this machine, for
labels such as the editor's "Run on gpu-cuda (simulated)". What a run says in its notes
is the truth for that run; this is the forecast, asked often (every code-lens request),
so it must be quick and must not open a device in the asking process.

    simulated_reason() -> str | None   # why runs will be simulated; None: a GPU, or not known yet

The forecast is the host's (c_host.py): it dlopens the driver library itself
(rt/gpu_cuda.c; `$CINT_LIBCUDA`, else libcuda.so.1), so cuda-python plays no part. Where
libcuda.so.1 does not load, the answer is at once; where it loads (or `$CINT_LIBCUDA`
names the library), a child process builds a program's library as a run does and opens
the device with c_host.open_cuda, so the reason is the C host's own ("no CUDA driver
(...)", "a CUDA driver but no CUDA device (...)", ...). Without a C compiler gpu-cuda
does not run at all (`no_host`), so its runs are not simulated either: the forecast is
None and the label plain, as cpu-c17's is; the run says why in one line.

A child runs once, on a background thread, so that the asking process never initialises
CUDA; until it answers the forecast is None, the usual answer on a machine with a driver.
A child that fails or hangs leaves it at None.
"""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
import threading

_LIBRARY = "nvcuda.dll" if os.name == "nt" else "libcuda.so.1"
LIBRARY_ENV = "CINT_LIBCUDA"  # the C host's driver library instead of libcuda.so.1 (c_host.open_cuda; tests)
# The same wording as the run's own note (rt/gpu_cuda.c for the default library), so
# the label and the note agree.
NO_DRIVER = "no CUDA driver (the NVIDIA driver library libcuda is not installed)"
CHILD_TIMEOUT = 120.0  # seconds: the C host's child may compile cpu-c17's run-time first (a cold cache)

# Prints the reason as JSON (null: a GPU).
_CHILD = """\
import json

from cint_ls.exec.cuda.c_host import DeviceUnavailableHere, _load, library_for, open_cuda
from cint_ls.ir.build import build

ffi, lib = _load(library_for(build('"probe\\\\n";\\n', "cuda_probe.ci").program))
try:
    device, _ = open_cuda(ffi, lib)
except DeviceUnavailableHere as error:
    print(json.dumps(str(error)))
else:
    device[0].close(device[0].user)
    print(json.dumps(None))
"""

_lock = threading.Lock()
_answer: dict[str, str | None] = {}  # "reason" once known
_probing: threading.Thread | None = None


def no_host() -> str | None:
    """Why gpu-cuda cannot run here at all (no C compiler for its host, cpu-c17's words),
    or None: `ready`'s first question (__init__.py, device_ready)."""
    from ..c17.build import NoCompiler, find_compiler

    try:
        find_compiler()
    except NoCompiler as error:
        return f"gpu-cuda needs a C compiler for its host: {error}"
    return None


def _driver_loads() -> bool:
    """Whether the driver library loads here (the default one: a host opens it by this name)."""
    try:
        ctypes.CDLL(_LIBRARY)
    except OSError:
        return False
    return True


def _open_in_child(answer: dict[str, str | None]) -> None:
    """Open the device in a child (so this process never initialises CUDA); a child
    that fails or hangs leaves the forecast at None."""
    reason = None
    try:
        done = subprocess.run([sys.executable, "-P", "-c", _CHILD], check=False, capture_output=True,
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
        if no_host() is not None:  # gpu-cuda does not run here: not simulated either
            _answer["reason"] = None
            return None
        named = os.environ.get(LIBRARY_ENV)  # loaded or not: the child says so in the C host's words
        if not named and not _driver_loads():
            _answer["reason"] = NO_DRIVER
            return NO_DRIVER
        _probing = threading.Thread(target=_open_in_child, args=(_answer,), name="cint-cuda-probe", daemon=True)
        _probing.start()
        return None


def wait(timeout: float | None = None) -> str | None:
    """The forecast once the probe has answered (tests; the CLI has no need)."""
    simulated_reason()
    thread = _probing
    if thread is not None:
        thread.join(timeout)
    return simulated_reason()
