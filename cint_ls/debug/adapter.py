"""The Debug Adapter Protocol over stdio: requests read by the language server's reader
(server/framing.py: the base protocol is LSP's and DAP's alike), typed by `dap-types`,
answered in order; events from the run's thread. Every request is answered: one the
adapter does not know, or whose arguments do not fit, gets `success: false` with a
message, and the adapter reads on.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

import dap_types as dap
from pydantic import BaseModel, ValidationError

from ..exec.executors import EXECUTOR_NAMES
from ..exec.runtime import RunResult
from ..ir.build import build
from ..running.entry import NoSuchEntry, with_entry
from ..running.report import render
from ..server.framing import StdinReader, framed
from ..syntax.report import render_diagnostic
from ..vocabulary.faults import FAULT_MESSAGES
from .debuggee import Breakpoint, Condition, Debuggee, HitCondition, Stop
from .evaluate import EvaluationError, Evaluator
from .inspection import Inspection, Model, RequestFailed, source_of

logger = logging.getLogger("cint_ls.debug")

THREAD = 1  # the program's one thread
FAULTS_FILTER = "faults"


class Adapter(Inspection):
    """One client's session: its requests answered in order, the debuggee's events sent."""

    def __init__(self, stdin: BinaryIO, stdout: BinaryIO) -> None:
        self._reader = StdinReader(stdin, report=lambda e: logger.warning("%s", e.message))
        self._stdout = stdout
        self._write_lock = threading.Lock()
        self._seq = 0
        self._lines_from_1 = True
        self._columns_from_1 = True
        self._debuggee: Debuggee | None = None
        self._path = ""
        self._no_debug: dict[str, Any] | None = None  # a noDebug launch's arguments
        self._cancelled = False  # terminate or disconnect: a plain run stops
        self._configured = False
        self._references: dict[int, tuple[str, Any]] = {}
        self._text = ""
        self._evaluators: dict[tuple[str, str], Evaluator] = {}
        self._handlers: dict[str, Callable[[dict[str, Any]], Model | None]] = {
            "initialize": self.initialize, "launch": self.launch, "setBreakpoints": self.set_breakpoints,
            "setExceptionBreakpoints": self.set_exception_breakpoints, "configurationDone": self.configuration_done,
            "threads": self.threads, "stackTrace": self.stack_trace, "scopes": self.scopes,
            "variables": self.variables, "continue": self.continue_, "next": self.step,
            "stepIn": self.step, "stepOut": self.step, "pause": self.pause, "exceptionInfo": self.exception_info,
            "evaluate": self.evaluate, "disassemble": self.disassemble, "setVariable": self.set_variable,
            "disconnect": self.disconnect, "terminate": self.terminate,
        }
        self._done = False

    # ---- the message loop

    def run(self) -> int:
        while not self._done and (body := self._reader.read_message_now()) is not None:
            self._handle(body)
        if self._debuggee is not None:
            self._debuggee.terminate()
        return 0

    def _handle(self, body: bytes) -> None:
        try:
            message = json.loads(body.decode("utf-8"))
            request = dap.Request.model_validate(message)
        except (ValueError, ValidationError) as error:
            logger.warning("not a request: %s", error)
            return
        self._command = request.command
        handler = self._handlers.get(request.command)
        try:
            if handler is None:
                raise RequestFailed(f"cint-debug does not support `{request.command}`")
            arguments = request.arguments if isinstance(request.arguments, dict) else {}
            result = handler(arguments)
        except RequestFailed as failed:
            self._respond(request, success=False, message=str(failed))
            return
        except ValidationError as error:
            self._respond(request, success=False, message=f"`{request.command}`: arguments that do not fit: "
                          f"{error.errors()[0].get('msg', error)}")
            return
        except Exception as error:  # a defect of ours: an answer, never a dead adapter
            logger.exception("`%s` failed", request.command)
            self._respond(request, success=False, message=f"`{request.command}` failed: {error!r}")
            return
        body_json = result.model_dump(exclude_none=True) if isinstance(result, BaseModel) else result
        self._respond(request, body=body_json)
        if request.command == "launch":
            # Ready for breakpoints once there is a program to put them in: VS Code and
            # nvim-dap send them, then configurationDone, when this comes.
            self._event("initialized")

    def _send(self, message: dict[str, Any]) -> None:
        with self._write_lock:
            self._seq += 1
            message["seq"] = self._seq
            try:
                self._stdout.write(framed(json.dumps(message).encode("utf-8")))
                self._stdout.flush()
            except (OSError, ValueError):
                self._done = True  # the client is gone

    def _respond(self, request: dap.Request, *, success: bool = True, message: str | None = None,
                 body: dict[str, Any] | None = None) -> None:
        answer: dict[str, Any] = {"type": "response", "request_seq": request.seq, "success": success,
                                  "command": request.command}
        if message is not None:
            answer["message"] = message
            answer["body"] = {"error": {"id": 1, "format": message, "showUser": True}}
        if body is not None:
            answer["body"] = body
        self._send(answer)

    def _event(self, event: str, body: BaseModel | dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"type": "event", "event": event}
        if body is not None:
            message["body"] = body.model_dump(exclude_none=True) if isinstance(body, BaseModel) else body
        self._send(message)

    def _output(self, text: str, category: str = "stdout") -> None:
        self._event("output", dap.OutputEventBody(category=category, output=text))

    # ---- the session

    def initialize(self, arguments: dict[str, Any]) -> Model:
        args = dap.InitializeRequestArguments.model_validate(arguments)
        self._lines_from_1 = args.linesStartAt1 is not False
        self._columns_from_1 = args.columnsStartAt1 is not False
        return dap.Capabilities(
            supportsConfigurationDoneRequest=True, supportsExceptionInfoRequest=True,
            supportsTerminateRequest=True, supportsConditionalBreakpoints=True, supportsEvaluateForHovers=True,
            supportsHitConditionalBreakpoints=True, supportsLogPoints=True,
            supportsSteppingGranularity=True, supportsDisassembleRequest=True, supportsSetVariable=True,
            supportsExceptionFilterOptions=True,
            exceptionBreakpointFilters=[dap.ExceptionBreakpointsFilter(
                filter=FAULTS_FILTER, label="Faults", default=True,
                description="Stop where a fault (E_OVERFLOW, E_BOUNDS, E_FUEL, ...) is raised",
                supportsCondition=True,
                conditionDescription="Only these fault codes, separated by commas: E_OVERFLOW, E_BOUNDS")],
        )

    def launch(self, arguments: dict[str, Any]) -> None:
        dap.LaunchRequestArguments.model_validate(arguments)
        program = arguments.get("program")
        if not isinstance(program, str) or not program:
            raise RequestFailed("`program`: the path of the .ci file to debug")
        path = Path(program)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as error:
            raise RequestFailed(f"cannot read {program}: {error.strerror or error}") from None
        fuel = arguments.get("fuel")
        if fuel is not None and (not isinstance(fuel, int) or isinstance(fuel, bool) or fuel < 0):
            raise RequestFailed("`fuel`: a whole number of units, or null for none")
        executor = arguments.get("executor")
        if executor is not None and executor not in ("auto", *EXECUTOR_NAMES):
            raise RequestFailed(f"`executor`: auto or one of {', '.join(EXECUTOR_NAMES)}, not {executor!r}")
        self._path = str(path.resolve())
        self._text = text
        built = build(text, str(path))
        if built.program is None:
            errors = [d for d in built.checked.diagnostics + built.syntax.diagnostics if d.severity == 1]
            raise RequestFailed(f"{program} has errors; fix them to debug it:\n"
                                + "".join(render_diagnostic(built.syntax.source, d) for d in errors[:5]))
        entry = arguments.get("entry")
        try:
            program_ir = with_entry(built, entry if isinstance(entry, str) and entry else None)
        except NoSuchEntry as error:
            raise RequestFailed(str(error)) from None
        debuggee = Debuggee(program_ir, fuel, self._output, self._stopped, self._ended)
        debuggee.condition_failed = lambda message: self._output(message + "\n", "console")
        debuggee.note = lambda message: self._output(message, "console")
        debuggee.fast = _fast(arguments)
        # With runToWorkItem the work-item's first statement is the entry.
        debuggee.stop_on_entry = bool(arguments.get("stopOnEntry")) or (debuggee.fast or ("",))[0] == "work-item"
        if arguments.get("noDebug"):
            debuggee.faults = None
            debuggee.set_breakpoints({})
        self._debuggee = debuggee
        self._no_debug = arguments if arguments.get("noDebug") else None
        return None

    def _running(self) -> Debuggee:
        if self._debuggee is None:
            raise RequestFailed("no program: `launch` one first")
        return self._debuggee

    def set_breakpoints(self, arguments: dict[str, Any]) -> Model:
        args = dap.SetBreakpointsArguments.model_validate(arguments)
        debuggee = self._running()
        wanted = [(b.line, b.condition, b.hitCondition, b.logMessage) for b in args.breakpoints] \
            if args.breakpoints is not None else [(line, None, None, None) for line in args.lines or []]
        same_file = args.source.path is None or not self._path or Path(args.source.path).resolve() == Path(self._path)
        lines = debuggee.statement_lines()
        found: dict[int, Breakpoint] = {}
        answers = []
        source = dap.Source(path=self._path, name=Path(self._path).name)
        for i, (line, condition, hit_condition, log_message) in enumerate(wanted, 1):
            source_line = line if self._lines_from_1 else line + 1
            at = next((ln for ln in lines if ln >= source_line), None) if same_file else None
            if at is None:
                answers.append(dap.Breakpoint(id=i, verified=False, line=line,
                                              message="no statement here or after it"))
                continue
            shown = at if self._lines_from_1 else at - 1
            try:
                breakpoint = self._breakpoint(debuggee, i, at, condition, hit_condition, log_message)
            except (EvaluationError, ValueError) as error:
                answers.append(dap.Breakpoint(id=i, verified=False, line=shown, source=source, message=str(error)))
                continue
            found.setdefault(at, breakpoint)
            answers.append(dap.Breakpoint(id=found[at].id, verified=True, line=shown, source=source))
        if not self._no_debug:
            debuggee.set_breakpoints(found)
        return dap.SetBreakpointsResponseBody(breakpoints=answers)

    def _breakpoint(self, debuggee: Debuggee, number: int, line: int, condition: str | None,
                    hit_condition: str | None, log_message: str | None) -> Breakpoint:
        """The breakpoint at `line`, its condition and log message compiled for the unit of
        the statement there (the first, where a line holds statements of two)."""
        (unit, *_) = debuggee.units_at(line)
        compiled = log = hits = None
        if condition and condition.strip():
            try:
                compiled = Condition(condition.strip(), line, Evaluator(self._text, self._path, unit, condition.strip()))
            except EvaluationError as error:
                raise EvaluationError(f"the condition `{condition.strip()}`: {error}") from None
        if hit_condition and hit_condition.strip():
            hits = HitCondition.parse(hit_condition)
        if log_message and log_message.strip():
            try:
                log = Condition(log_message, line, Evaluator(self._text, self._path, unit, log_message, message=True))
            except EvaluationError as error:
                raise EvaluationError(f"the log message `{log_message}`: {error}") from None
        return Breakpoint(number, compiled, hits, log)

    def set_exception_breakpoints(self, arguments: dict[str, Any]) -> Model:
        """The "Faults" filter: every fault, or (its condition) the codes named."""
        args = dap.SetExceptionBreakpointsArguments.model_validate(arguments)
        debuggee = self._running()
        codes: set[str] = set()
        answers = []
        for filter_id in args.filters:
            if filter_id == FAULTS_FILTER:
                codes.add("*")
            answers.append(dap.Breakpoint(verified=filter_id == FAULTS_FILTER,
                                          message=None if filter_id == FAULTS_FILTER else f"no filter `{filter_id}`"))
        for option in args.filterOptions or []:
            named = [c.strip() for c in (option.condition or "").split(",") if c.strip()]
            unknown = [c for c in named if c not in FAULT_MESSAGES]
            if option.filterId != FAULTS_FILTER or unknown:
                answers.append(dap.Breakpoint(verified=False, message=f"no filter `{option.filterId}`"
                                              if option.filterId != FAULTS_FILTER else
                                              f"not a fault code: {', '.join(unknown)} (codes: "
                                              f"{', '.join(FAULT_MESSAGES)})"))
                continue
            codes.update(named or ["*"])
            answers.append(dap.Breakpoint(verified=True))
        if not self._no_debug:
            debuggee.faults = frozenset(codes) if codes else None
        return dap.SetExceptionBreakpointsResponseBody(breakpoints=answers)

    def configuration_done(self, arguments: dict[str, Any]) -> None:
        debuggee = self._running()
        if not self._configured:
            self._configured = True
            if self._no_debug is not None:
                threading.Thread(target=self._plain_run, args=(self._no_debug,), name="cint-run", daemon=True).start()
            else:
                debuggee.start()
        return None

    def _plain_run(self, arguments: dict[str, Any]) -> None:
        """`noDebug` (Ctrl+F5): a plain Run, as the Run lens makes it, on `executor`
        (default `auto`: cpu-c17 where it can), the output and the outcome in the Debug
        Console; `terminate` and `disconnect` cancel it (the run is in a child process)."""
        from ..running.run import RunRequest, run

        executor = arguments.get("executor") or "auto"
        entry = arguments.get("entry")
        try:
            outcome = run(RunRequest(self._path, self._text, executor=str(executor), fuel=arguments.get("fuel"),
                                     function=entry if isinstance(entry, str) and entry else None,
                                     write=lambda text: self._output(text), cancel=lambda: self._cancelled))
        except Exception as error:  # a defect of ours: said, never a hang
            logger.exception("the run failed")
            self._output(f"the run failed: {error!r}\n", "stderr")
            self._ended(None, None)
            return
        if outcome.diagnostics:
            self._output("".join(render_diagnostic(outcome.source, d) for d in outcome.diagnostics), "stderr")
        elif outcome.result is None:
            self._output(f"cint: error: {outcome.error}\n", "stderr")
        self._output(f"cint-debug: ran on {outcome.executor} ({outcome.seconds:.2f} s)\n", "console")
        self._ended(outcome.result, None, code=None if outcome.result is not None else 2)

    def threads(self, arguments: dict[str, Any]) -> Model:
        return dap.ThreadsResponseBody(threads=[dap.Thread(id=THREAD, name="main")])

    # ---- a stopped run

    def _stopped(self, stop: Stop) -> None:
        self._references = {}
        body = dap.StoppedEventBody(reason=stop.reason, threadId=THREAD, allThreadsStopped=True,
                                    hitBreakpointIds=stop.breakpoints or None)
        if stop.fault is not None:
            body.description = f"Paused on {stop.fault.fault.code}"
            body.text = stop.fault.fault.code
        self._event("stopped", body)

    def _ended(self, result: RunResult | None, error: str | None, code: int | None = None) -> None:
        if error is not None:
            self._output(error + "\n", "stderr")
        code = code or 0
        if result is not None and result.fault is not None:
            code = 1
            self._output(render(source_of(self._path), result.fault), "stderr")
        self._event("exited", {"exitCode": code})
        self._event("terminated")

    # ---- going on

    def continue_(self, arguments: dict[str, Any]) -> Model:
        self._stopped_run().resume("continue")
        return dap.ContinueResponseBody(allThreadsContinued=True)

    def step(self, arguments: dict[str, Any]) -> None:
        """By statement; `next` and `stepIn` by `instruction` go to the next counted
        operation (disassembly.py)."""
        command = self._command
        if arguments.get("granularity") == "instruction" and command in ("next", "stepIn"):
            command = "operation"
        self._stopped_run().resume(command)
        return None

    def pause(self, arguments: dict[str, Any]) -> None:
        self._running().pause()
        return None

    def disconnect(self, arguments: dict[str, Any]) -> None:
        self._cancelled = True
        if self._debuggee is not None:
            self._debuggee.terminate()
        self._done = True
        return None

    def terminate(self, arguments: dict[str, Any]) -> None:
        self._cancelled = True
        self._running().terminate()
        return None


def _fast(arguments: dict[str, Any]) -> tuple[Any, ...] | None:
    """`stopOnFault` (run on cpu-c17 to the fault, debug its work-item) or
    `runToWorkItem` ({"dispatch": D, "workItem": W}): see replay.py."""
    wanted = arguments.get("runToWorkItem")
    if wanted is not None:
        if not isinstance(wanted, dict):
            raise RequestFailed("`runToWorkItem`: {\"dispatch\": D, \"workItem\": W}, both numbered from 0")
        dispatch, item = wanted.get("dispatch"), wanted.get("workItem")
        if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in (dispatch, item)):
            raise RequestFailed("`runToWorkItem`: {\"dispatch\": D, \"workItem\": W}, both numbered from 0")
        return ("work-item", dispatch, item)
    stop = arguments.get("stopOnFault")
    if stop is not None and not isinstance(stop, bool):
        raise RequestFailed("`stopOnFault`: true or false")
    return ("fault",) if stop and not arguments.get("noDebug") else None
