"""The handlers of the `cint` subcommands. Every run goes through `running.run` (the one
façade the server uses too); this module only turns outcomes into text and exit codes."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace

from ..exec.executors import AUTO, EXECUTOR_NAMES, ExecutorUnavailable, Options
from ..exec.faults import JsonObject
from ..ir.build import Build, build
from ..ir.printer import format_program
from ..running.entry import emitted, refusal
from ..running.report import render, render_run_report
from ..running.run import REFERENCE, RunOutcome, RunRequest
from ..running.run import run as run_request
from ..syntax import Diagnostic, SourceText, parse_source
from ..syntax.diagnostics import Related
from ..syntax.report import display_path, render_diagnostic
from . import trace as trace_cli
from .inputs import InputError, read_source

INTERP = REFERENCE
EXECUTORS = EXECUTOR_NAMES
NULL_DEVICE = "null"  # gpu-cuda's device whose launches do nothing (exec/cuda/README.md)
# Printed on stderr after every run on the null device, whatever else is asked: its output
# must never be taken for the program's.
NULL_NOTE = ("note: gpu-cuda ran on the null device: launches did nothing, so the output, fuel and outcome above "
             "are not the program's (the null device measures gpu-cuda's host alone)\n")

def _translated(args: argparse.Namespace) -> tuple[SourceText, Build] | None:
    """The file read and translated; None, after printing its errors (not its
    warnings), when it does not translate."""
    source = read_source(args.file)
    built = build(source.text, source.path)
    if built.program is None:
        print_diagnostics(source, built.checked.errors)
        return None
    return source, built


def print_diagnostics(source: SourceText, diagnostics: list[Diagnostic]) -> None:
    for diagnostic in diagnostics:
        sys.stderr.write(render_diagnostic(source, diagnostic))


def parse(args: argparse.Namespace) -> int:
    """Print the tree as an S-expression; exit 1 with diagnostics on syntax errors."""
    source = read_source(args.file)
    result = parse_source(source.text, source.path)
    sys.stdout.write(str(result.tree.root_node) + "\n")
    print_diagnostics(source, result.diagnostics)
    return 1 if result.diagnostics else 0


def with_reason(diagnostic: Diagnostic) -> Diagnostic:
    """The diagnostic as `cint check` prints it: the specific reason the analysis keeps in
    `data["detail"]` as the message, and the places in `data["see"]` as notes, as the
    editors show it (C5010: "the same view is passed for `u` (in) and `v` (out); ...",
    not its category "parameter mode, alias, or ABI rule"). `cint run` keeps the
    catalogue's line: the conformance outputs fix it (SPEC-02P.1 6.5, example 1)."""
    data = diagnostic.data or {}
    detail = data.get("detail")
    if not isinstance(detail, str) or not detail:
        return diagnostic
    see = tuple(r for r in data.get("see", ()) if isinstance(r, Related))
    return replace(diagnostic, message=detail, related=diagnostic.related + see)


def check(args: argparse.Namespace) -> int:
    """Print every diagnostic, warnings included; exit 2 when there is an error. With
    `--executor gpu-cuda`, also every construct gpu-cuda refuses (as warnings) and then
    the first one as the build error (SPEC-02P.1 10.5), exit 2 when there is one."""
    source = read_source(args.file)
    built = build(source.text, source.path)
    checked = built.checked
    if getattr(args, "executor", None) != "gpu-cuda":
        print_diagnostics(source, [with_reason(d) for d in checked.diagnostics])
        return 2 if checked.has_errors else 0
    from ..ide.diagnostics import capability_diagnostics

    found = sorted([with_reason(d) for d in checked.diagnostics] + capability_diagnostics(checked),
                   key=lambda d: (d.span.start_byte, d.code))
    print_diagnostics(source, found)
    refused = refusal(built, "gpu-cuda")  # the first refused construct: the build error
    if refused is not None:
        print_diagnostics(source, [refused])
    return 2 if checked.has_errors or refused is not None else 0


def executor_options(args: argparse.Namespace) -> dict[str, Options]:
    """The executors' options from the command line."""
    if not 1 <= args.block_size <= 1024:
        raise InputError("--block-size takes 1 to 1024 work-items")
    if args.device == NULL_DEVICE and "gpu-cuda" not in (args.executor, getattr(args, "check", None)):
        raise InputError("--device null runs gpu-cuda's host with launches that do nothing: it needs "
                         "--executor gpu-cuda (or --check gpu-cuda)")
    gpu: Options = {"device": args.device, "block_size": args.block_size, "order": args.order, "seed": args.seed}
    options = {"gpu-cuda": gpu}
    threads = getattr(args, "threads", None)
    if threads is not None:
        if not 1 <= threads <= 1024:
            raise InputError("--threads takes 1 to 1024 threads")
        options["cpu-c17"] = {"threads": threads}
    cluster = getattr(args, "cluster", None)
    if cluster is not None:
        options.setdefault("cpu-c17", {})["cluster"] = cluster
        for name in ("cluster_check", "cluster_keep"):
            if getattr(args, name, None) is not None:
                options["cpu-c17"][name] = getattr(args, name)
    elif getattr(args, "cluster_check", None) is not None or getattr(args, "cluster_keep", None) is not None:
        raise InputError("--cluster-check and --cluster-keep go with --cluster")
    return options


def _cluster_executor(args: argparse.Namespace) -> str:
    """`--cluster` runs cpu-c17's tiles on Dask: the executor is cpu-c17 (auto becomes it)."""
    executor: str = args.executor
    if getattr(args, "cluster", None) is None:
        return executor
    if executor not in (AUTO, "cpu-c17") or getattr(args, "check", None) is not None:
        raise InputError("--cluster runs cpu-c17 (with --executor auto or cpu-c17, without --check)")
    return "cpu-c17"


