"""gpu-cuda's work-item phase under a host that runs on the interpreter's machine: the
workbench's `:executor gpu-cuda` (issue 31), whose session keeps its variables in the
host between entries.

As cpu-c17's runner (exec/c17/runner.py) does, each dispatch's plan is packed as the
run-time packs a tile; here it goes through gpu-cuda's own work-item phase
(`cint_tile_run_phase` into rt/gpu_host.c: the inputs and stagings to device memory,
launches of the kernel's PTX entry, the fault word, the fuel and fold scans, the per-block
reductions merged), on the device the session opened: the GPU through the CUDA driver,
or the simulated device that runs the same PTX where there is none (said when the
executor is chosen, as `cint run --executor gpu-cuda` says it). What comes back is
applied as cpu-c17's tile is, with each reduction's complete state. A dispatch that
faults, stops for fuel or overflows a fold runs again on the reference from its start,
whose canonical fault every executor's is [F-3]; gpu-cuda's own host describes it the
same way (10.6 para 9). A device error ends the entry with the device's message.

The device and one context per library (the session's kernels as built for that
input) stay open for the session: a later input with the same kernels loads nothing.
"""

from __future__ import annotations

import dataclasses
import os
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...ir import nodes as ir
from ..c17.runner import C17Runner
from ..c17.tile import Tile, read_tile
from ..dispatch import DispatchPlan, WorkItemRunner
from ..executors import ExecutorUnavailable
from .device import DEFAULT_BLOCK, DEFAULT_MAX_LAUNCH, Device
from .simulator import SimulatedDevice

# Libraries (sets of the session's kernels) whose device context stays open: an input
# that reaches the kernels of one of the last few loads nothing again.
KEPT_CONTEXTS = 4


class DeviceFailed(ExecutorUnavailable):
    """The device failed during a dispatch (host.resource in a run): one line."""


@dataclasses.dataclass
class _Opened:
    ffi: Any
    lib: Any
    g: Any
    ctx: Any
    info: Any  # the library's program table
    keep: Any  # the simulated device's callbacks, alive while `g` may call them


class GpuDevice:
    """A session's gpu-cuda: `want` is "auto" (the GPU, else the simulated device, and
    `fallback` says why), "cuda" (the GPU or ExecutorUnavailable) or "sim"."""

    def __init__(self, want: str = "auto", block: int = DEFAULT_BLOCK, max_launch: int = DEFAULT_MAX_LAUNCH) -> None:
        self.want, self.block, self.max_launch = want, block, max_launch
        self.fallback: str | None = None  # why the simulated device, where the GPU was wanted
        self.description: str | None = None  # the device once opened
        self._told = False
        self._opened: dict[str, _Opened] = {}
        self._closer = weakref.finalize(self, _close_all, self._opened)

    def forecast(self) -> str:
        """What `:executor gpu-cuda` says of the device before a dispatch opens it."""
        if self.want == "sim":
            return "the simulated device"
        from .probe import LIBRARY_ENV, NO_DRIVER, _driver_loads

        if not _driver_loads() and LIBRARY_ENV not in os.environ:
            if self.want == "cuda":
                raise ExecutorUnavailable(f"gpu-cuda: {NO_DRIVER} (the simulated device needs none: --device sim)")
            self.fallback = NO_DRIVER
            self._told = True  # said here: the first dispatch need not say it again
            return f"the simulated device, not a GPU: {NO_DRIVER}"
        return "the GPU (opened at the first dispatch)"

    def opened(self, program: ir.Program) -> _Opened:
        """The context of `program`'s kernels (built, loaded and set once)."""
        from . import compile_host, compile_program
        from .c_host import CallbackDevice, CHostStats, DeviceUnavailableHere, _load, _prepare, open_cuda

        library = compile_host(program, tuple(program.kernels))
        key = str(library)
        if key in self._opened:
            return self._opened[key]
        ptx = compile_program(program)
        ffi, lib = _load(Path(library))
        keep: CallbackDevice | None = None
        if self.want != "sim" and self.fallback is None:
            try:
                struct, description = open_cuda(ffi, lib)
            except DeviceUnavailableHere as error:
                if self.want == "cuda":
                    raise ExecutorUnavailable(f"gpu-cuda: {error} (the simulated device needs none: "
                                              ":executor gpu-cuda --device sim)") from None
                self.fallback = str(error)
        if self.want == "sim" or self.fallback is not None:
            device: Device = SimulatedDevice()
            keep = CallbackDevice(ffi, device)
            struct, description = keep.struct, device.description
        info = lib.cint_program_info()
        g = lib.cint_gpu_new(struct, info, self.block, self.max_launch)
        if g == ffi.NULL:
            raise ExecutorUnavailable("gpu-cuda: no memory for the device's context")
        try:
            _prepare(ffi, lib, g, info, program, ptx, self.block, CHostStats(), description)
        except BaseException:
            lib.cint_gpu_free(g)
            raise
        ctx = lib.cint_ctx_new(-1, 0)
        if ctx == ffi.NULL:
            lib.cint_gpu_free(g)
            raise ExecutorUnavailable("gpu-cuda: no memory for the device's context")
        lib.cint_gpu_attach(ctx, g)
        self.description = description
        while len(self._opened) >= KEPT_CONTEXTS:  # each holds a device context: the oldest goes
            _close(self._opened.pop(next(iter(self._opened))))
        self._opened[key] = opened = _Opened(ffi, lib, g, ctx, info, keep)
        return opened

    def news(self) -> str | None:
        """Once, after the first dispatch opened the device: the line that says the
        simulated device runs it where the GPU was wanted and could not be opened."""
        if self._told or self.description is None:
            return None
        self._told = True
        if self.fallback is None or self.want == "sim":
            return None
        return f"note: gpu-cuda runs on {self.description}, not a GPU: {self.fallback}\n"

    def close(self) -> None:
        self._closer()


