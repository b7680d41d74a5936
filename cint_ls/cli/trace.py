"""`cint run --trace FILE --trace-html FILE --trace-arrays NAMES` and `cint trace
FILE.jsonl -o FILE.html`: the trace of a run (running/trace.py, docs/trace.md) and its page
(running/trace_page.py)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..exec.faults import JsonObject
from ..exec.selection import ARRAY_LIMIT, ArraySelection
from ..running.run import RunOutcome
from ..running.trace import MAX_TRACE_BYTES, TraceError, read_trace, records, unmatched_names, write_trace
from ..running.trace_page import render_page
from .inputs import InputError, read_text
from .outputs import check_writable, refuse_clobbering, write_output


def add_run_options(p: argparse.ArgumentParser) -> None:
    group = p.add_argument_group("trace")
    group.add_argument("--trace", default=None, metavar="FILE",
                       help="write the run's trace to FILE as JSON lines (docs/trace.md): each dispatch's start and "
                            "end, executor, device, threads or launches, fuel, fault; `-` for stdout")
    group.add_argument("--trace-html", default=None, metavar="FILE",
                       help="write the trace's page to FILE: a self-contained HTML timeline, heat maps of the "
                            "arrays of --trace-arrays, the fault map of a faulting dispatch")
    group.add_argument("--trace-arrays", default=None, metavar="NAMES",
                       help="pictures of these 2-D out/inout array parameters after each dispatch (`v`, "
                            f"`diffuse.v`, comma-separated, or `all`), each of at most {ARRAY_LIMIT:,} elements; "
                            "cpu-sir-interp and gpu-cuda record them")


def wanted(args: argparse.Namespace) -> tuple[bool, JsonObject | None]:
    """(whether the run must record its dispatches, the array selection as the run
    request takes it); InputError for a bad option, before anything runs."""
    trace, page, names = getattr(args, "trace", None), getattr(args, "trace_html", None), \
        getattr(args, "trace_arrays", None)
    outputs = [(flag, path) for flag, path in (("--trace", trace), ("--trace-html", page)) if path is not None]
    # before the program is read: `--trace h.ci h.ci` must not replace the program
    refuse_clobbering(outputs, [args.file])
    for flag, path in outputs:
        check_writable(path, flag)
    if names is not None and trace is None and page is None:
        raise InputError("--trace-arrays: the pictures go in a trace: give --trace FILE or --trace-html FILE too")
    selection = None
    if names is not None:
        try:
            selection = ArraySelection.parse(names)
        except ValueError as error:
            raise InputError(str(error)) from None
    return trace is not None or page is not None, None if selection is None else selection.to_json()


def write_outputs(args: argparse.Namespace, outcome: RunOutcome, path: str) -> None:
    """After a run that has an outcome (it finished or faulted): the trace and the page,
    and a warning for names of --trace-arrays that named no 2-D out/inout array a
    dispatch had."""
    trace, page = getattr(args, "trace", None), getattr(args, "trace_html", None)
    if trace is None and page is None:
        return
    if outcome.result is None:
        # nothing ran (the program did not translate, no compiler) or the run ended without
        # an outcome: its errors are above, and the files named keep what they had, so that
        # `--trace h.ci t.jsonl` (the arguments swapped) leaves the program as it was
        named = " and ".join(p for p in (trace, page) if p is not None and p != "-")
        if named:
            sys.stderr.write(f"note: no trace written: the run has no outcome ({named} left as it was)\n")
        return
    lines = records(outcome, path, arrays_asked=getattr(args, "trace_arrays", None) is not None)
    if getattr(args, "trace_arrays", None):
        missing, candidates = unmatched_names(outcome, ArraySelection.parse(args.trace_arrays))
        if missing:
            sys.stderr.write(f"cint: warning: --trace-arrays: no 2-D out or inout array {', '.join(missing)} in the "
                             f"dispatches (they have: {', '.join(candidates) or 'none'})\n")
        for line in lines:
            if line["type"] == "run" and line.get("arrays_note"):
                sys.stderr.write(f"note: {line['arrays_note']}\n")
    if trace is not None:
        import io

        buffer = io.StringIO()
        write_trace(lines, buffer)
        write_output(trace, buffer.getvalue(), "--trace")
    if page is not None:
        write_output(page, render_page(lines, f"cint trace: {Path(path).name}"), "--trace-html")


def trace_command(args: argparse.Namespace) -> int:
    """`cint trace FILE.jsonl -o FILE.html`: the page of a trace file; exit 2 with one
    line for a file that is not a trace."""
    output = args.output or str(Path(args.file).with_suffix(".html"))
    refuse_clobbering([("-o", output)], [args.file])
    check_writable(output, "-o")
    text = read_text(args.file, MAX_TRACE_BYTES, "a trace file")
    try:
        lines = read_trace(text, args.file)
    except TraceError as error:
        raise InputError(str(error)) from None
    write_output(output, render_page(lines, f"cint trace: {Path(args.file).name}"), "-o")
    if output != "-":
        sys.stderr.write(f"wrote {output}\n")
    return 0
