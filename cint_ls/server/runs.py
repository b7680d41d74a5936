"""Runs started from the editor: one executor in a child process (`exec.isolated`), and
the comparison of every implemented executor. No LSP here: the server turns an
`Outcome` into notifications, log messages and a diagnostic.
"""

from __future__ import annotations

import time
from pathlib import PurePath
from collections.abc import Callable
from dataclasses import dataclass

from ..exec.executors import EXECUTOR_NAMES, available
from ..exec.faults import FaultRecord
from ..exec.isolated import IsolatedRunError, Request, run_isolated
from ..exec.report import render_fault_summary
from ..exec.runtime import RunResult
from .settings import Settings

REFERENCE = "cpu-sir-interp"


def implemented_executors() -> list[str]:
    """The executors this installation has, in the order tools list them."""
    registered = available()
    return [name for name in EXECUTOR_NAMES if name in registered] + sorted(
        name for name in registered if name not in EXECUTOR_NAMES)


@dataclass
class Outcome:
    """One run: its result, or the one-line reason it has none."""

    executor: str
    path: str
    result: RunResult | None
    error: str | None
    seconds: float
    fuel_budget: int | None = None
    report: str | None = None  # the fault as `cint run` prints it (set by the server)

    @property
    def fault(self) -> FaultRecord | None:
        return None if self.result is None else self.result.fault

    @property
    def summary(self) -> str:
        """One line: `cpu-sir-interp: E_OVERFLOW at heat_e1.ci:13:33: mul.checked.i64
        (work-item 20, step 22); fuel 65; 0.41 s`."""
        head = f"{self.executor}: "
        if self.result is None:
            return head + (self.error or "no result")
        if self.result.fault is not None:
            what = render_fault_summary(self.result.fault, path=PurePath(self.path).name)
        else:
            what = "finished"
        return head + f"{what}; fuel {self.result.fuel_consumed}; {self.seconds:.2f} s"

    def to_json(self, uri: str, version: int | None) -> dict:
        """The params of the `cint/runResult` notification (and the command's result)."""
        result = self.result
        return {
            "uri": uri,
            "version": version,
            "executor": self.executor,
            "output": None if result is None else result.output,
            "fault": None if result is None or result.fault is None else result.fault.to_json(),
            "fuelConsumed": None if result is None else result.fuel_consumed,
            "fuel": self.fuel_budget,
            "time": round(self.seconds, 4),
            "error": self.error,
            "summary": self.summary,
            "report": self.report,
            "notes": [] if result is None else list(result.notes),
        }


def run_program(executor: str, path: str, text: str, settings: Settings,
                cancel: Callable[[], bool] | None = None) -> Outcome:
    """Run `text` on `executor` in a child process, under the settings' fuel and time
    limit. Never raises: a run without a result is an Outcome with `error`."""
    request = Request(executor, path, text, settings.fuel, settings.run_options(executor))
    started = time.monotonic()
    try:
        result = run_isolated(request, settings.time_limit, cancel)
        error = None
    except IsolatedRunError as exc:
        result, error = None, str(exc)
    except Exception as exc:  # noqa: BLE001 - a broken run must not reach the server
        result, error = None, f"the {executor} run failed: {type(exc).__name__}: {exc}"
    return Outcome(executor, path, result, error, time.monotonic() - started, settings.fuel)


# ---- comparison

def _fault_fields(record: FaultRecord | None) -> dict | None:
    if record is None:
        return None
    data = record.to_json()
    data.pop("details", None)
    data.pop("fuel_consumed", None)  # compared as the run's fuel
    return data


_FIELD_ORDER = ("code", "operation", "operands", "exact", "limit", "span", "stack", "address", "views")


def _first_line_difference(a: str, b: str) -> tuple[int, str | None, str | None]:
    left, right = a.splitlines(), b.splitlines()
    for i in range(max(len(left), len(right))):
        x = left[i] if i < len(left) else None
        y = right[i] if i < len(right) else None
        if x != y:
            return i + 1, x, y
    return 0, None, None


def first_difference(reference: Outcome, other: Outcome) -> str | None:
    """The first way `other` differs from `reference` (output, fault record field by
    field, fuel), as one sentence; None when they agree."""
    r, o = reference.executor, other.executor
    if reference.result is None or other.result is None:
        if reference.result is None and other.result is None and reference.error == other.error:
            return None
        missing = reference if reference.result is None else other
        return f"{missing.executor} gave no result: {missing.error}"
    a, b = reference.result, other.result
    if a.output != b.output:
        line, x, y = _first_line_difference(a.output, b.output)
        if line == 0:
            return f"the output differs ({r} and {o} differ in line endings)"
        show = lambda s: "nothing" if s is None else f"`{s}`"  # noqa: E731
        return f"the output differs at line {line}: {r} printed {show(x)}, {o} printed {show(y)}"
    fa, fb = _fault_fields(a.fault), _fault_fields(b.fault)
    if (fa is None) != (fb is None):
        faulted, clean = (reference, other) if fa is not None else (other, reference)
        summary = render_fault_summary(faulted.fault, path=PurePath(faulted.path).name)
        return f"{faulted.executor} faulted ({summary}), {clean.executor} did not"
    if fa is not None and fb is not None and fa != fb:
        for key in _FIELD_ORDER:
            if fa.get(key) != fb.get(key):
                return f"the fault records differ in `{key}`: {r} {fa.get(key)!r}, {o} {fb.get(key)!r}"
        return f"the fault records differ: {r} {fa!r}, {o} {fb!r}"
    if a.fuel_consumed != b.fuel_consumed:
        return f"the fuel consumed differs: {r} {a.fuel_consumed}, {o} {b.fuel_consumed}"
    return None


@dataclass
class Comparison:
    """The verdict of a comparison: the executors whose results were compared, those that
    gave none (an executor may refuse a program by its capability profile, or be
    unavailable here) with the reason, and the first difference among the results."""

    compared: list[str]
    skipped: list[tuple[str, str]]
    difference: str | None

    @property
    def agree(self) -> bool:
        return self.difference is None

    @property
    def message(self) -> str:
        if self.difference is not None:
            text = f"the executors disagree: {self.difference}"
        elif len(self.compared) >= 2:
            text = f"{', '.join(self.compared)} agree: output, fault record and fuel"
        elif self.compared:
            text = f"only {self.compared[0]} gave a result: nothing to compare"
        else:
            text = "no executor gave a result"
        for executor, reason in self.skipped:
            text += f"; {executor} gave no result: {reason}"
        return text


def compare(outcomes: list[Outcome]) -> Comparison:
    """Compare every outcome that has a result with the first of them (the reference,
    cpu-sir-interp when it ran)."""
    ran = [o for o in outcomes if o.result is not None]
    skipped = [(o.executor, o.error or "no result") for o in outcomes if o.result is None]
    difference = None
    for other in ran[1:]:
        difference = first_difference(ran[0], other)
        if difference is not None:
            break
    return Comparison([o.executor for o in ran], skipped, difference)
