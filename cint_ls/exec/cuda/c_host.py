"""gpu-cuda's host in C (SPEC-02P.1 10.5, 10.6): the program's C, emitted as for cpu-c17
and compiled with `CINT_GPU_CUDA`, runs the sequential code and the dispatch protocol of
cpu-c17's run-time (exec/c17/rt/dispatch.c), whose work-item phase is gpu-cuda's (rt/gpu_host.c):
launches of the kernel's PTX entry through a launch interface (`cint_gpu_device`), the
fault word, the fuel and fold scans, the description of the canonical fault by
cpu-c17's counting code. This module loads the library, makes the device and reads the
outcome back:

- `cuda`: the CUDA driver, dlopen'd by the run-time (rt/gpu_cuda.c);
- `sim`, or any `Device` object (tests pass prepared ones): each call of the launch
  interface is a cffi callback into the Python device, the PTX simulator
  (`simulator.py`), on the raw buffers, so the C host runs exactly as with a GPU;
- `null`: launches do nothing and nothing is copied (rt/gpu_host.c), to measure the
  host's own cost (`benchmarks/heat_gpu.py --device null`).

Host statuses come back as gpu-cuda's boundary records (`status.py`): a device error
is host.resource at its dispatch, a re-run that completes is host.divergence.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...ir import nodes as ir
from ..c17.build import build_library
from ..c17.headers import header_types
from ..c17.library import (
    CDEF,
    CINT_FAULT,
    CINT_OK,
    CINT_RESOURCE,
    MAX_BUDGET,
    C17RunError,
    OutputStream,
    _records,
    call_in_thread,
    emit,
    fault_record,
)
from ..c17.pictures import Pictures
from ..executors import ExecutorUnavailable
from ..runtime import DispatchRow, RunResult, TraceRow
from ..selection import current_selection
from ..stages import RUNNING, output_stream, reached
from .device import Device, DeviceError, Function, Module
from .ptx import PtxModule
from .status import HOST_DIVERGENCE, HOST_RESOURCE, HostStatus

if TYPE_CHECKING:
    from ...syntax.source import Span

GPU_CDEF = header_types("""
typedef struct cint_gpu cint_gpu;
@TYPES gpu_host.h: cint_gpu_device cint_gpu_row_t cint_gpu_stats@
@FUNCTIONS gpu_host.h: cint_gpu_new cint_gpu_load cint_gpu_kernel_set cint_gpu_kernel_block cint_gpu_kernel_limit
    cint_gpu_message cint_gpu_attach cint_gpu_free cint_gpu_forget cint_gpu_stats_of cint_gpu_null_device cint_gpu_cuda_device
    cint_gpu_program_kernels cint_gpu_program_kernel cint_gpu_program_span@
