"""The host protocol of gpu-cuda (SPEC-02P.1 10.5 paragraphs 4 to 9, 10.6).

The host runs the program's sequential code: here the reference interpreter's machine,
whose dispatches go through the shared protocol (`exec/dispatch.py`: the numbering, the
entry checks of Table 1, the epilogue, publication and the dispatch frame, written once
for every executor). gpu-cuda supplies the
`WorkItemRunner`, `CudaRunner`, which runs the work-item phase on a device:

1. the PTX module of the program is loaded at the first dispatch of one of its kernels;
2. the inputs are placed in device memory (each storage's bounding interval of the
   views read, in its own layout), and each output is staged in device memory, starting
   as a copy of the output (copy-in of an inout) [B-16d];
3. the fault word, a U64 in device memory, is set to all ones [F-9];
4. the work-items run in launches over ascending ranges of at most `max_launch`
   indices, one after another, under the dispatch's one number; after each launch the
   host reads the fault word k_b and, for the work-items of the launch below it, their
   fuel totals C(i) and their reduction contributions and marks, and it scans them in
   ascending order: the exact prefix sum of the C(i) finds k_f, the first work-item
   whose charges take the entry past its budget [B-16c], and the fold of each
   fold_checked, by the reduction's own routine, finds k_r, its first overflow
   [R-9, BACK-08]. A launch wholly above a fault already found is not started [B-16a];
5. k is the least of k_b, k_f and k_r. If it exists, work-item k runs again on the
   host in the cpu-c17 code of the kernel (`fault_replay.py`), and its first fault, with
   the fuel consumed before it, is the dispatch's fault; if that run completes, the
   entry ends with host.divergence [F-11]. Otherwise the staging comes back to the host, the fuel consumed becomes the
   entry's total, and `run_dispatch` completes the reductions (sum exact, sum_sat as the
   left fold, ...) and publishes by copy-out;
6. a driver error anywhere ends the entry with CINT_RESOURCE and host.resource [B-16e].

A host status is reported at the dispatch: its kernel, number and position.
"""

from __future__ import annotations

import copy
import math
import sys
import time
from array import array
from bisect import bisect_left, bisect_right
from itertools import accumulate, compress
from collections.abc import Sequence
from dataclasses import dataclass, field

from ...analysis.types import I64, U64, BoolType, IntType, Type
from ...ir import nodes as ir
from ..arith import OperationFault, make_reducer
from ..dispatch import DispatchPlan, WorkItemRunner, WorkPhase
from ..interp.machine import Machine
from .fault_replay import describe_work_item
from .device import Device, DeviceError
from .ptx import M64, Param, PtxModule, canonical, element_bytes
from .status import HOST_DIVERGENCE, HOST_RESOURCE, HostStatus

MAX_I64 = (1 << 63) - 1
DEFAULT_BLOCK = 256
DEFAULT_MAX_LAUNCH = 1 << 24  # work-items per launch: bounds the scratch of one launch


def _code(t: Type) -> str:
    """The `array` type code of an element of type `t` (all of them fixed-size)."""
    if isinstance(t, BoolType):
        return "B"
    assert isinstance(t, IntType) and t.bits <= 64
    return {8: "b", 16: "h", 32: "i", 64: "q"}[t.bits] if t.signed else {8: "B", 16: "H", 32: "I", 64: "Q"}[t.bits]


def pack(t: Type, values: Sequence) -> bytes:
    """Elements of type `t` in device layout: little-endian, natural size, Bool one byte."""
    data = array(_code(t), values)
    if sys.byteorder != "little":
        data.byteswap()
    return data.tobytes()


def unpack(t: Type, data: bytes) -> list:
    """The values of elements of type `t` in device layout."""
    items = array(_code(t))
    items.frombytes(data)
    if sys.byteorder != "little":
        items.byteswap()
    return [v != 0 for v in items] if isinstance(t, BoolType) else items.tolist()


