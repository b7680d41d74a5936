"""Host statuses of gpu-cuda that are not cint faults (SPEC-02P.1 10.5 para 9, 10.6
para 11): the entry ends with CINT_RESOURCE and a boundary record whose operation is
`host.resource` (a driver error: a time limit, a lost device, an allocation that
failed...) or `host.divergence` (the device reported a fault at work-item k, and
running k again on the host completes: the executor is defective).

The boundary record travels in `RunResult.fault` in the one FaultRecord shape, with the
code `CINT_RESOURCE`, no operands, the dispatch as position and address (phase 1, no
work-item) and the observations in `details`; `render_host_status` prints it.
"""

from __future__ import annotations

from ...syntax.source import SourceText, Span
from ..faults import PHASE_WORK_ITEM, Address, FaultRecord
from ..report import format_address, record_frame

CINT_RESOURCE = "CINT_RESOURCE"
HOST_RESOURCE = "host.resource"
HOST_DIVERGENCE = "host.divergence"


class HostStatus(Exception):
    """Raised through the dispatch protocol when the entry must end with a host status."""

    def __init__(self, operation: str, details: list[str]) -> None:
        super().__init__(f"{operation}: {'; '.join(details)}")
        self.operation = operation
        self.details = list(details)
        self.kernel: str | None = None
        self.number: int | None = None
        self.span: Span | None = None

    def locate(self, kernel: str, number: int, span: Span) -> None:
        if self.kernel is None:
            self.kernel, self.number, self.span = kernel, number, span

    def record(self, fuel_consumed: int) -> FaultRecord:
        address = None
        if self.kernel is not None and self.number is not None:
            address = Address(self.kernel, self.number, PHASE_WORK_ITEM)
        return FaultRecord(CINT_RESOURCE, self.operation, (), None, None, self.span, (), address, (),
                           fuel_consumed, tuple(self.details))


def is_host_status(record: FaultRecord | None) -> bool:
    return record is not None and record.code == CINT_RESOURCE


def render_host_status(source: SourceText, record: FaultRecord, *, fuel: bool = True) -> str:
    """The report of a boundary record:

        host[CINT_RESOURCE]: the device failed; the entry ended (not a cint fault)
          --> heat.ci:25:5
        ...
           = operation: host.resource
           = detail: CUDA_ERROR_LAUNCH_TIMEOUT: the launch timed out and was terminated
           = address: heat.diffuse, dispatch 0, phase 1, work-item none, step none
    """
    what = ("the device and the host disagree: the executor is defective"
            if record.operation == HOST_DIVERGENCE else "the device failed")
    framed, width = record_frame(source, record)
    lines = [f"host[{record.code}]: {what}; the entry ended (not a cint fault)", *framed]
    fields = [f"operation: {record.operation}", *(f"detail: {d}" for d in record.details)]
    if record.address is not None:
        fields.append(f"address: {format_address(record.address)}")
    if fuel:
        fields.append(f"fuel-consumed: {record.fuel_consumed} (not part of the fault record)")
    indent = " " * (width + 1)
    lines += [f"{indent}= {f}" for f in fields]
    return "\n".join(lines) + "\n"
