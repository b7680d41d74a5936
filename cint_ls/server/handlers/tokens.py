"""Semantic tokens: `full`, `full/delta` and `range`, on the worker.

Each document keeps the last token array sent in a `full` or `full/delta` answer and
its result id (`OpenDocument.tokens`). A delta request whose `previousResultId` is that
id gets the one edit between that array and the new one (`convert.tokens_edit`: the
part between their common prefix and suffix, whole tokens); any other id gets the whole
array, as LSP allows. A `range` answer holds the tokens that overlap the range (from
`ide.semantic_tokens(doc, byte_range=...)` where the ide can compute only those, else
filtered) and neither has nor changes a result id.
"""

from __future__ import annotations

import functools
import inspect

from lsprotocol import types as lsp

from ... import ide
from ...ide import SEMANTIC_TOKEN_KINDS, SEMANTIC_TOKEN_MODIFIERS
from .. import convert
from ..pinned import reading
from ..scheduling import checkpoint
from ..session import OpenDocument, Session
from .features import chunks

LEGEND = lsp.SemanticTokensLegend(token_types=list(SEMANTIC_TOKEN_KINDS),
                                  token_modifiers=list(SEMANTIC_TOKEN_MODIFIERS))


def empty_tokens() -> lsp.SemanticTokens:
    return lsp.SemanticTokens(data=[])


@functools.cache
def _takes_byte_range() -> bool:
    try:
        return "byte_range" in inspect.signature(ide.semantic_tokens).parameters
    except (TypeError, ValueError):
        return False


def _tokens(doc, start: int, end: int) -> list[int]:
    """The encoded tokens of `doc` that overlap start..end. Where the ide computes the
    tokens of a byte range, a chunk of CHUNK_LINES lines at a time, each under the
    version's lock, with a checkpoint between chunks; else all at once, filtered."""
    source = doc.source
    items: list[tuple[int, int, str, tuple[str, ...]]] = []
    if not _takes_byte_range():
        with reading(doc):
            for t in ide.semantic_tokens(doc):
                a, b = t.span.start_byte, t.span.end_byte
                if b > start and a < end:
                    items.append((a, b, t.kind, t.modifiers))
    else:
        first = True
        for a, b, last in chunks(source, start, end):
            with reading(doc):
                for t in ide.semantic_tokens(doc, byte_range=(a, b)):
                    s, e = t.span.start_byte, t.span.end_byte
                    if a <= s < b or (first and s < a < e):
                        items.append((s, e, t.kind, t.modifiers))
            first = False
            if not last:
                checkpoint()
    return convert.encode_token_items(source, items, SEMANTIC_TOKEN_KINDS, SEMANTIC_TOKEN_MODIFIERS)


def _all_tokens(doc) -> list[int]:
    return _tokens(doc, 0, len(doc.source.data))


# ---- full

def full(doc, params: lsp.SemanticTokensParams, prepared) -> list[int]:
    return _all_tokens(doc)


def full_finish(session: Session, entry: OpenDocument, params, data: list[int]) -> lsp.SemanticTokens:
    result_id = session.next_result_id()
    entry.tokens = (result_id, data)
    return lsp.SemanticTokens(data=data, result_id=result_id)


# ---- delta

def delta_prepare(session: Session, entry: OpenDocument, params: lsp.SemanticTokensDeltaParams):
    """The array the client has, when the id it names is the one kept."""
    kept = entry.tokens
    return kept[1] if kept is not None and kept[0] == params.previous_result_id else None


def delta(doc, params: lsp.SemanticTokensDeltaParams, previous: list[int] | None):
    data = _all_tokens(doc)
    return data, previous is not None, None if previous is None else convert.tokens_edit(previous, data)


def delta_finish(session: Session, entry: OpenDocument, params: lsp.SemanticTokensDeltaParams,
                 computed) -> lsp.SemanticTokens | lsp.SemanticTokensDelta:
    data, had_previous, edit = computed
    result_id = session.next_result_id()
    entry.tokens = (result_id, data)
    if not had_previous:
        return lsp.SemanticTokens(data=data, result_id=result_id)
    edits = [] if edit is None else [lsp.SemanticTokensEdit(start=edit[0], delete_count=edit[1], data=edit[2])]
    return lsp.SemanticTokensDelta(edits=edits, result_id=result_id)


# ---- range

def range_(doc, params: lsp.SemanticTokensRangeParams, prepared) -> lsp.SemanticTokens:
    start, end = convert.offsets_of(doc.source, params.range)
    return lsp.SemanticTokens(data=_tokens(doc, start, end))


for _fn in (full, delta, range_):
    _fn.chunked = True  # type: ignore[attr-defined]  # they take the document's lock themselves
