"""The handlers of the `cint` subcommands."""

from __future__ import annotations

import argparse
import sys

from ..exec.interp import EXECUTOR as INTERP
from ..exec.interp import run_program
from ..exec.report import render_fault
from ..ir.build import build
from ..ir.printer import format_program
from ..syntax import Diagnostic, Severity, SourceText, parse_source
from ..syntax.report import render_diagnostic
from .inputs import InputError, read_source

EXECUTORS = (INTERP, "cpu-c17", "gpu-cuda")
IMPLEMENTED = (INTERP,)


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
    """Print every diagnostic, warnings included; exit 2 when there is an error."""
    source = read_source(args.file)
    checked = build(source.text, source.path).checked
    print_diagnostics(source, checked.diagnostics)
    return 2 if checked.has_errors else 0


def run(args: argparse.Namespace) -> int:
    """Run the file's entry: output to stdout, a fault report to stderr (exit 1);
    translation errors, not warnings, to stderr (exit 2)."""
    if args.executor not in IMPLEMENTED:
        raise InputError(f"the executor {args.executor} is not implemented yet; use {INTERP}")
    if args.fuel is not None and args.fuel < 0:
        raise InputError("--fuel takes a number of units, 0 or more")
    source = read_source(args.file)
    built = build(source.text, source.path)
    if built.program is None:
        print_diagnostics(source, built.checked.errors)
        return 2
    result = run_program(built.program, args.fuel, write=_stdout_writer())
    sys.stdout.flush()
    if result.fault is not None:
        sys.stderr.write(render_fault(source, result.fault))
        return 1
    return 0


def emit_ir(args: argparse.Namespace) -> int:
    """Print the IR (every counted operation with its step ordinals); exit 2, with the
    errors, when the file does not translate."""
    source = read_source(args.file)
    built = build(source.text, source.path)
    if built.program is None:
        print_diagnostics(source, built.checked.errors)
        return 2
    sys.stdout.write(format_program(built.program))
    return 0


def _stdout_writer():
    write = sys.stdout.write
    return write
