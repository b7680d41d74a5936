"""`cint`: the command-line driver (`parse`, `check`, and the commands later layers add).

Exit codes follow LANGUAGE.md "Reports": 0 success, 1 a fault (or, for `parse`, syntax
errors), 2 translation errors or unusable input.
"""

from __future__ import annotations

import argparse
import sys

from .. import __version__
from .inputs import InputError, read_source
from . import commands


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cint", description="The cint toolchain.")
    parser.add_argument("--version", action="version", version=f"cint-ls {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser("parse", help="print the syntax tree as an S-expression")
    p.add_argument("file")
    p.set_defaults(handler=commands.parse)

    p = sub.add_parser("check", help="print every diagnostic of a file")
    p.add_argument("file")
    p.set_defaults(handler=commands.check)

    p = sub.add_parser("run", help="run a file's top-level statements (its entry)")
    p.add_argument("file")
    p.add_argument("--executor", default=commands.INTERP, choices=commands.EXECUTORS,
                   help=f"the executor (default {commands.INTERP})")
    p.add_argument("--fuel", type=int, default=None, metavar="N",
                   help="the entry's fuel budget in units (default: unlimited)")
    p.set_defaults(handler=commands.run)

    p = sub.add_parser("emit-ir", help="print the intermediate representation, with step ordinals")
    p.add_argument("file")
    p.set_defaults(handler=commands.emit_ir)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.handler(args)
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
