"""The handlers of the `cint` subcommands."""

from __future__ import annotations

import argparse
import sys

from ..exec.interp import EXECUTOR as INTERP
from ..exec.interp import run_program
from ..exec.report import render_fault
from ..ir.build import Build, build
from ..ir.printer import format_program
from ..syntax import Diagnostic, SourceText, parse_source
from ..syntax.report import display_path, render_diagnostic
from .inputs import InputError, read_source

EXECUTORS = (INTERP, "cpu-c17", "gpu-cuda")


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


def check(args: argparse.Namespace) -> int:
    """Print every diagnostic, warnings included; exit 2 when there is an error. With
    `--executor gpu-cuda`, also every construct gpu-cuda refuses (as warnings) and then
    the first one as the build error (SPEC-02P.1 10.5), exit 2 when there is one."""
    source = read_source(args.file)
    checked = build(source.text, source.path).checked
    if getattr(args, "executor", None) != "gpu-cuda":
        print_diagnostics(source, checked.diagnostics)
        return 2 if checked.has_errors else 0
    from ..exec.cuda.admission import admit
    from ..ide.diagnostics import capability_diagnostics

    found = sorted(checked.diagnostics + capability_diagnostics(checked), key=lambda d: (d.span.start_byte, d.code))
    print_diagnostics(source, found)
    refusal = admit(checked)  # the first refused construct: the build error
    if refusal is not None:
        print_diagnostics(source, [refusal])
    return 2 if checked.has_errors or refusal is not None else 0


def run(args: argparse.Namespace) -> int:
    """Run the file's entry: output to stdout, a fault report to stderr (exit 1);
    translation errors, not warnings, to stderr (exit 2)."""
    if "cpu-c17" in (args.executor, getattr(args, "check", None)) and args.executor != "gpu-cuda":
        return run_c17(args)
    if args.executor == "gpu-cuda" or getattr(args, "check", None) is not None:
        return run_on_executor(args)
    translated = _translated(args)
    if translated is None:
        return 2
    source, built = translated
    result = run_program(built.program, args.fuel, write=_stdout_writer())
    sys.stdout.flush()
    if result.fault is not None:
        sys.stderr.write(render_fault(source, result.fault))
        return 1
    return 0


def emit_ir(args: argparse.Namespace) -> int:
    """Print the IR (every counted operation with its step ordinals); exit 2, with the
    errors, when the file does not translate."""
    translated = _translated(args)
    if translated is None:
        return 2
    source, built = translated
    sys.stdout.write(format_program(built.program))
    return 0


def _stdout_writer():
    write = sys.stdout.write
    return write


# ---- cpu-c17 (SPEC-02P.1 10.3): runs in a child process; --check at every boundary


def run_c17(args: argparse.Namespace) -> int:
    """`cint run --executor cpu-c17` and `--check cpu-c17`. cpu-c17 runs in a child
    process (a crash or a time-out is `cint: error: ...`, exit 3). With --check, the entry
    also runs on the reference; the report of --executor's run is printed, then
    `check: cpu-sir-interp and cpu-c17 agree at N boundaries` or where they first differ
    (exit 4), on stderr (cint_ls/exec/c17/check.py)."""
    from ..exec.c17.check import check_line, compare, reference_trace, trace_of
    from ..exec.isolated import IsolatedRunError, Request, run_isolated

    translated = _translated(args)
    if translated is None:
        return 2
    source, built = translated
    checking = args.check is not None and args.check != args.executor
    try:
        c17 = run_isolated(Request("cpu-c17", source.path, source.text, args.fuel, {"trace": checking}),
                           time_limit=getattr(args, "time_limit", None))
    except IsolatedRunError as error:
        print(f"cint: error: {error}", file=sys.stderr)
        return 3
    reference, ref_trace = reference_trace(built.program, args.fuel) if checking else (None, None)
    shown = reference if reference is not None and args.executor == INTERP else c17
    sys.stdout.write(shown.output)
    sys.stdout.flush()
    code = 0
    if shown.fault is not None:
        sys.stderr.write(render_fault(source, shown.fault))
        code = 1
    if checking:
        count, difference = compare(reference, ref_trace, c17, trace_of(c17))
        sys.stderr.write(check_line(count, difference) + "\n")
        if difference is not None:
            return 4
    return code


def emit_c(args: argparse.Namespace) -> int:
    """Print the C17 that cpu-c17 compiles (deterministic); exit 2 with the errors when
    the file does not translate."""
    from ..exec.c17.emit import EmitError, emit_program

    translated = _translated(args)
    if translated is None:
        return 2
    source, built = translated
    try:
        sys.stdout.write(emit_program(built.program))
    except EmitError as error:
        raise InputError(f"cpu-c17 cannot translate this program: {error}") from None
    return 0


# ---- runs through the executor registry: gpu-cuda, --check (SPEC-02P.1 8.4 example 9)


