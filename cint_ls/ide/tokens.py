"""Semantic tokens: the tree's leaves, classified with what the analysis knows.

Names get their meaning: parameters with their mode (`in`, `out`, `inout`), size
symbols, over variables, kernels and functions, and in a kernel body every variable is
marked `uniform` or `varying` (SPEC-02P.1 8.2). Keywords, types, numbers, strings,
operators and comments come from the tree alone, so a file with errors still colours.
Tokens are sorted, never overlap and never span lines (a block comment is split).
"""

from __future__ import annotations

from ..analysis.builtins import BUILTIN_FUNCTIONS, REDUCE_OPERATORS, ROUNDING_MODES
from ..analysis.symbols import Symbol, SymbolKind
from ..analysis.types import ArrayType
from .find import total
from .results import SemanticToken
from .uniform import Uniformity

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
    def __init__(self, doc) -> None:
        self.doc = doc
        self.checked = doc.checked
        self.by_start: dict[int, tuple[object, Symbol]] = {}
        for node, symbol in self.checked.symbols.items():
            self.by_start[node.span.start_byte] = (node, symbol)
        self.uniformity: dict[str, Uniformity] = {}

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


def _split_lines(doc, start: int, end: int) -> list[tuple[int, int]]:
    data = doc.source.data
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


@total(list)
def semantic_tokens(doc) -> list[SemanticToken]:
    classifier = _Classifier(doc)
    source = doc.source
    data = source.data
    out: list[tuple[int, int, str, tuple[str, ...]]] = []
    cursor = doc.tree.walk()
    while True:
        node = cursor.node
        leaf = node.child_count == 0 or node.type in LEAF_KINDS
        if leaf and node.end_byte > node.start_byte and not node.is_missing:
            found = _classify(classifier, node, data)
            if found is not None:
                for a, b in _split_lines(doc, node.start_byte, node.end_byte):
                    out.append((a, b, found[0], found[1]))
        if not leaf and cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return _finish(source, out)


def _classify(classifier: _Classifier, node, data: bytes) -> tuple[str, tuple[str, ...]] | None:
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


def _finish(source, raw) -> list[SemanticToken]:
    raw.sort(key=lambda t: (t[0], -t[1]))
    tokens: list[SemanticToken] = []
    last_end = -1
    for start, end, kind, mods in raw:
        if start < last_end:
            continue  # overlap (an error region's leaves): keep the first
        tokens.append(SemanticToken(source.span(start, end), kind, mods))
        last_end = end
    return tokens
