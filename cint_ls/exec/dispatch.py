"""The dispatch protocol, written once for every executor (SPEC-02P.1 clauses 5 to 9).

`Dispatcher` numbers the dispatches of an entry [F-1] and gives a work-item or epilogue
fault the dispatch as its innermost frame [F-8]; `run_dispatch` makes the entry checks
of Table 1 in order (binding the sizes once, check 5), stages the outputs, asks the
executor's `WorkItemRunner` to run the work-items, completes the reductions in the
epilogue and publishes by copy-out. An executor supplies only the runner: its limits
(check 8), how work-items run and how the canonical work-item fault is found and
described.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..analysis.types import I64, U64
from ..ir import nodes as ir
from ..syntax.source import Span
from .alias import (
    alias_fault,
    first_alias_pair,
    first_injective_failure,
    first_unwritable_output,
    injective_fault,
    permission_fault,
)
from .arith import OperationFault, binary, make_reducer
from .faults import PHASE_ENTRY, PHASE_EPILOGUE, PHASE_WORK_ITEM, Address, StackFrame
from .runtime import DISPATCH_LOG_LIMIT, CintFault, DispatchRow, Fuel
from .selection import current_selection
from .views import Value, View, copy_elements, staging_for, store_elements

# Evaluates a uniform expression (over extents, where sides) given the size values.
UniformEvaluator = Callable[[ir.Expr, list[Any]], int]

# Per parameter, what a dispatch is given: a View (arrays), a value (scalar in) or None
# (scalar out); and what it gives back: the value of each scalar out parameter, None elsewhere.
Argument = View | Value | None
Results = list[Value | None]


@dataclass
class DispatchPlan:
    """Everything a runner needs: bound sizes, the iteration space, the views to read
    and to write, scalar arguments, and the entry's fuel."""

    kernel: ir.Kernel
    number: int
    sizes: list[int]
    space: list[int]  # the over extents
    count: int  # N, the number of work-items
    reads: list[View | None]  # per parameter: the argument view (inout: pre-dispatch values)
    writes: list[View | None]  # per parameter: the staging of an out or inout array
    scalars: list[Value | None]  # per parameter: the value of a scalar in parameter
    fuel: Fuel
    span: Span | None = None  # the dispatch statement's kernel name: where a host status is reported


@dataclass
class WorkPhase:
    """What the work-items produced: the canonical work-item-phase fault (its address
    filled in) or None, and every reduction's contributions in ascending work-item
    order, as (work-item, value)."""

    fault: CintFault | None
    contributions: list[list[tuple[int, int | bool]]] = field(default_factory=list)
    # Instead of contributions: each reduction's accumulator with every contribution
    # already added (a runner that adds them where it runs them, cpu-c17's in C).
    reducers: list[Any] | None = None


class WorkItemRunner:
    """What an executor supplies to the protocol."""

    def limits(self, kernel: ir.Kernel, space: list[int]) -> OperationFault | None:
        """Check 8: the refusal (E_UNSUPPORTED bind.limit) of a dispatch over `space`
        (the over extents, bound at check 5) beyond the executor's limits, else None."""
        return None

    def run(self, plan: DispatchPlan) -> WorkPhase:
        """The work-item phase: run the work-items of `plan`, find the canonical fault."""
        raise NotImplementedError

    # The order the work-items of a faulting dispatch ran in, for the trace's fault map
    # (running/trace.py): "ascending" where they run in ascending order and stop at the
    # first fault (which work-items ran is then known), None where the runner does not say.
    order: str | None = None

    def counters(self) -> dict[str, int]:
        """Running totals the report shows per dispatch (gpu-cuda: its launches); the
        Dispatcher records what each dispatch added."""
        return {"threads": 1}

    def contribute(self, target: int, value: Value, span: Span, step: int) -> None:
        """A reduce statement's contribution to reduction `target` from the work-item being
        run, for a runner that runs a kernel's IR on the host (cpu-sir-interp's, and
        gpu-cuda's re-run of a faulting work-item): where the interpreter's machine sends it."""
        raise NotImplementedError