def _print_outcome_notes(outcome: RunOutcome, args: argparse.Namespace) -> None:
    """`--verbose` prints the executor's notes; gpu-cuda's note that it ran on the
    simulated device is printed whenever the device was not chosen (`--device auto`
    on a machine without a CUDA driver)."""
    notes = outcome.result.notes if outcome.result is not None else []
    for number, note in enumerate(notes):
        # The device's note comes first (RunResult.simulated says which device it was).
        chosen_by_default = number == 0 and args.device == "auto" and outcome.simulated
        if args.verbose or chosen_by_default:
            sys.stderr.write(f"note: {note}\n")
    _print_null_note(outcome)


def _print_null_note(outcome: RunOutcome | None) -> None:
    """NULL_NOTE after a run on the null device (`--device null`, or its --check run)."""
    if outcome is not None and outcome.null_device:
        sys.stderr.write(NULL_NOTE)


def _report_format(args: argparse.Namespace) -> str | None:
    """None (no report), "text" (`--report`) or "json" (`--report=json`)."""
    if not getattr(args, "report", False):
        return None
    form = getattr(args, "report_as", None) or "text"
    if form not in ("text", "json"):
        raise InputError(f"--report={form}: the report is text (--report) or JSON (--report=json)")
    return form


def _print_report(outcome: RunOutcome, form: str | None) -> None:
    """The run report on stderr, after everything else the run printed there."""
    if form is None:
        return
    data = outcome.run_report()
    sys.stderr.write(json.dumps(data) + "\n" if form == "json" else render_run_report(data))


def run(args: argparse.Namespace) -> int:
    form = _report_format(args)
    traced, arrays = trace_cli.wanted(args)
    outcome, code = _run(args, form is not None or traced, arrays)
    _print_report(outcome, form)
    trace_cli.write_outputs(args, outcome, display_path(args.file))
    return code


def _run(args: argparse.Namespace, report: bool, trace_arrays: JsonObject | None = None) -> tuple[RunOutcome, int]:
    """Run the file's entry through `running.run`: output to stdout (streamed when the run
    is in this process), then on stderr the fault report (exit 1), a host status (exit
    3), translation errors or the executor's refusal (exit 2), or the one line of a run
    without an outcome (`cint: error: ...`, exit 3). With `--check EXECUTOR` the entry
    runs again there, silently, and `check: A and B agree at N boundaries` (or where
    they first differ, exit 4) follows."""
    source = read_source(args.file)
    check_with = getattr(args, "check", None)
    outcome = run_request(RunRequest(
        source.path, source.text, _cluster_executor(args), args.fuel, executor_options(args),
        check=check_with, time_limit=getattr(args, "time_limit", None), write=sys.stdout.write, report=report,
        trace_arrays=trace_arrays))
    sys.stdout.flush()
    return outcome, _outcome_code(outcome, source, args)


def _outcome_code(outcome: RunOutcome, source: SourceText, args: argparse.Namespace) -> int:
    if outcome.diagnostics:
        print_diagnostics(source, outcome.diagnostics)
        return 2
    if outcome.result is None:
        print(f"cint: error: {outcome.error}", file=sys.stderr)
        return 3
    code = 0
    if outcome.result.fault is not None:
        sys.stderr.write(render(source, outcome.result.fault))
        code = 3 if outcome.result.fault.is_host_status else 1
    _print_outcome_notes(outcome, args)
    checked = outcome.checked
    if checked is None:
        return code
    if checked.refused:
        sys.stderr.write(f"check: {checked.executor} does not build this program: {checked.diagnostics[0].message}\n")
        return code
    if checked.result is None:
        sys.stderr.write(f"check: {checked.executor} gave no result: {checked.error}\n")
        return 3
    _print_null_note(checked)
    assert outcome.comparison is not None
    sys.stderr.write(outcome.comparison.line + "\n")
    return 4 if not outcome.comparison.agree else code


def emit_ir(args: argparse.Namespace) -> int:
    """Print the IR (every counted operation with its step ordinals); exit 2, with the
    errors, when the file does not translate."""
    translated = _translated(args)
    if translated is None:
        return 2
    source, built = translated
    assert built.program is not None, "_translated gives only a program that translated"
    sys.stdout.write(format_program(built.program))
    return 0


def _emit(args: argparse.Namespace, executor: str) -> int:
    translated = _translated(args)
    if translated is None:
        return 2
    source, built = translated
    refused = refusal(built, executor)
    if refused is not None:
        print_diagnostics(source, [refused])
        return 2
    try:
        text = emitted(built, executor)
    except ExecutorUnavailable as error:
        raise InputError(str(error)) from None
    if not text:  # gpu-cuda's code is the kernels' PTX module
        sys.stderr.write(f"note: {display_path(source.path)} defines no kernel: no PTX module\n")
    sys.stdout.write(text)
    return 0


def emit_c(args: argparse.Namespace) -> int:
    """Print the C17 that cpu-c17 compiles (deterministic); exit 2 with the errors when
    the file does not translate."""
    return _emit(args, "cpu-c17")


def emit_ptx(args: argparse.Namespace) -> int:
    """Print the PTX module of the file's kernels (SPEC-02P.1 10.5 para 2); exit 2 with
    the errors, or with gpu-cuda's refusal, when the program does not build for it."""
    return _emit(args, "gpu-cuda")
