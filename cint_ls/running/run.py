"""The one way to run a program: `run(RunRequest) -> RunOutcome`.

Build the text, let the executor admit it (gpu-cuda's capability profile, SPEC-02P.1
10.5 para 11), run the entry (in a child process, `isolated.py`, whenever the executor
is native or the caller asks for a time limit or a way to cancel), and, for `check`,
run it again on a second executor and compare the two at every boundary (`compare.py`).
The CLI's `cint run` and the server's Run and Compare call this and nothing below it.

An outcome is exactly one of: translation errors (`diagnostics`, nothing ran), a refusal
by the executor (`diagnostics` holds its E_UNSUPPORTED error, nothing ran), no result
(`error`, one line: no C compiler, no device, a crash, a time-out, a cancel), or a
result (which may hold a fault or a host status).

The entry is the module's top-level statements, or with `function` a call of that
exported function without parameters (the workbench's `:run f()`, SPEC-02P.1 8.4
example 1: the call charges 1).

The executor `auto` (the default of `cint run` and of the editor's plain Run) is chosen
per run by `auto.py` (gpu-cuda on a real device where measurement says it wins, else
cpu-c17 where there is a C compiler, else cpu-sir-interp); the outcome keeps the
decision (`RunOutcome.auto`) and `RunOutcome.run_report()` is the report of
`cint run --report` (a row per dispatch: executor, device, work-items, threads or
launches, time, fuel), rendered by `report.render_run_report`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePath

from ..exec.executors import ExecutorUnavailable
from ..exec.runtime import RunResult
from ..exec.selection import selected_arrays
from ..exec.stages import RUNNING, reached
from ..ir import nodes as ir
from ..ir.build import Build, build
from ..syntax import Diagnostic, SourceText
from ..syntax.report import diagnostic_line
from . import auto as auto_executor
from .auto import AUTO, Decision
from .compare import Comparison, compare
from .executors import get
from .isolated import IsolatedRunError, Request, run_isolated
from .report import device_of, render, summary
from .trace import copies_of

REFERENCE = "cpu-sir-interp"
# How cpu-c17's refusal of a program beyond its limits begins (c17/library.py, Untranslatable).
C17_UNTRANSLATABLE = "cpu-c17 cannot translate this program"


@dataclass
class RunRequest:
    path: str
    text: str
    executor: str = REFERENCE
    fuel: int | None = None
    # Options by executor name (gpu-cuda: device, block_size, order, seed, ...).
    options: dict[str, dict] = field(default_factory=dict)
    check: str | None = None  # also run on this executor and compare
    trace: bool = False  # ask for the boundaries of a comparison (implied by `check`)
    time_limit: float | None = None  # seconds of running (not compiling: isolated.py); implies a child process
    isolate: bool | None = None  # None: a child process when needed (see the module's doc)
    cancel: Callable[[], bool] | None = None  # polled; True stops the run (implies a child process)
    write: Callable[[str], object] | None = None  # the program's output (streamed when in process)
    output_limit: int | None = None  # bytes of output kept (cap_output); None: all of it
    function: str | None = None  # run this exported function instead of the top-level statements
    stage: Callable[[str], object] | None = None  # told each stage of an isolated run (stages.py)
    report: bool = False  # record each dispatch (RunResult.dispatch_log) for RunOutcome.run_report
    # Pictures of 2-D out/inout arrays after each dispatch for the trace (running/trace.py,
    # ArraySelection.to_json); implies `report`.
    trace_arrays: dict | None = None
    learn: bool = True  # auto: keep what the run measured (auto.learn); tests and benchmarks say no

    def options_for(self, executor: str) -> dict:
        options = dict(self.options.get(executor) or {})
        if self.trace or self.check is not None:
            options["trace"] = True
        if self.report or self.trace_arrays is not None:
            options["report"] = True
        if self.trace_arrays is not None:
            options["trace_arrays"] = self.trace_arrays
        return options


@dataclass
class RunOutcome:
    executor: str
    source: SourceText
    result: RunResult | None = None
    error: str | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    refused: bool = False  # the diagnostics are the executor's refusal, not translation errors
    seconds: float = 0.0
    fuel_budget: int | None = None
    checked: RunOutcome | None = None  # the run on `check`'s executor
    comparison: Comparison | None = None
    auto: Decision | None = None  # what `auto` chose and why; None for an executor asked by name
    # A run cut short (time or memory limit, a crash, a cancel): what the program printed
    # before, its first bytes and last lines (isolated.py, _Kept); `error` says it was cut.
    cut_output: str | None = None

    @property
    def reason(self) -> str | None:
        """Why there is no result, in one line (the first translation error or the
        refusal, else the error); None when there is one."""
        if self.result is not None:
            return None
        if self.error is None and self.diagnostics:
            return diagnostic_line(self.diagnostics[0])
        return self.error

    @property
    def report(self) -> str | None:
        """The fault or host status as `cint run` prints it; None without one."""
        if self.result is None or self.result.fault is None:
            return None
        return render(self.source, self.result.fault)

    @property
    def summary(self) -> str:
        """One line: `cpu-sir-interp: E_OVERFLOW at heat_e1.ci:13:33: mul.checked.i64
        (work-item 20, step 22); fuel 65; 0.41 s`."""
        head = f"{self.executor}: "
        if self.result is None:
            return head + (self.reason or "no result")
        if self.result.fault is not None:
            what = summary(self.result.fault, path=PurePath(self.source.path).name)
        else:
            what = "finished"
        where = "; ran on the simulated device" if self.simulated else ""
        if self.null_device:
            where = "; ran on the null device (launches did nothing: not the program's output)"
        return head + f"{what}{where}; fuel {self.result.fuel_consumed}; {self.seconds:.2f} s"

    def run_report(self) -> dict:
        """The report of `cint run --report=json` (docs/cli.md, "The run report"): the
        executor and device, what auto decided, and a row per dispatch (rows need
        RunRequest.report)."""
        result = self.result
        device = device_of(self.executor, result.notes if result is not None else [])
        rows = [] if result is None or result.dispatch_log is None else result.dispatch_log
        dispatches = [{"number": row.get("number"), "kernel": row.get("kernel"), "executor": self.executor,
                       "device": device, "work_items": row.get("work_items"), "threads": row.get("threads"),
                       "launches": row.get("launches"), "copies": copies_of(row), "seconds": row.get("seconds"),
                       "fuel": row.get("fuel"), "cluster": row.get("cluster")}
                      for row in rows]
        if result is None:
            ended = "no result"
        elif result.fault is not None:
            ended = result.fault.code
        else:
            ended = "finished"
        return {
            "executor": self.executor,
            "device": device,
            "chosen": "auto" if self.auto is not None else "named",
            "auto": None if self.auto is None else self.auto.to_json(),
            "decision": self.auto.line if self.auto is not None else f"{self.executor} was named: auto did not choose",
            "outcome": ended,
            "error": self.reason if result is None else None,
            "seconds": round(self.seconds, 6),
            "fuel": None if result is None else result.fuel_consumed,
            "dispatch_count": None if result is None else result.dispatches,
            "dispatches": dispatches,
            "recorded": None if result is None or result.dispatch_log is None else len(rows),
            "checked": None if self.checked is None else self.checked.run_report(),
        }

    @property
    def null_device(self) -> bool:
        """Whether the run took place on gpu-cuda's null device (launches do nothing, for
        measuring the host: its output, fuel and outcome are not the program's), as its
        note says (exec/cuda/__init__.py; the CLI always prints a note then)."""
        return self.result is not None and any(note.startswith("gpu-cuda ran on the null device")
                                               for note in self.result.notes)

    @property
    def simulated(self) -> bool:
        """Whether the run took place on gpu-cuda's simulated device, as its note says
        (cuda.device_note; the CLI reads the same note)."""
        return self.result is not None and any("ran on the simulated device" in note for note in self.result.notes)


def executor_label(name: str) -> str:
    """The executor's name as an editor shows it: `gpu-cuda (simulated)` where its runs
    will take place on the simulated device (the executor's `simulated` option, a quick
    forecast)."""
    try:
        simulated = get(name).simulated()
    except ExecutorUnavailable:
        return name
    return f"{name} (simulated)" if simulated else name


class NoSuchEntry(ValueError):
    """The function asked for cannot be an entry: one line that says why."""


def runnable_functions(built: Build) -> list[str]:
    """The functions a run can start from: exported, without parameters."""
    return [name for name, info in built.checked.functions.items() if info.node.export and not info.params]


def with_entry(built: Build, function: str | None) -> ir.Program:
    """The built program, its entry replaced by a call of `function` when one is named.
    Raises NoSuchEntry."""
    program = built.program
    assert program is not None, "only a program without translation errors runs"
    if function is None:
        return program
    info = built.checked.functions.get(function)
    if info is None or not info.node.export:
        known = ", ".join(runnable_functions(built)) or "none"
        what = "no function" if info is None else "no exported function"
        raise NoSuchEntry(f"{what} {function!r} to run (exported functions without parameters: {known})")
    if info.params:
        raise NoSuchEntry(f"{function} takes parameters: only a function without parameters can be run")
    target = program.functions[function]
    # The call's span is the function's name: where the entry's stack frame and the
    # call's fuel charge point.
    call = ir.Call(target.return_type, function, [], target.span)
    entry = ir.Function("<entry>", f"{program.module} entry {function}()", [], [], [], program.entry.return_type,
                        [ir.Eval(target.span, call)], 0, target.span)
    return ir.Program(program.module, program.path, program.functions, program.kernels, entry)


class Refused(ExecutorUnavailable):
    """The executor does not build this program (its capability profile refuses it)."""


def refusal(built: Build, executor_name: str) -> Diagnostic | None:
    """The executor's build error for the program (gpu-cuda: the first construct its
    capability profile refuses), or None. Raises ExecutorUnavailable for an unknown name."""
    return get(executor_name).admit(built)


def emitted(built: Build, executor_name: str) -> str:
    """The code the executor builds from the program (cpu-c17: C17, gpu-cuda: PTX).
    Raises ExecutorUnavailable (Refused when the executor refuses the program)."""
    executor = get(executor_name)
    found = executor.admit(built)
    if found is not None:
        raise Refused(found.message)
    assert built.program is not None, "only a program without translation errors is emitted"
    return executor.emit(built.program)


def cap_output(result: RunResult, limit: int | None) -> RunResult:
    """The result with at most `limit` bytes of output (cut at a character boundary) and
    a note saying so: what a run sends back to an editor is bounded, whatever the
    program prints."""
    if limit is None:
        return result
    data = result.output.encode("utf-8")
    if len(data) <= limit:
        return result
    result.output = data[:limit].decode("utf-8", "ignore")
    result.notes.append(f"output truncated after {limit} bytes (the program printed {len(data)})")
    return result


def run_built(built: Build, executor_name: str, fuel: int | None, options: dict,
              write: Callable[[str], object] | None = None, function: str | None = None) -> RunResult:
    """Run a built program in this process (the child of an isolated run calls this).
    Raises ExecutorUnavailable (Refused for a program the executor refuses) and
    NoSuchEntry."""
    executor = get(executor_name)
    refusal = executor.admit(built)
    if refusal is not None:
        raise Refused(refusal.message)
    program = with_entry(built, function)
    if not executor.compiles:
        reached(RUNNING)  # an executor that compiles reports it once compiled
    with selected_arrays(options) as plain:
        return executor.run(program, fuel, write, plain)


def _one(request: RunRequest, executor_name: str, source: SourceText, built: Build,
         write: Callable[[str], object] | None, extra: dict | None = None) -> RunOutcome:
    outcome = RunOutcome(executor_name, source, fuel_budget=request.fuel)
    try:
        executor = get(executor_name)
    except ExecutorUnavailable as error:
        outcome.error = str(error)
        return outcome
    refusal = executor.admit(built)
    if refusal is not None:
        outcome.diagnostics, outcome.refused = [refusal], True
        return outcome
    isolate = request.isolate
    if isolate is None:
        isolate = executor.native or request.time_limit is not None or request.cancel is not None
    options = request.options_for(executor_name)
    options.update(extra or {})
    started = time.monotonic()
    try:
        if isolate:
            outcome.result = run_isolated(Request(executor_name, source.path, source.text, request.fuel, options,
                                                  output_limit=request.output_limit, function=request.function),
                                          time_limit=request.time_limit, cancel=request.cancel, stage=request.stage)
            if write is not None and outcome.result.output:
                write(outcome.result.output)
        else:
            with selected_arrays(options) as plain:
                outcome.result = cap_output(executor.run(with_entry(built, request.function), request.fuel, write,
                                                         plain), request.output_limit)
    except IsolatedRunError as error:
        outcome.error, outcome.cut_output = str(error), error.output
        if write is not None and error.output:
            write(error.output)
    except ExecutorUnavailable as error:
        outcome.error = str(error)
    outcome.seconds = time.monotonic() - started
    return outcome


def choose(built: Build) -> Decision:
    """What `auto` runs the built program on here, and why (auto.py)."""
    program = built.program
    assert program is not None
    if not program.kernels:
        return auto_executor.decide(False, None, None)
    gpu = auto_executor.gpu_status()
    if not gpu[0]:
        return auto_executor.decide(False, None, "", gpu=gpu)
    try:
        found = refusal(built, auto_executor.GPU)
        if found is not None:
            return auto_executor.decide(False, found.message, "", gpu=gpu)
        code = emitted(built, auto_executor.GPU)
    except ExecutorUnavailable as error:
        return auto_executor.decide(False, str(error), "", gpu=gpu)
    return auto_executor.decide(True, None, code, gpu=gpu)


def run(request: RunRequest) -> RunOutcome:
    """Build, admit, run, and compare when asked. Never raises for a property of the
    program or of this machine: those are outcomes."""
    source = SourceText(request.text, request.path)
    built = build(request.text, request.path)
    if built.program is None:
        return RunOutcome(request.executor, source, diagnostics=list(built.checked.errors),
                          fuel_budget=request.fuel)
    try:
        with_entry(built, request.function)  # before any child starts
    except NoSuchEntry as error:
        return RunOutcome(request.executor, source, error=str(error), fuel_budget=request.fuel)
    executor, decision, extra = request.executor, None, None
    if executor == AUTO and request.check not in (None, REFERENCE):
        # `--check E` compares E with the reference: auto runs the reference first.
        decision = Decision(REFERENCE, f"the check compares {request.check} with the reference")
        executor = REFERENCE
    elif executor == AUTO:
        decision = choose(built)
        executor, extra = decision.executor, decision.options
    outcome = _one(request, executor, source, built, request.write, extra)
    if (decision is not None and executor == auto_executor.C17 and outcome.result is None
            and (outcome.error or "").startswith(C17_UNTRANSLATABLE)):
        # Beyond cpu-c17's limits (its README, "Limits"): the reference runs it.
        decision.executor, decision.why = REFERENCE, f"{outcome.error}; {decision.why}"
        executor = REFERENCE
        outcome = _one(request, executor, source, built, request.write)
    outcome.auto = decision
    if decision is not None and request.learn:
        result = outcome.result
        auto_executor.learn(decision, None if result is None else result.dispatch_log,
                            faulted=result is None or result.fault is not None)
    if request.check is None or request.check == executor or outcome.result is None:
        return outcome
    outcome.checked = _one(request, request.check, source, built, None)
    if outcome.checked.result is not None:
        # The reference is named first, as `check: cpu-sir-interp and cpu-c17 agree ...`.
        first, second = outcome, outcome.checked
        if second.executor == REFERENCE:
            first, second = second, first
        outcome.comparison = compare(first.result, second.result)  # type: ignore[arg-type]
    return outcome
