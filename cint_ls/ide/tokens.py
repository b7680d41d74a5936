"""Semantic tokens: the tree's leaves, classified with what the analysis knows.

Names get their meaning: parameters with their mode (`in`, `out`, `inout`), size
symbols, over variables, kernels and functions, and in a kernel body every variable is
marked `uniform` or `varying` (SPEC-02P.1 8.2). Keywords, types, numbers, strings,
operators and comments come from the tree alone, so a file with errors still colours.
Tokens are sorted, never overlap and never span lines (a block comment is split).
"""

from __future__ import annotations

import threading
from array import array
from collections.abc import Iterable
from typing import TYPE_CHECKING

import tree_sitter

from ..analysis.builtins import BUILTIN_FUNCTIONS, REDUCE_OPERATORS, ROUNDING_MODES
from ..analysis.result import CheckedModule
from ..analysis.symbols import Symbol, SymbolKind
from ..analysis.types import ArrayType
from ..syntax import ast
from ..syntax.source import Position, SourceText, Span, widths
from .find import total, walk
from .results import SEMANTIC_TOKEN_KINDS, SEMANTIC_TOKEN_MODIFIERS, SemanticToken
from .uniform import Uniformity

if TYPE_CHECKING:
    from .document import DocumentLike, Part

KEYWORDS = {
    "kernel", "over", "where", "in", "out", "inout", "reduce", "if", "else", "for", "while", "break",
    "continue", "switch", "case", "default", "return", "void", "export", "true", "false", "assert", "struct",
    "import", "by", "as", "as%", "as?",
}
OPERATORS = {
    "+", "-", "*", "/", "%", "+|", "-|", "*|", "+%", "-%", "*%", "<<", ">>", "&", "|", "^", "~", "!", "==", "!=",
    "<", "<=", ">", ">=", "&&", "||", "=", "..",
}
LEAF_KINDS = {
    "primitive_type": "type",
    "type_identifier": "type",
    "integer_literal": "number",
    "fixed_literal": "number",
    "string_content": "string",
    "escape_sequence": "string",
    "comment": "comment",
    "void_type": "keyword",
    "export": "keyword",
    "boolean_literal": "keyword",
}


class _Classifier:
    """What names mean in one top-level item (`by_start`: the item's name occurrences
    with their symbols, by first byte)."""

    def __init__(self, checked: CheckedModule, by_start: dict[int, tuple[ast.Node, Symbol]]) -> None:
        self.checked = checked
        self.by_start = by_start
        self.uniformity: dict[str, Uniformity] = {}

    @classmethod
    def of_module(cls, checked: CheckedModule) -> _Classifier:
        return cls(checked, {node.span.start_byte: (node, symbol) for node, symbol in checked.symbols.items()})

    @classmethod
    def of_item(cls, checked: CheckedModule, item: ast.Node | None) -> _Classifier:
        symbols = checked.symbols
        by_start: dict[int, tuple[ast.Node, Symbol]] = {}
        if item is not None:
            for node in walk(item):
                symbol = symbols.get(node)
                if symbol is not None:
                    by_start[node.span.start_byte] = (node, symbol)
        return cls(checked, by_start)

    def kernel_uniformity(self, name: str | None) -> Uniformity | None:
        if name is None or name not in self.checked.kernels:
            return None
        if name not in self.uniformity:
            self.uniformity[name] = Uniformity(self.checked, self.checked.kernels[name])
        return self.uniformity[name]

    def identifier(self, start: int, text: str, parent_type: str | None) -> tuple[str, tuple[str, ...]] | None:
        found = self.by_start.get(start)
        if found is not None:
            node, symbol = found
            declaration = symbol.span.start_byte == start and symbol.span.end_byte == node.span.end_byte
            return self.symbol(symbol, declaration)
        if parent_type == "call_expression" and text in BUILTIN_FUNCTIONS:
            return "function", ("defaultLibrary",)
        if parent_type == "reduce_statement" and text in REDUCE_OPERATORS:
            return "function", ("defaultLibrary",)
        if text in ROUNDING_MODES:
            return "enumMember", ("defaultLibrary",)
        if parent_type == "argument_list" and text == "add":
            return "function", ("defaultLibrary",)
        return None

    def symbol(self, symbol: Symbol, declaration: bool) -> tuple[str, tuple[str, ...]]:
        mods: list[str] = ["declaration"] if declaration else []
        kind = symbol.kind
        in_kernel = symbol.owner in self.checked.kernels if symbol.owner else False
        if kind is SymbolKind.KERNEL:
            return "kernel", tuple(mods)
        if kind is SymbolKind.FUNCTION:
            return "function", tuple(mods)
        if kind is SymbolKind.STRUCT:
            return "type", tuple(mods)
        if kind is SymbolKind.SIZE:
            return "sizeSymbol", tuple(mods + ["readonly", "uniform"])
        if kind is SymbolKind.OVER:
            return "overVariable", tuple(mods + ["readonly", "varying"])
        if kind is SymbolKind.PARAM:
            mode = symbol.mode or "in"
            if in_kernel:
                mods.append(mode)
                if mode == "in":
                    mods.append("readonly")
                    if not isinstance(symbol.type, ArrayType):
                        mods.append("uniform")
            else:
                mods.append("readonly")
            return "parameter", tuple(mods)
        if in_kernel:
            u = self.kernel_uniformity(symbol.owner)
            if u is not None:
                mods.append("varying" if u.symbol_varying(symbol) else "uniform")
        if kind is SymbolKind.LOOP:
            mods.append("readonly")
        return "variable", tuple(mods)


