"""Go to definition, references and rename, from the analysis's resolution of names
(`CheckedModule.symbols`: every declaration and reference -> its Symbol).

A rename is checked by doing it: the renamed text is analysed again, and the rename is
refused when any name would then resolve differently (a clash, or a capture by a
declaration in an inner or outer scope) or when new errors appear.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import TYPE_CHECKING

from ..analysis import check
from ..analysis.builtins import BUILTIN_FUNCTIONS
from ..analysis.result import CheckedModule
from ..analysis.symbols import Symbol
from ..analysis.types import scalar_type_named
from ..syntax import parse_source
from ..syntax.source import Span
from .find import clamp, name_at, total
from .results import Location, RenameResult, TextChange
from .tokens import KEYWORDS

if TYPE_CHECKING:
    from .document import DocumentLike

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Spellings the grammar reads as a type, whether or not the type exists (`I24`).
TYPE_SPELLING = re.compile(r"Bool|[IU][0-9]+|Q[0-9]+\.[0-9]+")


def _occurrences(checked: CheckedModule, symbol: Symbol) -> list[Span]:
    seen: dict[tuple[int, int], Span] = {}
    for node, s in checked.symbols.items():
        if s is symbol and node.span.end_byte > node.span.start_byte:
            seen.setdefault((node.span.start_byte, node.span.end_byte), node.span)
    return [seen[k] for k in sorted(seen)]


@total(list)
def definition(doc: DocumentLike, offset: int) -> list[Location]:
    found = name_at(doc.checked, clamp(doc, offset), doc)
    if found is None:
        return []
    symbol = found[1]
    if symbol.span.end_byte <= symbol.span.start_byte:
        return []
    return [Location(symbol.span.freeze())]


@total(list)
def references(doc: DocumentLike, offset: int, include_declaration: bool = True) -> list[Location]:
    checked = doc.checked
    found = name_at(checked, clamp(doc, offset), doc)
    if found is None:
        return []
    symbol = found[1]
    declaration = (symbol.span.start_byte, symbol.span.end_byte)
    out = []
    for span in _occurrences(checked, symbol):
        if not include_declaration and (span.start_byte, span.end_byte) == declaration:
            continue
        out.append(Location(span.freeze()))
    return out


@total(lambda: None)
def prepare_rename(doc: DocumentLike, offset: int) -> Span | None:
    found = name_at(doc.checked, clamp(doc, offset), doc)
    if found is None:
        return None
    node, symbol = found
    if symbol.span.end_byte <= symbol.span.start_byte:
        return None
    return node.span.freeze()


def name_problem(new_name: str) -> str | None:
    """Why `new_name` cannot name a variable, parameter, kernel or function."""
    if not IDENTIFIER.fullmatch(new_name or ""):
        return f"`{new_name}` is not an identifier (letters, digits and `_`, not starting with a digit)"
    if new_name in KEYWORDS:
        return f"`{new_name}` is a keyword"
    if TYPE_SPELLING.fullmatch(new_name) or scalar_type_named(new_name) is not None:
        return f"`{new_name}` is spelled like a type"
    if new_name in BUILTIN_FUNCTIONS:
        return f"`{new_name}` is a built-in operation"
    return None


def _resolution(checked: CheckedModule) -> dict[int, int]:
    """Every name occurrence's start -> its declaration's start."""
    return {node.span.start_byte: s.span.start_byte for node, s in checked.symbols.items()}


@total(lambda: RenameResult(None, "nothing to rename here"))
def rename(doc: DocumentLike, offset: int, new_name: str) -> RenameResult:
    checked = doc.checked
    found = name_at(checked, clamp(doc, offset), doc)
    if found is None:
        return RenameResult(None, "there is no name to rename here")
    symbol = found[1]
    problem = name_problem(new_name)
    if problem is not None:
        return RenameResult(None, problem)
    spans = _occurrences(checked, symbol)
    if not spans:
        return RenameResult(None, "there is no name to rename here")
    if new_name == symbol.name:
        return RenameResult(tuple(TextChange(s.freeze(), new_name) for s in spans), None)
    # Do the rename and analyse the result.
    data = doc.source.data
    pieces, last = [], 0
    for span in spans:
        pieces += [data[last:span.start_byte], new_name.encode()]
        last = span.end_byte
    pieces.append(data[last:])
    new_text = b"".join(pieces).decode("utf-8")
    delta = len(new_name.encode()) - len(symbol.name.encode())
    starts = sorted(s.start_byte for s in spans)

    def moved(old: int) -> int:
        return old + delta * bisect_left(starts, old)

    before = {moved(k): moved(v) for k, v in _resolution(checked).items()}

    def read(renamed: CheckedModule) -> tuple[dict[int, int], int]:
        return _resolution(renamed), len(renamed.errors)

    # The renamed text analysed reusing what the document keeps (its items and units
    # the rename did not touch), where the document can.
    analyse = getattr(doc, "analyse_text", None)
    if analyse is not None:
        after, errors = analyse(new_text, read)
    else:
        after, errors = read(check(parse_source(new_text, doc.source.path)))
    if before != after or errors > len(checked.errors):
        return RenameResult(None, f"renaming `{symbol.name}` to `{new_name}` would change what a name refers to: "
                                  f"`{new_name}` is already declared or used where `{symbol.name}` is visible")
    return RenameResult(tuple(TextChange(s.freeze(), new_name) for s in spans), None)
