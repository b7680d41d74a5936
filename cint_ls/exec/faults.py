"""The fault record (SPEC-02P.1 5.6, LANGUAGE.md "Reports"), one shape for every executor.

The C and PTX paths serialize this record (`to_json`) rather than re-derive it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, TypeAlias

from ..analysis.types import Type, scalar_type_named
from ..syntax.source import Span
from ..vocabulary.faults import CINT_RESOURCE as CINT_RESOURCE  # the records' readers import it from here
from ..vocabulary.faults import FAULT_MESSAGES as FAULT_MESSAGES

PHASE_ENTRY, PHASE_WORK_ITEM, PHASE_EPILOGUE = 0, 1, 2

# Host statuses (SPEC-02P.1 10.5 para 9, 10.6 para 11): not cint faults, but the entry
# ends with a boundary record in the FaultRecord shape, code CINT_RESOURCE (the
# vocabulary's), whose operation says which: a driver error, a device/host divergence
# (a defect), or calls nested deeper than the executors' limit or than a machine's stack holds
# (docs/semantics.md, "Calls"). host.stack travels like a fault (position, stack,
# address), so that the first one in ascending work-item order is the one reported.
HOST_RESOURCE = "host.resource"
HOST_DIVERGENCE = "host.divergence"
HOST_STACK = "host.stack"
MAX_CALL_DEPTH = 100_000  # nested calls every executor runs; the call beyond: host.stack

TypedValue = tuple[Type, int]
JsonObject: TypeAlias = dict[str, Any]  # a JSON object as `json` reads it: a record, a report row, options


@dataclass(frozen=True, slots=True)
class Address:
    """Where in a dispatch a fault happened (SPEC-02P.1 3.10, 5.6)."""

    kernel: str  # qualified by its module: `heat_e1.diffuse`
    dispatch: int
    phase: int
    work_item: int | None = None
    step: int | None = None


@dataclass(frozen=True, slots=True)
class ViewDescriptor:
    """A view in a bind.alias record (SPEC-02P.1 6.3): placement left out."""

    element: str
    origin: int
    extents: tuple[int, ...]
    strides: tuple[int, ...]
    writable: bool

    @property
    def rank(self) -> int:
        return len(self.extents)


@dataclass(frozen=True, slots=True)
class StackFrame:
    """One frame: the code that was running (`budget.run`, `budget entry`) and the
    position of the call or dispatch in it."""

    function: str
    span: Span


@dataclass(frozen=True, slots=True)
class FaultRecord:
    code: str
    operation: str
    operands: tuple[TypedValue, ...]
    exact: int | Fraction | None
    limit: TypedValue | None
    span: Span | None  # the position; None only for a fault with no source position
    stack: tuple[StackFrame, ...] = ()
    address: Address | None = None
    views: tuple[ViewDescriptor, ...] = ()
    fuel_consumed: int = 0  # not part of the record proper: printed after it
    details: tuple[str, ...] = field(default=(), compare=False)  # executor notes, not part of the record

    @property
    def message(self) -> str:
        if self.is_host_status:
            if self.operation == HOST_STACK:
                # With the executors' limit as `limit`; without one, a machine's own stack
                # ran out first (cpu-c17, a program with very large frames).
                return ("the calls nest deeper than the executors' limit of "
                        f"{self.limit[1]} calls" if self.limit is not None else
                        "the executor's call stack is used up")
            return ("the device and the host disagree: the executor is defective"
                    if self.operation == HOST_DIVERGENCE else "the device failed")
        return FAULT_MESSAGES.get(self.code, self.code)

    @property
    def is_host_status(self) -> bool:
        """A boundary record of the host (CINT_RESOURCE), not a cint fault."""
        return self.code == CINT_RESOURCE

    # ---- serialization, for the records that come back from C and PTX runs

    def to_json(self) -> JsonObject:
        def span(s: Span | None) -> list[int] | None:
            return None if s is None else [s.start_byte, s.end_byte, s.line, s.column, s.end_line, s.end_column]

        def exact(x: int | Fraction | None) -> list[str] | str | None:
            if x is None:
                return None
            if isinstance(x, Fraction):
                return [str(x.numerator), str(x.denominator)]
            return str(x)

        return {
            "code": self.code,
            "operation": self.operation,
            "operands": [[t.name, str(v)] for t, v in self.operands],
            "exact": exact(self.exact),
            "limit": None if self.limit is None else [self.limit[0].name, str(self.limit[1])],
            "span": span(self.span),
            "stack": [[f.function, span(f.span)] for f in self.stack],
            "address": None if self.address is None else [
                self.address.kernel, self.address.dispatch, self.address.phase,
                self.address.work_item, self.address.step,
            ],
            "views": [[v.element, v.origin, list(v.extents), list(v.strides), v.writable] for v in self.views],
            "fuel_consumed": self.fuel_consumed,
            "details": list(self.details),
        }

    @staticmethod
    def from_json(data: JsonObject) -> FaultRecord:
        def typed(pair: list[str]) -> TypedValue:
            t = scalar_type_named(pair[0])
            if t is None:
                raise ValueError(f"unknown type {pair[0]!r} in a fault record")
            return t, int(pair[1])

        def span(s: list[int] | None) -> Span | None:
            return None if s is None else Span(*s)

        def frame_span(s: list[int]) -> Span:
            return Span(*s)  # a frame always has its position

        exact = data["exact"]
        if isinstance(exact, list):
            exact = Fraction(int(exact[0]), int(exact[1]))
        elif exact is not None:
            exact = int(exact)
        address = data["address"]
        return FaultRecord(
            code=data["code"],
            operation=data["operation"],
            operands=tuple(typed(p) for p in data["operands"]),
            exact=exact,
            limit=None if data["limit"] is None else typed(data["limit"]),
            span=span(data["span"]),
            stack=tuple(StackFrame(f, frame_span(s)) for f, s in data["stack"]),
            address=None if address is None else Address(*address),
            views=tuple(ViewDescriptor(e, o, tuple(x), tuple(s), w) for e, o, x, s, w in data["views"]),
            fuel_consumed=data["fuel_consumed"],
            details=tuple(data.get("details", ())),
        )


class OperationFault(Exception):
    """A fault raised by one operation, before the executor adds the position, the
    stack and the address: code, operation identifier, typed operands, exact, limit.
    Picklable and comparable, so records can cross process boundaries and tests."""

    def __init__(
        self,
        code: str,
        operation: str,
        operands: tuple[TypedValue, ...] | list[TypedValue] = (),
        exact: int | Fraction | None = None,
        limit: TypedValue | None = None,
    ) -> None:
        super().__init__(code, operation, operands, exact, limit)
        self.code = code
        self.operation = operation
        self.operands = operands
        self.exact = exact
        self.limit = limit

    @property
    def message(self) -> str:
        return FAULT_MESSAGES.get(self.code, self.code)

    def __str__(self) -> str:
        return f"{self.code}: {self.message} ({self.operation})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, OperationFault):
            return NotImplemented
        return self.args == other.args

    __hash__ = Exception.__hash__
