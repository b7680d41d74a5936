"""Conversions between the ide results (byte offsets, `Span`s) and LSP types (UTF-16
positions), and the diagnostic of a fault record. Nothing here talks to a client.
"""

from __future__ import annotations

import json

from lsprotocol import types as lsp

from ..exec.faults import FaultRecord
from ..exec.report import diagnostic_message
from ..ide.document import Document
from ..syntax.diagnostics import Diagnostic
from ..syntax.source import Position, SourceText, Span
from .scheduling import checkpoint

SOURCE = "cint"
MAX_FRAMES = 32  # related entries of a fault diagnostic, at most


# ---- positions

def lsp_position(source: SourceText, offset: int) -> lsp.Position:
    p = source.position(offset)
    return lsp.Position(line=p.line, character=p.character)


def lsp_range(source: SourceText, span: Span) -> lsp.Range:
    start = span.start_byte
    end = max(start, span.end_byte)
    return lsp.Range(start=lsp_position(source, start), end=lsp_position(source, end))


def offset_of(source: SourceText, position: lsp.Position) -> int:
    """The byte offset of an LSP position; out-of-range positions clamp (a line past
    the end gives the end of the text, a character past its line the line's end)."""
    return source.offset(Position(position.line, position.character))


def offsets_of(source: SourceText, range_: lsp.Range) -> tuple[int, int]:
    """The byte range of an LSP range, in order (an inverted range is taken in order)."""
    a, b = offset_of(source, range_.start), offset_of(source, range_.end)
    return (a, b) if a <= b else (b, a)


def whole_range(source: SourceText) -> lsp.Range:
    return lsp.Range(start=lsp.Position(0, 0), end=lsp_position(source, len(source.data)))


# ---- diagnostics

def _json_data(diagnostic: Diagnostic) -> dict | None:
    data: dict = {}
    if diagnostic.capability is not None:
        data["capability"] = diagnostic.capability
    if diagnostic.executor is not None:
        data["executor"] = diagnostic.executor
    for key, value in (diagnostic.data or {}).items():
        try:
            json.dumps(value)
        except (TypeError, ValueError):
            continue
        data[str(key)] = value
    return data or None


def lsp_diagnostic(doc: Document, diagnostic: Diagnostic) -> lsp.Diagnostic:
    source = doc.source
    related = [
        lsp.DiagnosticRelatedInformation(
            location=lsp.Location(uri=doc.uri, range=lsp_range(source, r.span)), message=r.message
        )
        for r in diagnostic.related
    ]
    return lsp.Diagnostic(
        range=lsp_range(source, diagnostic.span),
        message=diagnostic.message,
        severity=lsp.DiagnosticSeverity(int(diagnostic.severity)),
        code=diagnostic.code,
        source=SOURCE,
        related_information=related or None,
        data=_json_data(diagnostic),
    )


def fault_diagnostic(doc: Document, record: FaultRecord, executor: str) -> lsp.Diagnostic:
    """The Error diagnostic of a run's fault, at the faulting operator, with the
    dispatch site and each stack frame as related information. `record` must come
    from a run of the document's current text (its spans are byte offsets into it)."""
    source = doc.source
    related: list[lsp.DiagnosticRelatedInformation] = []
    address = record.address
    frames = list(enumerate(record.stack))
    if len(frames) > MAX_FRAMES:  # deep recursion: the innermost frames and the entry
        frames = frames[:MAX_FRAMES - 1] + frames[-1:]
    for index, frame in frames:
        if frame.span is None:
            continue
        if address is not None and index == 0 and frame.function == address.kernel:
            message = f"dispatch {address.dispatch} of {frame.function}"
        else:
            message = f"in {frame.function}" if index == 0 else f"call of {frame.function}"
        if index == len(record.stack) - 1 and len(record.stack) > MAX_FRAMES:
            message += f" (outermost frame; {len(record.stack) - MAX_FRAMES} frames left out)"
        related.append(lsp.DiagnosticRelatedInformation(
            location=lsp.Location(uri=doc.uri, range=lsp_range(source, frame.span)), message=message))
    if record.span is not None:
        range_ = lsp_range(source, record.span)
    elif record.stack and record.stack[0].span is not None:
        range_ = lsp_range(source, record.stack[0].span)
    else:
        range_ = lsp.Range(start=lsp.Position(0, 0), end=lsp.Position(0, 0))
    return lsp.Diagnostic(
        range=range_,
        message=diagnostic_message(record, executor),
        severity=lsp.DiagnosticSeverity.Error,
        code=record.code,
        source=f"{SOURCE} run",
        related_information=related or None,
        data={"executor": executor, "fault": record.to_json()},
    )


