"""Workspace symbols: the top-level names of a document (kernels, functions, structs, the
entry's variables), and the fuzzy match of a query against a name. Reading the files of
a workspace is the server's (the ide does no I/O)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .find import total
from .results import DocumentSymbol
from .symbols import document_symbols

if TYPE_CHECKING:
    from .document import DocumentLike


@total(list)
def top_level_symbols(doc: DocumentLike) -> list[DocumentSymbol]:
    """The document's top-level symbols, without their children (parameters and locals
    would bury the items a workspace search is for)."""
    return [DocumentSymbol(s.name, s.kind, s.span, s.selection, s.detail) for s in document_symbols(doc)]


def fuzzy_score(query: str, name: str) -> tuple[int, int, int, int] | None:
    """None unless the characters of `query` appear in `name` in order (case ignored);
    else a sort key, smaller for a better match: a case-sensitive prefix, then a prefix,
    then fewer gaps between the matched characters, then a shorter name. The empty query
    matches everything."""
    if not query:
        return (0, 0, 0, len(name))
    lower, wanted = name.lower(), query.lower()
    at, gaps, last = 0, 0, -1
    for ch in wanted:
        found = lower.find(ch, at)
        if found < 0:
            return None
        if last >= 0 and found != last + 1:
            gaps += 1
        last, at = found, found + 1
    return (0 if name.startswith(query) else 1, 0 if lower.startswith(wanted) else 1, gaps, len(name))
