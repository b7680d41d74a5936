"""Settings through `workspace/configuration` (pulled after `initialized` and on
`workspace/didChangeConfiguration`): targets decide the severity of refusals, inlay
hints on and off, values of the wrong type, the C compiler of cpu-c17."""

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
    wait_for,
)
from lsprotocol import types as lsp

from cint_ls.server.runs import implemented_executors

pytestmark = pytest.mark.asyncio(loop_scope="module")

def _caps() -> lsp.ClientCapabilities:
    caps = capabilities()
    caps.workspace.inlay_hint = lsp.InlayHintWorkspaceClientCapabilities(refresh_support=True)
    return caps


client = server_fixture(settings={}, caps=_caps())

OPS = uri_of("settings_ops")
WHOLE = lsp.Range(start=lsp.Position(0, 0), end=lsp.Position(40, 0))


async def configure(client, settings: dict) -> None:
    client.set_configuration(settings, section="cint")
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings=None))
    await asyncio.sleep(0.3)


def refusal_severities(diagnostics) -> set:
    """The severities of the refusals, the hint-level marks at the constructs left out."""
    return {d.severity for d in diagnostics if d.code == "C9100" and d.severity != lsp.DiagnosticSeverity.Hint}


async def test_targets_decide_the_severity(client):
    found = await open_document(client, OPS, conformance("ops_kernel"))
    assert refusal_severities(found) == {lsp.DiagnosticSeverity.Warning}
    # gpu-cuda alone: a refusal means the program cannot run at all.
    before = published_count(client, OPS)
    await configure(client, {"targets": ["gpu-cuda"]})
    found = await diagnostics_for(client, OPS, 1, before)
    assert refusal_severities(found) == {lsp.DiagnosticSeverity.Error}
    assert len([d for d in found if d.code == "C9100"]) == 11
    # Not building for gpu-cuda: no refusals.
    before = published_count(client, OPS)
    await configure(client, {"targets": ["cpu-c17"]})
    assert not [d for d in await diagnostics_for(client, OPS, 1, before) if d.code == "C9100"]
    # Back to the defaults when the setting goes away.
    before = published_count(client, OPS)
    await configure(client, {})
    assert refusal_severities(await diagnostics_for(client, OPS, 1, before)) == {lsp.DiagnosticSeverity.Warning}


async def test_ops_kernel_with_default_settings_shows_one_warning_per_refused_kernel(client):
    """Issue 32: gpu-cuda is a default target, and ops_kernel.ci runs on cpu-c17; its 11
    refused constructs were 11 warnings. Now: one warning on the kernel's name, every
    construct as related information and a hint-level mark at each."""
    uri = uri_of("settings_quiet_ops")
    found = await open_document(client, uri, conformance("ops_kernel"))
    warnings = [d for d in found if d.severity == lsp.DiagnosticSeverity.Warning]
    assert len(warnings) == 1
    (warning,) = warnings
    assert warning.code == "C9100" and (warning.range.start.line, warning.range.start.character) == (0, 7)
    assert warning.message.startswith("gpu-cuda refuses kernel `ops`: `neg` (unary minus)")
    related = [(r.location.range.start.line, r.message) for r in warning.related_information]
    assert (10, "gpu-cuda refuses `switch`: a switch statement") in related
    assert len([r for r in related if "refuses" in r[1]]) == 11
    hints = [d for d in found if d.severity == lsp.DiagnosticSeverity.Hint]
    assert len(hints) == 11 and all(d.code == "C9100" and d.data["mark"] for d in hints)
    assert not [d for d in found if d.severity == lsp.DiagnosticSeverity.Error]


async def test_inlay_hints_off_and_on(client):
    uri = uri_of("settings_hints")
    await open_document(client, uri, conformance("heat_e1"))
    params = lsp.InlayHintParams(text_document=doc_id(uri), range=WHOLE)
    assert await client.text_document_inlay_hint_async(params)
    refreshes = client.inlay_hint_refreshes
    await configure(client, {"inlayHints": {"stepOrdinals": False}})
    assert not await client.text_document_inlay_hint_async(params)
    await wait_for(lambda: client.inlay_hint_refreshes > refreshes, what="workspace/inlayHint/refresh")
    await configure(client, {"inlayHints": {"stepOrdinals": True}})
    assert await client.text_document_inlay_hint_async(params)


async def test_values_of_the_wrong_type_are_ignored_with_a_warning(client):
    uri = uri_of("settings_bad")
    await open_document(client, uri, conformance("heat_e1"))
    await configure(client, {"fuel": "lots", "run": {"timeLimit": -3}, "targets": ["gpu-cuda", "tpu"],
                             "inlayHints": {"stepOrdinals": False}})
    warnings = [m.message for m in client.log_messages if m.type == lsp.MessageType.Warning]
    assert any("cint.fuel" in w for w in warnings)
    assert any("cint.run.timeLimit" in w for w in warnings)
    assert any("tpu" in w for w in warnings)
    # The valid values took effect.
    assert not await client.text_document_inlay_hint_async(lsp.InlayHintParams(text_document=doc_id(uri),
                                                                               range=WHOLE))
    await configure(client, {})


@pytest.mark.skipif("cpu-c17" not in implemented_executors(), reason="cpu-c17 is not implemented here")
async def test_c17_compiler_setting(client):
    uri = uri_of("settings_cc")
    await open_document(client, uri, conformance("ops_kernel"))
    await configure(client, {"c17": {"compiler": "/nonexistent/cc"}})
    try:
        result = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
            command="cint.run", arguments=[uri, "cpu-c17"]))
    finally:
        await configure(client, {})
    assert result["output"] is None and "/nonexistent/cc" in result["error"]
