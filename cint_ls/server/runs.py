"""Runs started from the editor, through the one façade (`running.run`): every run in a child
process, and the comparison of every implemented executor with the one comparer
(`running.compare`). No LSP here: the server turns a `RunOutcome` into notifications, log
messages and a diagnostic. The JSON shapes are documented in docs/server.md and
`cint_ls/server/schema/` (a test validates real results against them).
"""

from __future__ import annotations

from collections.abc import Callable

from ..exec.executors import EXECUTOR_NAMES
from ..running.compare import compare as compare_two
from ..running.executors import available
from ..running.isolated import keep_spare
from ..running.run import REFERENCE, RunOutcome, RunRequest, run
from ..running.trace import records
from .settings import Settings

__all__ = ["REFERENCE", "compare_executors", "implemented_executors", "keep_spare", "run_program",
           "run_result_json"]


def implemented_executors() -> list[str]:
    """The executors this installation has, in the order tools list them."""
    registered = available()
    return [name for name in EXECUTOR_NAMES if name in registered] + sorted(
        name for name in registered if name not in EXECUTOR_NAMES)


# What a run sends back to the editor: the rest is cut, with a note (issue 13 item 5: a
# program printing 660 MB took the server past its memory).
OUTPUT_LIMIT = 1 << 20  # bytes
# The run result's trace (running/trace.py): every dispatch, and pictures of the 2-D
# out/inout arrays cint.trace.arrays names (default: all), each of at most
# cint.trace.arrayLimit elements (default 256 × 256), 1,048,576 in all per run
# (Settings.array_selection).


def run_program(executor: str, path: str, text: str, settings: Settings,
                cancel: Callable[[], bool] | None = None, trace: bool = False,
                function: str | None = None, stage: Callable[[str], object] | None = None) -> RunOutcome:
    """Run `text` on `executor` in a child process, under the settings' fuel and time
    limit (which counts running, not compiling); from the exported `function` when one
    is named, else from the top-level statements. `stage` is told each stage the run
    reaches (compiling, running, describing the fault), from the calling thread. Never
    raises: a run without a result is an outcome with `error`."""
    # Every executor's options: `auto` passes on those of the one it chooses.
    options = {name: settings.run_options(name) for name in (*EXECUTOR_NAMES, executor)}
    request = RunRequest(path, text, executor, settings.fuel, options,
                         trace=trace, time_limit=settings.time_limit, isolate=True, cancel=cancel,
                         output_limit=OUTPUT_LIMIT, function=function, stage=stage,
                         report=True, trace_arrays=settings.array_selection())
    try:
        return run(request)
    except Exception as exc:  # noqa: BLE001 - a broken run must not reach the server
        from ..syntax import SourceText

        return RunOutcome(executor, SourceText(text, path), error=f"the {executor} run failed: "
                                                                  f"{type(exc).__name__}: {exc}",
                          fuel_budget=settings.fuel)


def run_result_json(outcome: RunOutcome, uri: str, version: int | None) -> dict:
    """The params of the `cint/runResult` notification (and the command's result):
    schema/run-result.schema.json. `report` and `summary` are the texts the editors
    print; they never format `fault` themselves. `runReport` is `cint run --report=json`'s
    object (its `decision` is the line the editors show)."""
    result = outcome.result
    error = outcome.reason
    return {
        "uri": uri,
        "version": version,
        "executor": outcome.executor,
        # a run cut short by a limit: the output printed before it (its first 1 MiB and last
        # lines), and `error` says it was cut
        "output": outcome.cut_output if result is None else result.output,
        "fault": None if result is None or result.fault is None else result.fault.to_json(),
        "fuelConsumed": None if result is None else result.fuel_consumed,
        "fuel": outcome.fuel_budget,
        "time": round(outcome.seconds, 4),
        "error": error,
        "summary": outcome.summary,
        "report": outcome.report,
        "notes": [] if result is None else list(result.notes),
        # the report of `cint run --report=json` (docs/cli.md): where the run went and why
        # (`decision`, auto's line), a row per dispatch; editors print `decision`
        "runReport": outcome.run_report(),
        # the run's trace as the lines of `cint run --trace` (docs/trace.md); the page: cint.tracePage
        "trace": records(outcome, outcome.source.path, arrays_asked=True),
    }


def _reason(outcome: RunOutcome) -> str:
    if outcome.diagnostics:
        return outcome.diagnostics[0].message
    return outcome.error or "no result"


def compare_executors(outcomes: list[RunOutcome]) -> dict:
    """The verdict of the editor's Compare as its JSON (`cint/compareResult`: compared,
    skipped, agree, difference, message): every outcome that has a result compared with
    the first of them (the reference, cpu-sir-interp when it ran) by `running.compare`
    (at every boundary when both were traced), up to the first `Comparison` that
    differs; the executors that gave no result (a refusal by a capability profile, or
    unavailable here) with the reason."""
    ran = [o for o in outcomes if o.result is not None]
    compared = [o.executor for o in ran]
    skipped = [(o.executor, _reason(o)) for o in outcomes if o.result is None]
    differing = None
    for other in ran[1:]:
        comparison = compare_two(ran[0].result, other.result)  # type: ignore[arg-type]
        if not comparison.agree:
            differing = comparison
            break
    if differing is not None:
        message = f"the executors disagree: {differing.sentence}"
    elif len(compared) >= 2:
        message = f"{', '.join(compared)} agree: output, fault record and fuel"
    elif compared:
        message = f"only {compared[0]} gave a result: nothing to compare"
    else:
        message = "no executor gave a result"
    for executor, reason in skipped:
        message += f"; {executor} gave no result: {reason}"
    return {"compared": compared, "skipped": [{"executor": e, "reason": r} for e, r in skipped],
            "agree": differing is None, "difference": None if differing is None else differing.sentence,
            "message": message}
