"""Malformed requests get an LSP error or an empty answer and never end the server: an
unknown document, a position past the end, an inverted range, params that do not
parse, an unknown method. (A body that is not JSON: test_raw_stdio.py.)"""

from __future__ import annotations

import asyncio
import json
import uuid
from concurrent.futures import Future

import pytest
from lsp_support import conformance, doc_id, open_document, server_fixture, uri_of
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcInvalidParams, JsonRpcMethodNotFound

pytestmark = pytest.mark.asyncio(loop_scope="module")

client = server_fixture()

HEAT = uri_of("robust_heat")
FAR = lsp.Position(line=100000, character=100000)


async def _heat_hover_works(client) -> None:
    hover = await client.text_document_hover_async(lsp.HoverParams(text_document=doc_id(HEAT),
                                                                   position=lsp.Position(12, 32)))
    assert hover is not None and "step 22" in hover.contents.value


async def test_unknown_document_gets_empty_answers(client):
    await open_document(client, HEAT, conformance("heat_e1"))
    unknown = doc_id(uri_of("nowhere"))
    origin = lsp.Position(0, 0)
    whole = lsp.Range(start=origin, end=FAR)
    assert await client.text_document_hover_async(lsp.HoverParams(text_document=unknown, position=origin)) is None
    assert not await client.text_document_definition_async(
        lsp.DefinitionParams(text_document=unknown, position=origin))
    assert not await client.text_document_references_async(lsp.ReferenceParams(
        text_document=unknown, position=origin, context=lsp.ReferenceContext(include_declaration=True)))
    assert not (await client.text_document_completion_async(
        lsp.CompletionParams(text_document=unknown, position=origin))).items
    assert await client.text_document_signature_help_async(
        lsp.SignatureHelpParams(text_document=unknown, position=origin)) is None
    assert not (await client.text_document_semantic_tokens_full_async(
        lsp.SemanticTokensParams(text_document=unknown))).data
    assert not await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(text_document=unknown))
    assert not await client.text_document_folding_range_async(lsp.FoldingRangeParams(text_document=unknown))
    assert not await client.text_document_formatting_async(lsp.DocumentFormattingParams(
        text_document=unknown, options=lsp.FormattingOptions(tab_size=4, insert_spaces=True)))
    assert not await client.text_document_code_lens_async(lsp.CodeLensParams(text_document=unknown))
    assert not await client.text_document_inlay_hint_async(lsp.InlayHintParams(text_document=unknown,
                                                                            range=whole))
    assert await client.text_document_prepare_rename_async(
        lsp.PrepareRenameParams(text_document=unknown, position=origin)) is None
    # A change to a document that is not open is ignored (and logged).
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=unknown.uri, version=2),
        content_changes=[lsp.TextDocumentContentChangeWholeDocument(text="x")]))
    await _heat_hover_works(client)


async def test_positions_past_the_end_and_inverted_ranges(client):
    heat = doc_id(HEAT)
    past_line_end = lsp.Position(12, 5000)
    for position in (FAR, past_line_end):
        await client.text_document_hover_async(lsp.HoverParams(text_document=heat, position=position))
        await client.text_document_definition_async(lsp.DefinitionParams(text_document=heat, position=position))
        await client.text_document_completion_async(lsp.CompletionParams(text_document=heat, position=position))
        await client.text_document_signature_help_async(
            lsp.SignatureHelpParams(text_document=heat, position=position))
        await client.text_document_prepare_rename_async(
            lsp.PrepareRenameParams(text_document=heat, position=position))
    inverted = lsp.Range(start=lsp.Position(16, 0), end=lsp.Position(7, 0))
    forward = lsp.Range(start=lsp.Position(7, 0), end=lsp.Position(16, 0))
    got_inverted = await client.text_document_inlay_hint_async(lsp.InlayHintParams(text_document=heat,
                                                                                   range=inverted))
    got_forward = await client.text_document_inlay_hint_async(lsp.InlayHintParams(text_document=heat,
                                                                                  range=forward))
    assert [h.position for h in got_inverted] == [h.position for h in got_forward]
    beyond = lsp.Range(start=FAR, end=lsp.Position(FAR.line + 5, 0))
    assert not await client.text_document_inlay_hint_async(lsp.InlayHintParams(text_document=heat,
                                                                            range=beyond))
    # An edit whose range is inverted or past the end is applied in order and clamped.
    uri = uri_of("robust_edit")
    await open_document(client, uri, conformance("heat_e1"))
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[lsp.TextDocumentContentChangePartial(
            range=lsp.Range(start=FAR, end=lsp.Position(0, 0)), text="")]))
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=3),
        content_changes=[lsp.TextDocumentContentChangePartial(range=lsp.Range(start=FAR, end=FAR),
                                                              text="go();\n")]))
    await _heat_hover_works(client)


def _send_raw(client, payload: dict) -> None:
    """Write a message as is: pygls' client would refuse to serialize bad params."""
    body = json.dumps(payload).encode()
    result = client.protocol.writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    if asyncio.iscoroutine(result):
        asyncio.ensure_future(result)


def _raw_request(client, method: str, params):
    msg_id = f"raw-{uuid.uuid4()}"
    future: Future = Future()
    client.protocol._request_futures[msg_id] = future
    _send_raw(client, {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
    return asyncio.wait_for(asyncio.wrap_future(future), 10)


async def test_params_that_do_not_parse_get_invalid_params(client):
    for params in (
        {"textDocument": {"uri": HEAT}, "position": {"line": -1, "character": 0}},
        {"textDocument": {"uri": HEAT}, "position": {"line": "twelve", "character": 0}},
        {"textDocument": {"uri": HEAT}},
        {"position": {"line": 0, "character": 0}},
    ):
        with pytest.raises(JsonRpcInvalidParams):
            await _raw_request(client, lsp.TEXT_DOCUMENT_HOVER, params)
    with pytest.raises(JsonRpcInvalidParams):
        await _raw_request(client, lsp.TEXT_DOCUMENT_INLAY_HINT, {"textDocument": {"uri": HEAT}, "range": None})
    # A notification that does not parse is dropped (and logged).
    _send_raw(client, {"jsonrpc": "2.0", "method": lsp.TEXT_DOCUMENT_DID_CHANGE,
                       "params": {"textDocument": {"uri": HEAT}, "contentChanges": 7}})
    await _heat_hover_works(client)


async def test_unknown_method(client):
    with pytest.raises(JsonRpcMethodNotFound):
        await client.protocol.send_request_async("cint/noSuchThing", {"x": 1})
    await _heat_hover_works(client)