def _split_lines(data: bytes, start: int, end: int) -> list[tuple[int, int]]:
    parts = []
    while start < end:
        newline = data.find(b"\n", start, end)
        stop = end if newline < 0 else newline
        if stop > start:
            piece_end = stop - 1 if stop > start and data[stop - 1:stop] == b"\r" else stop
            if piece_end > start:
                parts.append((start, piece_end))
        if newline < 0:
            break
        start = newline + 1
    return parts


def _raw_tokens(classifier: _Classifier, top: tree_sitter.Node, data: bytes) -> list[tuple[int, int, str, tuple[str, ...]]]:
    """The tokens of the tree node `top` and everything inside it: sorted, without
    overlaps (an error region's leaves: the first is kept), split at line breaks."""
    out: list[tuple[int, int, str, tuple[str, ...]]] = []
    cursor = top.walk()
    while True:
        node = cursor.node
        assert node is not None  # a cursor made from a node is always on one
        leaf = node.child_count == 0 or node.type in LEAF_KINDS
        if leaf and node.end_byte > node.start_byte and not node.is_missing:
            found = _classify(classifier, node, data)
            if found is not None:
                for a, b in _split_lines(data, node.start_byte, node.end_byte):
                    out.append((a, b, found[0], found[1]))
        if not leaf and cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                out.sort(key=lambda t: (t[0], -t[1]))
                kept = []
                last_end = -1
                for token in out:
                    if token[0] >= last_end:
                        kept.append(token)
                        last_end = token[1]
                return kept


def _classify(classifier: _Classifier, node: tree_sitter.Node, data: bytes) -> tuple[str, tuple[str, ...]] | None:
    t = node.type
    if t in LEAF_KINDS:
        return LEAF_KINDS[t], ()
    if t == "identifier":
        text = data[node.start_byte:node.end_byte].decode("utf-8", "replace")
        parent = node.parent
        return classifier.identifier(node.start_byte, text, parent.type if parent is not None else None)
    if not node.is_named and t in KEYWORDS:
        return "keyword", ()
    if not node.is_named and t in OPERATORS:
        return "operator", ()
    if not node.is_named and t == '"':
        return "string", ()
    return None


# ------------------------------------------------------------------ per item, kept across versions
#
# A part's tokens are kept as `rows`, ten integers a token, relative to the part's
# start so that they move with it: start and end byte (from the part's first byte),
# line (from the part's first line), start and end column (1-based code points; an
# offset from the part's column on its first line), UTF-16 column (the same way) and
# length, kind (an index into SEMANTIC_TOKEN_KINDS), modifier bits (LSP's), and the
# modifier tuple (an index into _MODIFIER_SETS). `tail` is LSP's relative encoding of
# the tokens after the first, which does not change when the part moves.

_ROW = 10
_KIND_INDEX = {k: i for i, k in enumerate(SEMANTIC_TOKEN_KINDS)}
_MODIFIER_BIT = {m: 1 << i for i, m in enumerate(SEMANTIC_TOKEN_MODIFIERS)}
_MODIFIER_SETS: list[tuple[str, ...]] = []
_MODIFIER_SET_INDEX: dict[tuple[str, ...], int] = {}
_MODIFIER_LOCK = threading.Lock()


def _modifier_set(mods: tuple[str, ...]) -> int:
    index = _MODIFIER_SET_INDEX.get(mods)
    if index is None:
        with _MODIFIER_LOCK:
            index = _MODIFIER_SET_INDEX.get(mods)
            if index is None:
                _MODIFIER_SETS.append(mods)
                index = _MODIFIER_SET_INDEX[mods] = len(_MODIFIER_SETS) - 1
    return index