def _entry_fault(fault: OperationFault, kernel: ir.Kernel, number: int, span: Span) -> CintFault:
    error = CintFault(fault, span)
    error.address = Address(kernel.qualified, number, PHASE_ENTRY)
    return error


def bind_sizes(kernel: ir.Kernel, views: Sequence[View | None]) -> list[int]:
    """Check 5's size binding in two passes (LANGUAGE.md "Kernels"; SPEC-02P.1 5.3
    example 8): bare symbols bind in parameter order, then compound extents."""
    sizes: list[int | None] = [None] * len(kernel.sizes)
    for p, param in enumerate(kernel.params):
        if param.extents is None:
            continue
        for d, extent in enumerate(param.extents):
            if extent.size is None or extent.offset != 0:
                continue
            view = views[p]
            assert view is not None, "an array parameter is given a view"
            actual = view.extents[d]
            bound = sizes[extent.size]
            if bound is None:
                sizes[extent.size] = actual
            elif bound != actual:
                raise OperationFault("E_SHAPE", "bind.shape", [(I64, p), (I64, d), (I64, actual)], None, (I64, bound))
    for p, param in enumerate(kernel.params):
        if param.extents is None:
            continue
        for d, extent in enumerate(param.extents):
            if extent.size is not None and extent.offset == 0:
                continue
            if extent.size is None:
                expected = extent.offset
            else:
                base = sizes[extent.size]
                assert base is not None, "every size symbol is bound bare (C5002)"
                op = "add" if extent.offset >= 0 else "sub"
                try:
                    expected = binary(op, "checked", I64, base, abs(extent.offset))
                except OperationFault as fault:
                    # The extent leaves I64; "no entry check has an exact result" (5.3).
                    raise OperationFault(fault.code, fault.operation, fault.operands, None, fault.limit) from None
            view = views[p]
            assert view is not None, "an array parameter is given a view"
            actual = view.extents[d]
            if actual != expected:
                raise OperationFault("E_SHAPE", "bind.shape", [(I64, p), (I64, d), (I64, actual)], None,
                                     (I64, expected))
    return [s if s is not None else 0 for s in sizes]


# N is at most MAX(I64) (SPEC-02P.1 9.1 para 2): a larger iteration space is beyond the
# limits of every executor, refused at check 8 before check 9 charges anything, so the
# outcome is the same with or without a budget and on every executor.
MAX_WORK_ITEMS = (1 << 63) - 1


def work_items_limit(kernel: ir.Kernel) -> OperationFault:
    """Check 8's refusal of more than MAX_WORK_ITEMS work-items: E_UNSUPPORTED
    bind.limit naming the first array parameter (0 when there is none)."""
    first = next((p for p, param in enumerate(kernel.params) if param.extents is not None), 0)
    return OperationFault("E_UNSUPPORTED", "bind.limit", [(I64, first)], None, None)


