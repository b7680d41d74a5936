"""The grammar's tree-sitter queries (grammar/queries/*.scm), compiled once.

An installed package carries them in `cint_ls/syntax/queries/` (setup.py copies them);
a source tree reads them from the repository's `grammar/queries/`.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import tree_sitter

from .parser import language

_HERE = Path(__file__).resolve().parent
_PLACES = (_HERE / "queries", _HERE.parent.parent / "grammar" / "queries")


def query_text(name: str) -> str | None:
    """The text of `NAME.scm`, or None when neither place has it."""
    for place in _PLACES:
        path = place / f"{name}.scm"
        if path.is_file():
            return path.read_text(encoding="utf-8")
    return None


@cache
def query(name: str) -> tree_sitter.Query | None:
    """The compiled query `NAME` (folds, highlights, indents, locals), or None."""
    text = query_text(name)
    if text is None:
        return None
    return tree_sitter.Query(language(), text)


def captures(name: str, node: tree_sitter.Node) -> dict[str, list[tree_sitter.Node]]:
    """The captures of query `name` over `node`, by capture name."""
    compiled = query(name)
    if compiled is None:
        return {}
    return tree_sitter.QueryCursor(compiled).captures(node)