""")

# ptx.Param.kind -> rt/gpu_host.h CINT_GP_*
KINDS = {name: k for k, name in enumerate(("first", "end", "fault", "fuel_left", "fuel", "size", "over", "scalar", "read",
                                             "origin", "extent", "stride", "write", "wstride", "contrib", "mark",
                                             "args", "slots", "fold"))}
NO_DRIVER, NO_DEVICE, UNUSABLE = 1, 2, 3

# cffi has no type information: its FFI, libraries and C data are Any here.
_ffi: Any = None
_libraries: dict[str, Any] = {}


def _load(path: Path) -> tuple[Any, Any]:
    global _ffi
    import cffi

    if _ffi is None:
        _ffi = cffi.FFI()
        _ffi.cdef(CDEF + GPU_CDEF)
    key = str(path)
    if key not in _libraries:
        _libraries[key] = _ffi.dlopen(key)
    return _ffi, _libraries[key]


def gpu_c_text(program: ir.Program, also: tuple[str, ...] = ()) -> str:
    """The program's C as cpu-c17 emits it, compiled with CINT_GPU_CUDA (10.5 para 1);
    `also`: kernels emitted though the entry does not reach them (the workbench's)."""
    return "#define CINT_GPU_CUDA 1\n" + emit(program, also)


def library_for(program: ir.Program, also: tuple[str, ...] = ()) -> Path:
    return build_library(gpu_c_text(program, also), gpu=True)


class DeviceUnavailableHere(ExecutorUnavailable):
    """The CUDA driver cannot be opened (`kind`: 1 no driver, 2 no device, 3 unusable)."""

    def __init__(self, message: str, kind: int) -> None:
        super().__init__(message)
        self.kind = kind


# ------------------------------------------------------------------ a Python device behind the launch interface


class CallbackDevice:
    """The launch interface of rt/gpu_host.h over a Python `Device` (the simulated one, or
    a test's): every call a cffi callback, every error a DeviceError's one line."""

    def __init__(self, ffi: Any, device: Device) -> None:
        self.ffi = ffi
        self.device = device
        self.objects: dict[int, Module | Function] = {}
        self.callbacks: list[Any] = []  # kept alive while the library may call them
        self.struct = ffi.new("cint_gpu_device *")
        fields = dict(ffi.typeof("cint_gpu_device").fields)
        for name in ("load", "function", "alloc", "upload", "download", "fill", "launch"):
            callback = ffi.callback(fields[name].type, self._guard(getattr(self, "_" + name)), error=1)
            self.callbacks.append(callback)
            setattr(self.struct[0], name, callback)
        release = ffi.callback(fields["release"].type, self._release)
        self.callbacks.append(release)
        self.struct[0].release = release

    def _guard(self, call: Callable[..., None]) -> Callable[..., int]:
        ffi = self.ffi

        def guarded(*args: Any) -> int:
            message = args[-1]
            try:
                call(*args[:-1])
                return 0
            except DeviceError as error:
                text = str(error)
            except Exception as error:  # noqa: BLE001 - a defect of a device is a device error here
                text = f"{type(error).__name__}: {error}"
            data = (text.splitlines()[0] if text else "device error").encode("utf-8", "replace")[:500]
            ffi.memmove(message, data + b"\0", len(data) + 1)
            return 1

        return guarded

    def _handle(self, obj: Module | Function) -> Any:
        key = len(self.objects) + 1
        self.objects[key] = obj
        return self.ffi.cast("void *", key)

    def _load(self, _user: Any, ptx: Any, module: Any) -> None:
        module[0] = self._handle(self.device.load(self.ffi.string(ptx).decode()))

    def _function(self, _user: Any, module: Any, name: Any, function: Any, max_threads: Any) -> None:
        loaded = self.objects[int(self.ffi.cast("uintptr_t", module))]
        assert isinstance(loaded, Module), "a function asked of a handle that is not a module"
        entry = loaded.function(self.ffi.string(name).decode())
        function[0] = self._handle(entry)
        max_threads[0] = int(getattr(entry, "max_threads", 0) or 0)

    def _alloc(self, _user: Any, nbytes: Any, address: Any) -> None:
        address[0] = self.device.alloc(int(nbytes))

    def _release(self, _user: Any, address: Any) -> None:
        try:
            self.device.free(int(address))
        except Exception:  # noqa: BLE001 - giving back never fails the run
            pass

    def _upload(self, _user: Any, address: Any, data: Any, nbytes: Any) -> None:
        self.device.upload(int(address), self.ffi.buffer(data, int(nbytes))[:])

    def _download(self, _user: Any, data: Any, address: Any, nbytes: Any) -> None:
        got = self.device.download(int(address), int(nbytes))
        self.ffi.memmove(data, got, len(got))

    def _fill(self, _user: Any, address: Any, byte: Any, nbytes: Any) -> None:
        self.device.fill(int(address), int(byte), int(nbytes))

    def _launch(self, _user: Any, function: Any, grid: Any, block: Any, params: Any, nparams: Any) -> None:
        entry = self.objects[int(self.ffi.cast("uintptr_t", function))]
        assert isinstance(entry, Function), "a launch of a handle that is not a function"
        self.device.launch(entry, int(grid), int(block), [int(params[j]) for j in range(nparams)])


# ------------------------------------------------------------------ the run


@dataclass
class CHostStats:
    """What the C host did (RunResult.notes; tests)."""

    dispatches: int = 0
    launches: int = 0
    skipped: int = 0
    launch_seconds: float = 0.0
    described: list[tuple[int, int]] = field(default_factory=list)  # (dispatch, k)
    clamped: list[tuple[str, int, int]] = field(default_factory=list)  # (kernel, block used, limit)


def open_cuda(ffi: Any, lib: Any, library: str | None = None) -> tuple[Any, str]:
    """The real device: (cint_gpu_device, description), or DeviceUnavailableHere."""
    device = ffi.new("cint_gpu_device *")
    description = ffi.new("char[256]")
    message = ffi.new("char[512]")
    path = library if library is not None else os.environ.get("CINT_LIBCUDA")
    kind = lib.cint_gpu_cuda_device(device, path.encode() if path else ffi.NULL, 0, description, message)
    if kind != 0:
        raise DeviceUnavailableHere(ffi.string(message).decode("utf-8", "replace"), kind)
    return device, ffi.string(description).decode("utf-8", "replace")


def run_c_host(program: ir.Program, fuel: int | None, ptx: PtxModule, library: Path, device: Device | str, *,
               block: int, max_launch: int, trace: bool = False, report: bool = False,
               cuda_library: str | None = None) -> tuple[RunResult, CHostStats, str]:
    """Run the program's entry on the C host, its `library` (library_for: built once by
    the caller, which may run it again on the simulated device when the driver cannot be
    opened). `device`: "null", "cuda", or a Python `Device` behind the launch interface.
    Returns the result (notes not yet added), the host's figures and the device's
    description."""
    ffi, lib = _load(library)
    keep: CallbackDevice | None = None
    if device == "null":
        struct = ffi.new("cint_gpu_device *")
        if lib.cint_gpu_null_device(struct):
            raise MemoryError("the gpu-cuda run exceeded its memory limit")
        description = "the null device (launches do nothing)"
    elif device == "cuda":
        struct, description = open_cuda(ffi, lib, cuda_library)
    else:
        assert isinstance(device, Device), f"not a device kind: {device!r}"
        keep = CallbackDevice(ffi, device)
        struct, description = keep.struct, device.description
    info = lib.cint_program_info()
    g = lib.cint_gpu_new(struct, info, block, max_launch)
    if g == ffi.NULL:
        raise MemoryError("the gpu-cuda run exceeded its memory limit")
    stats = CHostStats()
    try:
        _prepare(ffi, lib, g, info, program, ptx, block, stats, description)
        reached(RUNNING)
        result = _run(ffi, lib, g, info, program, fuel, trace, report, description, stats)
    finally:
        lib.cint_gpu_free(g)  # gives the device's memory back, closes the device
    del keep
    return result, stats, description


def _prepare(ffi: Any, lib: Any, g: Any, info: Any, program: ir.Program, ptx: PtxModule, block: int, stats: CHostStats,
             description: str) -> None:
    if lib.cint_gpu_program_kernels(info) == 0:
        return
    if lib.cint_gpu_load(g, ptx.text.encode()):
        raise ExecutorUnavailable(f"gpu-cuda: {description} could not load the PTX module: "
                                  f"{ffi.string(lib.cint_gpu_message(g)).decode('utf-8', 'replace')}")
    by_qualified = {kernel.qualified: kernel for kernel in program.kernels.values()}
    for index in range(lib.cint_gpu_program_kernels(info)):
        qualified = ffi.string(lib.cint_gpu_program_kernel(info, index)).decode()
        code = ptx.kernels[by_qualified[qualified].name]
        params = ffi.new("int32_t[]", [v for p in code.params for v in (KINDS[p.kind], *(list(p.index) + [0, 0])[:2])]
                         or [0])
        if lib.cint_gpu_kernel_set(g, index, code.entry.encode(), len(code.params), params, int(code.block),
                                   int(code.charges)):
            raise ExecutorUnavailable(f"gpu-cuda: {description} has no entry {code.entry}: "
                                      f"{ffi.string(lib.cint_gpu_message(g)).decode('utf-8', 'replace')}")
        used = int(lib.cint_gpu_kernel_block(g, index))
        if used != block:
            stats.clamped.append((qualified, used, int(lib.cint_gpu_kernel_limit(g, index))))


def _span(ffi: Any, lib: Any, info: Any, index: int) -> Span | None:
    from ...syntax.source import Span

    out = ffi.new("int32_t[6]")
    if index < 0 or not lib.cint_gpu_program_span(info, index, out):
        return None
    return Span(*[int(out[j]) for j in range(6)])


def _run(ffi: Any, lib: Any, g: Any, info: Any, program: ir.Program, fuel: int | None, trace: bool, report: bool,
         description: str, stats: CHostStats) -> RunResult:
    budget = -1 if fuel is None or fuel > MAX_BUDGET else fuel
    ctx = lib.cint_ctx_new(budget, 1 if trace else 0)
    if ctx == ffi.NULL:
        raise MemoryError("the gpu-cuda run exceeded its memory limit")
    selection = current_selection()  # the trace's pictures of arrays (exec/selection.py), as cpu-c17 takes them
    pictures = None if selection is None else Pictures(program, selection)
    try:
        lib.cint_gpu_attach(ctx, g)
        if pictures is not None:  # kept alive until the run ends
            pictures.listen(ffi, lib, ctx)
        if report:
            lib.cint_ctx_set_report(ctx, 1)
        with OutputStream(ffi, lib, ctx, output_stream(), "gpu-cuda") as printed:
            status = call_in_thread(lambda: lib.cint_ctx_run(ctx, info))
        output = printed.output
        consumed = int(lib.cint_ctx_fuel_consumed(ctx))
        s = lib.cint_gpu_stats_of(g)
        stats.dispatches, stats.launches, stats.skipped = int(s.dispatches), int(s.launches), int(s.skipped)
        stats.launch_seconds = int(s.launch_ns) / 1e9
        kernels = [ffi.string(lib.cint_gpu_program_kernel(info, i)).decode()
                   for i in range(lib.cint_gpu_program_kernels(info))]
        fault = None
        if status == CINT_RESOURCE:
            message = ffi.string(lib.cint_ctx_message(ctx)).decode("utf-8", "replace")
            host = None
            if s.status_kind != 0:  # a device error [B-16e]
                host = HostStatus(HOST_RESOURCE, [ffi.string(s.status_message).decode("utf-8", "replace"),
                                                  f"on {description}"])
                host.locate(kernels[s.status_kernel], int(s.status_number), _span(ffi, lib, info, s.status_span))
            elif message.startswith("internal error: a work-item did not fault") and s.found_number >= 0:
                host = _divergence(s, description)  # 10.6 para 11
                stats.described.append((int(s.found_number), int(s.found_k)))
                host.locate(kernels[s.found_kernel], int(s.found_number), _span(ffi, lib, info, s.found_span))
            if host is None:
                if "memory limit" in message:
                    raise MemoryError(message)
                raise C17RunError(f"the gpu-cuda run failed: {message}")
            fault = host.record(consumed)
        elif status == CINT_FAULT:
            fault = fault_record(ffi, lib, ctx, "gpu-cuda")
            if s.found_number >= 0 and fault.address is not None and fault.address.dispatch == s.found_number:
                stats.described.append((int(s.found_number), int(s.found_k)))
        else:
            assert status == CINT_OK
        result = RunResult(output, fault, consumed, "gpu-cuda", int(lib.cint_ctx_dispatches(ctx)))
        if printed.note is not None:
            result.notes.append(printed.note)
        if trace:
            pointer = ffi.new("cint_boundary **")
            count = lib.cint_ctx_boundaries(ctx, pointer)
            rows: list[TraceRow] = [[int(b.dispatch), int(b.output_length), int(b.fuel), int(b.digest)]
                    for b in (pointer[0][k] for k in range(count))]
            result.trace = rows + [[None, printed.kept + printed.more, consumed, None]]
        if report:
            result.dispatch_log = _report(ffi, lib, ctx, s)
            note = None if pictures is None else pictures.attach(result.dispatch_log)
            if note is not None:
                result.notes.append(note)
        return result
    finally:
        lib.cint_ctx_free(ctx)


def _divergence(s: Any, description: str) -> HostStatus:
    k = int(s.found_k)
    seen = ", ".join(f"{name} = {int(value)}" for name, value in (("k_b", s.found_b), ("k_f", s.found_f),
                                                                  ("k_r", s.found_r)) if value >= 0)
    return HostStatus(HOST_DIVERGENCE, [
        f"the device reported a fault of work-item {k} ({seen})",
        f"work-item {k} run again on the host (cpu-c17) completes without a fault",
        f"on {description}",
    ])


def _report(ffi: Any, lib: Any, ctx: Any, s: Any) -> list[DispatchRow]:
    """RunResult.dispatch_log: cpu-c17's rows (exec/c17/rt/dispatch.c) with gpu-cuda's launches and
    copies (rt/gpu_host.c): bytes to the device, from it, and read but already there."""
    rows = _records(ffi, lib, ctx)
    copies = {int(s.rows[j].number): s.rows[j] for j in range(int(s.nrows))}
    for row in rows:
        row.pop("threads", None)
        row.pop("ran", None)
        row["order"] = None  # launches run every work-item at once: which ran before a fault is unknown (trace.py)
        got = copies.get(row["number"])
        row["launches"] = 0 if got is None else int(got.launches)
        row["copies"] = None if got is None else {"to_device": int(got.uploaded), "from_device": int(got.downloaded),
                                                  "already_there": int(got.kept)}
    return rows