def executor_options(args: argparse.Namespace, name: str) -> dict:
    """The options of one executor from the command line."""
    if name == "gpu-cuda":
        if not 1 <= args.block_size <= 1024:
            raise InputError("--block-size takes 1 to 1024 work-items")
        return {"device": args.device, "block_size": args.block_size, "order": args.order, "seed": args.seed}
    return {}


def _executor(name: str):
    from ..exec.executors import ExecutorUnavailable, get

    try:
        return get(name)
    except ExecutorUnavailable as error:
        raise InputError(str(error)) from None


def _admission(executor, built) -> Diagnostic | None:
    """The executor's build-time refusal of the program (gpu-cuda: the first construct
    its capability profile refuses, SPEC-02P.1 10.5 para 11), or None."""
    admit = executor.options.get("admit")
    return admit(built) if admit is not None else None


def _run_executor(executor, built, args: argparse.Namespace, write):
    from ..exec.executors import ExecutorUnavailable

    try:
        return executor.run(built.program, args.fuel, write, executor_options(args, executor.name))
    except ExecutorUnavailable as error:
        raise InputError(str(error)) from None


def _report(source: SourceText, result) -> int:
    """Print a run's fault (or host status) to stderr; the exit code: 0, 1 for a fault,
    3 for a host status (CINT_RESOURCE: not a cint fault)."""
    from ..exec.cuda.status import is_host_status, render_host_status

    if result.fault is None:
        return 0
    if is_host_status(result.fault):
        sys.stderr.write(render_host_status(source, result.fault))
        return 3
    sys.stderr.write(render_fault(source, result.fault))
    return 1


def _first_difference(a, b) -> str | None:
    """The first way two run results differ (output, fault record, fuel), or None."""
    if a.output != b.output:
        return "the output differs"
    fa = None if a.fault is None else {k: v for k, v in a.fault.to_json().items() if k != "details"}
    fb = None if b.fault is None else {k: v for k, v in b.fault.to_json().items() if k != "details"}
    if fa != fb:
        if fa is None or fb is None:
            return f"only {(a if fb is None else b).executor} faulted"
        key = next((k for k in fa if fa[k] != fb.get(k)), "record")
        return f"the fault records differ in `{key}`: {fa.get(key)!r} and {fb.get(key)!r}"
    if a.fuel_consumed != b.fuel_consumed:
        return f"the fuel consumed differs: {a.fuel_consumed} and {b.fuel_consumed}"
    return None


def run_on_executor(args: argparse.Namespace) -> int:
    """`cint run` through the executor registry: admission (exit 2 with E_UNSUPPORTED),
    the run, its report; `--verbose` prints the executor's notes, and gpu-cuda's note
    that it ran on the simulated device is printed whenever the device was not chosen
    (`--device auto` on a machine without a CUDA driver). With `--check EXECUTOR`, the
    entry runs again on EXECUTOR, silently, and `check: A and B agree at 1 boundary` (or
    `... differ: ...`, exit 4) follows on stderr."""
    translated = _translated(args)
    if translated is None:
        return 2
    source, built = translated
    executor = _executor(args.executor)
    refusal = _admission(executor, built)
    if refusal is not None:
        print_diagnostics(source, [refusal])
        return 2
    result = _run_executor(executor, built, args, _stdout_writer())
    sys.stdout.flush()
    code = _report(source, result)
    for number, note in enumerate(result.notes):
        chosen_by_default = (number == 0 and executor.name == "gpu-cuda" and args.device == "auto"
                             and "simulated device" in note)
        if args.verbose or chosen_by_default:
            sys.stderr.write(f"note: {note}\n")
    if args.check is None:
        return code
    other = _executor(args.check)
    refusal = _admission(other, built)
    if refusal is not None:
        sys.stderr.write(f"check: {other.name} does not build this program: {refusal.message}\n")
        return code
    second = _run_executor(other, built, args, None)
    difference = _first_difference(result, second)
    if difference is not None:
        sys.stderr.write(f"check: {executor.name} and {other.name} differ: {difference}\n")
        return 4
    sys.stderr.write(f"check: {executor.name} and {other.name} agree at 1 boundary\n")
    return code


def emit_ptx(args: argparse.Namespace) -> int:
    """Print the PTX module of the file's kernels (SPEC-02P.1 10.5 para 2); exit 2 with
    the errors, or with gpu-cuda's refusal, when the program does not build for it."""
    from ..exec.cuda.admission import admit
    from ..exec.cuda.ptx import EmitError, emit_module

    translated = _translated(args)
    if translated is None:
        return 2
    source, built = translated
    refusal = admit(built.checked)
    if refusal is not None:
        print_diagnostics(source, [refusal])
        return 2
    if not built.program.kernels:
        sys.stderr.write(f"note: {display_path(source.path)} defines no kernel: no PTX module\n")
        return 0
    try:
        sys.stdout.write(emit_module(built.program).text)
    except EmitError as error:
        raise InputError(f"gpu-cuda cannot build this program: {error}") from None
    return 0
