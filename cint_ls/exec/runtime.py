"""What every executor shares at run time: the fuel of an entry, the fault in flight,
and the result of a run."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeAlias

from ..analysis.types import I64
from ..syntax.source import Span
from .faults import Address, FaultRecord, OperationFault, StackFrame, ViewDescriptor


class Fuel:
    """The fuel of one entry (SPEC-02P.1 8.4): unlimited unless a budget is given."""

    __slots__ = ("budget", "consumed")

    def __init__(self, budget: int | None = None) -> None:
        self.budget = budget
        self.consumed = 0

    def can_charge(self, units: int) -> bool:
        return self.budget is None or self.consumed + units <= self.budget

    def exhausted(self) -> OperationFault:
        """The E_FUEL fault of a charge that would exceed the budget: no operands, the
        budget as the limit (SPEC-02P.1 8.4, Faults)."""
        assert self.budget is not None, "an unlimited fuel is never exhausted"
        return OperationFault("E_FUEL", "fuel.charge", (), None, (I64, self.budget))



def _boundary(row: TraceRow) -> Boundary:
    dispatch, output_length, fuel, digest = row
    if output_length is None or fuel is None:
        raise ValueError(f"a trace row without its output length or fuel: {row}")
    return Boundary(dispatch, output_length, fuel, digest)


class CintFault(Exception):
    """A fault on its way out of an entry. Raised where the operation failed, with its
    position and step; the frames it passes through add themselves to `frames`
    (innermost first), the dispatch its address."""

    def __init__(self, fault: OperationFault, span: Span | None, step: int | None = None) -> None:
        super().__init__(fault.code)
        self.fault = fault
        self.span = span
        self.step = step
        self.frames: list[StackFrame] = []
        self.address: Address | None = None
        self.views: tuple[ViewDescriptor, ...] = ()

    def record(self, fuel_consumed: int) -> FaultRecord:
        f = self.fault
        return FaultRecord(
            code=f.code,
            operation=f.operation,
            operands=tuple(f.operands),
            exact=f.exact,
            limit=f.limit,
            span=self.span,
            stack=tuple(self.frames),
            address=self.address,
            views=self.views,
            fuel_consumed=fuel_consumed,
        )


@dataclass(frozen=True)
class Boundary:
    """A point where two runs are compared (SPEC-02P.1 8.4 example 9): after a published
    dispatch, or the end of the entry (dispatch None)."""

    dispatch: int | None
    output_length: int  # bytes of UTF-8 output so far
    fuel: int
    digest: int | None  # FNV-1a of the published data (exec/digest.py, rt/dispatch.c)


# RunResult.device_kind: a GPU through the CUDA driver, the simulated device, the null device.
GPU_DEVICE, SIMULATED, NULL_DEVICE = "cuda", "sim", "null"
DEVICE_KINDS = (GPU_DEVICE, SIMULATED, NULL_DEVICE)

# RunResult.trace's rows: [dispatch number (None: the entry's end), output bytes, fuel, digest
# (None: the entry's end)], as Boundary takes them; lists, for they cross the isolation as JSON.
TraceRow: TypeAlias = list[int | None]
# RunResult.dispatch_log's rows: JSON objects whose keys depend on the executor (see below).
DispatchRow: TypeAlias = dict[str, Any]

DISPATCH_LOG_LIMIT = 10000  # rows of RunResult.dispatch_log (rt/cint_rt.h CINT_MAX_RECORDS too)


@dataclass
class RunResult:
    """The outcome of running an entry on one executor."""

    output: str
    fault: FaultRecord | None
    fuel_consumed: int
    executor: str
    dispatches: int = 0
    notes: list[str] = field(default_factory=list)  # executor details, not part of the outcome
    # When asked for (option `trace`): one row per boundary (each published dispatch, then
    # the entry's end): [dispatch number, output bytes so far, fuel consumed, digest of the
    # published data]. Executors that cannot trace leave it None: compared at the end only.
    trace: list[TraceRow] | None = None
    # When asked for (option `report`): one row per dispatch, in order, for `cint run
    # --report` (running/report.py, run_report): {"number", "kernel", "work_items" (None when
    # the entry checks ended the dispatch before N was known), "threads" (cpu-c17) or
    # "launches" (gpu-cuda), "seconds" (wall time), "fuel" (consumed by the dispatch)}.
    # At most DISPATCH_LOG_LIMIT rows; the dispatches after those are only counted.
    dispatch_log: list[DispatchRow] | None = None
    # Where the run took place, set by the executor that knows (gpu-cuda), never read out
    # of the notes: the device's description ("NVIDIA H200 (sm_90)", "the simulated
    # device", "the null device (launches do nothing)") and its kind, one of DEVICE_KINDS
    # (the values of gpu-cuda's option `device`). None for both: the CPU.
    device: str | None = None
    device_kind: str | None = None

    @property
    def simulated(self) -> bool:
        """Whether the run took place on gpu-cuda's simulated device."""
        return self.device_kind == SIMULATED

    @property
    def null_device(self) -> bool:
        """Whether the run took place on gpu-cuda's null device (launches do nothing:
        its output, fuel and outcome are not the program's)."""
        return self.device_kind == NULL_DEVICE

    def boundaries(self) -> list[Boundary] | None:
        return None if self.trace is None else [_boundary(row) for row in self.trace]

    @property
    def exit_code(self) -> int:
        return 1 if self.fault is not None else 0
