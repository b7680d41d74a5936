"""Host statuses of gpu-cuda that are not cint faults (SPEC-02P.1 10.5 para 9, 10.6
para 11): the entry ends with CINT_RESOURCE and a boundary record whose operation is
`host.resource` (a driver error: a time limit, a lost device, an allocation that
failed...) or `host.divergence` (the device reported a fault at work-item k, and
running k again on the host completes: the executor is defective).

The boundary record travels in `RunResult.fault` in the one FaultRecord shape, with the
code `CINT_RESOURCE`, no operands, the dispatch as position and address (phase 1, no
work-item) and the observations in `details`; `running.report` prints it like a fault.
"""

from __future__ import annotations

from ...syntax.source import Span
from ..faults import CINT_RESOURCE, HOST_DIVERGENCE, HOST_RESOURCE, PHASE_WORK_ITEM, Address, FaultRecord

__all__ = ["CINT_RESOURCE", "HOST_DIVERGENCE", "HOST_RESOURCE", "HostStatus"]


class HostStatus(Exception):
    """Raised through the dispatch protocol when the entry must end with a host status."""

    def __init__(self, operation: str, details: list[str]) -> None:
        super().__init__(f"{operation}: {'; '.join(details)}")
        self.operation = operation
        self.details = list(details)
        self.kernel: str | None = None
        self.number: int | None = None
        self.span: Span | None = None

    def locate(self, kernel: str, number: int, span: Span | None) -> None:
        if self.kernel is None:
            self.kernel, self.number, self.span = kernel, number, span

    def record(self, fuel_consumed: int) -> FaultRecord:
        address = None
        if self.kernel is not None and self.number is not None:
            address = Address(self.kernel, self.number, PHASE_WORK_ITEM)
        return FaultRecord(CINT_RESOURCE, self.operation, (), None, None, self.span, (), address, (),
                           fuel_consumed, tuple(self.details))
