"""gpu-cuda's description of a fault in the cpu-c17 code of the kernel (SPEC-02P.1 10.6
paragraph 9).

    describe_work_item(program, plan, k, folds, consumed, depth=0)
        -> (CintFault with its address and step, or None; fuel consumed after the run)

The program's C is emitted and compiled as for `cint run --executor cpu-c17` (the same
cache; a kernel that the entry does not dispatch, because a host dispatched it directly,
is emitted too), and `cint_ctx_describe` (rt/context.c) runs the kernel's `describe` function for
work-item `k` alone, counting steps, with:

- the arguments as they were before the dispatch: each storage a view of `plan.reads`
  reaches is copied into C memory (its bounding interval, in its own layout), and each
  out or inout is staged, in C, as a copy of its argument (the staging the protocol
  starts with);
- the bound sizes, the over extents and the scalar arguments of `plan`;
- `folds`: the accumulator of each fold_checked (keyed by its parameter, as gpu-cuda
  keeps them) holding the partial result before `k`;
- the fuel: the context's budget is `plan.fuel.budget` and its consumed fuel `consumed`
  (the entry's before `k`), so a fuel fault has the reference's place and step, and the
  run charges nothing to the entry (8.4 paragraph 7): the caller takes the returned
  count;
- the call depth at the dispatch (`depth`, the host machine's).

The record is built in C (`cint_fault_json`) and read back with `FaultRecord.from_json`,
then carried as the `CintFault` the host's dispatch raises: its address (kernel,
dispatch, phase 1, work-item k, step) and the frames of the calls inside the work-item;
the dispatch adds its own frame, as every executor's does [F-8].

Errors: `NoCompiler` (build.py) when there is no C compiler, `Untranslatable` when
cpu-c17 cannot translate the program, `BuildError` or `C17RunError` for a defect,
`MemoryError`.
"""

from __future__ import annotations

from array import array
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ...analysis.types import BoolType, FixedType, IntType, Type
from ...ir import nodes as ir
from ..arith import FoldChecked, OperationFault
from ..dispatch import DispatchPlan
from ..faults import FaultRecord
from ..runtime import CintFault
from ..views import Storage, View
from .build import build_library
from .library import (
    CINT_FAULT,
    CINT_OK,
    CINT_RESOURCE,
    MAX_BUDGET,
    C17RunError,
    _load,
    call_in_thread,
    emit,
    fault_record,
)

M64 = (1 << 64) - 1
ACC_BYTES = 18 * 8  # cint_reduction.acc


def type_code(t: Type) -> int:
    """The run-time type code of `t` (cint_rt.h CINT_TC_*)."""
    if isinstance(t, BoolType):
        return 8 | 0x4000
    if isinstance(t, FixedType):
        return (t.m + t.n) | 0x1000 | 0x2000 | (t.n << 16)
    assert isinstance(t, IntType)
    return t.bits | (0x1000 if t.signed else 0)


def _bits(t: Type) -> int:
    return 8 if isinstance(t, BoolType) else t.bits  # type: ignore[attr-defined]


def _signed(t: Type) -> bool:
    return isinstance(t, FixedType) or (isinstance(t, IntType) and t.signed)


def encode(t: Type, values: Iterable[int]) -> bytes:
    """Values of type `t` in the C layout (cint_rt.h): the native integer of their width
    (Bool one byte, fixed point its stored integer), wider ones as little-endian arrays
    of native 64-bit limbs."""
    bits = _bits(t)
    if bits <= 64:
        code = {8: "b", 16: "h", 32: "i", 64: "q"}[bits]
        return array(code if _signed(t) else code.upper(), [int(v) for v in values]).tobytes()
    limbs = bits // 64
    return array("Q", [(int(v) >> (64 * i)) & M64 for v in values for i in range(limbs)]).tobytes()


