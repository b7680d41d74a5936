"""The one comparer of two runs of an entry (SPEC-02P.1 clause 4: every executor gives the
same outputs, fuel and fault records; 8.4 example 9: `--check` compares at every
boundary). Used by `cint run --check`, the editor's Compare, and the tests.

A *boundary* is each published dispatch (in order) and the end of the entry. When both
results carry a trace (`RunResult.trace`, asked for with the option `trace`), they are
compared at every boundary: the bytes of output so far, the fuel consumed and a digest
of the published data; at the end, the whole output, the fault record field by field
and the fuel consumed. When either has no trace, only the end is compared (1 boundary).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from ..exec.faults import FaultRecord
from ..exec.runtime import Boundary, RunResult

# The order in which the fields of two records are compared (the first that differs
# is the one reported); `details` (executor notes) and the fuel (compared as the run's)
# are not part of the record.
_FIELDS = ("code", "operation", "operands", "exact", "limit", "span", "stack", "address", "views")


@dataclass(frozen=True)
class Comparison:
    """The verdict: how many boundaries were compared, and the first difference (one
    sentence, naming both executors and both values) or None."""

    first: str
    second: str
    boundaries: int
    difference: str | None

    @property
    def agree(self) -> bool:
        return self.difference is None

    @property
    def sentence(self) -> str:
        """`A and B agree at N boundaries`, or `A and B differ at ...`."""
        if self.difference is not None:
            return f"{self.first} and {self.second} differ at {self.difference}"
        plural = "y" if self.boundaries == 1 else "ies"
        return f"{self.first} and {self.second} agree at {self.boundaries} boundar{plural}"

    @property
    def line(self) -> str:
        """`check: A and B agree at N boundaries`, or `check: A and B differ at ...`."""
        return f"check: {self.sentence}"


def _text(data: bytes) -> str:
    return json.dumps(data.decode("utf-8", "replace"))


def _output_difference(a: bytes, b: bytes, first: str, second: str) -> str:
    at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    line = a[:at].count(b"\n") + 1
    start = a.rfind(b"\n", 0, at) + 1

    def rest(data: bytes) -> str:
        end = data.find(b"\n", start)
        return _text(data[start:end if end >= 0 else len(data)])

    return f"the output differs on line {line}: {rest(a)} on {first}, {rest(b)} on {second}"


def fault_difference(a: FaultRecord | None, b: FaultRecord | None, first: str, second: str) -> str | None:
    """The first field in which two records differ, with both values; None when equal."""
    if a is None and b is None:
        return None
    if a is None or b is None:
        only, record = (first, a) if b is None else (second, b)
        return f"only {only} faulted ({record.code} {record.operation})"  # type: ignore[union-attr]
    ja, jb = a.to_json(), b.to_json()
    for key in _FIELDS:
        if key == "exact":  # 6 and 6/1 are the same number
            if a.exact == b.exact:
                continue
        elif ja[key] == jb[key]:
            continue
        return (f"the fault records differ in {key}: {json.dumps(ja[key])} on {first}, "
                f"{json.dumps(jb[key])} on {second}")
    return None


def _end(result: RunResult) -> Boundary:
    return Boundary(None, len(result.output.encode("utf-8")), result.fuel_consumed, None)


def _where(k: int, boundary: Boundary) -> str:
    place = "at the end of the entry" if boundary.dispatch is None else f"after dispatch {boundary.dispatch}"
    return f"boundary {k} ({place})"


def compare(a: RunResult, b: RunResult) -> Comparison:
    """Compare two runs of the same entry: at every boundary when both are traced, else
    at the end. The executors are named by `RunResult.executor`."""
    first, second = a.executor, b.executor
    ta, tb = a.boundaries(), b.boundaries()
    if ta is None or tb is None:
        ta, tb = [_end(a)], [_end(b)]
    out_a, out_b = a.output.encode("utf-8"), b.output.encode("utf-8")
    for k, (x, y) in enumerate(zip(ta, tb), start=1):
        if x.dispatch != y.dispatch:
            def what(d: int | None) -> str:
                return "reached the end of the entry" if d is None else f"published dispatch {d}"
            return Comparison(first, second, k, f"boundary {k}: {first} {what(x.dispatch)}, {second} {what(y.dispatch)}")
        here = _where(k, x)
        pa, pb = out_a[:x.output_length], out_b[:y.output_length]
        if pa != pb:
            return Comparison(first, second, k, f"{here}: {_output_difference(pa, pb, first, second)}")
        if x.fuel != y.fuel:
            return Comparison(first, second, k, f"{here}: the fuel consumed is {x.fuel} on {first}, {y.fuel} on {second}")
        if x.digest != y.digest:
            return Comparison(first, second, k, f"{here}: the published data differ (digest {x.digest:016x} on "
                                                f"{first}, {y.digest:016x} on {second})")
        if x.dispatch is None:
            difference = fault_difference(a.fault, b.fault, first, second)
            if difference is not None:
                return Comparison(first, second, k, f"{here}: {difference}")
    if len(ta) != len(tb):  # unreachable: both traces end with the entry's end
        return Comparison(first, second, min(len(ta), len(tb)), "the traces have different lengths")
    return Comparison(first, second, len(ta), None)
