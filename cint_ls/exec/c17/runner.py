"""cpu-c17's work-item phase under a host that runs on the interpreter's machine: the
workbench's `:executor cpu-c17` (issue 31), whose session keeps its variables in the
host between entries.

Each dispatch's plan is packed as the run-time packs one for a cluster's tile (rt/pool.c
`pack_plan`; capture.py reads the same bytes back) and its work-items run in C as one
tile (`cint_tile_run`, on one thread, in ascending order). What comes back is applied to
the plan: the elements the work-items staged, the fuel they charged, and each reduction's
state as the accumulator the protocol's epilogue completes (WorkPhase.reducers). A
dispatch that faults, stops for fuel, or whose fold_checked would overflow runs again on
the reference's runner from its start (`fallback`): its canonical fault is then the
reference's, which every executor's is [F-3].

The library holds the program's kernels and functions only, not its entry, so that a
session's inputs, which change the entry each time, find it in the compile cache.
"""

from __future__ import annotations

import dataclasses
from array import array
from collections.abc import Callable
from typing import Any

from ...analysis.types import BoolType
from ...ir import nodes as ir
from ..arith import FoldChecked, make_reducer
from ..arith.fault import bounds
from ..arith.reduce import Count, Extremum, Sum, SumSat, SumWrap
from ..dispatch import DispatchPlan, WorkItemRunner, WorkPhase
from ..views import View
from .build import build_library
from .capture import CHUNK_DONE, RANK, SIZES, TILE_MAGIC, _Reader, decode, from_limbs
from .describe import _bits, encode, type_code
from .library import MAX_BUDGET, _load, emit


