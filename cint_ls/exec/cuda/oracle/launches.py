"""The launch loop of a dispatch and the host's scans after each launch (SPEC-02P.1 10.5
paragraphs 4, 6 and 7, 10.6 para 8).

The work-items run in launches over ascending ranges of at most `launch` indices, one
after another, under the dispatch's one number. After each launch the host reads the
fault word, k_b, and scans the work-items of the launch below it in ascending order:

- fuel: the exact prefix sum of their totals C(i) finds k_f, the first work-item whose
  charges take the entry past its budget [B-16c];
- reductions: their contributions and marks, and the fold of each fold_checked, by the
  reduction's own routine, finds k_r, its first overflow [R-9, BACK-08]; a sum,
  sum_wrap, count, min or max is combined on the device per block (`ptx.SLOT_WORDS`),
  and its blocks' slots are read only when the launch has no fault (a dispatch with a
  canonical fault publishes no reduction).

A launch wholly above a fault already found is not started [B-16a]. The scan keeps what
counts for the epilogue and the description: the contributions and the fold partials of
the work-items before k, and the fuel consumed by them.
"""

from __future__ import annotations

import copy
import time
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import accumulate, compress, repeat

from ....analysis.types import U64
from ....ir import nodes as ir
from ...arith import FoldChecked, OperationFault
from ...dispatch import DispatchPlan
from ...interp.compiler import new_fold
from ..device import Device, Function
from ..ptx import KernelCode, canonical, minmax_flip, slot_words
from .params import ParameterTable
from .placement import Placement, registers


@dataclass
class Stats:
    """What the runner did, for tests and notes (not part of any outcome)."""

    dispatches: int = 0
    launches: int = 0
    skipped: int = 0  # launches not started because a fault lay below them
    described: list[int] = field(default_factory=list)  # the k of each re-run
    descriptions: list[tuple[int, int, str]] = field(default_factory=list)  # (dispatch, k, what ran it)
    launch_seconds: float = 0.0  # wall time of the launches (start to completion)
    clamped: dict[str, tuple[int, int]] = field(default_factory=dict)  # kernel -> (block used, its limit), below the chosen block


@dataclass
class Scan:
    """What the launches of a dispatch found (10.6 para 8)."""

    total: int  # the entry's fuel consumed through the work-items counted (those before k)
    folds: dict[int, FoldChecked]  # reduction index -> its fold_checked accumulator over the work-items counted
    contributions: list[list[tuple[int, int | bool]]]  # per reduction, ascending
    k_b: int | None = None  # the fault word, when a work-item faulted on the device
    k_f: int | None = None  # the first work-item whose fuel prefix passes the budget
    k_r: int | None = None  # the first work-item at which a fold_checked overflows

    @property
    def k(self) -> int | None:
        """The least of k_b, k_f and k_r that exists [F-11]."""
        found = [k for k in (self.k_b, self.k_f, self.k_r) if k is not None]
        return min(found) if found else None


class BlockTotals:
    """The contributions of a reduction combined per block (`ptx.SLOT_WORDS`), as the
    epilogue folds them (`exec/dispatch.py`, `epilogue`): pairs (work-item, value) whose
    fold is the same as the work-items' own (a launch's exact total then zeros, one per
    contribution; a count's trues and falses; the extremum as often as there were
    contributions), made as they are read, so that memory stays per launch."""

    def __init__(self) -> None:
        self.groups: list[tuple[int, int, int | bool]] = []  # (work-item, times, value)

    def add(self, item: int, times: int, value: int | bool) -> None:
        if times > 0:
            self.groups.append((item, times, value))

    def __iter__(self) -> Iterator[tuple[int, int | bool]]:
        for item, times, value in self.groups:
            yield from repeat((item, value), times)


