"""cpu-sir-interp: runs a program's IR, work-items one at a time in ascending order
(SPEC-02P.1 10.4). The reference every other executor must match."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from ...analysis.types import I64
from ...ir import nodes as ir
from ..arith import FoldChecked, OperationFault
from ..digest import published_digest
from ..dispatch import (
    Argument,
    Dispatcher,
    DispatchPlan,
    Results,
    WorkItemRunner,
    WorkPhase,
    size_frame,
    work_item_address,
)
from ..executors import Write
from ..faults import CINT_RESOURCE, HOST_STACK, MAX_CALL_DEPTH, FaultRecord, StackFrame
from ..runtime import Boundary, CintFault, Fuel, RunResult
from ..views import Value
from .compiler import ArrayBinding, Compiler, ExprFn, Frame, Returned, StmtFn, new_fold
from .resumable import Body, CallRequest, ResumableCompiler, StmtGen

if TYPE_CHECKING:
    from ...syntax.source import Span
    from .observer import Observer

EXECUTOR = "cpu-sir-interp"
# Nested calls that run on Python's stack (the fast closures); deeper ones run their
# resumable bodies on the machine's own frame stack (`run_frames`, resumable.py), so
# that recursion is bounded by fuel and MAX_CALL_DEPTH only.
NATIVE_CALLS = 48


def depth_limit(depth: int) -> OperationFault:
    """The host status of a call that would nest deeper than MAX_CALL_DEPTH: the depth
    it would reach, and the limit (docs/semantics.md, "Calls")."""
    return OperationFault(CINT_RESOURCE, HOST_STACK, [(I64, depth)], None, (I64, MAX_CALL_DEPTH))


class Machine:
    """The state of one entry: fuel, output, its dispatches, the step counter. The
    work-item phase of each dispatch is `runner`'s (an executor replaces it)."""

    def __init__(self, program: ir.Program, fuel: int | None = None,
                 write: Write | None = None, trace: bool = False, observer: Observer | None = None) -> None:
        self.program = program
        self.observer = observer  # a debugger's (observer.py); None for every other run
        # With `trace`, a boundary after each published dispatch (running/compare.py).
        self.boundaries: list[Boundary] | None = [] if trace else None
        self.output_bytes = 0
        self.fuel = Fuel(fuel)
        self.output: list[str] = []
        self._stream = write
        self.step = 0
        self.dispatcher = Dispatcher()
        self.depth = 0  # calls in progress
        self.native = 0  # of them, those on Python's stack
        self.native_calls = NATIVE_CALLS
        self.compiler = Compiler(self, observer)
        self._bodies: dict[str, StmtFn] = {}
        self._resumable: dict[str, StmtGen] = {}
        self._uniform: dict[int, ExprFn] = {}
        # The work-item phase of each dispatch (an executor's runner replaces it: gpu-cuda's
        # oracle), and where a work-item run here sends its reduce contributions.
        self.runner: WorkItemRunner = InterpRunner(self)

    @property
    def dispatches(self) -> int:
        """The dispatches of the entry so far (each numbered by the dispatcher [F-1])."""
        return self.dispatcher.count

    def write(self, text: str) -> None:
        self.output.append(text)
        if self.boundaries is not None:
            self.output_bytes += len(text.encode("utf-8"))
        if self._stream is not None:
            self._stream(text)

    def body(self, unit: ir.Function | ir.Kernel) -> StmtFn:
        compiled = self._bodies.get(unit.qualified)
        if compiled is None:
            compiled = self._bodies[unit.qualified] = self.compiler.block(unit.body)
        return compiled

    def resumable(self, unit: ir.Function) -> StmtGen:
        compiled = self._resumable.get(unit.qualified)
        if compiled is None:
            compiled = ResumableCompiler(self, self.compiler).unit(unit.body)
            self._resumable[unit.qualified] = compiled
        return compiled

    # ---- the entry

    def run(self) -> RunResult:
        entry = self.program.entry
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 60_000))
        fault = None
        frame: Frame = [None] * entry.slot_count
        try:
            if self.observer is None:
                self.body(entry)(frame)
            else:
                self.observer.enter(entry, frame, None, None, None)
                try:
                    self.body(entry)(frame)
                finally:
                    self.observer.leave()
        except CintFault as error:
            fault = error.record(self.fuel.consumed)
        finally:
            sys.setrecursionlimit(limit)
        return self.result(fault)

    def result(self, fault: FaultRecord | None) -> RunResult:
        """The entry's result as it stands (a host status ends it early, exec/cuda)."""
        result = RunResult("".join(self.output), fault, self.fuel.consumed, EXECUTOR, self.dispatches)
        if self.boundaries is not None:
            end = Boundary(None, self.output_bytes, self.fuel.consumed, None)
            result.trace = [[b.dispatch, b.output_length, b.fuel, b.digest] for b in self.boundaries + [end]]
        return result

    # ---- calls and dispatches (called from the compiled code)

    def enter(self, span: Span) -> None:
        """A call's start: charge its unit of fuel (E_FUEL), then test the depth
        (host.stack beyond MAX_CALL_DEPTH), then count it."""
        if not self.fuel.can_charge(1):
            raise CintFault(self.fuel.exhausted(), span, self.step)
        self.fuel.consumed += 1
        if self.depth >= MAX_CALL_DEPTH:
            raise CintFault(depth_limit(self.depth + 1), span, self.step)
        self.depth += 1

    def frame(self, function: ir.Function, args: list[Value]) -> Frame:
        frame: Frame = [None] * function.slot_count
        for slot, value in zip(function.params, args):
            frame[slot] = value
        return frame

    def call(self, name: str, args: list[Value], span: Span) -> Value | None:
        function = self.program.functions[name]
        self.enter(span)
        try:
            if self.native < self.native_calls:
                self.native += 1
                frame = self.frame(function, args)
                if self.observer is not None:
                    self.observer.enter(function, frame, span, None, None)
                try:
                    signal = self.body(function)(frame)
                finally:
                    self.native -= 1
                    if self.observer is not None:
                        self.observer.leave()
                return signal.value if isinstance(signal, Returned) else None
            frame = self.frame(function, args)
            if self.observer is None:
                return self.run_frames(function, frame)
            self.observer.enter(function, frame, span, None, None)
            try:
                return self.run_frames(function, frame)
            finally:
                self.observer.leave()
        except CintFault as error:
            error.frames.append(StackFrame(function.qualified, span))
            raise
        finally:
            self.depth -= 1

    def run_frames(self, function: ir.Function, frame: Frame) -> Value | None:
        """Run `function` (already entered) and every call it makes on an explicit stack
        of resumable bodies: a body yields a CallRequest, the callee's body goes on the
        stack, and its value is sent back into the caller when it returns. A fault
        adds the frame of every call it passes, innermost first, as `call` does."""
        base = self.depth
        # (the body, the function called and the call's position; None for `function`'s own)
        stack: list[tuple[Body, ir.Function | None, Span | None]] = [(self.resumable(function)(frame), None, None)]
        value: Value | None = None
        try:
            while True:
                body = stack[-1][0]
                try:
                    request = body.send(value)
                except StopIteration as stop:
                    signal = stop.value
                    value = signal.value if isinstance(signal, Returned) else None
                    stack.pop()
                    if not stack:
                        return value
                    self.depth -= 1
                    if self.observer is not None:
                        self.observer.leave()
                    continue
                if not isinstance(request, CallRequest):
                    raise TypeError(f"a resumable body yielded {request!r}")
                callee = self.program.functions[request.name]
                self.enter(request.span)
                frame = self.frame(callee, request.args)
                if self.observer is not None:
                    self.observer.enter(callee, frame, request.span, None, None)
                stack.append((self.resumable(callee)(frame), callee, request.span))
                value = None
        except CintFault as error:
            for _, called, span in reversed(stack[1:]):
                assert called is not None and span is not None, "a call on the frame stack without its function"
                error.frames.append(StackFrame(called.qualified, span))
            raise
        finally:
            self.depth = base
            for body, _, _ in stack:
                body.close()
            if self.observer is not None:
                for _ in stack[1:]:  # the callees still on the stack (a fault unwinds them)
                    self.observer.leave()

    def dispatch(self, name: str, args: list[Argument], span: Span) -> Results:
        """The protocol numbers the dispatch and frames its faults; `runner` runs its
        work-items (exec/dispatch.py)."""
        kernel = self.program.kernels[name]
        results = self.dispatcher.dispatch(kernel, args, span, self.fuel, self.runner, self.uniform)
        if self.boundaries is not None:
            digest = published_digest(kernel, args, results)
            self.boundaries.append(Boundary(self.dispatches - 1, self.output_bytes, self.fuel.consumed, digest))
        return results

    def uniform(self, expr: ir.Expr, frame: Frame) -> int:
        """Evaluate an over extent or a where side at the entry checks."""
        compiled = self._uniform.get(id(expr))
        if compiled is None:
            compiled = self._uniform[id(expr)] = self.compiler.expr(expr)
        try:
            value: int = compiled(frame)
        except CintFault as error:
            raise error.fault from None
        return value

    def contribute(self, target: int, value: Value, span: Span, step: int) -> None:
        self.runner.contribute(target, value, span, step)


