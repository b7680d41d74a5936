"""`cint run --check cpu-c17` (SPEC-02P.1 8.4 example 9): run an entry on the reference
and on cpu-c17 and compare them at every boundary.

A *boundary* is each published dispatch (in order) and the end of the entry. At a
dispatch boundary both executors record the bytes of output so far, the fuel consumed
and a digest of the published data; at the end, the whole output, the fault record and
the fuel consumed are compared. The digest is FNV-1a (64 bits) over, for each out or
inout parameter in declaration order, every element of its argument in row-major order
(a scalar out: its result), each as little-endian two's complement at its element size
(Bool one byte); rt/dispatch.c computes the same in C.

The reference's trace comes from `TracingMachine`, a Machine whose `dispatch` and
`write` record the boundaries; cpu-c17 returns its trace in RunResult.trace (rows
`[dispatch, output bytes, fuel, digest]`) when run with {"trace": True}.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from ...analysis.types import BoolType, Type
from ...ir import nodes as ir
from ..faults import FaultRecord
from ..interp.machine import Machine
from ..runtime import RunResult
from ..views import View, copy_elements
from .host import Boundary

FNV_OFFSET, FNV_PRIME, MASK = 14695981039346656037, 1099511628211, (1 << 64) - 1
REFERENCE, C17 = "cpu-sir-interp", "cpu-c17"


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

    def __init__(self, program: ir.Program, fuel: int | None = None) -> None:
        super().__init__(program, fuel)
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


def reference_trace(program: ir.Program, fuel: int | None) -> tuple[RunResult, list[Boundary]]:
    machine = TracingMachine(program, fuel)
    result = machine.run()
    end = Boundary(None, machine.output_bytes, result.fuel_consumed, None)
    return result, machine.boundaries + [end]


def trace_of(result: RunResult) -> list[Boundary]:
    """The trace cpu-c17 returned (run with {"trace": True})."""
    if result.trace is None:
        raise ValueError("the cpu-c17 result carries no trace")
    return [Boundary(*row) for row in result.trace]


def _where(k: int, boundary: Boundary) -> str:
    place = "at the end of the entry" if boundary.dispatch is None else f"after dispatch {boundary.dispatch}"
    return f"boundary {k} ({place})"


def _text(data: bytes) -> str:
    return json.dumps(data.decode("utf-8", "replace"))


def _output_difference(a: bytes, b: bytes) -> str:
    at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    line = a[:at].count(b"\n") + 1
    start = a.rfind(b"\n", 0, at) + 1

    def rest(data: bytes) -> str:
        end = data.find(b"\n", start)
        return _text(data[start:end if end >= 0 else len(data)])

    return f"the output differs on line {line}: {rest(a)} on {REFERENCE}, {rest(b)} on {C17}"


def _fault_difference(a: FaultRecord | None, b: FaultRecord | None) -> str | None:
    if a is None and b is None:
        return None
    if a is None or b is None:
        only = REFERENCE if b is None else C17
        record = (a or b).to_json()  # type: ignore[union-attr]
        return f"only {only} faulted ({record['code']} {record['operation']})"
    ja, jb = a.to_json(), b.to_json()
    for key in ja:
        if key == "details":
            continue
        if key == "exact":  # 6 and 6/1 are the same number
            if a.exact == b.exact:
                continue
        elif ja[key] == jb.get(key):
            continue
        return (f"the fault records differ in {key}: {json.dumps(ja[key])} on {REFERENCE}, "
                f"{json.dumps(jb.get(key))} on {C17}")
    return None


def compare(reference: RunResult, ref_trace: list[Boundary], other: RunResult,
            other_trace: list[Boundary]) -> tuple[int, str | None]:
    """(the number of boundaries, None) when the two runs agree at every boundary, else
    (the boundary, a description of the first difference with both values)."""
    ref_out, other_out = reference.output.encode("utf-8"), other.output.encode("utf-8")
    for k, (a, b) in enumerate(zip(ref_trace, other_trace), start=1):
        if a.dispatch != b.dispatch:
            what = {None: "reached the end of the entry"}
            da = what.get(a.dispatch, f"published dispatch {a.dispatch}")  # type: ignore[arg-type]
            db = what.get(b.dispatch, f"published dispatch {b.dispatch}")  # type: ignore[arg-type]
            return k, f"boundary {k}: {REFERENCE} {da}, {C17} {db}"
        here = _where(k, a)
        pa, pb = ref_out[:a.output_length], other_out[:b.output_length]
        if pa != pb:
            return k, f"{here}: {_output_difference(pa, pb)}"
        if a.fuel != b.fuel:
            return k, f"{here}: the fuel consumed is {a.fuel} on {REFERENCE}, {b.fuel} on {C17}"
        if a.digest != b.digest:
            return k, (f"{here}: the published data differ (digest {a.digest:016x} on {REFERENCE}, "
                       f"{b.digest:016x} on {C17})")
        if a.dispatch is None:
            difference = _fault_difference(reference.fault, other.fault)
            if difference is not None:
                return k, f"{here}: {difference}"
    if len(ref_trace) != len(other_trace):  # unreachable: both traces end with the entry's end
        return min(len(ref_trace), len(other_trace)), "the traces have different lengths"
    return len(ref_trace), None


def check_line(count: int, difference: str | None) -> str:
    if difference is not None:
        return f"check: {REFERENCE} and {C17} differ at {difference}"
    return f"check: {REFERENCE} and {C17} agree at {count} boundar{'y' if count == 1 else 'ies'}"
