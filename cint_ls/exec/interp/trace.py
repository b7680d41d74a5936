"""The reference's boundaries for a comparison of runs (SPEC-02P.1 8.4 example 9): after
each published dispatch, the bytes of output so far, the fuel consumed and a digest of
the published data; then the entry's end.

The digest is FNV-1a (64 bits) over, for each out or inout parameter in declaration
order, every element of its argument in row-major order (a scalar out: its result),
each as little-endian two's complement at its element size (Bool one byte);
cpu-c17's rt/dispatch.c computes the same in C.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...analysis.types import BoolType, Type
from ...ir import nodes as ir
from ..runtime import Boundary, RunResult
from ..views import View, copy_elements
from .machine import Machine

FNV_OFFSET, FNV_PRIME, MASK = 14695981039346656037, 1099511628211, (1 << 64) - 1


def _digest_value(h: int, t: Type, value) -> int:
    size = 1 if isinstance(t, BoolType) else t.bits // 8  # type: ignore[attr-defined]
    for byte in (int(value) & ((1 << (8 * size)) - 1)).to_bytes(size, "little"):
        h = ((h ^ byte) * FNV_PRIME) & MASK
    return h


def published_digest(kernel: ir.Kernel, args: Sequence, results: Sequence) -> int:
    h = FNV_OFFSET
    for p, param in enumerate(kernel.params):
        if param.mode == "in":
            continue
        if param.extents is not None:
            view = args[p]
            assert isinstance(view, View)
            for value in copy_elements(view):
                h = _digest_value(h, param.type, value)
        else:
            h = _digest_value(h, param.type, results[p])
    return h


class TracingMachine(Machine):
    """The reference interpreter, recording a boundary after each published dispatch."""

    def __init__(self, program: ir.Program, fuel: int | None = None, write=None) -> None:
        super().__init__(program, fuel, write)
        self.boundaries: list[Boundary] = []
        self.output_bytes = 0

    def write(self, text: str) -> None:
        super().write(text)
        self.output_bytes += len(text.encode("utf-8"))

    def dispatch(self, name: str, args: list, span) -> list:
        results = super().dispatch(name, args, span)
        kernel = self.program.kernels[name]
        digest = published_digest(kernel, args, results)
        self.boundaries.append(Boundary(self.dispatches - 1, self.output_bytes, self.fuel.consumed, digest))
        return results


def run_traced(program: ir.Program, fuel: int | None, write=None) -> RunResult:
    """Run on the reference with `RunResult.trace` filled in."""
    machine = TracingMachine(program, fuel, write)
    result = machine.run()
    end = Boundary(None, machine.output_bytes, result.fuel_consumed, None)
    result.trace = [[b.dispatch, b.output_length, b.fuel, b.digest] for b in machine.boundaries + [end]]
    return result
