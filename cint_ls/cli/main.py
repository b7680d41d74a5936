"""`cint`: the command-line driver (`parse`, `check`, and the commands later layers add).

Exit codes follow LANGUAGE.md "Reports": 0 success, 1 a fault (or, for `parse`, syntax
errors), 2 translation errors or unusable input; and 3 when a run ends without an
outcome (a run that crashed or timed out, no C compiler, no CUDA device: one line
`cint: error: ...`; or a host status of gpu-cuda), 4 when `run --check` finds the
executors differ.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable

from .. import __version__
from ..exec.executors import AUTO, EXECUTOR_NAMES
from . import commands
from . import trace as trace_cli
from .inputs import InputError


def _units(text: str) -> int:
    """A fuel budget: a whole number of units, 0 or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of units") from None
    if value < 0:
        raise argparse.ArgumentTypeError("the fuel budget is 0 units or more")
    return value


def _seconds(text: str) -> float:
    """A time limit: a finite number of seconds above 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError("the time limit is a number of seconds above 0")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cint", description="The cint toolchain.")
    parser.add_argument("--version", action="version", version=f"cint-ls {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser("parse", help="print the syntax tree as an S-expression")
    p.add_argument("file")
    p.set_defaults(handler=commands.parse)

    p = sub.add_parser("check", help="print every diagnostic of a file")
    p.add_argument("file")
    p.add_argument("--executor", default=None, choices=EXECUTOR_NAMES,
                   help="also check that this executor admits every kernel (gpu-cuda: its capability profile)")
    p.set_defaults(handler=commands.check)

    p = sub.add_parser("run", help="run a file's top-level statements (its entry)")
    p.add_argument("file")
    p.add_argument("--executor", default=AUTO, choices=(AUTO, *commands.EXECUTORS),
                   help=f"the executor (default {AUTO}: gpu-cuda on a CUDA device where measurement says "
                        f"it wins, else cpu-c17 where there is a C compiler, else {commands.INTERP})")
    p.add_argument("--report", action="store_true",
                   help="print to stderr what auto chose and why, and each dispatch: kernel, executor, device, "
                        "work-items, threads or launches, time, fuel; --report=json: the same as one JSON line")
    p.add_argument(REPORT_AS, dest="report_as", default=None, help=argparse.SUPPRESS)
    p.add_argument("--fuel", type=_units, default=None, metavar="N",
                   help="the entry's fuel budget in units (default: unlimited)")
    p.add_argument("--time-limit", type=_seconds, default=None, metavar="SECONDS",
                   help="run in a child process and stop it after SECONDS (default: no limit)")
    p.add_argument("--check", default=None, metavar="EXECUTOR", choices=commands.EXECUTORS,
                   help="also run the entry on EXECUTOR and compare the outcomes (output, fault record, fuel)")
    gpu = p.add_argument_group("gpu-cuda")
    gpu.add_argument("--device", default="auto", choices=("auto", "cuda", "sim", "null"),
                     help="cuda: the GPU through the CUDA driver; sim: the simulated device; "
                          "auto (default): the GPU when there is a driver, else the simulated device (with a note); "
                          "null: launches do nothing, to measure the host alone: the output is NOT the program's "
                          "(always said on stderr; needs gpu-cuda's host in C)")
    gpu.add_argument("--block-size", type=int, default=256, metavar="N",
                     help="work-items per block, 1 to 1024 (default 256)")
    # exec/cuda/device.py ORDERS (not imported here: the CLI starts without gpu-cuda).
    gpu.add_argument("--order", default="ascending",
                     choices=("ascending", "descending", "shuffled", "interleaved", "adversarial"),
                     help="the order in which the simulated device runs blocks and threads; interleaved and "
                     "adversarial advance all threads of a launch together, one global memory access at a time")
    gpu.add_argument("--seed", type=int, default=0, metavar="N", help="the seed of --order shuffled or interleaved")
    gpu.add_argument("--verbose", action="store_true",
                     help="print the executor's notes (device, launches) to stderr after the run")
    c17 = p.add_argument_group("cpu-c17")
    c17.add_argument("--threads", type=int, default=None, metavar="N",
                     help="threads for the work-items of dispatches of 4096 or more work-items, 1 to 1024 "
                          "(default: the cores this process may use)")
    c17.add_argument("--cluster", default=None, metavar="ADDRESS",
                     help="run the work-items of large dispatches as tiles on a Dask cluster: a scheduler's "
                          "tcp://HOST:PORT or tls://HOST:PORT, or local:N (N worker processes here); needs "
                          "pip install 'cint-ls[cluster]'; implies --executor cpu-c17 (docs/cluster.md)")
    c17.add_argument("--cluster-check", default=None, choices=("first16", "all", "none"),
                     help="which tiles the host runs again to check a worker's answer: each worker's first "
                          "and one in 16 after it (first16, the default), all, or none")
    c17.add_argument("--cluster-keep", default=None, choices=("outputs", "none"),
                     help="what the tiles write stays on the workers until this process reads it (outputs, "
                          "the default: a worker that dies with some makes the run start again), or comes back "
                          "at once (none: slower, but a worker's death costs only its tiles)")
    trace_cli.add_run_options(p)
    p.set_defaults(handler=commands.run)

    p = sub.add_parser("trace", help="write the HTML page of a trace file (cint run --trace FILE)")
    p.add_argument("file", help="a trace: JSON lines as cint run --trace writes them")
    p.add_argument("-o", "--output", default=None, metavar="FILE.html",
                   help="the page (default: FILE with the suffix .html; `-` for stdout)")
    p.set_defaults(handler=trace_cli.trace_command)

    p = sub.add_parser("emit-ir", help="print the intermediate representation, with step ordinals")
    p.add_argument("file")
    p.set_defaults(handler=commands.emit_ir)

    p = sub.add_parser("emit-c", help="print the C17 that cpu-c17 compiles (SPEC-02P.1 10.3)")
    p.add_argument("file")
    p.set_defaults(handler=commands.emit_c)

    p = sub.add_parser("emit-ptx", help="print the PTX module gpu-cuda runs (SPEC-02P.1 10.5)")
    p.add_argument("file")
    p.set_defaults(handler=commands.emit_ptx)

    p = sub.add_parser("workbench", help="the interactive session (cint-workbench)", add_help=False)
    p.add_argument("rest", nargs=argparse.REMAINDER, help="cint-workbench's arguments")
    p.set_defaults(handler=_workbench)
    return parser


def _workbench(args: argparse.Namespace) -> int:
    from ..workbench.main import main as workbench

    return workbench(list(args.rest))


REPORT_AS = "--report-as"  # `--report=FORMAT`, rewritten (so that `--report FILE` stays a plain flag)


def _report_forms(argv: list[str]) -> list[str]:
    """`--report=json` as `--report --report-as json`: argparse cannot give `--report` an
    optional value without taking the file that follows it for one."""
    out: list[str] = []
    for number, arg in enumerate(argv):
        if arg == "--":
            return out + argv[number:]
        if arg.startswith("--report="):
            out += ["--report", REPORT_AS, arg[len("--report="):]]
        else:
            out.append(arg)
    return out


def main(argv: list[str] | None = None) -> int:
    given = list(sys.argv[1:] if argv is None else argv)
    if given[:1] == ["workbench"]:  # its own options, which argparse's REMAINDER would not pass on
        return _workbench(argparse.Namespace(rest=given[1:]))
    parser = build_parser()
    args = parser.parse_args(_report_forms(given))
    try:
        handler: Callable[[argparse.Namespace], int] = args.handler  # a subcommand's (set_defaults)
        return handler(args)
    except InputError as error:
        print(f"cint: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("cint: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
