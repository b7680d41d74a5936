"""cint-ls: the language server, toolchain and editor integration for cint."""

import sys

__version__ = "0.1.0"

# The passes over a program (lowering, analysis, the IR, the emitters, the editor
# features) recurse over its nesting, which the syntax layer bounds (C1003 beyond
# syntax.lower.MAX_NESTING_DEPTH levels); each level takes a few Python frames in the
# deepest pass, more than Python's default limit of 1,000 allows at that bound.
RECURSION_LIMIT = 20_000
if sys.getrecursionlimit() < RECURSION_LIMIT:
    sys.setrecursionlimit(RECURSION_LIMIT)
