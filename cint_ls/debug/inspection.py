"""What a client asks of a stopped run (issue 30): the stack, scopes and variables (arrays
by rows, paged; staged elements), `setVariable`, `evaluate`, `exceptionInfo` and
`disassemble`. A part of the adapter (adapter.py, which answers the session's requests
and runs the loop), kept apart so that each reads in one sitting."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dap_types as dap

from ..exec.interp.compiler import ArrayBinding
from ..ir.slots import slots
from ..running.report import render
from .debuggee import Debuggee
from .disassembly import address, disassemble, first_operation, operation_at
from .evaluate import EvaluationError, Evaluator
from .variables import frame_name, rows, value_text

# A dap-types model (pydantic): Any to the type checker, dap-types ships no type marker.
Model = Any


class RequestFailed(Exception):
    """A request that cannot be done: its message goes back in the response."""


class Inspection:
    """The adapter's answers about a stopped run (Adapter inherits them)."""

    _path: str
    _text: str
    _lines_from_1: bool
    _columns_from_1: bool
    _references: dict[int, tuple[str, Any]]
    _evaluators: dict[tuple[str, str], Evaluator]

    def _running(self) -> Debuggee:
        raise NotImplementedError

    def evaluate(self, arguments: dict[str, Any]) -> Model:
        args = dap.EvaluateArguments.model_validate(arguments)
        debuggee = self._stopped_run()
        frame_id = args.frameId if args.frameId is not None else len(debuggee.stack)
        if not 1 <= frame_id <= len(debuggee.stack):
            raise RequestFailed(f"no frame {frame_id}")
        running = debuggee.stack[frame_id - 1]
        if running.frame is None:
            raise RequestFailed("this frame ran on cpu-c17, which keeps no variables")
        key = (running.unit.qualified, args.expression)
        try:
            evaluator = self._evaluators.get(key)
            if evaluator is None:
                evaluator = self._evaluators[key] = Evaluator(self._text, self._path, running.unit, args.expression)
            value = evaluator(running.frame)
        except EvaluationError as error:
            raise RequestFailed(str(error)) from None
        return dap.EvaluateResponseBody(result=value, type=getattr(evaluator.type, "name", None),
                                        variablesReference=0)

    def _stopped_run(self) -> Debuggee:
        debuggee = self._running()
        if debuggee.stop is None:
            raise RequestFailed("the program is running: pause it first")
        return debuggee

    def stack_trace(self, arguments: dict[str, Any]) -> Model:
        args = dap.StackTraceArguments.model_validate(arguments)
        debuggee = self._stopped_run()
        stop = debuggee.stop
        assert stop is not None
        frames = []
        stack = debuggee.stack
        source = dap.Source(path=self._path, name=Path(self._path).name)
        first = max(0, args.startFrame or 0)
        last = len(stack) if not args.levels else min(len(stack), first + args.levels)
        # innermost first: frame k of the answer is stack[len(stack) - 1 - k]
        for depth in range(len(stack) - 1 - first, len(stack) - 1 - last, -1):
            running = stack[depth]
            if depth == len(stack) - 1:
                span = stop.span
            else:
                span = stack[depth + 1].call
            if span is None and running.statement is not None:
                span = running.statement.span
            line = span.line if span is not None else 0
            column = span.column if span is not None else 0
            pointer = None
            if depth == len(stack) - 1:  # the innermost frame: the operation it is at, or about to reach
                at = operation_at(running.unit, span) if stop.operation is not None and span is not None else \
                    first_operation(stop.statement) if stop.statement is not None else None
                pointer = address(debuggee.program, running.unit, at) if at is not None else None
            frames.append(dap.StackFrame(
                id=depth + 1, name=frame_name(running.unit, running.frame, running.work_item), source=source,
                instructionPointerReference=pointer,
                line=line if self._lines_from_1 else line - 1, column=column if self._columns_from_1 else column - 1,
                endLine=None if span is None else span.end_line,
                endColumn=None if span is None else span.end_column))
        return dap.StackTraceResponseBody(stackFrames=frames, totalFrames=len(stack))

    def _reference(self, kind: str, payload: Any) -> int:
        number = len(self._references) + 1
        self._references[number] = (kind, payload)
        return number

    def scopes(self, arguments: dict[str, Any]) -> Model:
        args = dap.ScopesArguments.model_validate(arguments)
        debuggee = self._stopped_run()
        if not 1 <= args.frameId <= len(debuggee.stack):
            raise RequestFailed(f"no frame {args.frameId}")
        running = debuggee.stack[args.frameId - 1]
        scopes = [dap.Scope(name="Locals", presentationHint="locals", expensive=False,
                            variablesReference=self._reference("locals", running))]
        if running.work_item is not None:
            scopes.append(dap.Scope(name="Work-item", expensive=False,
                                    variablesReference=self._reference("work-item", running)))
        return dap.ScopesResponseBody(scopes=scopes)

    def variables(self, arguments: dict[str, Any]) -> Model:
        args = dap.VariablesArguments.model_validate(arguments)
        self._stopped_run()
        kind, payload = self._references.get(args.variablesReference, ("", None))
        out: list[dap.Variable] = []
        if kind == "locals" and payload.frame is None:
            out.append(dap.Variable(name="(not kept)", value="this frame ran on cpu-c17, which keeps no variables",
                                    variablesReference=0))
        elif kind == "locals":
            named = slots(payload.unit)
            for slot, value in enumerate(payload.frame):
                info = named.get(slot)
                if value is None or info is None:
                    continue
                out.append(self._variable(info.name, value, info.type, info.mode))
                if isinstance(value, ArrayBinding) and value.write is not None and value.write is not value.read:
                    # An out or inout parameter: what this dispatch's work-items have staged so
                    # far, beside the elements as published before it [P-4].
                    staged = ArrayBinding(value.write, None)
                    out.append(self._variable(f"{info.name} (staged)", staged, info.type, info.mode))
        elif kind == "work-item":
            running = payload
            for name, slot, _ in running.unit.over:
                out.append(dap.Variable(name=name, value=str(running.frame[slot]), type="I64", variablesReference=0))
            machine = self._running().machine
            out.append(dap.Variable(name="work-item", value=str(running.work_item), variablesReference=0))
            out.append(dap.Variable(name="dispatch", value=str(running.dispatch), variablesReference=0))
            stop = self._running().stop
            # The step ordinal of the operation that faulted, or the count of those done
            # before the statement about to run (ir/steps.py: ordinals from 0).
            step = stop.fault.step if stop is not None and stop.fault is not None else \
                stop.operation if stop is not None and stop.operation is not None else machine.step
            out.append(dap.Variable(name="step", value=str(step), variablesReference=0))
            out.append(dap.Variable(name="fuel consumed", value=str(machine.fuel.consumed), variablesReference=0))
        elif kind == "array":
            view, element, indices = payload
            first = max(0, args.start or 0)  # a page of it (indexedVariables), as the client asks
            last = view.extents[0] if not args.count else min(view.extents[0], first + args.count)
            for name, more, value in rows(view, first, last):
                if more is None:
                    out.append(dap.Variable(name=name, value=value_text(value, element), variablesReference=0))
                else:
                    row = view_row(view, more[0])
                    out.append(dap.Variable(name=name, value=value_text_of_view(row), variablesReference=self._reference(
                        "array", (row, element, indices + more))))
        else:
            raise RequestFailed(f"no variables {args.variablesReference} (they last until the run goes on)")
        return dap.VariablesResponseBody(variables=out)

    def set_variable(self, arguments: dict[str, Any]) -> Model:
        """A local, a parameter or an array's element given a new value: any cint
        expression of its type in the frame's scope (`x + 1`, `5 as I32`)."""
        args = dap.SetVariableArguments.model_validate(arguments)
        debuggee = self._stopped_run()
        kind, payload = self._references.get(args.variablesReference, ("", None))
        if kind == "locals":
            running = payload
            if running.frame is None:
                raise RequestFailed("this frame ran on cpu-c17, which keeps no variables")
            named = slots(running.unit)
            found = [(slot, info) for slot, info in named.items()
                     if args.name in (info.name, f"{info.mode} {info.name}") and info.rank is None]
            if not found or running.frame[found[0][0]] is None:
                raise RequestFailed(f"no scalar variable `{args.name}` with a value here (an array's elements are "
                                    "set one by one)")
            slot, info = found[0]
            value = self._new_value(running, args.value, info.type)
            running.frame[slot] = value
            return dap.SetVariableResponseBody(value=value_text(value, info.type), type=getattr(info.type, "name", None))
        if kind == "array":
            view, element, _ = payload
            if view.rank != 1 or not (args.name.startswith("[") and args.name.endswith("]")):
                raise RequestFailed("set an array's elements one by one (expand its rows)")
            index = int(args.name[1:-1])
            frame = debuggee.stack[-1]
            value = self._new_value(frame, args.value, element)
            view.storage.values[view.offset([index])] = value
            return dap.SetVariableResponseBody(value=value_text(value, element), type=getattr(element, "name", None))
        raise RequestFailed("only a frame's locals and parameters, and arrays' elements, can be set")

    def _new_value(self, running: Any, text: str, t: Any) -> Any:
        try:
            evaluator = Evaluator(self._text, self._path, running.unit, text)
            if str(evaluator.type) != str(t):
                raise EvaluationError(f"the value is {evaluator.type}, the variable {t} (convert it with `as`)")
            return evaluator.value(running.frame)
        except EvaluationError as error:
            raise RequestFailed(str(error)) from None

    def _variable(self, name: str, value: object, t: Any, mode: str | None) -> dap.Variable:
        shown = f"{mode} {name}" if mode else name
        if isinstance(value, ArrayBinding):
            view = value.read
            return dap.Variable(name=shown, value=value_text(value, t), variablesReference=self._reference(
                "array", (view, view.element, [])), indexedVariables=view.extents[0] if view.extents else 0)
        type_name = getattr(t, "name", None)
        return dap.Variable(name=shown, value=value_text(value, t), type=type_name, variablesReference=0)

    def exception_info(self, arguments: dict[str, Any]) -> Model:
        debuggee = self._stopped_run()
        stop = debuggee.stop
        assert stop is not None
        if stop.fault is None:
            raise RequestFailed("the program did not stop at a fault")
        record = debuggee.fault_record()
        assert record is not None
        text = render(source_of(self._path), record)
        return dap.ExceptionInfoResponseBody(exceptionId=stop.fault.fault.code, description=text.splitlines()[0],
                                             breakMode="always", details=dap.ExceptionDetails(message=text))

    def disassemble(self, arguments: dict[str, Any]) -> Model:
        args = dap.DisassembleArguments.model_validate(arguments)
        program = self._running().program
        try:
            found = disassemble(program, args.memoryReference, args.offset or 0, args.instructionOffset or 0,
                                args.instructionCount)
        except ValueError as error:
            raise RequestFailed(str(error)) from None
        source = dap.Source(path=self._path, name=Path(self._path).name)
        out = []
        for i in found:
            if i.span is None:
                out.append(dap.DisassembledInstruction(address=i.address, instruction="", presentationHint="invalid"))
                continue
            out.append(dap.DisassembledInstruction(
                address=i.address, instruction=i.text, symbol=i.symbol, location=source,
                line=self._line(i.span.line), column=self._column(i.span.column),
                endLine=self._line(i.span.end_line), endColumn=self._column(i.span.end_column)))
        return dap.DisassembleResponseBody(instructions=out)

    def _line(self, line: int) -> int:
        return line if self._lines_from_1 else line - 1

    def _column(self, column: int) -> int:
        return column if self._columns_from_1 else column - 1


def view_row(view: Any, i: int) -> Any:
    from ..exec.views import View

    return View(view.storage, view.origin + i * view.strides[0], view.extents[1:], view.strides[1:],
                view.writable, view.generation)


def value_text_of_view(view: Any) -> str:
    return f"{view.element.name}[{', '.join(map(str, view.extents))}]"


def source_of(path: str) -> Any:
    from ..syntax.source import SourceText

    try:
        return SourceText(Path(path).read_text(encoding="utf-8"), path)
    except OSError:
        return SourceText("", path)
