"""Conversions between the ide results (byte offsets, `Span`s) and LSP types (UTF-16
positions), the diagnostic of a fault record, and the joining and diffing of semantic
token arrays (LSP's encoding of the tokens is the ide's, `ide.semantic_tokens_data`).
Nothing here talks to a client.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types as lsp
from lsprotocol.converters import get_converter

from ..exec.faults import FaultRecord
from ..ide.document import Document, DocumentLike
from ..running.report import diagnostic_message
from ..syntax.diagnostics import Diagnostic
from ..syntax.source import Position, SourceText, Span
from .wire import SOURCE, diagnostic_json

MAX_FRAMES = 32  # related entries of a fault diagnostic, at most
_CONVERTER = get_converter()


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

def lsp_diagnostic(doc: DocumentLike, diagnostic: Diagnostic) -> lsp.Diagnostic:
    """The editor's diagnostic (`wire.diagnostic_json`, the one definition of it) as
    lsprotocol's object, for a code action that carries it."""
    return _CONVERTER.structure(diagnostic_json(doc, diagnostic), lsp.Diagnostic)


def fault_diagnostic_json(doc: Document, record: FaultRecord, executor: str) -> dict[str, Any]:
    """`fault_diagnostic` as the JSON it is published as."""
    out: dict[str, Any] = _CONVERTER.unstructure(fault_diagnostic(doc, record, executor))
    return out


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

def join_token_data(pieces: list[list[int]]) -> list[int]:
    """One token array of arrays encoded each on its own (each starts from line 0,
    character 0) for consecutive ranges of a document: the first token of each piece is
    made relative to the last one before it, and tokens a piece repeats (one both ranges
    overlap) are left out."""
    out: list[int] = []
    last: tuple[int, int] | None = None  # absolute (line, character) of the last token in `out`
    for data in pieces:
        line = char = 0
        for i in range(0, len(data), 5):
            line += data[i]
            char = char + data[i + 1] if data[i] == 0 else data[i + 1]
            if last is not None and (line, char) <= last:
                continue
            if last is None:
                out += data[i:]
            else:
                out += (line - last[0], char - last[1] if line == last[0] else char)
                out += data[i + 2:]
            # The rest of the piece is relative to its own previous token: kept as it is.
            last = _last_position(data, i, line, char)
            break
    return out


def _last_position(data: list[int], i: int, line: int, char: int) -> tuple[int, int]:
    """The absolute position of the last token of `data`, token `i` being at (line, char)."""
    for j in range(i + 5, len(data), 5):
        line += data[j]
        char = char + data[j + 1] if data[j] == 0 else data[j + 1]
    return line, char


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


def document_symbol_json(source: SourceText, symbol) -> dict:
    """An ide `DocumentSymbol` as the JSON of LSP's `DocumentSymbol`, made directly (a
    document's symbols are thousands of objects: building lsprotocol's and then
    unstructuring them takes about four times as long)."""
    a, b = symbol.span.start_byte, symbol.span.end_byte
    start, end = source.position(a), source.position(max(a, b))
    a, b = symbol.selection.start_byte, symbol.selection.end_byte
    sel_start, sel_end = source.position(a), source.position(max(a, b))
    range_ = {"start": {"line": start.line, "character": start.character},
              "end": {"line": end.line, "character": end.character}}
    # LSP requires the selection range to lie inside the range.
    if (sel_start.line, sel_start.character) < (start.line, start.character) or \
            (sel_end.line, sel_end.character) > (end.line, end.character):
        selection = range_
    else:
        selection = {"start": {"line": sel_start.line, "character": sel_start.character},
                     "end": {"line": sel_end.line, "character": sel_end.character}}
    out = {"name": symbol.name or "?", "kind": int(symbol_kind(symbol.kind)), "range": range_,
           "selectionRange": selection}
    if symbol.detail:
        out["detail"] = symbol.detail
    if symbol.children:
        out["children"] = [document_symbol_json(source, child) for child in symbol.children]
    return out
