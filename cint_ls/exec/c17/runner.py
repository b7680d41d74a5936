"""cpu-c17's work-item phase under a host that runs on the interpreter's machine: the
workbench's `:executor cpu-c17` (issue 31), whose session keeps its variables in the
host between entries.

Each dispatch's plan is packed as the run-time packs one for a cluster's tile (rt/pool.c
`pack_plan`; tile.py reads and runs the format) and its work-items run in C as one
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
from ..dispatch import DispatchPlan, WorkItemRunner, WorkPhase
from ..views import View
from .build import build_library
from .describe import _bits, encode, type_code
from .library import MAX_BUDGET, _load, emit
from .tile import CHUNK_DONE, RANK, SIZES, TILE_MAGIC, Tile, apply_staged, kernel_names, reducer_of, run_tile


class C17Runner(WorkItemRunner):
    """Runs each dispatch's work-items in C; `fallback` (the reference's runner) where C
    does not give the whole answer. `ran` and `fell_back` count the dispatches."""

    complete = False  # the tile's reduction states: a chunk's partial ones (tile.reducer_of)

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
        kernel = plan.kernel
        data = pack(ffi, plan, kernel_names(ffi, lib).index(kernel.qualified), self.depth())
        tile = self._tile(ffi, lib, data, plan)
        phase = None if tile is None else self._apply(ffi, plan, tile)
        if phase is None:
            self.fell_back += 1
            return self.fallback.run(plan)
        self.ran += 1
        return phase

    def _tile(self, ffi: Any, lib: Any, data: bytes, plan: DispatchPlan) -> Tile | None:
        """Every work-item of the packed plan, as one tile in C (None: not taken)."""
        return run_tile(ffi, lib, data, 0, plan.count, plan.kernel)

    def _apply(self, ffi: Any, plan: DispatchPlan, tile: Tile) -> WorkPhase | None:
        """The tile's result into the plan (None: the reference must run it)."""
        if tile.state != CHUNK_DONE:
            return None
        reducers = [reducer_of(ffi, reduction, state, self.complete)
                    for reduction, state in zip(plan.kernel.reductions, tile.states)]
        if any(reducer is None for reducer in reducers):
            return None
        fuel = plan.fuel
        if fuel.budget is not None and fuel.consumed + tile.charges > fuel.budget:
            return None
        apply_staged(tile, plan.kernel, plan.writes)
        fuel.consumed += tile.charges
        return WorkPhase(None, [], reducers)

    def contribute(self, target: int, value: Any, span: Any, step: int) -> None:
        self.fallback.contribute(target, value, span, step)


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


__all__ = ["C17Runner", "pack"]