class C17Runner(WorkItemRunner):
    """Runs each dispatch's work-items in C; `fallback` (the reference's runner) where C
    does not give the whole answer. `ran` and `fell_back` count the dispatches."""

    def __init__(self, program: ir.Program, fallback: WorkItemRunner, depth: Callable[[], int]) -> None:
        self.program = program
        self.fallback = fallback
        self.depth = depth  # the host's call depth now (a work-item's calls count from it)
        self.ran = 0
        self.fell_back = 0
        self._loaded: tuple[Any, Any] | None = None

    def _library(self) -> tuple[Any, Any]:
        if self._loaded is None:
            kernels_only = dataclasses.replace(self.program, entry=dataclasses.replace(self.program.entry, body=[]))
            self._loaded = _load(build_library(emit(kernels_only, tuple(self.program.kernels))))
        return self._loaded

    def run(self, plan: DispatchPlan) -> WorkPhase:
        ffi, lib = self._library()
        index = _kernel_index(ffi, lib, plan.kernel)
        data = pack(ffi, plan, index, self.depth())
        result, length = ffi.new("char **"), ffi.new("size_t *")
        if lib.cint_tile_run(lib.cint_program_info(), data, len(data), 0, plan.count, result, length) != 0:
            return self._again(plan)
        try:
            taken = ffi.buffer(result[0], length[0])[:]
        finally:
            lib.cint_free(result[0])
        phase = self._apply(ffi, plan, taken)
        if phase is None:
            return self._again(plan)
        self.ran += 1
        return phase

    def _again(self, plan: DispatchPlan) -> WorkPhase:
        self.fell_back += 1
        return self.fallback.run(plan)

    def _apply(self, ffi: Any, plan: DispatchPlan, taken: bytes) -> WorkPhase | None:
        """The tile's result into the plan (None: the reference must run it)."""
        r = _Reader(taken)
        state, _, _, charges, out_length = r.i64s(5)
        if state != CHUNK_DONE:
            return None
        r.take(out_length)
        kernel = plan.kernel
        size = ffi.sizeof("cint_reduction")
        reducers = []
        for reduction in kernel.reductions:
            reducer = _reducer(ffi, reduction, r.take(size))
            if reducer is None:
                return None
            reducers.append(reducer)
        fuel = plan.fuel
        if fuel.budget is not None and fuel.consumed + charges > fuel.budget:
            return None
        for param, staging in zip(kernel.params, plan.writes):
            if staging is None:
                continue
            element = max(_bits(param.type) // 8, 1)
            for _ in range(r.i64()):
                at, n = r.i64(), r.i64()
                first = at // element
                staging.storage.values[first:first + n // element] = decode(param.type, r.take(n))
        fuel.consumed += charges
        return WorkPhase(None, [], reducers)

    def contribute(self, target: int, value: Any, span: Any, step: int) -> None:
        self.fallback.contribute(target, value, span, step)


def _kernel_index(ffi: Any, lib: Any, kernel: ir.Kernel) -> int:
    info = lib.cint_program_info()
    index = 0
    while True:
        name = lib.cint_program_kernel(info, index)
        if name == ffi.NULL:
            raise LookupError(f"cpu-c17's library has no kernel {kernel.qualified}")
        if ffi.string(name).decode("utf-8") == kernel.qualified:
            return index
        index += 1


def _struct_bytes(ffi: Any, name: str, **fields: Any) -> bytes:
    cdata = ffi.new(f"{name} *")
    for key, value in fields.items():
        if key in ("extents", "strides"):
            for d, v in enumerate(value):
                getattr(cdata, key)[d] = v
        else:
            setattr(cdata, key, value)
    return bytes(ffi.buffer(cdata))


def _view(ffi: Any, view: View, offset: bool = True) -> bytes:
    """A view, its storage (whole) and its elements, as pack_plan lays them out (an
    argument's with the offset of its data in its storage, a staging's without)."""
    storage = view.storage
    element = type_code(view.element)
    size = max(_bits(view.element) // 8, 1)
    return (_struct_bytes(ffi, "cint_view", element=element, rank=view.rank, writable=view.writable,
                          generation=view.generation if view.generation is not None else storage.generation,
                          origin=view.origin, extents=view.extents, strides=view.strides)
            + _struct_bytes(ffi, "cint_storage", count=len(storage), element=element, element_size=size,
                            generation=storage.generation)
            + ((0).to_bytes(8, "little", signed=True) if offset else b"")  # the data is the storage's
            + encode(view.element, storage.values))


def pack(ffi: Any, plan: DispatchPlan, index: int, depth: int) -> bytes:
    """The plan as rt/pool.c's pack_plan lays it out (cint_tile_run reads it)."""
    kernel, fuel = plan.kernel, plan.fuel
    budget = fuel.budget if fuel.budget is not None and fuel.budget <= MAX_BUDGET else None
    words = [TILE_MAGIC, index, plan.number, *(list(plan.sizes) + [0] * SIZES)[:SIZES],
             *(list(plan.space) + [0] * RANK)[:RANK], plan.count, -1 if budget is None else budget,
             -1 if budget is None else budget - fuel.consumed, depth, plan.number + 1]
    parts = [array("q", [w if w < (1 << 63) else w - (1 << 64) for w in words]).tobytes()]
    for param, read, write, scalar in zip(kernel.params, plan.reads, plan.writes, plan.scalars):
        if param.extents is None:
            if param.mode == "in":
                assert scalar is not None, "a scalar in parameter has its value"
                parts.append(encode(param.type, [bool(scalar) if isinstance(param.type, BoolType) else int(scalar)]))
            continue
        assert read is not None, "an array parameter has its view"
        parts.append(_view(ffi, read))
        if param.mode != "in":
            assert write is not None, "an out or inout array has its staging"
            parts.append(_view(ffi, write, offset=False))
    return b"".join(parts)


def _reducer(ffi: Any, reduction: ir.Reduction, state: bytes) -> Any:
    """The accumulator holding the tile's contributions (rt/reduce.c's state), or None
    where the reference must add them itself (a fold_checked that would overflow)."""
    field = {name: ffi.offsetof("cint_reduction", name) for name in ("count", "trues", "has", "acc", "lo", "hi")}

    def word(name: str) -> int:
        return int.from_bytes(state[field[name]:field[name] + 8], "little", signed=True)

    def limbs(name: str, t: Any) -> int:
        n = 2 if _bits(t) <= 64 else 18
        return from_limbs(state[field[name]:field[name] + 8 * n], True)

    def value(name: str, t: Any) -> Any:
        return decode(t, state[field[name]:field[name] + max(_bits(t) // 8, 1)])[0]

    has = state[field["has"]] != 0
    made = make_reducer(reduction.kind, reduction.contribution, reduction.target, reduction.init)
    if isinstance(made, Sum):
        made.total, made.count = limbs("acc", reduction.contribution), word("count")
    elif isinstance(made, SumWrap):
        made.total = limbs("acc", reduction.contribution)
    elif isinstance(made, Count):
        made.trues, made.count = word("trues"), word("count")
    elif isinstance(made, Extremum):
        made.best = value("acc", reduction.target) if has else None
    elif isinstance(made, SumSat):
        if has:  # the composition of clamps from 0 (rt/reduce.c add_partial, merge)
            low, high = value("lo", reduction.target), value("hi", reduction.target)
            made.acc = min(max(limbs("acc", reduction.target), low), high)
    elif isinstance(made, FoldChecked):
        if has:
            least, most = bounds(reduction.target)
            if not (least <= made.acc + limbs("lo", reduction.target) and made.acc + limbs("hi", reduction.target)
                    <= most):
                return None  # an overflow inside: the reference finds its work-item
            made.position = word("count")
            made.acc += limbs("acc", reduction.target)
    else:
        return None
    return made


__all__ = ["C17Runner", "pack"]