# ---- semantic tokens

def encode_semantic_tokens(source: SourceText, tokens, kinds: tuple[str, ...],
                           modifiers: tuple[str, ...]) -> list[int]:
    """LSP's relative encoding (5 integers a token, UTF-16 columns) of `ide.SemanticToken`s.
    A token that spans lines is split per line; tokens that overlap an earlier one, are
    empty or have a kind outside the legend are left out."""
    return encode_token_items(source, [(t.span.start_byte, t.span.end_byte, t.kind, t.modifiers) for t in tokens],
                              kinds, modifiers)


def encode_token_items(source: SourceText, items: list[tuple[int, int, str, tuple[str, ...]]],
                       kinds: tuple[str, ...], modifiers: tuple[str, ...]) -> list[int]:
    """`encode_semantic_tokens` of (start byte, end byte, kind, modifiers) tuples: what
    the heavy-request worker takes from the ide's tokens while it holds the document,
    and encodes after. Between chunks of tokens it passes a `checkpoint` (a request no
    longer wanted stops there, and the loop goes first)."""
    kind_index = {k: i for i, k in enumerate(kinds)}
    modifier_bit = {m: 1 << i for i, m in enumerate(modifiers)}
    line_info: dict[int, tuple[int, bool]] = {}  # line -> (length in bytes, ASCII)

    def line_of(line: int) -> tuple[int, bool]:
        info = line_info.get(line)
        if info is None:
            text = source.line_bytes(line)
            info = line_info[line] = (len(text), text.isascii())
        return info

    def utf16(line: int, column: int) -> int:
        if line_of(line)[1]:
            return column
        prefix = source.line_bytes(line)[:column].decode("utf-8", errors="replace")
        return len(prefix.encode("utf-16-le")) // 2

    point = source.point_of_byte
    pieces: list[tuple[int, int, int, int, int]] = []  # line, start char, length, kind, modifiers
    ordered = items
    if any(ordered[i][:2] > ordered[i + 1][:2] for i in range(len(ordered) - 1)):
        ordered = sorted(ordered, key=lambda x: (x[0], x[1]))
    line = line_start = -1
    line_end = -1  # byte offset of the end of `line`'s text
    length = 0
    ascii_line = True
    for n, (start, end, token_kind, token_modifiers) in enumerate(ordered):
        if n & 4095 == 4095:
            checkpoint()
        kind = kind_index.get(token_kind)
        if kind is None or end <= start:
            continue
        bits = 0
        for m in token_modifiers:
            bits |= modifier_bit.get(m, 0)
        if not line_start <= start <= line_end:
            line, column = point(start)
            line_start = start - column
            length, ascii_line = line_of(line)
            line_end = line_start + length
        column = start - line_start
        if end <= line_end:  # on one line
            if ascii_line:
                pieces.append((line, column, end - start, kind, bits))
            else:
                first = utf16(line, column)
                pieces.append((line, first, utf16(line, column + end - start) - first, kind, bits))
            continue
        last_line, last_column = point(end)
        for at in range(line, last_line + 1):
            first = utf16(at, column) if at == line else 0
            last = utf16(at, last_column) if at == last_line else utf16(at, line_of(at)[0])
            if last > first:
                pieces.append((at, first, last - first, kind, bits))
    data: list[int] = []
    prev_line = prev_char = 0
    prev_end = (-1, -1)  # (line, end character) of the last token kept
    for line, char, length, kind, bits in pieces:
        if (line, char) < prev_end:
            continue  # overlaps the previous token
        delta_line = line - prev_line
        delta_char = char - prev_char if delta_line == 0 else char
        data += (delta_line, delta_char, length, kind, bits)
        prev_line, prev_char = line, char
        prev_end = (line, char + length)
    return data


