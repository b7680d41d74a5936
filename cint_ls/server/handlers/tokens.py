"""Semantic tokens: `full`, `full/delta` and `range`, step by step, from
`ide.semantic_tokens_data` (LSP's encoding, kept per item across versions).

Each document keeps the last token array sent in a `full` or `full/delta` answer and
its result id (`OpenDocument.tokens`). A delta request whose `previousResultId` is that
id gets the one edit between that array and the new one (`convert.tokens_edit`: the
part between their common prefix and suffix, whole tokens); any other id gets the whole
array, as LSP allows. A `range` answer holds the tokens that overlap the range and
neither has nor changes a result id.

The first tokens of a document (every item to compute, hundreds of ms on 5,000 lines)
are computed by ranges of CHUNK_LINES lines, a step each (`scheduling.steps`); after
that a whole-document call reuses every item an edit did not touch (a few ms).
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Generator

from lsprotocol import types as lsp

from ... import ide
from ...ide import SEMANTIC_TOKEN_KINDS, SEMANTIC_TOKEN_MODIFIERS
from ...syntax.source import Position, SourceText
from .. import convert, fragments
from ..session import OpenDocument, Serialized, Session
from .features import Computed

CHUNK_LINES = 300  # lines of a chunk of tokens computed in one step

LEGEND = lsp.SemanticTokensLegend(token_types=list(SEMANTIC_TOKEN_KINDS),
                                  token_modifiers=list(SEMANTIC_TOKEN_MODIFIERS))


def empty_tokens() -> lsp.SemanticTokens:
    return lsp.SemanticTokens(data=[])


def chunks(source: SourceText, start: int, end: int, lines: int = 0):
    """(a, b, last) byte ranges that cover start..end, each CHUNK_LINES lines (or
    `lines`) at most, cut at line starts."""
    step = lines or CHUNK_LINES
    line = source.point_of_byte(start)[0]
    a = start
    while True:
        line += step
        b = source.offset(Position(line, 0)) if line < source.line_count else len(source.data)
        if b >= end:
            yield a, end, True
            return
        yield a, b, False
        a = b


def _by_chunks(doc, start: int, end: int) -> Generator[None, None, list[int]]:
    """The encoded tokens that overlap start..end, computed CHUNK_LINES lines a step
    and joined into one array."""
    pieces = []
    for a, b, last in chunks(doc.source, start, end):
        pieces.append(ide.semantic_tokens_data(doc, byte_range=(a, b)))
        if not last:
            yield
    return convert.join_token_data(pieces)


def _all(doc, first: bool) -> Generator[None, None, array]:
    """The whole document's token array: the one its version keeps (no copy; kept as
    the client's array afterwards, and never changed)."""
    if first:
        yield from _by_chunks(doc, 0, len(doc.source.data))  # computes every item, a chunk a step
    return ide.semantic_tokens_array(doc)


# ---- full

def full_prepare(session: Session, entry: OpenDocument, params) -> tuple[bool, str]:
    """Whether the document has had no tokens yet (its items are still to compute), and
    the answer's result id."""
    return entry.tokens is None, session.next_result_id()


def full(doc, params: lsp.SemanticTokensParams, prepared: tuple[bool, str]) -> Generator[None, None, Computed]:
    first, result_id = prepared
    data = yield from _all(doc, first)
    return Computed((yield from _serialized(doc, data, result_id)), (result_id, data))


def _serialized(doc, data, result_id: str) -> Generator[None, None, Serialized]:
    """A `SemanticTokens` answer as JSON, its array from the items' kept text."""
    text = yield from fragments.tokens_data(doc, data)
    return Serialized(f'{{"resultId":{json.dumps(result_id)},"data":{text}}}')


def keep(session: Session, entry: OpenDocument, params, computed: Computed) -> None:
    """Once answered: the array the client now has, with its result id."""
    entry.tokens = computed.kept


# ---- delta

def delta_prepare(session: Session, entry: OpenDocument, params: lsp.SemanticTokensDeltaParams):
    """The array the client has, when the id it names is the one kept; the answer's
    result id."""
    kept = entry.tokens
    previous = kept[1] if kept is not None and kept[0] == params.previous_result_id else None
    return previous, session.next_result_id()


def delta(doc, params: lsp.SemanticTokensDeltaParams, prepared) -> Generator[None, None, Computed]:
    previous, result_id = prepared
    data = yield from _all(doc, first=False)
    if previous is None:
        return Computed((yield from _serialized(doc, data, result_id)), (result_id, data))
    edit = convert.tokens_edit(previous, data)
    edits = [] if edit is None else [lsp.SemanticTokensEdit(start=edit[0], delete_count=edit[1], data=list(edit[2]))]
    return Computed(lsp.SemanticTokensDelta(edits=edits, result_id=result_id), (result_id, data))


# ---- range

def range_(doc, params: lsp.SemanticTokensRangeParams, prepared) -> Generator[None, None, lsp.SemanticTokens]:
    start, end = convert.offsets_of(doc.source, params.range)
    return lsp.SemanticTokens(data=(yield from _by_chunks(doc, start, end)))