class _Memory:
    """The C memory of one description (kept alive until the run ends)."""

    def __init__(self, ffi: Any) -> None:  # cffi's FFI
        self.ffi = ffi
        self.keep: list[Any] = []  # cffi's objects

    def bytes(self, data: bytes, at_least: int = 8) -> Any:
        """A zeroed, 8-byte aligned buffer holding `data`."""
        buffer = self.ffi.new("uint64_t[]", max(len(data), at_least, 1) // 8 + 1)
        self.ffi.memmove(buffer, data, len(data))
        self.keep.append(buffer)
        return buffer


def _views(memory: _Memory, kernel: ir.Kernel, plan: DispatchPlan, args: Any) -> None:
    """Each array argument as a cint_view over a copy of its storage's bounding
    interval (of every view of the dispatch that reaches it)."""
    ffi = memory.ffi
    intervals: dict[int, tuple[Storage, int, int]] = {}  # storage id -> (storage, lo, hi)
    for view in plan.reads:
        interval = None if view is None else view.bounding_interval()
        if view is None or interval is None:
            continue
        lo, hi = interval
        seen = intervals.get(view.storage.id)
        if seen is not None:
            lo, hi = min(seen[1], lo), max(seen[2], hi)
        intervals[view.storage.id] = (view.storage, lo, hi)
    placed: dict[int, tuple[Any, int]] = {}  # storage id -> (its cint_storage, first offset)
    for storage_id, (storage, lo, hi) in intervals.items():
        data = memory.bytes(encode(storage.element, storage.values[lo:hi + 1]))
        record = ffi.new("cint_storage *")
        record.count = hi + 1 - lo
        record.element = type_code(storage.element)
        record.element_size = max(_bits(storage.element) // 8, 1)
        record.generation = storage.generation
        record.data = data
        memory.keep.append(record)
        placed[storage_id] = (record, lo)
    for p, (param, view) in enumerate(zip(kernel.params, plan.reads)):
        if param.extents is None or view is None:
            continue
        c = args[p].view
        assert isinstance(view, View)
        if view.storage.id in placed:
            record, lo = placed[view.storage.id]
            c.storage, c.data, c.origin = record, record.data, view.origin - lo
        else:  # an empty view: no element is ever reached
            record = ffi.new("cint_storage *")
            record.element = type_code(view.element)
            record.element_size = max(_bits(view.element) // 8, 1)
            record.data = memory.bytes(b"")
            memory.keep.append(record)
            c.storage, c.data, c.origin = record, record.data, 0
        c.element = type_code(view.element)
        c.rank = view.rank
        c.writable = view.writable
        c.generation = view.storage.generation
        for d, (extent, stride) in enumerate(zip(view.extents, view.strides)):
            c.extents[d] = extent
            c.strides[d] = stride


_recent: OrderedDict[tuple[int, str], tuple[ir.Program, Path]] = OrderedDict()  # the last libraries used


def _library(program: ir.Program, kernel: str) -> Path:
    """The program's shared library, with `kernel` in it even when the entry does not
    dispatch it (a host dispatched it directly). Emission is remembered for the last
    few programs of this process; the build is cached on disk as cpu-c17's."""
    key = (id(program), kernel)
    hit = _recent.get(key)
    if hit is not None and hit[0] is program:
        _recent.move_to_end(key)
        return hit[1]
    library = build_library(emit(program, (kernel,)))
    _recent[key] = (program, library)
    while len(_recent) > 16:
        _recent.popitem(last=False)
    return library


def describe_work_item(program: ir.Program, plan: DispatchPlan, k: int, folds: Mapping[int, FoldChecked],
                       consumed: int, depth: int = 0) -> tuple[CintFault | None, int]:
    """Run work-item `k` of `plan` again in the cpu-c17 code of its kernel (see the
    module's docstring). Returns its first fault (None when it completes) and the fuel
    consumed after it: `consumed` plus the charges of k before its fault."""
    kernel = plan.kernel
    ffi, lib = _load(_library(program, kernel.name))
    memory = _Memory(ffi)
    args = ffi.new("cint_arg[]", max(len(kernel.params), 1))
    _views(memory, kernel, plan, args)
    for p, param in enumerate(kernel.params):
        if param.extents is not None:
            continue
        if param.mode == "in":
            value = plan.scalars[p]
            assert value is not None, "a scalar in parameter is given a value"
            setattr(args[p], "in", memory.bytes(encode(param.type, [value])))
        args[p].out = memory.bytes(b"", ACC_BYTES)  # a reduction's target: never written here
    given = ffi.new("void *[]", max(len(kernel.reductions), 1))
    for r, reduction in enumerate(kernel.reductions):
        fold = folds.get(reduction.param)
        if reduction.kind == "fold_checked" and fold is not None:
            given[r] = memory.bytes(encode(reduction.target, [fold.acc]), ACC_BYTES)
    sizes = ffi.new("int64_t[]", list(plan.sizes) or [0])
    over = ffi.new("int64_t[]", list(plan.space) or [0])
    name = ffi.new("char[]", kernel.qualified.encode("utf-8"))
    budget = plan.fuel.budget
    limited = budget is not None and budget <= MAX_BUDGET
    if not 0 <= consumed <= (budget if budget is not None and limited else M64):
        raise C17RunError(f"the cpu-c17 description cannot start from {consumed} units of fuel consumed")
    ctx = lib.cint_ctx_new(budget if limited else -1, 0)
    if ctx == ffi.NULL:
        raise MemoryError("the cpu-c17 run exceeded its memory limit")
    try:
        status = call_in_thread(lambda: lib.cint_ctx_describe(
            ctx, lib.cint_program_info(), name, plan.number, sizes, over, args, given, consumed, depth, k))
        if status == CINT_RESOURCE:
            message = ffi.string(lib.cint_ctx_message(ctx)).decode("utf-8", "replace")
            if "memory limit" in message:
                raise MemoryError(message)
            raise C17RunError(f"the cpu-c17 description of work-item {k} failed: {message}")
        after = int(lib.cint_ctx_fuel_consumed(ctx))
        if status == CINT_OK:
            return None, after
        assert status == CINT_FAULT
        record = fault_record(ffi, lib, ctx, "cpu-c17")
    finally:
        lib.cint_ctx_free(ctx)
    return fault_of(record), after


def fault_of(record: FaultRecord) -> CintFault:
    """The CintFault in flight that carries `record` (one record shape: the fields are
    the record's, unchanged)."""
    error = CintFault(OperationFault(record.code, record.operation, record.operands, record.exact, record.limit),
                      record.span, None if record.address is None else record.address.step)
    error.frames = list(record.stack)
    error.address = record.address
    error.views = record.views
    return error


__all__ = ["describe_work_item", "encode", "fault_of", "type_code"]
