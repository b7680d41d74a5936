"""`cint-workbench [FILE] [--plain] [--fuel N]`: the session at a prompt.

On a terminal the prompt is prompt_toolkit's (prompt.py: history, completion, multi-line
input); with `--plain`, or a stdin that is not a terminal, lines are read as they come
and each is echoed after its prompt, so a transcript piped in prints as the spec's do.
An input continues on the next line while a brace or bracket is open.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import TextIO

from .. import __version__
from .lines import inputs
from .session import Session


def plain(session: Session, stdin: TextIO, stdout: TextIO) -> int:
    def read_line(prompt: str) -> str | None:
        line = stdin.readline()
        if not line:
            return None
        line = line.rstrip("\n")
        stdout.write(prompt + line + "\n")
        return line

    for text in inputs(read_line, session):
        try:
            answer = session.enter(text)
        except KeyboardInterrupt:
            stdout.write("interrupted\n")
            continue
        stdout.write(answer.text)
        stdout.flush()
        if answer.quit:
            break
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="cint-workbench", description="The interactive cint session "
                                     "(SPEC-02P.1's transcripts): declare, run, inspect, on cpu-sir-interp.")
    parser.add_argument("file", nargs="?", help="a .ci file to :load first")
    parser.add_argument("--plain", action="store_true", help="read lines without the prompt's features "
                        "(the default when stdin is not a terminal), echoing each input")
    parser.add_argument("--fuel", type=int, default=None, help="a fuel budget per entry (:fuel)")
    parser.add_argument("--install-kernel", action="store_true",
                        help="write the Jupyter kernelspec `cint` (this Python), then exit")
    parser.add_argument("--user", action="store_true", help="with --install-kernel: for this user only")
    args = parser.parse_args(argv)
    if args.install_kernel:
        try:
            from .kernel import install
        except ImportError:
            print("cint-workbench: the Jupyter kernel needs ipykernel: pip install 'cint-ls[jupyter]'",
                  file=sys.stderr)
            return 2
        print(f"installed the kernelspec cint in {install(args.user)}")
        return 0
    session = Session(fuel=args.fuel)
    print(f"cint-workbench {__version__}: cint on cpu-sir-interp; :help for help, Ctrl-D to leave")
    if args.file:
        answer = session.enter(f":load {shlex.quote(args.file)}")
        session.number = 1
        sys.stdout.write(answer.text)
    try:
        if args.plain or not sys.stdin.isatty():
            return plain(session, sys.stdin, sys.stdout)
        from .prompt import interactive

        return interactive(session)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
