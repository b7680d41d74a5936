"""`cint-ls`: the language server (stdio). Built out by the language-server issue."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    print("cint-ls: the language server is not implemented yet", file=sys.stderr)
    return 2