def tokens_edit(old: list[int], new: list[int]) -> tuple[int, int, list[int]] | None:
    """The one edit that turns the token array `old` into `new`: (start, delete count,
    data), the part between their common prefix and common suffix, both whole tokens (5
    integers). None when they are equal."""
    if old == new:
        return None
    limit = min(len(old), len(new))
    prefix = common_length(old, new, limit, forward=True)
    suffix = common_length(old, new, limit - prefix, forward=False)
    prefix -= prefix % 5
    suffix -= suffix % 5
    return prefix, len(old) - prefix - suffix, new[prefix:len(new) - suffix]


def common_length(a, b, limit: int, forward: bool, chunk: int = 512) -> int:
    """The length of the common prefix (or suffix) of the sequences `a` and `b` (lists,
    strings), at most `limit`; compared a chunk at a time (slices compare in C)."""
    n = 0
    while n < limit:
        size = min(chunk, limit - n)
        if forward:
            same = a[n:n + size] == b[n:n + size]
        else:
            same = a[len(a) - n - size:len(a) - n] == b[len(b) - n - size:len(b) - n]
        if not same:
            break
        n += size
    else:
        return limit
    while n < limit and (a[n] == b[n] if forward else a[len(a) - 1 - n] == b[len(b) - 1 - n]):
        n += 1
    return n


# ---- kinds

_SYMBOL_KINDS = {
    "kernel": lsp.SymbolKind.Function,
    "function": lsp.SymbolKind.Function,
    "variable": lsp.SymbolKind.Variable,
    "parameter": lsp.SymbolKind.Variable,
    "struct": lsp.SymbolKind.Struct,
    "field": lsp.SymbolKind.Field,
    "constant": lsp.SymbolKind.Constant,
    "size": lsp.SymbolKind.TypeParameter,
    "sizeSymbol": lsp.SymbolKind.TypeParameter,
    "module": lsp.SymbolKind.Module,
    "import": lsp.SymbolKind.Module,
}

_COMPLETION_KINDS = {
    "keyword": lsp.CompletionItemKind.Keyword,
    "type": lsp.CompletionItemKind.Class,
    "variable": lsp.CompletionItemKind.Variable,
    "function": lsp.CompletionItemKind.Function,
    "kernel": lsp.CompletionItemKind.Function,
    "parameter": lsp.CompletionItemKind.Variable,
    "operator": lsp.CompletionItemKind.Operator,
    "constant": lsp.CompletionItemKind.Constant,
    "snippet": lsp.CompletionItemKind.Snippet,
    "field": lsp.CompletionItemKind.Field,
    "module": lsp.CompletionItemKind.Module,
}

_FOLDING_KINDS = {
    "comment": lsp.FoldingRangeKind.Comment,
    "region": lsp.FoldingRangeKind.Region,
    "imports": lsp.FoldingRangeKind.Imports,
}


def symbol_kind(kind: str) -> lsp.SymbolKind:
    return _SYMBOL_KINDS.get(kind, lsp.SymbolKind.Variable)


def completion_kind(kind: str) -> lsp.CompletionItemKind:
    return _COMPLETION_KINDS.get(kind, lsp.CompletionItemKind.Text)


def folding_kind(kind: str | None) -> lsp.FoldingRangeKind | None:
    return None if kind is None else _FOLDING_KINDS.get(kind)


def document_symbol(source: SourceText, symbol) -> lsp.DocumentSymbol:
    span = lsp_range(source, symbol.span)
    selection = lsp_range(source, symbol.selection)
    # LSP requires the selection range to lie inside the range.
    if (selection.start.line, selection.start.character) < (span.start.line, span.start.character) or \
            (selection.end.line, selection.end.character) > (span.end.line, span.end.character):
        selection = span
    return lsp.DocumentSymbol(
        name=symbol.name or "?",
        kind=symbol_kind(symbol.kind),
        range=span,
        selection_range=selection,
        detail=symbol.detail or None,
        children=[document_symbol(source, child) for child in symbol.children] or None,
    )
