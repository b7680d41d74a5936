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
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import PurePath

from ..exec.executors import AUTO, UNTRANSLATABLE, ExecutorUnavailable, Options, display_name
from ..exec.faults import JsonObject
from ..exec.runtime import RunResult
from ..exec.selection import selected_arrays
from ..ir.build import Build, build
from ..syntax import Diagnostic, SourceText
from ..syntax.report import diagnostic_line
from . import auto as auto_executor
from .auto import Decision
from .compare import Comparison, compare
from .entry import NoSuchEntry, cap_output, emitted, refusal, with_entry
from .executors import get
from .isolated import IsolatedRunError, Request, run_isolated
from .report import device_of, render, summary
from .trace import copies_of

REFERENCE = "cpu-sir-interp"


@dataclass
class RunRequest:
    path: str
    text: str
    executor: str = REFERENCE
    fuel: int | None = None
    # Options by executor name (gpu-cuda: device, block_size, order, seed, ...).
    options: dict[str, Options] = field(default_factory=dict)
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
    trace_arrays: JsonObject | None = None
    learn: bool = True  # auto: keep what the run measured (auto.learn); tests and benchmarks say no

    def options_for(self, executor: str) -> Options:
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
    # Why the executor would not run the program, as a kind (ExecutorUnavailable.refusal,
    # UNTRANSLATABLE), beside `error`'s line; None for any other cause, or a result.
    refusal: str | None = None

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
        where = "; ran on the simulated device" if self.result.simulated else ""
        if self.result.null_device:
            where = "; ran on the null device (launches did nothing: not the program's output)"
        return head + f"{what}{where}; fuel {self.result.fuel_consumed}; {self.seconds:.2f} s"

    def run_report(self) -> JsonObject:
        """The report of `cint run --report=json` (docs/cli.md, "The run report"): the
        executor and device, what auto decided, and a row per dispatch (rows need
        RunRequest.report)."""
        result = self.result
        device = device_of(self.executor, result)
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
        measuring the host: its output, fuel and outcome are not the program's; the CLI
        always prints a note then): the result's field, set by gpu-cuda."""
        return self.result is not None and self.result.null_device

    @property
    def simulated(self) -> bool:
        """Whether the run took place on gpu-cuda's simulated device: the result's field."""
        return self.result is not None and self.result.simulated


def simulated_executors(names: Iterable[str]) -> frozenset[str]:
    """Those of the executors named whose runs will take place on a simulated device
    here (each executor's `simulated`, a quick forecast: gpu-cuda's asks the CUDA probe,
    which may start a process once and keeps its answer). The server asks this and gives
    the answer to the ide's lenses, which do no I/O."""
    out = set()
    for name in names:
        try:
            if get(name).simulated():
                out.add(name)
        except ExecutorUnavailable:
            continue
    return frozenset(out)


def executor_label(name: str) -> str:
    """The executor's name as an editor shows it: `gpu-cuda (simulated)` where its runs
    will take place on the simulated device (display_name with this machine's forecast)."""
    return display_name(name, name in simulated_executors((name,)))


def cluster_problem(spec: object) -> str | None:
    """Why `spec` is not a cluster cpu-c17 can be given (its option `cluster`,
    docs/cluster.md: "local:N", "tcp://HOST:PORT", "tls://HOST:PORT"), in one line, or
    None where it is one. Reads the text only: needs no Dask and reaches no scheduler."""
    from ..exec.c17.cluster import ClusterError, parse_address

    if not isinstance(spec, str):
        return f"a cluster is a text, not {spec!r}"
    try:
        parse_address(spec)
    except ClusterError as error:
        return str(error)
    return None


def _one(request: RunRequest, executor_name: str, source: SourceText, built: Build,
         write: Callable[[str], object] | None, extra: Options | None = None) -> RunOutcome:
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
            # The child runs the program built here (the IR, pickled): a Run builds once.
            outcome.result = run_isolated(Request(executor_name, with_entry(built, request.function), request.fuel,
                                                  options, output_limit=request.output_limit),
                                          time_limit=request.time_limit, cancel=request.cancel, stage=request.stage)
            if write is not None and outcome.result.output:
                write(outcome.result.output)
        else:
            with selected_arrays(options) as plain:
                outcome.result = cap_output(executor.run(with_entry(built, request.function), request.fuel, write,
                                                         plain), request.output_limit)
    except IsolatedRunError as error:
        outcome.error, outcome.cut_output, outcome.refusal = str(error), error.output, error.refusal
        if write is not None and error.output:
            write(error.output)
    except ExecutorUnavailable as error:
        outcome.error, outcome.refusal = str(error), error.refusal
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
    if (decision is not None and executor in (auto_executor.C17, auto_executor.GPU) and outcome.result is None
            and outcome.refusal == UNTRANSLATABLE):
        # Beyond cpu-c17's limits (its README, "Limits"; gpu-cuda's host is the program's
        # C too): the reference runs it.
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
