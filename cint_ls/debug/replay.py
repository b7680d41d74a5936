"""To one work-item of a big program, fast: cpu-c17 runs the program, the reference runs
the one work-item being debugged (issue 30, `stopOnFault` and `runToWorkItem`).

A dispatch of a million work-items is out of the reference's reach (some 30 times
slower than cpu-c17). So, for `stopOnFault`, the program first runs on cpu-c17 as `cint
run --executor cpu-c17` runs it; when it faults in a work-item, cpu-c17 runs it again up
to that dispatch and hands over the dispatch's inputs, the fuel consumed before the
work-item and the partial results before it (exec/c17/capture.py), and the reference
runs only that work-item, under the debugger: the same replay that describes a gpu-cuda
fault (SPEC-02P.1 10.6 para 9), here with every local, operand and step to look at.
Every executor gives the same record [F-3], so the work-item stops at the operator and
with the record a reference run of the whole program would.

The host's frames (the entry's calls down to the dispatch) are cpu-c17's: their names
and positions come from its record, their variables are not kept.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..exec.arith import FoldChecked
from ..exec.c17.capture import Captured, capture_dispatch
from ..exec.dispatch import DispatchPlan, WorkPhase, work_item_address
from ..exec.faults import PHASE_WORK_ITEM, FaultRecord, StackFrame
from ..exec.interp.machine import InterpRunner, Machine
from ..exec.runtime import CintFault, RunResult
from ..ir import nodes as ir


class NoReplay(Exception):
    """Why the work-item cannot be replayed (one line); the caller says it and runs the
    program on the reference from its start instead."""


@dataclass
class Replay:
    """What the reference needs to run work-item `captured.item` of a dispatch alone."""

    captured: Captured
    host: list[StackFrame]  # the entry's calls at the dispatch, innermost first (cpu-c17's)
    output: str  # what the program printed on cpu-c17 (before its fault, where it faulted)
    result: RunResult  # cpu-c17's run of the whole program


def fault_replay(program: ir.Program, fuel: int | None) -> tuple[RunResult, Replay | None]:
    """The program run on cpu-c17; where it faults in a work-item, that work-item's replay
    (None: it ended without a fault). NoReplay: the fault is not in a work-item (the
    reference must run the host code that raised it), or cpu-c17 cannot run the program."""
    result = _run(program, fuel)
    record = result.fault
    if record is None:
        return result, None
    address = record.address
    if address is None or address.phase != PHASE_WORK_ITEM or address.work_item is None:
        raise NoReplay("the fault is not in a work-item")
    return result, _replay(program, fuel, result, address.dispatch, address.work_item, record)


def work_item_replay(program: ir.Program, fuel: int | None, dispatch: int, work_item: int) -> Replay:
    """Work-item `work_item` of dispatch `dispatch` (numbered from 0 [F-1]), its program
    run on cpu-c17 up to it."""
    result = _run(program, fuel)
    if dispatch >= result.dispatches and (result.fault is None or result.fault.address is None
                                          or result.fault.address.dispatch < dispatch):
        raise NoReplay(f"the program makes {result.dispatches} dispatches, none numbered {dispatch}")
    record = result.fault
    same = record is not None and record.address is not None and record.address.dispatch == dispatch
    return _replay(program, fuel, result, dispatch, work_item, record if same else None)


def _cannot_run() -> tuple[type[BaseException], ...]:
    """What cpu-c17 raises where it cannot run a program here (no compiler, beyond its
    limits, a run without an outcome, memory): the reference runs it instead."""
    from ..exec.c17 import library
    from ..exec.c17.build import NoCompiler

    return NoCompiler, library.Untranslatable, library.C17RunError, MemoryError


def _run(program: ir.Program, fuel: int | None) -> RunResult:
    from ..exec.c17 import library

    try:
        return library.run(program, fuel)
    except _cannot_run() as error:
        raise NoReplay(f"cpu-c17 cannot run it ({error})") from None


def _replay(program: ir.Program, fuel: int | None, result: RunResult, dispatch: int, work_item: int,
            record: FaultRecord | None) -> Replay:
    try:
        captured = capture_dispatch(program, fuel, dispatch, work_item)
    except _cannot_run() as error:
        raise NoReplay(f"cpu-c17 cannot hand over dispatch {dispatch} ({error})") from None
    if captured is None:
        raise NoReplay(f"dispatch {dispatch} never reached its work-items on cpu-c17 "
                       "(a dispatch of one work-item is not handed over)")
    kernel = captured.plan.kernel
    host = _host_frames(record, kernel) if record is not None else _dispatch_site(program, kernel)
    if host is None:
        raise NoReplay(f"{kernel.name} is dispatched from more than one place, and cpu-c17 keeps no record "
                       f"of which made dispatch {dispatch}")
    captured.plan.span = host[0].span
    return Replay(captured, host, result.output, result)


def _host_frames(record: FaultRecord, kernel: ir.Kernel) -> list[StackFrame] | None:
    """The dispatch's frame and the host's below it, innermost first: the record's
    frames from the dispatch's on (the work-item's own calls come before it [F-8])."""
    for i, frame in enumerate(record.stack):
        if frame.function == kernel.qualified:
            return list(record.stack[i:])
    return None


def _dispatch_site(program: ir.Program, kernel: ir.Kernel) -> list[StackFrame] | None:
    """Without a fault's record, the dispatch's frame where the program dispatches the
    kernel from one place only (the host's calls above it are then not known)."""
    from ..ir.slots import nodes

    sites = [node.span for unit in [program.entry, *program.functions.values()] for node in nodes(unit.body)
             if isinstance(node, ir.Dispatch) and node.kernel == kernel.name]
    return [StackFrame(kernel.qualified, sites[0])] if len(sites) == 1 else None


class WorkItemReplay(InterpRunner):
    """Runs one work-item of a dispatch, its fold_checked partials and the fuel consumed
    before it given, as the reference's runner would have come to it; the observer
    sees it enter and leave as any work-item."""

    def __init__(self, machine: Machine, item: int, folds: dict[int, FoldChecked]) -> None:
        super().__init__(machine)
        self.item = item
        self.given = folds

    def run(self, plan: DispatchPlan) -> WorkPhase:
        m, kernel, k = self.m, plan.kernel, self.item
        body = m.body(kernel)
        frame = self.frame_template(plan)
        self.place(frame, [slot for _, slot, _ in kernel.over], plan.space, k)
        self.lists = {r.param: [] for r in kernel.reductions}
        self.folds = dict(self.given)
        self.work_item = k
        m.step = 0
        if m.observer is not None:
            m.observer.enter(kernel, frame, plan.span, k, plan.number)
        try:
            body(frame)
        except CintFault as error:
            error.address = work_item_address(kernel, plan.number, k, error.step)
            return WorkPhase(error, [])
        finally:
            if m.observer is not None:
                m.observer.leave()
        return WorkPhase(None, [])


__all__ = ["NoReplay", "Replay", "WorkItemReplay", "fault_replay", "work_item_replay"]