def _close(o: _Opened) -> None:
    o.lib.cint_ctx_free(o.ctx)
    o.lib.cint_gpu_free(o.g)  # gives the device's memory back, closes the device


def _close_all(opened: dict[str, _Opened]) -> None:
    for o in opened.values():
        _close(o)
    opened.clear()


class GpuRunner(C17Runner):
    """Runs each dispatch's work-items on gpu-cuda's device; `fallback` (the reference's
    runner) where the device does not give the whole answer."""

    complete = True  # gpu-cuda's phase keeps each reduction's whole state (rt/gpu_host.c)

    def __init__(self, program: ir.Program, fallback: WorkItemRunner, depth: Callable[[], int],
                 device: GpuDevice) -> None:
        super().__init__(program, fallback, depth)
        self.device = device
        self._context: _Opened | None = None

    def _library(self) -> tuple[Any, Any]:
        if self._context is None:
            kernels_only = dataclasses.replace(self.program, entry=dataclasses.replace(self.program.entry, body=[]))
            self._context = self.device.opened(kernels_only)
        return self._context.ffi, self._context.lib

    def _tile(self, ffi: Any, lib: Any, data: bytes, plan: DispatchPlan) -> Tile | None:
        assert self._context is not None, "the library is loaded before a tile runs"
        result, length = ffi.new("char **"), ffi.new("size_t *")
        try:
            rc = lib.cint_tile_run_phase(self._context.ctx, self._context.info, data, len(data), result, length)
        finally:
            lib.cint_gpu_forget(self._context.g)  # the plan's storages end with it
        if rc == 2:
            message = ffi.string(lib.cint_ctx_message(self._context.ctx)).decode("utf-8", "replace")
            device = ffi.string(lib.cint_gpu_message(self._context.g)).decode("utf-8", "replace")
            raise DeviceFailed(f"gpu-cuda: {device or message} (on {self.device.description}); "
                               "the dispatch published nothing")
        if rc != 0:
            return None
        return read_tile(ffi, lib, result, length, plan.kernel)


__all__ = ["DeviceFailed", "GpuDevice", "GpuRunner"]
