"""Whole-document answers (document symbols, inlay hints, semantic tokens, folding
ranges) as JSON assembled from each item's own piece, kept across versions.

A big document's answers are tens of thousands of objects: making them again and
serializing them after every keystroke cost more than the analysis of the edit (800 ms
for the symbols of 50,000 lines, where the ide's own part took 20). The ide keeps each
item's results while the item's text and analysis stay the same (`ide.Part.kept`, the
item's entry); beside them, this keeps their JSON as a `Template` whose line numbers are
relative to the item's first line. An edit that leaves an item where it was reuses its
text; one that moves it down a line renders the template again (a join, no conversion).

Every function is a generator of a heavy request's steps (`scheduling.steps`) on the
version asked about (`ide.Snapshot`): STEP_SECONDS of work at a time; and it memoizes
the whole answer in the version's memo, so an unchanged version answers at once.
"""

from __future__ import annotations

import json
import re
import time
from array import array
from collections.abc import Callable, Generator

from ..ide.folding import part_folding_ranges
from ..ide.hints import part_hints
from ..ide.symbols import part_symbols
from ..ide.tokens import part_encoding
from . import convert
from .scheduling import STEP_SECONDS

Steps = Generator[None, None, str]  # a heavy request's steps, and its JSON in the end
MEMO_LIMIT = 1 << 20  # the longest whole answer kept for its version, in characters

# A relative line number inside a template: "\x00<n>\x00", which json.dumps writes as
# "\u0000<n>\u0000" (names and details never hold a NUL, so nothing else matches).
_MARK = re.compile(r'"\\u0000(-?\d+)\\u0000"')
_LINES = frozenset(("line", "startLine", "endLine"))  # the keys of line numbers


def _relative(value, base: int):
    """`value` (JSON-ready) with every "line" number made a mark relative to `base`."""
    if isinstance(value, dict):
        return {k: (f"\x00{v - base}\x00" if k in _LINES else _relative(v, base)) for k, v in value.items()}
    if isinstance(value, list):
        return [_relative(v, base) for v in value]
    return value


class Template:
    """The JSON of one item's objects (comma-separated, no brackets), its line numbers
    relative to the item's first line; and its text at the last line it was rendered
    at. Kept compact (tens of thousands of items, issue 11's 400 MB at 50,000 lines):
    only that text, the offsets in it where its line numbers start and the numbers
    relative to the item, in arrays; rendering at another line cuts the text at them."""

    __slots__ = ("base", "column", "lines", "spots", "text")

    def __init__(self, objects: list, base: int, column: int) -> None:
        self.column = column  # the UTF-16 column of the item's first byte it was made for
        parts = _MARK.split(json.dumps(_relative(objects, base))[1:-1])
        self.lines = array("i", map(int, parts[1::2]))
        self._render(parts[0::2], base)

    def _render(self, pieces: list[str], base: int) -> None:
        out = [pieces[0]]
        spots = array("i")
        n = len(pieces[0])
        for line, piece in zip(self.lines, pieces[1:]):
            number = str(base + line)
            spots.append(n)
            out += (number, piece)
            n += len(number) + len(piece)
        self.text, self.spots, self.base = "".join(out), spots, base

    def _pieces(self) -> list[str]:
        """The text between its line numbers."""
        text, base = self.text, self.base
        pieces, after = [], 0
        for line, at in zip(self.lines, self.spots):
            pieces.append(text[after:at])
            after = at + len(str(base + line))
        pieces.append(text[after:])
        return pieces

    def at(self, base: int) -> str:
        if base != self.base:
            self._render(self._pieces(), base)
        return self.text


def _column(doc, part) -> int:
    """The UTF-16 column of the part's first byte (0 for an item that starts a line)."""
    return 0 if part.at[2] == 1 else doc.source.position(part.start).character


def _piece(doc, part, key: str, objects: Callable[[], list]) -> str:
    """The part's JSON for `key`: its template where it is kept and made for the same
    column, else made from `objects()` (absolute positions) and kept."""
    base = doc.source.lsp_line(part.start)  # LSP's lines: a lone \r ends one, for the tree it does not
    column = _column(doc, part)
    kept = part.kept
    template = kept.get(key)
    if template is None or template.column != column:
        template = kept[key] = Template(objects(), base, column)
    return template.at(base)


