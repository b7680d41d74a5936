"""Placement: the device memory of one dispatch's work-item phase (SPEC-02P.1 10.5
paragraphs 6 to 8, 10.6 para 1), and the device layout of values.

`Placement` allocates, in this order: each storage the dispatch reads (its bounding
interval of the views read, in its own layout), the staging of each output (starting
as a copy of the output, copy-in of an inout) [B-16d], the fault word set to all ones
[F-9], then the scratch of one launch: the fuel totals C(i) [B-16c] and each
reduction's contributions and marks. `fetch_outputs` brings the staging back for
`run_dispatch` to publish; `free` gives everything back, whatever happened.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Sequence

from ....analysis.types import BoolType, IntType, Type
from ...dispatch import DispatchPlan
from ...views import Storage
from ..device import Device, DeviceError
from ..ptx import M64, element_bytes


def _code(t: Type) -> str:
    """The `array` type code of an element of type `t` (all of them fixed-size)."""
    if isinstance(t, BoolType):
        return "B"
    assert isinstance(t, IntType) and t.bits <= 64
    return {8: "b", 16: "h", 32: "i", 64: "q"}[t.bits] if t.signed else {8: "B", 16: "H", 32: "I", 64: "Q"}[t.bits]


def pack(t: Type, values: Sequence[int]) -> bytes:
    """Elements of type `t` in device layout: little-endian, natural size, Bool one byte."""
    data = array(_code(t), values)
    if sys.byteorder != "little":
        data.byteswap()
    return data.tobytes()


def unpack(t: Type, data: bytes) -> list[int]:
    """The values of elements of type `t` in device layout."""
    items = array(_code(t))
    items.frombytes(data)
    if sys.byteorder != "little":
        items.byteswap()
    return [v != 0 for v in items] if isinstance(t, BoolType) else items.tolist()


def registers(t: Type, data: bytes) -> list[int]:
    """The values of type `t` of a sequence of canonical 64-bit register patterns (the
    reduction scratch): sign-extended patterns read as I64, the others as U64."""
    items = array("q" if isinstance(t, IntType) and t.signed else "Q")
    items.frombytes(data)
    if sys.byteorder != "little":
        items.byteswap()
    return [v != 0 for v in items] if isinstance(t, BoolType) else items.tolist()


class Placement:
    """The device memory of one dispatch (see the module's docstring)."""

    def __init__(self, device: Device) -> None:
        self.device = device
        self.allocations: list[int] = []
        self.inputs: dict[int, tuple[int, int]] = {}  # storage id -> (device address, first offset)
        self.staged: dict[int, int] = {}  # parameter -> device address of its staging
        self.fault_word = 0
        self.fuel = 0  # the fuel totals C(i) of a launch; 0 when the body charges nothing
        self.contrib: list[int] = []  # per reduction: a U64 contribution per work-item of a launch
        self.marks: list[int] = []  # per reduction: a U8 mark per work-item of a launch

    def alloc(self, nbytes: int) -> int:
        address = self.device.alloc(max(nbytes, 1))
        self.allocations.append(address)
        return address

    def upload(self, data: bytes) -> int:
        """`data` in new device memory; its address."""
        address = self.alloc(len(data))
        self.device.upload(address, data)
        return address

    def place(self, plan: DispatchPlan) -> None:
        """The inputs, the staging of the outputs and the fault word."""
        # Inputs: each storage read, its bounding interval, in its own layout.
        intervals: dict[int, tuple[Storage, int, int]] = {}  # storage id -> (storage, lo, hi)
        for p, param in enumerate(plan.kernel.params):
            view = plan.reads[p]
            interval = None if view is None or param.mode == "out" else view.bounding_interval()
            if view is None or interval is None:
                continue
            lo, hi = interval
            seen = intervals.get(view.storage.id)
            if seen is not None:
                lo, hi = min(seen[1], lo), max(seen[2], hi)
            intervals[view.storage.id] = (view.storage, lo, hi)
        for storage_id, (storage, lo, hi) in intervals.items():
            self.inputs[storage_id] = (self.upload(pack(storage.element, storage.values[lo:hi + 1])), lo)
        # Outputs: staged in device memory, starting as a copy of the output [B-16d].
        for p, view in enumerate(plan.writes):
            if view is not None and view.size > 0:
                self.staged[p] = self.upload(pack(view.element, view.storage.values))
        # The fault word: all ones, no fault [F-9].
        self.fault_word = self.upload(M64.to_bytes(8, "little"))

    def scratch(self, launch: int, charges: bool, reductions: int) -> None:
        """The scratch of a launch of up to `launch` work-items: the fuel totals when
        the body charges fuel (10.5 para 6), each reduction's contributions and marks
        (para 7)."""
        self.fuel = self.alloc(8 * launch) if charges else 0
        self.contrib = [self.alloc(8 * launch) for _ in range(reductions)]
        self.marks = [self.alloc(launch) for _ in range(reductions)]

    def fetch_outputs(self, plan: DispatchPlan) -> None:
        """The staging comes back to the host's staging; run_dispatch publishes it."""
        for p, address in self.staged.items():
            view = plan.writes[p]
            assert view is not None, "a staged parameter is written"
            data = self.device.download(address, view.size * element_bytes(view.element))
            view.storage.values[:] = unpack(view.element, data)

    def release(self, address: int) -> None:
        """Give one allocation back now (a scratch buffer the kernel does not use)."""
        if address in self.allocations:
            self.allocations.remove(address)
            self.device.free(address)

    def free(self) -> None:
        for address in self.allocations:
            try:
                self.device.free(address)
            except DeviceError:
                pass
