"""Document sync (incremental, UTF-16 positions) and diagnostics, end to end over stdio."""

from __future__ import annotations

import pytest
from lsp_support import (
    at,
    capabilities,
    change_document,
    conformance,
    diagnostics_for,
    edit,
    open_document,
    published_count,
    server_fixture,
    uri_of,
)
from lsprotocol import types as lsp

pytestmark = pytest.mark.asyncio(loop_scope="module")

# A client that prefers UTF-8 positions: the server must still answer in UTF-16.
client = server_fixture(caps=capabilities(
    general=lsp.GeneralClientCapabilities(position_encodings=["utf-8", "utf-16"])))


async def test_capabilities(client):
    caps = client.initialize_result.capabilities
    assert caps.position_encoding == lsp.PositionEncodingKind.Utf16
    assert caps.text_document_sync.change == lsp.TextDocumentSyncKind.Incremental
    assert caps.hover_provider
    assert caps.semantic_tokens_provider.full
    assert "keyword" in caps.semantic_tokens_provider.legend.token_types
    assert set(caps.execute_command_provider.commands) == {"cint.run", "cint.compareExecutors", "cint.tracePage", "cint.showRefusal"}
    for provider in ("inlay_hint_provider", "document_symbol_provider", "definition_provider",
                     "references_provider", "rename_provider", "completion_provider",
                     "signature_help_provider", "folding_range_provider", "document_formatting_provider",
                     "code_lens_provider"):
        assert getattr(caps, provider), provider
    assert client.initialize_result.server_info.name == "cint-ls"


async def test_heat_has_no_diagnostics(client):
    assert await open_document(client, uri_of("heat_e1"), conformance("heat_e1")) == []


async def test_same_c5010_at_7_14(client):
    found = await open_document(client, uri_of("same_c5010"), conformance("same_c5010"))
    c5010 = [d for d in found if d.code == "C5010"]
    assert len(c5010) == 1
    d = c5010[0]
    assert d.range.start == at(7, 14)
    assert d.severity == lsp.DiagnosticSeverity.Error
    assert d.source == "cint"


OPS_REFUSALS = [  # capability, line, column (1-based), in build order
    ("neg", 3, 13), ("bits", 4, 16), ("bits", 4, 21), ("bits", 4, 26), ("builtin", 5, 13),
    ("sat", 6, 15), ("div", 7, 15), ("shift", 8, 16), ("as.wrap", 9, 15), ("switch", 11, 5),
    ("array", 15, 5),
]


async def test_ops_kernel_refusals(client):
    found = await open_document(client, uri_of("ops_kernel"), conformance("ops_kernel"))
    refusals = [d for d in found if d.data and d.data.get("executor") == "gpu-cuda"]
    # The default targets are cpu-c17 and gpu-cuda: cpu-c17 runs the kernel, so gpu-cuda's
    # refusal is one warning on the kernel's name (issue 32), and each refused construct
    # a hint-level mark, in build order.
    (warning,) = [d for d in refusals if d.severity == lsp.DiagnosticSeverity.Warning]
    assert warning.data.get("first") is True and "first" in warning.message
    marks = [d for d in refusals if d.severity == lsp.DiagnosticSeverity.Hint]
    got = [(d.data["capability"], d.range.start.line + 1, d.range.start.character + 1) for d in marks]
    assert got == OPS_REFUSALS
    assert all(d.data.get("mark") and not d.data.get("first") for d in marks)
    assert len(refusals) == len(OPS_REFUSALS) + 1
    assert "neg" in warning.message


async def test_incremental_edits_and_versions(client):
    uri = uri_of("edits")
    text = conformance("heat_e1")
    assert await open_document(client, uri, text, version=1) == []
    # Delete the `;` at the end of line 8 (`I64 c = u[y, x] as I64;`).
    line = text.splitlines()[7]
    semi = line.index(";")
    found = await change_document(client, uri, 2, [edit(7, semi, 7, semi + 1, "")])
    assert [d.code for d in found] == ["C1002"]
    assert found[0].range.start == lsp.Position(7, semi)
    # Put it back: clean again, published with version 3.
    assert await change_document(client, uri, 3, [edit(7, semi, 7, semi, ";")]) == []
    # Several changes in one notification apply in order.
    found = await change_document(client, uri, 4, [
        edit(7, semi, 7, semi + 1, ""),   # remove `;`
        edit(7, semi, 7, semi, "; "),     # insert `; `
        edit(7, semi + 1, 7, semi + 2, ""),  # remove the space again
    ])
    assert found == []


async def test_non_ascii_comments_utf16_positions(client):
    uri = uri_of("unicode")
    text = "// ünïcödé 😀 comment\nvoid go() {\n    /* 😀é */ I64 x = 1\n}\ngo();\n"
    found = await open_document(client, uri, text)
    assert [d.code for d in found] == ["C1002"]
    # `    /* 😀é */ I64 x = 1`: 22 code points before the missing `;`, the emoji counts
    # two UTF-16 code units.
    assert found[0].range.start == lsp.Position(2, 23)
    # An edit addressed in UTF-16 units after the emoji lands where it should.
    assert await change_document(client, uri, 2, [edit(2, 23, 2, 23, ";")]) == []
    # Replace the emoji in the first line (2 units) by an ASCII letter: offsets after it
    # on that line shift by one unit, nothing else changes.
    assert await change_document(client, uri, 3, [edit(0, 11, 0, 13, "x")]) == []
    found = await change_document(client, uri, 4, [edit(2, 23, 2, 24, "")])  # remove the `;`
    assert [(d.code, d.range.start) for d in found] == [("C1002", lsp.Position(2, 23))]


async def test_full_document_change(client):
    uri = uri_of("full")
    assert await open_document(client, uri, conformance("heat_e1")) == []
    found = await change_document(client, uri, 2, [
        lsp.TextDocumentContentChangeWholeDocument(text=conformance("same_c5010"))])
    assert [d.code for d in found] == ["C5010"]


async def test_close_clears_diagnostics(client):
    uri = uri_of("closing")
    assert await open_document(client, uri, conformance("same_c5010"))
    before = published_count(client, uri)
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri)))
    assert await diagnostics_for(client, uri, None, before) == []


async def test_a_burst_of_changes_ends_with_the_newest_version(client):
    uri = uri_of("burst")
    text = conformance("heat_e1")
    await open_document(client, uri, text)
    before = published_count(client, uri)
    line = text.splitlines()[7]
    semi = line.index(";")
    # Remove and restore the `;` five times, without waiting: the last version is valid.
    for version in range(2, 12):
        change = edit(7, semi, 7, semi + 1, "") if version % 2 == 0 else edit(7, semi, 7, semi, ";")
        client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version), content_changes=[change]))
    assert await diagnostics_for(client, uri, 11, before) == []
    versions = [p.version for p in client.published[uri][before:]]
    assert versions == sorted(versions) and versions[-1] == 11