def entry_checks(kernel: ir.Kernel, args: Sequence[Argument], evaluate: UniformEvaluator, fuel: Fuel,
                 limits: Callable[[ir.Kernel, list[int]], OperationFault | None] | None = None
                 ) -> tuple[list[int], list[int], int]:
    """Table 1, in order [F-5]. Returns (sizes, over extents, N) or raises the
    OperationFault of the first check that fails; the last check charges N. The sizes
    and over extents are bound once, at check 5; check 8 is `limits(kernel, extents)`."""
    modes = [p.mode for p in kernel.params]
    views = [a if isinstance(a, View) else None for a in args]
    for p, view in enumerate(views):  # check 1: stale storage
        if view is None:
            continue
        made = view.generation
        assert made is not None, "a view records its storage's generation when made"
        if made != view.storage.generation:
            raise OperationFault("E_STALE_HANDLE", "bind.stale", [(I64, p), (U64, made)], None,
                                 (U64, view.storage.generation))
    unwritable = first_unwritable_output(modes, views)  # check 2
    if unwritable is not None:
        raise permission_fault(unwritable)
    for p, (param, view) in enumerate(zip(kernel.params, views)):  # check 3
        if param.extents is None or view is None:
            continue
        if view.element != param.type:
            raise OperationFault("E_UNSUPPORTED", "bind.type", [(I64, p)], None, None)
        if view.rank != len(param.extents):
            raise OperationFault("E_SHAPE", "bind.type", [(I64, p), (I64, view.rank)], None,
                                 (I64, len(param.extents)))
    # Check 4 (placement): every storage of this process is host memory, which every
    # executor admits (gpu-cuda: Table 3, Placements; its runner copies what it reads).
    sizes = bind_sizes(kernel, views)  # check 5
    frame = size_frame(kernel, sizes)
    space = []
    for d, (_, _, extent) in enumerate(kernel.over):
        value = evaluate(extent, frame)
        if value < 0:
            raise OperationFault("E_SHAPE", "bind.over", [(I64, d), (I64, value)], None, (I64, 0))
        space.append(value)
    for index, constraint in enumerate(kernel.where):
        left, right = evaluate(constraint.left, frame), evaluate(constraint.right, frame)
        if not _compare(constraint.op, left, right):
            raise OperationFault("E_SHAPE", "bind.where", [(I64, index), (I64, left), (I64, right)], None, None)
    failing = first_injective_failure(modes, views)  # check 6
    if failing is not None:
        raise injective_fault(failing)
    pair = first_alias_pair(modes, views)  # check 7
    if pair is not None:
        raise alias_fault(*pair)
    count = math.prod(space)
    if count > MAX_WORK_ITEMS:  # check 8, every executor's limit (docs/semantics.md)
        raise work_items_limit(kernel)
    if limits is not None:  # check 8: the executor's own limits
        refusal = limits(kernel, space)
        if refusal is not None:
            raise refusal
    if not fuel.can_charge(count):  # check 9
        raise fuel.exhausted()
    fuel.consumed += count
    return sizes, space, count


def size_frame(kernel: ir.Kernel, sizes: list[int]) -> list[Any]:
    """A frame of the kernel's slots with the size symbols bound, the rest None: where
    the uniform expressions are evaluated, and the start of a work-item's frame."""
    frame: list[Any] = [None] * kernel.slot_count
    for slot, value in zip(kernel.size_slots, sizes):
        frame[slot] = value
    return frame


def _compare(op: str, a: int, b: int) -> bool:
    return {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]


class Dispatcher:
    """The dispatches of one entry. Each takes the next number, from 0 in program order,
    whether it succeeds or faults [F-1]; the stack of a work-item or epilogue fault has
    the dispatch as its innermost entry, that of an entry-phase fault is the caller's
    [F-8]."""

    def __init__(self) -> None:
        self.count = 0  # the dispatches of the entry so far
        # With a list here (an executor's option `report`), a row per dispatch, as
        # RunResult.dispatch_log holds them (runtime.py), up to DISPATCH_LOG_LIMIT.
        self.log: list[DispatchRow] | None = None
        # With a selection here (the option `trace_arrays`, exec/selection.py), the log's rows
        # also hold the values of the selected 2-D out/inout arrays after each dispatch.
        self.arrays = current_selection()
        self.origin: float | None = None  # when the first logged dispatch began

    def dispatch(self, kernel: ir.Kernel, args: Sequence[Argument], span: Span, fuel: Fuel,
                 runner: WorkItemRunner, evaluate: UniformEvaluator) -> Results:
        """`run_dispatch` under the next number (see there)."""
        number = self.count
        self.count += 1  # every dispatch takes a number, faulting or not [F-1]
        row = None
        if self.log is not None and len(self.log) < DISPATCH_LOG_LIMIT:
            row = {"number": number, "kernel": kernel.qualified, "work_items": None}
            before, consumed, started = runner.counters(), fuel.consumed, time.perf_counter()
            if self.origin is None:
                self.origin = started
            row["start"] = started - self.origin
            row["order"] = runner.order
        try:
            results = run_dispatch(kernel, args, number, span, fuel, runner, evaluate, row)
            if row is not None and self.arrays is not None:
                row["arrays"] = self.arrays.snapshot(kernel, args)
            return results
        except CintFault as error:
            if error.address is not None and error.address.phase != PHASE_ENTRY:
                # A work-item or epilogue fault has the dispatch as innermost frame [F-8].
                error.frames.append(StackFrame(kernel.qualified, span))
            raise
        finally:
            if row is not None:
                row["seconds"] = time.perf_counter() - started
                row["fuel"] = fuel.consumed - consumed
                for name, value in runner.counters().items():
                    row[name] = value if name == "threads" else value - before.get(name, 0)
                self.log.append(row)  # type: ignore[union-attr]