class InterpRunner(WorkItemRunner):
    """Runs the work-items of a dispatch in ascending order and stops at the first
    fault, which is therefore the canonical one [F-3]. No limits of its own (check 8)."""

    order = "ascending"

    def __init__(self, machine: Machine) -> None:
        self.m = machine
        self.work_item = 0
        self.lists: dict[int, list[tuple[int, Value]]] = {}
        self.folds: dict[int, FoldChecked] = {}

    @staticmethod
    def frame_template(plan: DispatchPlan) -> Frame:
        """A work-item's frame before its over variables: sizes, scalars, arrays."""
        kernel = plan.kernel
        template = size_frame(kernel, plan.sizes)
        for param, read, write, scalar in zip(kernel.params, plan.reads, plan.writes, plan.scalars):
            template[param.slot] = ArrayBinding(read, write) if read is not None else scalar
        return template

    @staticmethod
    def place(frame: Frame, over_slots: list[int], space: list[int], i: int) -> None:
        """Set the over variables to work-item i's index tuple, row-major [X-6]."""
        rest = i
        for slot, extent in zip(reversed(over_slots), reversed(space)):
            rest, frame[slot] = divmod(rest, extent)

    def run(self, plan: DispatchPlan) -> WorkPhase:
        m, kernel = self.m, plan.kernel
        body = m.body(kernel)
        template = self.frame_template(plan)
        contributions: list[list[tuple[int, Value]]] = [[] for _ in kernel.reductions]
        self.lists = {r.param: c for r, c in zip(kernel.reductions, contributions)}
        self.folds = {r.param: new_fold(r) for r in kernel.reductions if r.kind == "fold_checked"}
        over_slots = [slot for _, slot, _ in kernel.over]
        space = plan.space
        saved = m.step
        observer = m.observer
        try:
            for i in range(plan.count):
                frame = template.copy()
                self.place(frame, over_slots, space, i)
                self.work_item = i
                m.step = 0
                if observer is not None:
                    observer.enter(kernel, frame, plan.span, i, plan.number)
                try:
                    body(frame)
                except CintFault as error:
                    error.address = work_item_address(kernel, plan.number, i, error.step)
                    return WorkPhase(error, contributions)
                finally:
                    if observer is not None:
                        observer.leave()
        finally:
            m.step = saved
        return WorkPhase(None, contributions)

    def contribute(self, target: int, value: Value, span: Span, step: int) -> None:
        i = self.work_item
        self.lists[target].append((i, value))
        fold = self.folds.get(target)
        if fold is not None:
            try:
                fold.add(value, index=i)  # the fold's first overflow is a work-item fault
            except OperationFault as fault:
                raise CintFault(fault, span, step) from None


def run_program(program: ir.Program, fuel: int | None = None, write: Write | None = None) -> RunResult:
    return Machine(program, fuel, write).run()
