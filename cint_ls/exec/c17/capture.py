"""One dispatch of a cpu-c17 run, taken as its inputs were: what cint-debug hands the
reference to debug one work-item of a dispatch too big for it (issue 30).

    capture_dispatch(program, fuel, number, item) -> Captured | None

The program runs on cpu-c17 in this process, as `cint run` runs it, and the work-item
phase of dispatch `number` gives its plan to a callback armed for that dispatch alone
(the run-time's packed plan, rt/pool.c `pack_plan`: the bytes the cluster's tiles
take). The plan is read back in the interpreter's terms: a view over a storage holding
each array argument's elements as they were before the dispatch, each output's staging,
the scalar arguments, the bound sizes and the over extents. Work-items [0, item) then
run as one tile (`cint_tile_run`, single-threaded, in ascending order) for what the
reference needs to begin at `item` as if it had run them itself: the fuel consumed
before it, the partial result of each fold_checked, and the elements they staged.

The run is not stopped: it goes on as it would have (the armed dispatch runs its tile
here, on one thread). None when the run never reaches that dispatch's work-item phase
(it ended first, or the dispatch has fewer than two work-items, which the run-time never
hands out).

Errors: those of `library.run` (NoCompiler, Untranslatable, C17RunError, MemoryError).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...analysis.types import Type
from ...ir import nodes as ir
from ..arith import FoldChecked, make_reducer
from ..dispatch import DispatchPlan
from ..runtime import Fuel
from ..views import Storage, Value, View
from .build import build_library
from .describe import _bits
from .library import CINT_RESOURCE, MAX_BUDGET, STACK_SIZE, C17RunError, _load, _run_in_thread, emit
from .tile import CHUNK_DONE, RANK, SIZES, TILE_MAGIC, Reader, apply_staged, decode, kernel_names, reducer_of, run_tile


@dataclass
class Captured:
    """Dispatch `plan.number` as the reference would begin work-item `item` of it."""

    plan: DispatchPlan  # inputs as before the dispatch; the stagings with what items < `item` wrote
    item: int
    folds: dict[int, FoldChecked]  # each fold_checked's partial before `item`, by its parameter
    consumed: int  # the entry's fuel consumed before `item`
    depth: int  # the host's call depth at the dispatch


def _struct(ffi: Any, reader: Reader, name: str) -> Any:
    """A C struct of the plan, copied out of its bytes."""
    cdata = ffi.new(f"{name} *")
    ffi.memmove(cdata, reader.take(ffi.sizeof(name)), ffi.sizeof(name))
    return cdata


def _storage(reader: Reader, cstorage: Any, element: Type) -> Storage:
    count = int(cstorage.count)
    storage = Storage(element, decode(element, reader.take(max(count, 0) * int(cstorage.element_size))))
    storage.generation = int(cstorage.generation)
    return storage


def _make_view(cview: Any, storage: Storage, first: int) -> View:
    rank = int(cview.rank)
    return View(storage, first + int(cview.origin), tuple(int(cview.extents[d]) for d in range(rank)),
                tuple(int(cview.strides[d]) for d in range(rank)), bool(cview.writable), int(cview.generation))


def read_plan(ffi: Any, kernel: ir.Kernel, data: bytes, fuel: int | None) -> tuple[DispatchPlan, int, int]:
    """The packed plan as the interpreter's DispatchPlan (its span None: the caller
    knows where the dispatch is), with the fuel consumed after the dispatch's charge
    unknown here (0) and the host's call depth; and the number of dispatches so far."""
    r = Reader(data)
    if r.i64() != TILE_MAGIC:
        raise C17RunError("not a cpu-c17 dispatch plan")
    r.i64()  # the kernel's index in the program's table: the caller names the kernel
    number = r.i64()
    sizes = r.i64s(SIZES)[:len(kernel.sizes)]
    over = r.i64s(RANK)[:len(kernel.over)]
    count = r.i64()
    r.i64s(2)  # the budget and the allowance after the dispatch's charge: the caller's
    depth = r.i64()
    r.i64()  # the dispatches so far
    reads: list[View | None] = []
    writes: list[View | None] = []
    scalars: list[Value | None] = []
    for param in kernel.params:
        if param.extents is None:
            value: Value | None = None
            if param.mode == "in":
                value = decode(param.type, r.take(max(_bits(param.type) // 8, 1)))[0]
            reads.append(None)
            writes.append(None)
            scalars.append(value)
            continue
        cview, cstorage = _struct(ffi, r, "cint_view"), _struct(ffi, r, "cint_storage")
        offset = r.i64()
        storage = _storage(r, cstorage, param.type)
        reads.append(_make_view(cview, storage, offset // max(int(cstorage.element_size), 1)))
        scalars.append(None)
        if param.mode == "in":
            writes.append(None)
            continue
        wview, wstorage = _struct(ffi, r, "cint_view"), _struct(ffi, r, "cint_storage")
        writes.append(_make_view(wview, _storage(r, wstorage, param.type), 0))
    plan = DispatchPlan(kernel, number, sizes, over, count, reads, writes, scalars, Fuel(fuel), None)
    return plan, depth, number


def _prefix(ffi: Any, lib: Any, data: bytes, captured: Captured) -> None:
    """Work-items [0, item) as one tile: their charges, fold partials and staged
    elements into `captured`."""
    plan, kernel, item = captured.plan, captured.plan.kernel, captured.item
    tile = run_tile(ffi, lib, data, 0, item, kernel)
    if tile is None:
        raise C17RunError(f"cpu-c17 could not run work-items 0 to {item - 1} of dispatch {plan.number}")
    if tile.state != CHUNK_DONE:
        raise C17RunError(f"work-items 0 to {item - 1} of dispatch {plan.number} did not complete on cpu-c17")
    for reduction, state in zip(kernel.reductions, tile.states):
        if reduction.kind != "fold_checked":
            continue
        fold = reducer_of(ffi, reduction, state)
        if fold is None:  # cannot be: the fault at `item` is the canonical one [F-3]
            raise C17RunError(f"a fold of dispatch {plan.number} overflows before work-item {item} on cpu-c17")
        captured.folds[reduction.param] = fold
    apply_staged(tile, kernel, plan.writes)
    captured.consumed += tile.charges


def capture_dispatch(program: ir.Program, fuel: int | None, number: int, item: int) -> Captured | None:
    """See the module's docstring."""
    ffi, lib = _load(build_library(emit(program)))
    budget = -1 if fuel is None or fuel > MAX_BUDGET else fuel
    ctx = lib.cint_ctx_new(budget, 0)
    if ctx == ffi.NULL:
        raise MemoryError("the cpu-c17 run exceeded its memory limit")
    found: list[Captured] = []
    failed: list[BaseException] = []

    def remote(user: Any, job: Any, packed: Any, length: int, ntiles: int, size: int) -> int:
        if found or failed or int(lib.cint_ctx_dispatches(ctx)) - 1 != number:
            return 0
        try:
            data = ffi.buffer(packed, length)[:]
            kernel = _kernel(ffi, lib, program, data)
            plan, depth, _ = read_plan(ffi, kernel, data, fuel)
            if not 0 <= item < plan.count:
                raise C17RunError(f"dispatch {number} of {kernel.qualified} has {plan.count} work-items, "
                                  f"none numbered {item}")
            folds = {r.param: make_reducer(r.kind, r.contribution, r.target, r.init) for r in kernel.reductions
                     if r.kind == "fold_checked"}
            captured = Captured(plan, item, folds,  # type: ignore[arg-type]
                                int(lib.cint_ctx_fuel_consumed(ctx)), depth)
            if item > 0:
                _prefix(ffi, lib, data, captured)
            found.append(captured)
        except BaseException as error:  # noqa: BLE001 - said by the caller, not lost in cffi
            failed.append(error)
        return 0  # the tile stays pending: the run-time runs the dispatch here

    def observer(user: Any, kernel: Any, published: int, nparams: int, args: Any) -> None:
        if published == number - 1:  # the next dispatch is the one: hand it out
            lib.cint_ctx_set_remote(ctx, hook, ffi.NULL, 2, 1)

    hook = ffi.callback("int(void *, void *, const char *, size_t, int64_t, int64_t)", remote, error=0)
    seen = ffi.callback("void(void *, const char *, int64_t, int32_t, const cint_arg *)", observer)
    try:
        if number == 0:
            lib.cint_ctx_set_remote(ctx, hook, ffi.NULL, 2, 1)
        else:
            lib.cint_ctx_set_observer(ctx, seen, ffi.NULL)
        status = _run_in_thread(lib, ctx, STACK_SIZE)
        if status == CINT_RESOURCE and not found:
            message = ffi.string(lib.cint_ctx_message(ctx)).decode("utf-8", "replace")
            raise C17RunError(f"the cpu-c17 run failed: {message}")
    finally:
        lib.cint_ctx_free(ctx)
    if failed:
        raise failed[0]
    return found[0] if found else None


def _kernel(ffi: Any, lib: Any, program: ir.Program, data: bytes) -> ir.Kernel:
    """The plan's kernel, named by the program's table in C (the emitted kernels only)."""
    index, names = int.from_bytes(data[8:16], "little", signed=True), kernel_names(ffi, lib)
    qualified = names[index] if 0 <= index < len(names) else ""
    for kernel in program.kernels.values():
        if kernel.qualified == qualified:
            return kernel
    raise C17RunError(f"the cpu-c17 plan names a kernel the program does not have ({qualified or 'none'})")


__all__ = ["Captured", "capture_dispatch", "read_plan"]
