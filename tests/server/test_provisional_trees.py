"""Provisional trees (server/handlers/documents.py): an edit that makes a syntax error
is answered from the incremental tree, and the text is then parsed again from scratch.
When the two trees differ, the version's diagnostics are published again (those of the
fresh parse) and the client is asked to refresh its tokens and hints; when they agree,
nothing more is sent. Either way the last diagnostics of a version are those of a
document opened with its text: a function of the text, not of the edits."""

from __future__ import annotations

import asyncio

import pytest
from lsp_support import (
    change_document,
    conformance,
    edit,
    open_document,
    published_count,
    server_fixture,
    uri_of,
    wait_for,
)
from lsprotocol import types as lsp
from strategies import DIVERGENT_TEXT

pytestmark = pytest.mark.asyncio(loop_scope="module")

client = server_fixture()

QUIET = 0.5  # seconds in which a second publication would come


def picture(diagnostics):
    return [(d.code, d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character,
             d.message) for d in diagnostics]


async def test_a_tree_that_differs_is_published_again_and_refreshed(client):
    uri = uri_of("provisional_differs")
    await open_document(client, uri, DIVERGENT_TEXT)
    before_tokens, before_hints = client.token_refreshes, client.inlay_hint_refreshes
    await change_document(client, uri, 2, [edit(0, 0, 0, 1, "[")])
    await wait_for(lambda: sum(p.version == 2 for p in client.published[uri]) == 2,
                   what="the second publication of version 2")
    await wait_for(lambda: client.token_refreshes > before_tokens, what="workspace/semanticTokens/refresh")
    # These capabilities (VS Code's, as pytest-lsp has them) have no inlay hint refresh.
    assert client.inlay_hint_refreshes == before_hints
    fresh = uri_of("provisional_differs_fresh")
    expected = await open_document(client, fresh, "[" + DIVERGENT_TEXT[1:], version=2)
    assert picture(client.published[uri][-1].diagnostics) == picture(expected)
    # Tokens asked now are the fresh tree's: the same as the fresh document's.
    tokens = await client.text_document_semantic_tokens_full_async(
        lsp.SemanticTokensParams(text_document=lsp.TextDocumentIdentifier(uri=uri)))
    fresh_tokens = await client.text_document_semantic_tokens_full_async(
        lsp.SemanticTokensParams(text_document=lsp.TextDocumentIdentifier(uri=fresh)))
    assert tokens.data == fresh_tokens.data


async def test_a_tree_that_agrees_is_published_once(client):
    uri = uri_of("provisional_agrees")
    text = conformance("heat_e1")
    await open_document(client, uri, text)
    before_tokens = client.token_refreshes
    line = text.splitlines()[7]
    semi = line.index(";")
    found = await change_document(client, uri, 2, [edit(7, semi, 7, semi + 1, "")])
    assert [d.code for d in found] == ["C1002"]
    count = published_count(client, uri)
    await asyncio.sleep(QUIET)
    assert published_count(client, uri) == count
    assert client.token_refreshes == before_tokens
    # Typing on from the provisional version: the next error-free version is exact.
    assert await change_document(client, uri, 3, [edit(7, semi, 7, semi, ";")]) == []