def registers(t: Type, data: bytes) -> list:
    """The values of type `t` of a sequence of canonical 64-bit register patterns (the
    reduction scratch): sign-extended patterns read as I64, the others as U64."""
    items = array("q" if isinstance(t, IntType) and t.signed else "Q")
    items.frombytes(data)
    if sys.byteorder != "little":
        items.byteswap()
    return [v != 0 for v in items] if isinstance(t, BoolType) else items.tolist()


def from_register(t: Type, pattern: int):
    """The value of type `t` whose canonical 64-bit register pattern is `pattern`."""
    if isinstance(t, BoolType):
        return pattern != 0
    if isinstance(t, IntType) and t.signed and pattern >> 63:
        return pattern - (1 << 64)
    return pattern


@dataclass
class Stats:
    """What the runner did, for tests and notes (not part of any outcome)."""

    dispatches: int = 0
    launches: int = 0
    skipped: int = 0  # launches not started because a fault lay below them
    described: list[int] = field(default_factory=list)  # the k of each re-run
    descriptions: list[tuple[int, int, str]] = field(default_factory=list)  # (dispatch, k, what ran it)
    launch_seconds: float = 0.0  # wall time of the launches (start to completion)


class CudaRunner(WorkItemRunner):
    """The WorkItemRunner of gpu-cuda (see the module's docstring)."""

    def __init__(self, machine: Machine, device: Device, ptx: PtxModule, *, block_size: int = DEFAULT_BLOCK,
                 max_launch: int = DEFAULT_MAX_LAUNCH) -> None:
        if not 1 <= block_size <= device.max_block:
            raise ValueError(f"a block size of {block_size} work-items is outside 1..{device.max_block}")
        self.m = machine
        self.device = device
        self.ptx = ptx
        self.block = block_size
        if max_launch < 1:
            raise ValueError("a launch holds at least one work-item")
        self.max_launch = min(max_launch, device.max_grid * block_size)  # work-items per launch
        self.module = None
        self.stats = Stats()

    # ---- check 8: the executor's limits

    def limits(self, kernel: ir.Kernel, space: list[int]) -> OperationFault | None:
        """Work-items per dispatch: up to MAX(I64) (Table 3). A larger iteration space is
        refused at check 8, E_UNSUPPORTED bind.limit, naming the first array parameter."""
        if math.prod(space) > MAX_I64:
            first = next((p for p, param in enumerate(kernel.params) if param.extents is not None), 0)
            return OperationFault("E_UNSUPPORTED", "bind.limit", [(I64, first)], None, None)
        return None

    # ---- the work-item phase

    def run(self, plan: DispatchPlan) -> WorkPhase:
        self.stats.dispatches += 1
        kernel = plan.kernel
        contributions: list[list[tuple[int, int | bool]]] = [[] for _ in kernel.reductions]
        if plan.count == 0:
            return WorkPhase(None, contributions)
        allocations: list[int] = []
        try:
            return self._run(plan, contributions, allocations)
        except DeviceError as error:  # [B-16e]
            status = HostStatus(HOST_RESOURCE, [str(error), f"on {self.device.description}"])
            status.locate(kernel.qualified, plan.number, plan.span)
            raise status from None
        except HostStatus as status:
            status.locate(kernel.qualified, plan.number, plan.span)
            raise
        finally:
            for address in allocations:
                try:
                    self.device.free(address)
                except DeviceError:
                    pass

    def _alloc(self, allocations: list[int], nbytes: int) -> int:
        address = self.device.alloc(max(nbytes, 1))
        allocations.append(address)
        return address

    def _run(self, plan: DispatchPlan, contributions, allocations: list[int]) -> WorkPhase:
        device, kernel = self.device, plan.kernel
        if self.module is None:
            self.module = device.load(self.ptx.text)
        code = self.ptx.kernels[kernel.name]
        function = self.module.function(code.entry)

        # Inputs: each storage read, its bounding interval, in its own layout.
        placed: dict[int, tuple[int, int]] = {}  # storage id -> (device address, first offset)
        intervals: dict[int, list] = {}
        for p, param in enumerate(kernel.params):
            view = plan.reads[p]
            if view is None or param.mode == "out" or view.bounding_interval() is None:
                continue
            lo, hi = view.bounding_interval()  # type: ignore[misc]
            seen = intervals.setdefault(view.storage.id, [view.storage, lo, hi])
            seen[1], seen[2] = min(seen[1], lo), max(seen[2], hi)
        for storage_id, (storage, lo, hi) in intervals.items():
            data = pack(storage.element, storage.values[lo:hi + 1])
            address = self._alloc(allocations, len(data))
            device.upload(address, data)
            placed[storage_id] = (address, lo)
        # Outputs: staged in device memory, starting as a copy of the output [B-16d].
        staged: dict[int, int] = {}
        for p, view in enumerate(plan.writes):
            if view is not None and view.size > 0:
                data = pack(view.element, view.storage.values)
                address = self._alloc(allocations, len(data))
                device.upload(address, data)
                staged[p] = address
        # The fault word: all ones, no fault [F-9].
        fault_word = self._alloc(allocations, 8)
        device.upload(fault_word, M64.to_bytes(8, "little"))

        n = plan.count
        launch = min(self.max_launch, n)
        fuel = plan.fuel
        budget = fuel.budget
        total = fuel.consumed  # everything before the dispatch, and N
        allowance = M64 if budget is None else budget - total  # F, 10.5 para 6
        fuel_scratch = self._alloc(allocations, 8 * launch) if code.charges else 0
        contrib = [self._alloc(allocations, 8 * launch) for _ in kernel.reductions]
        marks = [self._alloc(allocations, launch) for _ in kernel.reductions]

        values: dict[tuple, int] = {("fault",): fault_word, ("fuel_left",): allowance, ("fuel",): fuel_scratch}
        for s, size in enumerate(plan.sizes):
            values[("size", s)] = size
        for d, extent in enumerate(plan.space):
            values[("over", d)] = extent
        for p, param in enumerate(kernel.params):
            if param.extents is None:
                if param.mode == "in":
                    values[("scalar", p)] = canonical(param.type, plan.scalars[p])
                continue
            read, write = plan.reads[p], plan.writes[p]
            for d, extent in enumerate(read.extents):
                values[("extent", p, d)] = extent
                values[("stride", p, d)] = read.strides[d] & M64
            if read.storage.id in placed:
                address, lo = placed[read.storage.id]
                values[("read", p)] = address
                values[("origin", p)] = read.origin - lo
            else:
                values[("read", p)] = values[("origin", p)] = 0
            if write is not None:
                values[("write", p)] = staged.get(p, 0)
                for d, stride in enumerate(write.strides):
                    values[("wstride", p, d)] = stride & M64
        for r in range(len(kernel.reductions)):
            values[("contrib", r)] = contrib[r]
            values[("mark", r)] = marks[r]

        if code.block:  # the parameters that do not change between launches, in device memory
            data = pack(U64, [values[(p.kind, *p.index)] for p in code.params[2:]])
            values[("args",)] = self._alloc(allocations, len(data))
            device.upload(values[("args",)], data)
            entry_params = code.params[:2] + [Param("p_args", "args")]
        else:
            entry_params = code.params
        folds = {r: make_reducer(red.kind, red.contribution, red.target, red.init)
                 for r, red in enumerate(kernel.reductions) if red.kind == "fold_checked"}
        k_b = k_f = k_r = None
        first = 0
        while first < n:
            end = min(first + launch, n)
            count = end - first
            for r in range(len(kernel.reductions)):
                device.fill(marks[r], 0, count)
            values[("first",)], values[("end",)] = first, end
            params = [values[(p.kind, *p.index)] for p in entry_params]
            started = time.perf_counter()
            device.launch(function, -(-count // self.block), self.block, params)
            self.stats.launch_seconds += time.perf_counter() - started
            self.stats.launches += 1
            word = int.from_bytes(device.download(fault_word, 8), "little")
            stop = end
            if word < end:
                k_b = stop = word  # every work-item below it completed [F-10]
            # Fuel: the exact prefix sums of the totals C(i) of the completed work-items;
            # k_f is the first whose prefix takes the entry past its budget [B-16c].
            if code.charges and stop > first:
                charges = registers(U64, device.download(fuel_scratch, 8 * (stop - first)))
                if budget is None:
                    total_here = [total + c for c in accumulate(charges)]
                else:
                    total_here = list(accumulate(charges, initial=total))[1:]
                    j = bisect_right(total_here, budget)  # the prefix never decreases
                    if j < len(total_here):
                        k_f = stop = first + j
                        total_here = total_here[:j]
                before = [total] + total_here[:-1]  # the fuel consumed before each work-item
                if total_here:
                    total = total_here[-1]
            else:
                before = None
            # Reductions: the contributions of the work-items below the stop, in ascending
            # order; each fold_checked finds its first overflow by its exact prefix.
            scanned = stop - first
            if scanned > 0 and kernel.reductions:
                streams = []
                for r, reduction in enumerate(kernel.reductions):
                    marked = device.download(marks[r], scanned)
                    given = registers(reduction.contribution, device.download(contrib[r], 8 * scanned))
                    streams.append(list(compress(zip(range(first, stop), given), marked)))
                for r, fold in folds.items():  # the least first overflow of every fold
                    trial = copy.copy(fold)
                    for i, value in streams[r]:
                        if k_r is not None and i >= k_r:
                            break
                        try:
                            trial.add(value, index=i)
                        except OperationFault:
                            k_r = i  # (9.2 para 4)
                            break
                if k_r is not None:  # the work-items from k_r on do not count
                    streams = [stream[:bisect_left(stream, (k_r,))] for stream in streams]
                    if before is not None:
                        total = before[k_r - first]
                for r, stream in enumerate(streams):
                    fold = folds.get(r)
                    if fold is not None:
                        for i, value in stream:
                            fold.add(value, index=i)  # no overflow below k_r: the partial before it
                    contributions[r].extend(stream)
            if k_b is not None or k_f is not None or k_r is not None:
                # Every later launch lies wholly above the fault: none starts [B-16a].
                self.stats.skipped += -(-(n - end) // launch)
                break
            first = end

        found = [k for k in (k_b, k_f, k_r) if k is not None]
        if found:
            k = min(found)
            self.stats.described.append(k)
            partials = {kernel.reductions[r].param: fold for r, fold in folds.items()}
            description = describe_work_item(self.m, plan, k, partials, total)
            self.stats.descriptions.append((plan.number, k, description.note))
            fault, consumed = description.fault, description.consumed
            if fault is None:
                seen = ", ".join(f"{name} = {value}" for name, value in (("k_b", k_b), ("k_f", k_f), ("k_r", k_r))
                                 if value is not None)
                raise HostStatus(HOST_DIVERGENCE, [
                    f"the device reported a fault of work-item {k} ({seen})",
                    f"work-item {k} run again on the host ({description.note}) completes without a fault",
                    f"on {device.description}",
                ])
            fuel.consumed = consumed
            return WorkPhase(fault, contributions)

        fuel.consumed = total
        for p, address in staged.items():  # the staging comes back; run_dispatch publishes
            view = plan.writes[p]
            data = device.download(address, view.size * element_bytes(view.element))
            view.storage.values[:] = unpack(view.element, data)
        return WorkPhase(None, contributions)


class CudaMachine(Machine):
    """The host: the interpreter's machine, whose dispatches go through the shared
    protocol, with gpu-cuda's runner."""

    def __init__(self, program: ir.Program, fuel, write, device: Device, ptx: PtxModule, **runner) -> None:
        super().__init__(program, fuel, write)
        self.runner = CudaRunner(self, device, ptx, **runner)  # type: ignore[assignment]


__all__ = ["CudaMachine", "CudaRunner", "DEFAULT_BLOCK", "DEFAULT_MAX_LAUNCH", "Stats", "pack", "registers", "unpack"]