def _compute_rows(doc: DocumentLike, part: Part) -> tuple[array[int], array[int]]:
    checked = doc.checked
    source = doc.source
    data = source.data
    raw = _raw_tokens(_Classifier.of_item(checked, part.node), part.tree_node, data)
    base, line1, column1 = part.at
    u_base = part.u16
    starts = source._line_starts
    rows = array("i")
    tail = array("i")
    line0 = source.line_of_byte(part.start)
    next_start = starts[line0 + 1] if line0 + 1 < len(starts) else len(data) + 1
    prev_line = prev_u = 0
    # The column of a token counted on from the last one's on the same line, not from
    # the line's start: linear in a long line (issue 13 item 8: a 176 kB line took 11.7 s).
    at, at_column, at_u = starts[line0], 0, 0
    for n, (start, end, kind, mods) in enumerate(raw):
        while start >= next_start:
            line0 += 1
            next_start = starts[line0 + 1] if line0 + 1 < len(starts) else len(data) + 1
        if at < starts[line0]:
            at, at_column, at_u = starts[line0], 0, 0
        step_column, step_u = widths(data[at:start])
        column, u = at_column + step_column, at_u + step_u
        at, at_column, at_u = start, column, u
        points, length = widths(data[start:end])
        relative_line = line0 + 1 - line1
        c, e, ru = column + 1, column + 1 + points, u
        if relative_line == 0:
            c, e, ru = c - column1, e - column1, u - u_base
        bits = 0
        for m in mods:
            bits |= _MODIFIER_BIT.get(m, 0)
        k = _KIND_INDEX[kind]
        rows.extend((start - base, end - base, relative_line, c, e, ru, length, k, bits, _modifier_set(mods)))
        if n:
            tail.extend((line0 - prev_line, u - prev_u if line0 == prev_line else u, length, k, bits))
        prev_line, prev_u = line0, u
    if part.node is not None:  # an item (a comment between items is not counted)
        doc.counters["tokens"] = doc.counters.get("tokens", 0) + 1
    return rows, tail


def _rows(doc: DocumentLike, part: Part) -> tuple[array[int], array[int]]:
    """The part's rows and tail: kept with its item across versions, or this version's."""
    entry = part.entry
    if entry is not None:
        found: tuple[array[int], array[int]] | None = entry.results.get("tokens")
        if found is None:
            found = entry.results["tokens"] = _compute_rows(doc, part)
        return found
    found = part.memo.get("rows")
    if found is None:
        found = part.memo["rows"] = _compute_rows(doc, part)
    return found


def _part_tokens(doc: DocumentLike, part: Part) -> list[SemanticToken]:
    found: list[SemanticToken] | None = part.memo.get("tokens")
    if found is not None:
        return found
    entry = part.entry
    kept: tuple[tuple[int, int, int], list[SemanticToken]] | None = (
        entry.results.get("token_objects") if entry is not None else None)
    if kept is not None and kept[0] == part.at:  # the item did not move: the same objects
        part.memo["tokens"] = kept[1]
        return kept[1]
    rows, _ = _rows(doc, part)
    base, line1, column1 = part.at
    kinds, sets = SEMANTIC_TOKEN_KINDS, _MODIFIER_SETS
    out = []
    for i in range(0, len(rows), _ROW):
        rs, re, rl, c, e, _, _, k, _, mi = rows[i:i + _ROW]
        if rl == 0:
            c, e = c + column1, e + column1
        line = line1 + rl
        out.append(SemanticToken(Span(base + rs, base + re, line, c, line, e), kinds[k], sets[mi]))
    part.memo["tokens"] = out
    if entry is not None:
        entry.results["token_objects"] = (part.at, out)
    return out


def _clip(doc: DocumentLike, byte_range: tuple[int, int]) -> tuple[int, int]:
    n = len(doc.source.data)
    start, end = (max(0, min(int(x), n)) for x in byte_range)
    return (start, end) if start <= end else (end, start)


@total(list)
def semantic_tokens(doc: DocumentLike, byte_range: tuple[int, int] | None = None) -> list[SemanticToken]:
    """Every token of the document, or with `byte_range` (start, end) those that
    overlap it, computed only for the items that overlap it. Kept per item across
    versions (an edit recomputes the items it touched) and per version."""
    if byte_range is None:
        found = doc.memo.get("tokens")
        if found is None:
            found = []
            for part in doc.parts():
                found += _part_tokens(doc, part)
            doc.memo["tokens"] = found
        return list(found)
    start, end = _clip(doc, byte_range)
    return [t for part in doc.parts_between(start, end) for t in _part_tokens(doc, part)
            if t.span.end_byte > start and t.span.start_byte < end]


