"""Settings for a client without `workspace/configuration`: `initializationOptions`
at the start, then the settings pushed in `workspace/didChangeConfiguration`."""

from __future__ import annotations

import asyncio

import pytest
from lsp_support import (
    capabilities,
    conformance,
    diagnostics_for,
    doc_id,
    open_document,
    published_count,
    server_fixture,
    uri_of,
)
from lsprotocol import types as lsp

pytestmark = pytest.mark.asyncio(loop_scope="module")

client = server_fixture(
    initialization_options={"cint": {"targets": ["gpu-cuda"], "inlayHints": {"stepOrdinals": False}}},
    caps=capabilities(workspace=lsp.WorkspaceClientCapabilities(configuration=False)))

OPS = uri_of("push_ops")
WHOLE = lsp.Range(start=lsp.Position(0, 0), end=lsp.Position(40, 0))


async def test_initialization_options(client):
    found = await open_document(client, OPS, conformance("ops_kernel"))
    assert {d.severity for d in found if d.code == "C9100"} == {lsp.DiagnosticSeverity.Error}
    assert not await client.text_document_inlay_hint_async(lsp.InlayHintParams(text_document=doc_id(OPS),
                                                                               range=WHOLE))


async def test_pushed_settings(client):
    before = published_count(client, OPS)
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(
        settings={"cint": {"targets": ["cpu-c17", "gpu-cuda"], "inlayHints": {"stepOrdinals": True}}}))
    found = await diagnostics_for(client, OPS, 1, before)
    assert {d.severity for d in found if d.code == "C9100"} == {lsp.DiagnosticSeverity.Warning, lsp.DiagnosticSeverity.Hint}
    await asyncio.sleep(0.1)
    assert await client.text_document_inlay_hint_async(lsp.InlayHintParams(text_document=doc_id(OPS),
                                                                           range=WHOLE))
