"""The device interface of gpu-cuda: one shape for the simulated device (`simulator.py`),
which the C host drives through cffi callbacks (`c_host.CallbackDevice`), and, for the
tests' oracle (`oracle/`), the CUDA driver through cuda-python (`oracle/driver.py`), so
a host cannot tell them apart except by `simulated` and `description`. (The C host drives
a real GPU through rt/gpu_cuda.c, not through this interface.)

Every method is synchronous. A driver error of any kind (a failed allocation, a launch
stopped by a time limit, a lost device, an illegal address) is a `DeviceError` with a
one-line message; the host turns it into the boundary record `host.resource`
(SPEC-02P.1 10.5 para 9). A machine on which the device cannot be opened at all (no
cuda-python, no CUDA driver, no GPU) gives `DeviceUnavailable`, also one line.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

DEFAULT_BLOCK = 256  # work-items per block unless chosen
DEFAULT_MAX_LAUNCH = 1 << 24  # work-items per launch: bounds the scratch of one launch


class DeviceError(Exception):
    """A driver error during a run: the entry ends with CINT_RESOURCE (host.resource)."""


class DeviceUnavailable(Exception):
    """The device cannot be opened here; the message is one line that names the cause."""


# The simulated device's schedules. The first three run each thread to completion, blocks
# and threads in that order; the interleaving ones advance all the threads of a launch
# together, one global memory access at a time (simulator.py).
INTERLEAVING = ("interleaved", "adversarial")
ORDERS = ("ascending", "descending", "shuffled") + INTERLEAVING


class Function(ABC):
    """A kernel entry of a loaded module."""

    name: str
    max_threads: int  # CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 0: no limit known


class Module(ABC):
    @abstractmethod
    def function(self, name: str) -> Function: ...


class Device(ABC):
    simulated: bool
    description: str  # shown wherever a result is shown: "the simulated device", "NVIDIA H200 (sm_90)"
    max_grid: int = (1 << 31) - 1  # blocks per launch (gridDim.x)
    max_block: int = 1024  # threads per block

    @abstractmethod
    def load(self, ptx: str) -> Module:
        """Load a PTX module (cuModuleLoadData)."""

    @abstractmethod
    def alloc(self, nbytes: int) -> int:
        """Device memory of `nbytes` bytes (at least 1); its device address."""

    @abstractmethod
    def free(self, address: int) -> None: ...

    @abstractmethod
    def upload(self, address: int, data: bytes | bytearray | memoryview) -> None: ...

    @abstractmethod
    def download(self, address: int, nbytes: int) -> bytes: ...

    @abstractmethod
    def fill(self, address: int, byte: int, nbytes: int) -> None:
        """Set `nbytes` bytes to `byte` (cuMemsetD8)."""

    @abstractmethod
    def launch(self, function: Function, grid: int, block: int, params: list[int]) -> None:
        """Start `function` on a one-dimensional grid of `grid` blocks of `block` threads,
        with its `.u64` parameters in order, and wait for it to complete."""

    def close(self) -> None:  # noqa: B027 - optional: most devices hold nothing
        """Give the device's resources back (nothing to do for most devices)."""
