"""The program being debugged: a run on cpu-sir-interp on a thread of its own, with the
adapter as its observer (exec/interp/observer.py). It stops before a statement (a
breakpoint, a step, a pause, the entry) or where a fault is raised, tells the adapter,
and waits for the next command; while it waits its frames are the adapter's to read.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from ..exec.dispatch import work_item_address
from ..exec.faults import PHASE_EPILOGUE, FaultRecord, StackFrame
from ..exec.interp import Machine
from ..exec.interp.compiler import Frame
from ..exec.interp.observer import unwatch_operations, watch_operations
from ..exec.runtime import CintFault, RunResult
from ..ir import nodes as ir
from ..syntax.source import Span
from .evaluate import EvaluationError, Evaluator
from .replay import NoReplay, Replay, WorkItemReplay, fault_replay, work_item_replay


class Terminated(BaseException):
    """Ends the run where it waits (`disconnect`, `terminate`): not a fault, so nothing
    in the interpreter catches it."""


@dataclass
class Running:
    """A unit running: the entry, a called function or a work-item (a stack frame)."""

    unit: ir.Function | ir.Kernel
    frame: Frame | None  # None: a host frame of cpu-c17's, whose variables are not kept (replay.py)
    call: Span | None  # where it was called or dispatched from
    work_item: int | None
    dispatch: int | None
    statement: ir.Stmt | None = None  # the statement about to run (or running)


@dataclass
class Stop:
    """Why and where the run waits."""

    reason: str  # DAP's: entry, breakpoint, step, pause, exception
    span: Span | None  # the statement's, the operation's, or the faulting operator's
    fault: CintFault | None = None
    breakpoints: list[int] = field(default_factory=list)  # their ids, for `hitBreakpointIds`
    statement: ir.Stmt | None = None  # the statement about to run (a stop before one)
    operation: int | None = None  # a stop before a counted operation: its step ordinal


Commands = str  # continue, next, stepIn, stepOut, operation (DAP's `instruction` granularity)


class Debuggee:
    """Runs `program` and stops where asked. `stopped(stop)` and `ended(result, error)`
    are called on the run's thread."""

    def __init__(self, program: ir.Program, fuel: int | None, write: Callable[[str], None],
                 stopped: Callable[[Stop], None], ended: Callable[[RunResult | None, str | None], None]) -> None:
        self.program = program
        self.fuel = fuel
        self.stack: list[Running] = []
        self.stop: Stop | None = None
        self.stop_on_entry = False
        self.faults: frozenset[str] | None = frozenset({"*"})  # codes stopped at ("*": all), None: none
        # Every statement of the source, by the line it starts on (where breakpoints go),
        # with the unit it is in.
        self.statements = _statements(program)
        # id() of a statement with a breakpoint -> the breakpoint
        self._at: dict[int, Breakpoint] = {}
        self.condition_failed: Callable[[str], None] = lambda message: None
        self.machine = Machine(program, fuel, write, observer=self)
        self.write = write
        # With a replay (replay.py), the program has run on cpu-c17 and only this
        # work-item runs here.
        self.replay: Replay | None = None
        # Run on cpu-c17 first (replay.py): to the first fault ("fault",), or to a
        # work-item ("work-item", dispatch, work-item).
        self.fast: tuple[Any, ...] | None = None
        self.note: Callable[[str], None] = lambda message: None  # a line for the Debug Console
        self._stopped, self._ended = stopped, ended
        self._wake = threading.Condition()
        self._command: Commands | None = None
        self._step: tuple[str, int] | None = None  # (command, the stack's depth when it was given)
        self._pause = False
        self._terminate = False
        self._first = True
        # Something besides breakpoints to look at before a statement: the entry, a pause,
        # a step, the end. Without it a statement costs a lookup by its id (the run's
        # statements in a kernel are counted by the hundred thousand).
        self._watch = True
        self._thread = threading.Thread(target=self._run, name="cint-debuggee", daemon=True)

    # ---- the adapter's side

    def start(self) -> None:
        self._thread.start()

    def set_breakpoints(self, lines: dict[int, Breakpoint]) -> None:
        """Breakpoints at these lines (a statement's line -> its breakpoint)."""
        self._at = {id(s): lines[line] for line, s, _ in self.statements if line in lines}

    def units_at(self, line: int) -> list[ir.Function | ir.Kernel]:
        """The units with a statement on `line`."""
        found: list[ir.Function | ir.Kernel] = []
        for at, _, unit in self.statements:
            if at == line and unit not in found:
                found.append(unit)
        return found

    def statement_lines(self) -> list[int]:
        """The lines a statement starts on, in order."""
        return sorted({line for line, _, _ in self.statements})

    def resume(self, command: Commands) -> None:
        with self._wake:
            self._command = command
            self._wake.notify_all()

    def pause(self) -> None:
        self._pause = True
        self._watch = True

    def terminate(self, timeout: float = 5.0) -> None:
        with self._wake:
            self._terminate = True
            self._watch = True
            self._wake.notify_all()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def fault_record(self) -> FaultRecord | None:
        """The record of the fault the run stopped at, as the run will end with it: where
        it stops, the fault has not yet passed the frames that add themselves on its way
        out (the dispatch, each call [F-8]) nor the work-item's address; they are the
        stack's."""
        stop = self.stop
        if stop is None or stop.fault is None:
            return None
        error = stop.fault
        record = error.record(self.machine.fuel.consumed)
        frames = tuple(StackFrame(r.unit.qualified, r.call) for r in reversed(self.stack[1:]) if r.call is not None)
        innermost = self.stack[-1]
        address = record.address
        unit, work_item, dispatch = innermost.unit, innermost.work_item, innermost.dispatch
        if address is None and isinstance(unit, ir.Kernel) and work_item is not None and dispatch is not None:
            address = work_item_address(unit, dispatch, work_item, error.step)
        elif address is not None and address.phase == PHASE_EPILOGUE and stop.span is not None:
            # The epilogue (a reduction) runs after the work-items: the dispatch is still
            # its innermost frame [F-8], at the dispatch statement where the run stopped.
            statement = innermost.statement
            frames = (StackFrame(address.kernel, statement.span if statement is not None else stop.span),) + frames
        return replace(record, stack=frames + record.stack, address=address)

    # ---- the run's side

    def _run(self) -> None:
        try:
            if self.fast is not None:
                ended = self._fast(self.fast)
                if ended is not None:  # cpu-c17 ran it all, without a fault
                    self._ended(ended, None)
                    return
            result = self.machine.run() if self.replay is None else self._run_replay(self.replay)
        except Terminated:
            self._ended(None, None)
        except Exception as error:  # noqa: BLE001 - a defect of ours: said, never a hang
            self._ended(None, f"the debugger failed: {error!r}")
        else:
            self._ended(result, None)

    def _fast(self, fast: tuple[Any, ...]) -> RunResult | None:
        """cpu-c17 first: the replay to run here, or the run's result when there is no
        work-item to debug (it ended without a fault). Where there can be no replay, the
        reference runs the program from its start, and says why."""
        started = time.perf_counter()
        try:
            if fast[0] == "fault":
                self.note("cint-debug: running the program on cpu-c17 to its first fault\n")
                result, self.replay = fault_replay(self.program, self.fuel)
                if self.replay is None:
                    self.note(f"cint-debug: the program ran to its end on cpu-c17 without a fault "
                              f"({time.perf_counter() - started:.2f} s)\n")
                    if result.output:
                        self.write(result.output)
                    return result
            else:
                _, dispatch, item = fast
                self.note(f"cint-debug: running the program on cpu-c17 up to work-item {item} of dispatch "
                          f"{dispatch}\n")
                self.replay = work_item_replay(self.program, self.fuel, dispatch, item)
        except NoReplay as why:
            self.note(f"cint-debug: {why}; running the program on the reference from its start\n")
            return None
        number, item = self.replay.captured.plan.number, self.replay.captured.item
        ran = [f"dispatches 0 to {number - 1}"] if number > 1 else ["dispatch 0"] if number == 1 else []
        ran += [f"work-items 0 to {item - 1} of dispatch {number}"] if item > 1 else \
            [f"work-item 0 of dispatch {number}"] if item == 1 else []
        self.note(f"cint-debug: {' and '.join(ran) or 'the program'} ran on cpu-c17 "
                  f"({time.perf_counter() - started:.2f} s); work-item {item} of dispatch {number} runs on the "
                  f"reference\n")
        return None

    def _run_replay(self, replay: Replay) -> RunResult:
        """The one work-item, below the host's frames as cpu-c17 recorded them."""
        captured, machine, program = replay.captured, self.machine, self.program
        if replay.output:
            self.write(replay.output)
        machine.fuel = captured.plan.fuel
        machine.fuel.consumed = captured.consumed
        machine.depth = captured.depth
        functions = {f.qualified: f for f in program.functions.values()}
        self.stack.append(Running(program.entry, None, None, None, None))
        for frame in reversed(replay.host[1:]):  # outermost first; host[0] is the dispatch's
            unit = functions.get(frame.function)
            if unit is not None:
                self.stack.append(Running(unit, None, frame.span, None, None))
        runner = WorkItemReplay(machine, captured.item, captured.folds)
        machine.runner = runner
        phase = runner.run(captured.plan)
        del self.stack[:]
        expected = replay.result.fault
        here = (captured.plan.number, captured.item)
        if expected is not None and expected.address is not None and phase.fault is None \
                and (expected.address.dispatch, expected.address.work_item) == here:
            self.write(f"cint-debug: work-item {captured.item} completed on the reference, where cpu-c17 "
                       f"faulted with {expected.code}: please report this (host.divergence, 10.6 para 11)\n")
        return replay.result

    def enter(self, unit: ir.Function | ir.Kernel, frame: Frame, call: Span | None, work_item: int | None,
              dispatch: int | None) -> None:
        self.stack.append(Running(unit, frame, call, work_item, dispatch))

    def leave(self) -> None:
        self.stack.pop()

    def statement(self, s: ir.Stmt, frame: Frame) -> None:
        self.stack[-1].statement = s
        if self._watch:
            self._watched(s, frame)
            return
        hit = self._at.get(id(s))
        if hit is not None and self._holds(hit, frame):
            self._wait(Stop("breakpoint", s.span, breakpoints=[hit.id], statement=s))

    def fault(self, s: ir.Stmt, frame: Frame, error: CintFault) -> None:
        if self.faults is not None and ("*" in self.faults or error.fault.code in self.faults):
            self._wait(Stop("exception", error.span or s.span, error))

    def _watched(self, s: ir.Stmt, frame: Frame) -> None:
        if self._terminate:
            raise Terminated
        reason = None
        if self._first:
            self._first = False
            reason = "entry" if self.stop_on_entry else None
        if reason is None and self._pause:
            self._pause = False
            reason = "pause"
        if reason is None and self._step is not None:
            command, depth = self._step
            if command == "stepIn" or (command == "next" and len(self.stack) <= depth) or \
                    (command == "stepOut" and len(self.stack) < depth):
                reason = "step"
        hit = self._at.get(id(s))
        if reason is None and hit is not None and self._holds(hit, frame):
            reason = "breakpoint"
        self._watch = self._pause or self._step is not None or self._terminate
        if reason is not None:
            self._wait(Stop(reason, s.span, breakpoints=[hit.id] if reason == "breakpoint" and hit is not None else [],
                            statement=s))

    def _holds(self, breakpoint: Breakpoint, frame: Frame) -> bool:
        """Whether the run stops at `breakpoint` here: its condition holds (where it has
        one), then its hit count is reached (each time the condition holds is a hit); a
        logpoint prints its message instead and never stops. A condition or a message
        that cannot be evaluated here stops the run, and says why."""
        condition = breakpoint.condition
        if condition is not None:
            try:
                if condition.evaluator(frame) != "true":
                    return False
            except EvaluationError as error:
                self.condition_failed(f"the condition `{condition.text}` at line {condition.line}: {error}")
                return True
        breakpoint.hits += 1
        if breakpoint.hit_condition is not None and not breakpoint.hit_condition.reached(breakpoint.hits):
            return False
        if breakpoint.log is not None:
            try:
                self.note(breakpoint.log.evaluator(frame))
            except EvaluationError as error:
                self.condition_failed(f"the log message `{breakpoint.log.text}` at line {breakpoint.log.line}: {error}")
                return True
            return False
        return True

    def _operation(self, span: Span, step: int) -> None:
        """A step by operation ends before the next counted operation (observer.py)."""
        unwatch_operations(self.machine)
        if self._terminate:
            raise Terminated
        self._wait(Stop("step", span, operation=step))

    def _wait(self, stop: Stop) -> None:
        """Tell the adapter, then wait for its command (or the end)."""
        unwatch_operations(self.machine)  # another stop came first
        self.stop = stop
        self._step = None
        with self._wake:
            self._command = None
            self._stopped(stop)
            while self._command is None and not self._terminate:
                self._wake.wait()
            command = self._command
        self.stop = None
        if self._terminate:
            raise Terminated
        if command in ("next", "stepIn", "stepOut"):
            self._step = (command, len(self.stack))
            self._watch = True
        elif command == "operation":
            watch_operations(self.machine, self._operation)


