"""Whole-document answers (document symbols, inlay hints, semantic tokens, folding
ranges) as JSON assembled from each item's own piece, kept across versions.

A big document's answers are tens of thousands of objects: making them again and
serializing them after every keystroke cost more than the analysis of the edit (800 ms
for the symbols of 50,000 lines, where the ide's own part took 20). The ide keeps each
item's results while the item's text and analysis stay the same (`ide.Part.kept`, the
item's entry); beside them, this keeps their JSON as a `Template` whose line numbers are
relative to the item's first line. An edit that leaves an item where it was reuses its
text; one that moves it down a line renders the template again (a join, no conversion).

Every function runs on the worker, on a pinned version (`ide.Snapshot`): it holds the
document's lock for CHUNK_SECONDS at a time, with a `checkpoint()` between, so the
loop can take the document in between; and it memoizes the whole answer in the
version's memo, so an unchanged version answers at once.
"""

from __future__ import annotations

import json
import re
import time
from array import array
from collections.abc import Callable, Iterator

from ..ide.folding import part_folding_ranges
from ..ide.hints import part_hints
from ..ide.symbols import part_symbols
from ..ide.tokens import part_encoding
from . import convert
from .scheduling import checkpoint

CHUNK_SECONDS = 0.01  # the longest the document's lock is held at once
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


def _each(doc, parts: list) -> Iterator:
    """`parts` one by one, handed out holding the document's lock for CHUNK_SECONDS at
    most at a time, with a checkpoint between: by time, not by count, since a part kept
    from an earlier version costs microseconds and one computed the first time (its IR,
    its hints) milliseconds."""
    i, n = 0, len(parts)
    while i < n:
        deadline = time.monotonic() + CHUNK_SECONDS
        with doc.reading():
            while i < n:
                yield parts[i]
                i += 1
                if time.monotonic() > deadline:
                    break
        if i < n:
            checkpoint()


def _memo(doc, key, make: Callable[[], str]) -> str:
    """The answer kept for the version; one over MEMO_LIMIT characters is not kept (at
    50,000 lines the four whole-document answers held 20 MB beside the item templates
    they are joined from, which join again in milliseconds)."""
    text = doc.memo.get(key)
    if text is None:
        text = make()
        if len(text) <= MEMO_LIMIT:
            doc.memo[key] = text
    return text


def _joined(pieces: list[str]) -> str:
    return "[" + ",".join(p for p in pieces if p) + "]"


# ---- document symbols

def symbols(doc) -> str:
    """The JSON of the document's `DocumentSymbol[]`."""
    return _memo(doc, "lsp:symbols", lambda: _joined(_symbol_pieces(doc)))


def _symbol_pieces(doc) -> list[str]:
    source = doc.source
    out = []
    for part in _each(doc, doc.parts()):
        if part.node is not None:
            out.append(_piece(doc, part, "lsp:symbols", lambda part=part: [
                convert.document_symbol_json(source, s) for s in part_symbols(doc, part)]))
    return out


# ---- inlay hints

def _hint_json(source, hint) -> dict:
    p = source.position(hint.offset)
    out = {"position": {"line": p.line, "character": p.character}, "label": hint.label, "paddingLeft": True}
    if hint.tooltip is not None:
        out["tooltip"] = hint.tooltip
    return out


def inlay_hints(doc, start: int, end: int) -> str:
    """The JSON of the `InlayHint[]` at byte offsets start..end (both included): whole
    kernels from their templates, the kernels the range cuts hint by hint."""
    return _memo(doc, ("lsp:hints", start, end), lambda: _joined(_hint_pieces(doc, start, end)))


def _hint_pieces(doc, start: int, end: int) -> list[str]:
    source = doc.source
    out = []
    with doc.reading():
        parts = doc.parts_between(start, end)
    for part in _each(doc, parts):
        if start <= part.start and part.end <= end:
            out.append(_piece(doc, part, "lsp:hints", lambda part=part: [
                _hint_json(source, h) for h in part_hints(doc, part)]))
        else:
            found = [_hint_json(source, h) for h in part_hints(doc, part) if start <= h.offset <= end]
            if found:
                out.append(json.dumps(found)[1:-1])
    return out


# ---- semantic tokens

def tokens_data(doc, data) -> str:
    """The JSON of the document's token array `data` (`ide.semantic_tokens_data`),
    from each item's tail kept as text."""
    if doc.source.lone_carriage_returns:  # the ide encodes these another way
        return json.dumps(list(data))
    return _memo(doc, "lsp:tokens", lambda: _joined(_token_pieces(doc)))


def _token_pieces(doc) -> list[str]:
    out = []
    prev_line = prev_char = 0
    for part in _each(doc, doc.parts()):
        found = part_encoding(doc, part)
        if found is None:
            continue
        (line, char, length, kind, bits), last, tail = found
        out.append(f"{line - prev_line},{char - prev_char if line == prev_line else char},{length},{kind},{bits}")
        if tail:
            kept = part.kept
            text = kept.get("lsp:tokens")
            if text is None or text[0] is not tail:
                text = kept["lsp:tokens"] = (tail, ",".join(map(str, tail)))
            out.append(text[1])
        prev_line, prev_char = last
    return out


# ---- folding ranges

def _fold_json(fold) -> dict:
    out = {"startLine": fold.start_line, "endLine": fold.end_line}
    kind = convert.folding_kind(fold.kind)
    if kind is not None:
        out["kind"] = kind.value
    return out


def folding_ranges(doc) -> str:
    """The JSON of the document's `FoldingRange[]` (the ide's ranges, in order)."""
    return _memo(doc, "lsp:folds", lambda: _joined(_fold_pieces(doc)))


def _fold_pieces(doc) -> list[str]:
    out = []
    for part in _each(doc, doc.parts()):
        out.append(_piece(doc, part, "lsp:folds", lambda part=part: [
            _fold_json(f) for f in part_folding_ranges(doc, part)]))
    return out
