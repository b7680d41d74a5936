"""The tile format of cpu-c17's run-time in Python (rt/pool.c: `pack_plan`, `cint_tile_run`):
a dispatch's plan packed as bytes, work-items [first, end) of it run in C, and what the
tile gives back (its state, charges, reduction states, the staged elements it changed).
The debugger's replay (capture.py) reads a plan the run-time packed and runs the
work-items before a fault; the workbench's runner (runner.py) packs plans itself.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from typing import Any

from ...analysis.types import BoolType, Type
from ...ir import nodes as ir
from ..arith import FoldChecked, make_reducer
from ..arith.fault import bounds
from ..arith.reduce import Count, Extremum, Sum, SumSat, SumWrap
from ..views import Value, View
from .describe import _bits, _signed
from .layout import CHUNK_DONE, RANK, SIZES, TILE_MAGIC, Reader, kernel_names


def decode(t: Type, data: bytes) -> list[Value]:
    """Elements of type `t` from the C layout (describe.encode's inverse)."""
    bits = _bits(t)
    if bits <= 64:
        code = {8: "b", 16: "h", 32: "i", 64: "q"}[bits]
        values = array(code if _signed(t) else code.upper())
        values.frombytes(data)
        if isinstance(t, BoolType):
            return [v != 0 for v in values]
        return list(values)
    return [from_limbs(data[i:i + bits // 8], _signed(t)) for i in range(0, len(data), bits // 8)]


def from_limbs(data: bytes, signed: bool) -> int:
    """A little-endian integer of 64-bit limbs, two's complement when `signed`."""
    value = int.from_bytes(data, "little")
    if signed and data and data[-1] & 0x80:
        value -= 1 << (8 * len(data))
    return value


@dataclass
class Tile:
    """What `cint_tile_run` gave back: the chunk's state, the fuel its work-items charged,
    each reduction's state (rt/cint_rt.h cint_reduction), and the reader at its runs of
    staged elements (`apply_staged`)."""

    state: int
    charges: int
    states: list[bytes]
    rest: Reader


def run_tile(ffi: Any, lib: Any, plan: bytes, first: int, end: int, kernel: ir.Kernel) -> Tile | None:
    """Work-items [first, end) of the packed `plan`, run here in C; None when the
    run-time does not take the plan."""
    result, length = ffi.new("char **"), ffi.new("size_t *")
    if lib.cint_tile_run(lib.cint_program_info(), plan, len(plan), first, end, result, length) != 0:
        return None
    return read_tile(ffi, lib, result, length, kernel)


def read_tile(ffi: Any, lib: Any, result: Any, length: Any, kernel: ir.Kernel) -> Tile:
    """The tile a run-time function gave back in `result[0]` (`length[0]` bytes), which
    is freed here (cint_tile_run's format; cint_tile_run_phase's too)."""
    try:
        r = Reader(ffi.buffer(result[0], length[0])[:])
    finally:
        lib.cint_free(result[0])
    state, _, _, charges, out_length = r.i64s(5)
    r.take(out_length)  # a kernel prints nothing (C9007)
    size = ffi.sizeof("cint_reduction")
    return Tile(state, charges, [r.take(size) for _ in kernel.reductions], r)


def apply_staged(tile: Tile, kernel: ir.Kernel, writes: list[View | None]) -> None:
    """The elements the tile's work-items staged, into the interpreter's stagings."""
    r = tile.rest
    for param, staging in zip(kernel.params, writes):
        if staging is None:
            continue
        element = max(_bits(param.type) // 8, 1)
        for _ in range(r.i64()):
            at, n = r.i64(), r.i64()
            first = at // element
            staging.storage.values[first:first + n // element] = decode(param.type, r.take(n))


def reducer_of(ffi: Any, reduction: ir.Reduction, state: bytes, complete: bool = False) -> Any:
    """The accumulator holding the tile's contributions (rt/reduce.c's state), or None
    where the reference must add them itself (a fold_checked that would overflow).
    `complete`: the state is a whole dispatch's from its start (cint_red_start, as
    gpu-cuda's work-item phase keeps it), not a chunk's partial one: sum_sat and
    fold_checked then hold their value of the target type in `acc`."""
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
    elif isinstance(made, SumSat) and complete:
        made.acc = value("acc", reduction.target)
    elif isinstance(made, FoldChecked) and complete:
        made.acc, made.position = value("acc", reduction.target), word("count")
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


__all__ = ["CHUNK_DONE", "RANK", "SIZES", "TILE_MAGIC", "Reader", "Tile", "apply_staged", "decode",
           "from_limbs", "kernel_names", "reducer_of", "run_tile"]