def run_launches(device: Device, function: Function, code: KernelCode, plan: DispatchPlan, placement: Placement,
                 table: ParameterTable, block: int, launch: int, stats: Stats) -> Scan:
    kernel = plan.kernel
    scan = Scan(plan.fuel.consumed,  # everything before the dispatch, and N
                {r: new_fold(red)
                 for r, red in enumerate(kernel.reductions) if red.kind == "fold_checked"},
                [BlockTotals() if r in code.slots else [] for r in range(len(kernel.reductions))])  # type: ignore[misc]
    slots = 0
    if code.slot_words:  # the block slots, now that the block size is known
        for r in code.slots:  # combined per block: no scratch per work-item
            for buffers in (placement.contrib, placement.marks):
                if r < len(buffers) and buffers[r]:
                    placement.release(buffers[r])
                    buffers[r] = 0
        slots = placement.alloc(8 * code.slot_words * -(-launch // block))
        table.set_slots(device, code, slots)
    n = plan.count
    first = 0
    while first < n:
        end = min(first + launch, n)
        count = end - first
        grid = -(-count // block)
        for r in range(len(kernel.reductions)):
            if r not in code.slots:
                device.fill(placement.marks[r], 0, count)
        if slots:
            device.fill(slots, 0, 8 * code.slot_words * grid)
        table.set_folds(device, code, {r: canonical(kernel.reductions[r].target, fold.acc)
                                       for r, fold in scan.folds.items()})
        params = table.launch(first, end)
        started = time.perf_counter()
        device.launch(function, grid, block, params)
        stats.launch_seconds += time.perf_counter() - started
        stats.launches += 1
        word = int.from_bytes(device.download(placement.fault_word, 8), "little")
        stop = end
        if word < end:
            scan.k_b = stop = word  # every work-item below it completed [F-10]
        before = None
        if code.charges and stop > first:
            stop, before = _scan_fuel(device, placement, plan.fuel.budget, scan, first, stop)
        if stop > first and len(code.slots) < len(kernel.reductions):
            _scan_reductions(device, placement, kernel, code, scan, first, stop, before)
        if scan.k is None and slots:
            _read_slots(device, slots, code, kernel, scan, first, grid, block)
        if scan.k is not None:
            # Every later launch lies wholly above the fault: none starts [B-16a].
            stats.skipped += -(-(n - end) // launch)
            break
        first = end
    return scan


def _read_slots(device: Device, slots: int, code: KernelCode, kernel: ir.Kernel, scan: Scan, first: int,
                grid: int, block: int) -> None:
    """The launch's block slots (no work-item of it faulted): each combined reduction's
    total, count or extremum over the launch, added to its contributions."""
    row = registers(U64, device.download(slots, 8 * code.slot_words * grid))
    for r, groups in combine_slots(code, kernel, row).items():
        totals = scan.contributions[r]
        assert isinstance(totals, BlockTotals)
        for times, value in groups:
            totals.add(first, times, value)


def combine_slots(code: KernelCode, kernel: ir.Kernel, row: list[int]) -> dict[int, list[tuple[int, int | bool]]]:
    """The block slots of a launch (U64 words, `code.slot_words` per block) combined: per
    combined reduction, (times, value) groups that its reducer folds to the blocks'
    result (a sum: the exact total once, then zeros, one per other contribution; a count:
    its trues and falses; min, max: the extremum once per contribution)."""
    words = code.slot_words
    out: dict[int, list[tuple[int, int | bool]]] = {}
    for r, offset in code.slots.items():
        reduction = kernel.reductions[r]
        kind = reduction.kind
        signed = bool(getattr(reduction.contribution, "signed", False))
        groups: list[tuple[int, int | bool]] = []
        if kind in ("sum", "sum_wrap"):
            if slot_words(reduction) == 2:  # one word: the exact sum, two's complement when signed
                counted = sum(row[offset + 1::words])
                total = sum((x ^ (1 << 63)) - (1 << 63) for x in row[offset::words]) if signed \
                    else sum(row[offset::words])
            else:  # the low and high 32-bit halves: high * 2**32 + low
                counted = sum(row[offset + 2::words])
                high = sum((h ^ (1 << 63)) - (1 << 63) for h in row[offset + 1::words])
                total = high * (1 << 32) + sum(row[offset::words])
            groups = [(1 if counted else 0, total), (counted - 1, 0)]
        elif kind == "count":
            counted, trues = sum(row[offset + 1::words]), sum(row[offset::words])
            groups = [(trues, True), (counted - trues, False)]
        else:
            present = [best for best, times in zip(row[offset::words], row[offset + 1::words]) if times]
            if present:
                value = max(present) ^ minmax_flip(kind, signed)
                if signed:
                    value = (value ^ (1 << 63)) - (1 << 63)
                groups = [(sum(row[offset + 1::words]), value)]
        out[r] = [(times, value) for times, value in groups if times > 0]
    return out


def _scan_fuel(device: Device, placement: Placement, budget: int | None, scan: Scan, first: int, stop: int
               ) -> tuple[int, list[int]]:
    """Fuel: the exact prefix sums of the totals C(i) of the completed work-items
    [first, stop); k_f is the first whose prefix takes the entry past its budget
    [B-16c]. Returns the new stop and the fuel consumed before each work-item counted."""
    charges = registers(U64, device.download(placement.fuel, 8 * (stop - first)))
    total = scan.total
    if budget is None:
        total_here = [total + c for c in accumulate(charges)]
    else:
        total_here = list(accumulate(charges, initial=total))[1:]
        j = bisect_right(total_here, budget)  # the prefix never decreases
        if j < len(total_here):
            scan.k_f = stop = first + j
            total_here = total_here[:j]
    if total_here:
        scan.total = total_here[-1]
    return stop, [total] + total_here[:-1]


def _scan_reductions(device: Device, placement: Placement, kernel: ir.Kernel, code: KernelCode, scan: Scan,
                     first: int, stop: int, before: list[int] | None) -> None:
    """Reductions: the contributions of the work-items [first, stop), in ascending order;
    each fold_checked finds its first overflow by its exact prefix [R-9]: k_r. `before`
    is the fuel consumed before each work-item (None: the body charges nothing)."""
    scanned = stop - first
    streams: list[list[tuple[int, int]]] = []  # per reduction: (work-item, contribution)
    for r, reduction in enumerate(kernel.reductions):
        if r in code.slots:  # combined per block: read after the launch (_read_slots)
            streams.append([])
            continue
        marked = device.download(placement.marks[r], scanned)
        given = registers(reduction.contribution, device.download(placement.contrib[r], 8 * scanned))
        # bit 0: it contributed (bit 1, ptx.MARK_DONE, only says it completed)
        streams.append(list(compress(zip(range(first, stop), given), (m & 1 for m in marked))))
    for r, fold in scan.folds.items():  # the least first overflow of every fold
        trial = copy.copy(fold)
        for i, value in streams[r]:
            if scan.k_r is not None and i >= scan.k_r:
                break
            try:
                trial.add(value, index=i)
            except OperationFault:
                scan.k_r = i  # (9.2 para 4)
                break
    if scan.k_r is not None:  # the work-items from k_r on do not count
        streams = [stream[:bisect_left(stream, (scan.k_r,))] for stream in streams]
        if before is not None:
            scan.total = before[scan.k_r - first]
    for r, stream in enumerate(streams):
        if r in code.slots:
            continue
        kept = scan.folds.get(r)
        if kept is not None:
            for i, value in stream:
                kept.add(value, index=i)  # no overflow below k_r: the partial before it
        scan.contributions[r].extend(stream)