@dataclass
class Condition:
    """A breakpoint's condition (or a logpoint's message), compiled for the unit its
    statement is in."""

    text: str
    line: int
    evaluator: Evaluator


HIT_CONDITION = re.compile(r"\s*(==|>=|>|%)?\s*([0-9]{1,18})\s*")


@dataclass(frozen=True)
class HitCondition:
    """When a breakpoint stops, by the number of times it was hit (its condition held):
    `N` or `== N` at the Nth hit, `>= N` / `> N` from then on, `% N` at every Nth."""

    op: str
    n: int

    @classmethod
    def parse(cls, text: str) -> HitCondition:
        match = HIT_CONDITION.fullmatch(text)
        if match is None or (match.group(1) == "%" and int(match.group(2)) == 0):
            raise ValueError(f"the hit count `{text.strip()}`: N, == N, >= N, > N or % N (N a whole number, "
                             "% N above 0)")
        return cls(match.group(1) or "==", int(match.group(2)))

    def reached(self, hits: int) -> bool:
        if self.op == "%":
            return hits % self.n == 0
        return {"==": hits == self.n, ">=": hits >= self.n, ">": hits > self.n}[self.op]


@dataclass
class Breakpoint:
    """A line breakpoint as the run checks it."""

    id: int
    condition: Condition | None = None
    hit_condition: HitCondition | None = None
    log: Condition | None = None  # a logpoint: its message, printed instead of stopping
    hits: int = 0  # times reached with its condition holding


def _statements(program: ir.Program) -> list[tuple[int, ir.Stmt, ir.Function | ir.Kernel]]:
    """Every statement of the source in the program's units (not the IR's own Charges),
    with the line it starts on and its unit."""
    from ..ir.slots import nodes

    found = []
    units: list[ir.Function | ir.Kernel] = [program.entry, *program.functions.values(), *program.kernels.values()]
    for unit in units:
        for node in nodes(unit.body):
            if isinstance(node, ir.Stmt) and not isinstance(node, ir.Charge):
                found.append((node.span.line, node, unit))
    return found
