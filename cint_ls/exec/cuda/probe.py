"""Whether gpu-cuda's default device (`auto`) is the simulated one on this machine, for
labels such as the editor's "Run on gpu-cuda (simulated)". What a run says in its notes
is the truth for that run; this is the forecast, asked often (every code-lens request),
so it must be quick and must not open a device in the asking process.

    simulated_reason() -> str | None   # why runs will be simulated; None: a GPU, or not known yet

Two checks answer at once where there is no GPU: cuda-python is not installed, or the
driver library does not load. Where the library loads, opening the device (cuInit, a
context) is left to a child process on a background thread, once; until it answers
the forecast is None, the usual answer on a machine with a driver.
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
# The same wording as the run's own note (driver.py), so the label and the note agree.
NO_PYTHON = "cuda-python is not installed: pip install 'cint-ls[cuda]'"
NO_DRIVER = "no CUDA driver (the NVIDIA driver library libcuda is not installed)"

_CHILD = """\
import json
from cint_ls.exec.cuda.device import DeviceUnavailable
from cint_ls.exec.cuda.driver import CudaDevice
try:
    CudaDevice().close()
    print(json.dumps(None))
except DeviceUnavailable as error:
    print(json.dumps(str(error)))
"""

_lock = threading.Lock()
_answer: dict[str, str | None] = {}  # "reason" once known
_probing: threading.Thread | None = None


def _has_python_binding() -> bool:
    for name in ("cuda.bindings", "cuda.cuda"):
        try:
            if importlib.util.find_spec(name) is not None:
                return True
        except (ImportError, ValueError):
            continue
    return False


def _driver_loads() -> bool:
    try:
        ctypes.CDLL(_LIBRARY)
    except OSError:
        return False
    return True


def _open_in_child() -> None:
    """Open the device in a child (so this process never initialises CUDA); a child
    that fails or hangs leaves the forecast at None."""
    reason = None
    try:
        done = subprocess.run([sys.executable, "-P", "-c", _CHILD], capture_output=True, timeout=60, text=True)
        if done.returncode == 0:
            reason = json.loads(done.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        reason = None
    with _lock:
        _answer["reason"] = reason


def simulated_reason() -> str | None:
    """Why gpu-cuda runs with the default device will run on the simulated device here
    (one line), or None when they will run on a GPU or the probe has not answered yet."""
    global _probing
    with _lock:
        if "reason" in _answer:
            return _answer["reason"]
        if _probing is not None:
            return None
        if not _has_python_binding():
            _answer["reason"] = NO_PYTHON
            return NO_PYTHON
        if not _driver_loads():
            _answer["reason"] = NO_DRIVER
            return NO_DRIVER
        _probing = threading.Thread(target=_open_in_child, name="cint-cuda-probe", daemon=True)
        _probing.start()
        return None


def wait(timeout: float | None = None) -> str | None:
    """The forecast once the probe has answered (tests; the CLI has no need)."""
    simulated_reason()
    thread = _probing
    if thread is not None:
        thread.join(timeout)
    return simulated_reason()