def run_dispatch(kernel: ir.Kernel, args: Sequence[Argument], number: int, span: Span, fuel: Fuel,
                 runner: WorkItemRunner, evaluate: UniformEvaluator, row: DispatchRow | None = None) -> Results:
    """Carry out dispatch `number` (`Dispatcher` numbers them and adds the frame). `args`
    holds, per parameter, a View (arrays), a value (scalar in) or None (scalar out).
    Returns the results of the scalar out parameters, per parameter (None elsewhere),
    after publishing; raises CintFault. `row` (the report's record of the dispatch)
    is given the number of work-items once the entry checks bind it."""
    try:
        sizes, space, count = entry_checks(kernel, args, evaluate, fuel, runner.limits)
    except OperationFault as fault:
        error = _entry_fault(fault, kernel, number, span)
        if fault.operation == "bind.alias":
            p, q = (v for _, v in fault.operands)
            first, second = args[p], args[q]
            assert isinstance(first, View) and isinstance(second, View), "an alias pair is two views"
            error.views = (first.descriptor(), second.descriptor())
        raise error from None
    if row is not None:
        row["work_items"] = count
        row["space"] = list(space)
    reads = [a if isinstance(a, View) else None for a in args]
    # Staging by copy-out (7.3). Out staging starts as a copy too, so an element no
    # work-item writes keeps its value (docs/semantics.md); an inout's must [P-4].
    writes = [staging_for(a, copy_in=True) if isinstance(a, View) and p.mode in ("out", "inout") else None
              for a, p in zip(args, kernel.params)]
    scalars = [a if not isinstance(a, View) else None for a in args]
    plan = DispatchPlan(kernel, number, sizes, space, count, reads, writes, scalars, fuel, span)
    phase = runner.run(plan)
    if phase.fault is not None:
        raise phase.fault
    results = epilogue(kernel, number, phase.contributions, phase.reducers)
    for view, staged in zip(reads, writes):  # publish: all outputs at once, by copy
        if staged is not None:
            assert view is not None, "a staged parameter is an array"
            store_elements(view, copy_elements(staged))
    return results


def epilogue(kernel: ir.Kernel, number: int, contributions: list[list[tuple[int, int | bool]]],
             reducers: list[Any] | None = None) -> Results:
    """Complete the reductions in the declaration order of their targets (9.3);
    the first that faults is the dispatch's fault [R-7]. `reducers`: accumulators that
    hold their contributions already (WorkPhase.reducers)."""
    results: Results = [None] * len(kernel.params)
    for r, reduction in enumerate(kernel.reductions):
        values = contributions[r] if reducers is None else []
        reducer = make_reducer(reduction.kind, reduction.contribution, reduction.target, reduction.init) \
            if reducers is None else reducers[r]
        try:
            for work_item, value in values:
                reducer.add(value, index=work_item)
            results[reduction.param] = reducer.finish()
        except OperationFault as fault:
            error = CintFault(fault, reduction.op.span)
            error.address = Address(kernel.qualified, number, PHASE_EPILOGUE)
            raise error from None
    return results


def work_item_address(kernel: ir.Kernel, number: int, work_item: int, step: int | None) -> Address:
    return Address(kernel.qualified, number, PHASE_WORK_ITEM, work_item, step)