def _each(doc, parts: list, piece: Callable) -> Generator[None, None, list[str]]:
    """`piece(part)` of each of `parts` that has one, STEP_SECONDS at a time: by time,
    not by count, since a part kept from an earlier version costs microseconds and one
    computed the first time (its IR, its hints) milliseconds."""
    out = []
    i, n = 0, len(parts)
    while i < n:
        deadline = time.monotonic() + STEP_SECONDS
        with doc.reading():
            while i < n:
                text = piece(parts[i])
                if text:
                    out.append(text)
                i += 1
                if time.monotonic() > deadline:
                    break
        if i < n:
            yield
    return out


def _memo(doc, key, make: Callable[[], Generator[None, None, list[str]]]) -> Steps:
    """The answer kept for the version; one over MEMO_LIMIT characters is not kept (at
    50,000 lines the four whole-document answers held 20 MB beside the item templates
    they are joined from, which join again in milliseconds)."""
    text = doc.memo.get(key)
    if text is None:
        text = "[" + ",".join((yield from make())) + "]"
        if len(text) <= MEMO_LIMIT:
            doc.memo[key] = text
    return text


# ---- document symbols

def symbols(doc) -> Steps:
    """The JSON of the document's `DocumentSymbol[]`."""
    source = doc.source

    def piece(part) -> str | None:
        if part.node is None:
            return None
        return _piece(doc, part, "lsp:symbols", lambda: [
            convert.document_symbol_json(source, s) for s in part_symbols(doc, part)])

    return (yield from _memo(doc, "lsp:symbols", lambda: _each(doc, doc.parts(), piece)))


# ---- inlay hints

def _hint_json(source, hint) -> dict:
    p = source.position(hint.offset)
    out = {"position": {"line": p.line, "character": p.character}, "label": hint.label, "paddingLeft": True}
    if hint.tooltip is not None:
        out["tooltip"] = hint.tooltip
    return out


def inlay_hints(doc, start: int, end: int) -> Steps:
    """The JSON of the `InlayHint[]` at byte offsets start..end (both included): whole
    kernels from their templates, the kernels the range cuts hint by hint."""
    source = doc.source

    def piece(part) -> str | None:
        if start <= part.start and part.end <= end:
            return _piece(doc, part, "lsp:hints", lambda: [_hint_json(source, h) for h in part_hints(doc, part)])
        found = [_hint_json(source, h) for h in part_hints(doc, part) if start <= h.offset <= end]
        return json.dumps(found)[1:-1] if found else None

    def pieces():
        with doc.reading():
            parts = doc.parts_between(start, end)
        return _each(doc, parts, piece)

    return (yield from _memo(doc, ("lsp:hints", start, end), pieces))


# ---- semantic tokens

def tokens_data(doc, data) -> Steps:
    """The JSON of the document's token array `data` (`ide.semantic_tokens_data`),
    from each item's tail kept as text."""
    if doc.source.lone_carriage_returns:  # the ide encodes these another way
        return json.dumps(list(data))
    prev_line = prev_char = 0

    def piece(part) -> str | None:
        nonlocal prev_line, prev_char
        found = part_encoding(doc, part)
        if found is None:
            return None
        (line, char, length, kind, bits), last, tail = found
        head = f"{line - prev_line},{char - prev_char if line == prev_line else char},{length},{kind},{bits}"
        prev_line, prev_char = last
        if not tail:
            return head
        kept = part.kept
        text = kept.get("lsp:tokens")
        if text is None or text[0] is not tail:
            text = kept["lsp:tokens"] = (tail, ",".join(map(str, tail)))
        return head + "," + text[1]

    return (yield from _memo(doc, "lsp:tokens", lambda: _each(doc, doc.parts(), piece)))


# ---- folding ranges

def _fold_json(fold) -> dict:
    out = {"startLine": fold.start_line, "endLine": fold.end_line}
    kind = convert.folding_kind(fold.kind)
    if kind is not None:
        out["kind"] = kind.value
    return out


def folding_ranges(doc) -> Steps:
    """The JSON of the document's `FoldingRange[]` (the ide's ranges, in order)."""
    def piece(part) -> str:
        return _piece(doc, part, "lsp:folds", lambda: [_fold_json(f) for f in part_folding_ranges(doc, part)])

    return (yield from _memo(doc, "lsp:folds", lambda: _each(doc, doc.parts(), piece)))