@total(list)
def semantic_tokens_data(doc: DocumentLike, byte_range: tuple[int, int] | None = None) -> list[int]:
    """`semantic_tokens` in LSP's relative encoding (five integers a token: line and
    UTF-16 column deltas, UTF-16 length, index into SEMANTIC_TOKEN_KINDS, bits of
    SEMANTIC_TOKEN_MODIFIERS), the array a `semanticTokens` answer carries; what
    encoding `semantic_tokens(doc, byte_range)` gives, without making the objects."""
    if doc.source.lone_carriage_returns:
        return _encode_tokens(doc.source, semantic_tokens(doc, byte_range))
    if byte_range is None:
        return list(semantic_tokens_array(doc))
    start, end = _clip(doc, byte_range)
    pieces = []
    for part in doc.parts_between(start, end):
        rows, _ = _rows(doc, part)
        base, line1, _ = part.at
        u_base = part.u16
        for i in range(0, len(rows), _ROW):
            rs, re, rl, _, _, u, length, k, bits, _ = rows[i:i + _ROW]
            if base + re > start and base + rs < end:
                pieces.append((line1 - 1 + rl, u_base + u if rl == 0 else u, length, k, bits))
    return _relative(pieces)


@total(lambda: array("i"))
def semantic_tokens_array(doc: DocumentLike) -> array[int]:
    """The whole document's `semantic_tokens_data` as the array kept for its version
    (4 bytes an integer, where a list takes 8 and its copy as much again: 13 MB at
    50,000 lines). Shared: the caller must not change it."""
    found = doc.memo.get("tokens_data")
    if found is None:
        if doc.source.lone_carriage_returns:
            found = array("i", _encode_tokens(doc.source, semantic_tokens(doc)))
        else:
            found = _encode_parts(doc, doc.parts())
        doc.memo["tokens_data"] = found
    return found


def _relative(pieces: list[tuple[int, int, int, int, int]]) -> list[int]:
    """LSP's relative encoding of (line, character, length, kind, modifiers) in order."""
    data: list[int] = []
    prev_line = prev_char = 0
    for line, char, length, k, bits in pieces:
        data += (line - prev_line, char - prev_char if line == prev_line else char, length, k, bits)
        prev_line, prev_char = line, char
    return data


def _encode_tokens(source: SourceText, found: list[SemanticToken]) -> list[int]:
    """LSP's encoding of tokens, each cut at LSP's line ends (a lone `\r` too)."""
    pieces = []
    for token in found:
        a, b = source.position(token.span.start_byte), source.position(token.span.end_byte)
        k = _KIND_INDEX[token.kind]
        bits = 0
        for m in token.modifiers:
            bits |= _MODIFIER_BIT.get(m, 0)
        for line in range(a.line, b.line + 1):
            first = a.character if line == a.line else 0
            last = b.character if line == b.line else source.position(
                source.offset(Position(line, 1 << 30))).character
            if last > first:
                pieces.append((line, first, last - first, k, bits))
    return _relative(pieces)


def part_encoding(doc: DocumentLike, part: Part) -> tuple[tuple[int, int, int, int, int], tuple[int, int], array[int]] | None:
    """A part's tokens in LSP's encoding, in three pieces: its first token as (line,
    UTF-16 character, length, kind, modifier bits), absolute; the absolute (line,
    character) of its last token; and its other tokens relative each to the one before
    (`tail`: independent of where the item is, the same object while the item is kept).
    None when the part has no token. Holding the document's lock (`doc.reading()`)."""
    rows, tail = _rows(doc, part)
    if not rows:
        return None
    _, line1, _ = part.at
    u_base = part.u16
    rl, u = rows[2], rows[5]
    head = (line1 - 1 + rl, u_base + u if rl == 0 else u, rows[6], rows[7], rows[8])
    rl, u = rows[-_ROW + 2], rows[-_ROW + 5]
    return head, (line1 - 1 + rl, u_base + u if rl == 0 else u), tail


def _encode_parts(doc: DocumentLike, parts: Iterable[Part]) -> array[int]:
    data = array("i")
    prev_line = prev_char = 0
    for part in parts:
        found = part_encoding(doc, part)
        if found is None:
            continue
        (line, char, length, k, bits), last, tail = found
        data.extend((line - prev_line, char - prev_char if line == prev_line else char, length, k, bits))
        data += tail
        prev_line, prev_char = last
    return data


def semantic_tokens_of_module(doc: DocumentLike) -> list[SemanticToken]:
    """The tokens of the whole tree with one classifier for the module: what
    `semantic_tokens` computes item by item (the tests compare the two)."""
    source = doc.source
    raw = _raw_tokens(_Classifier.of_module(doc.checked), doc.tree.root_node, source.data)
    return [SemanticToken(source.span(a, b), kind, mods) for a, b, kind, mods in raw]
