"""The quick fix of a gpu-cuda refusal (issue 12): a change of `cint.targets`, which only
the client can make, so a code action whose command `cint.setTargets` [uri, targets] the
editors run. Offered to a client that declares it (experimental.cint.setTargets); the
test applies it as an editor does (the new settings, then didChangeConfiguration) and
checks the refusals it names are no longer errors, or gone."""

from __future__ import annotations

import pytest
from lsp_support import (
    capabilities,
    conformance,
    diagnostics_for,
    doc_id,
    open_document,
    published_count,
    raw_request,
    server_fixture,
    uri_of,
)
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcInvalidParams

pytestmark = pytest.mark.asyncio(loop_scope="module")

client = server_fixture(settings={"targets": ["cpu-c17", "gpu-cuda"]},
                        caps=capabilities(experimental={"cint": {"setTargets": True}}))

OPS = uri_of("fix_targets_ops")
WHOLE = lsp.Range(start=lsp.Position(0, 0), end=lsp.Position(40, 0))


async def actions_for(client, uri: str, found: list[lsp.Diagnostic]) -> list[lsp.CodeAction]:
    # As JSON: pygls' client would read a CodeAction with a command as the Command of its
    # result's union (Command | CodeAction), losing its kind and diagnostics.
    params = client.protocol._converter.unstructure(lsp.CodeActionParams(
        text_document=doc_id(uri), range=WHOLE, context=lsp.CodeActionContext(diagnostics=found)))
    answer = await raw_request(client, lsp.TEXT_DOCUMENT_CODE_ACTION, params)
    return [client.protocol._converter.structure(
        item if isinstance(item, dict) else client.protocol._converter.unstructure(item), lsp.CodeAction)
        for item in answer]


async def apply(client, uri: str, action: lsp.CodeAction) -> list[lsp.Diagnostic]:
    """What an editor does with the command: its cint.targets becomes the argument."""
    assert action.edit is None and action.command.command == "cint.setTargets"
    target_uri, targets = action.command.arguments
    assert target_uri == uri
    before = published_count(client, uri)
    client.set_configuration({"targets": targets}, section="cint")
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings=None))
    return await diagnostics_for(client, uri, None, before)


async def test_the_server_does_not_claim_the_command(client):
    provider = client.initialize_result.capabilities.execute_command_provider
    assert "cint.setTargets" not in provider.commands
    found = await open_document(client, uri_of("fix_targets_sent"), "I64 x = 1;\n")
    assert not found
    with pytest.raises(JsonRpcInvalidParams, match="cint.setTargets is the editor's command"):
        await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
            command="cint.setTargets", arguments=[uri_of("fix_targets_sent"), ["cpu-c17"]]))


async def test_remove_gpu_cuda_then_add_cpu_c17(client):
    found = await open_document(client, OPS, conformance("ops_kernel"))
    refusals = [d for d in found if d.code == "C9100"]
    # one warning on the kernel's name, a hint-level mark at each construct
    assert refusals and {d.severity for d in refusals} == {lsp.DiagnosticSeverity.Warning, lsp.DiagnosticSeverity.Hint}
    (remove,) = await actions_for(client, OPS, found)
    assert remove.title.startswith("Remove gpu-cuda from `cint.targets`") and remove.is_preferred
    assert remove.kind == lsp.CodeActionKind.QuickFix
    assert list(remove.command.arguments) == [OPS, ["cpu-c17"]]
    assert sorted((d.range.start.line, d.range.start.character) for d in remove.diagnostics) == \
        sorted((d.range.start.line, d.range.start.character) for d in refusals)
    after = await apply(client, OPS, remove)
    assert not [d for d in after if d.code == "C9100"]

    # gpu-cuda alone: the refusals are errors; add cpu-c17 (preferred), or target it instead.
    client.set_configuration({"targets": ["gpu-cuda"]}, section="cint")
    before = published_count(client, OPS)
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings=None))
    found = await diagnostics_for(client, OPS, None, before)
    assert {d.severity for d in found if d.code == "C9100"} == {lsp.DiagnosticSeverity.Error}
    add, instead = await actions_for(client, OPS, found)
    assert add.title.startswith("Add cpu-c17 to `cint.targets`") and add.is_preferred
    assert list(add.command.arguments) == [OPS, ["cpu-c17", "gpu-cuda"]]
    assert list(instead.command.arguments) == [OPS, ["cpu-c17"]] and not instead.is_preferred
    after = await apply(client, OPS, add)
    assert {d.severity for d in after if d.code == "C9100"} == {lsp.DiagnosticSeverity.Warning,
                                                                  lsp.DiagnosticSeverity.Hint}
    assert not [d for d in after if d.severity == lsp.DiagnosticSeverity.Error]


async def test_no_targets_fix_away_from_a_refusal_or_without_gpu_cuda(client):
    uri = uri_of("fix_targets_clean")
    found = await open_document(client, uri, "I64 x = 1;\n\"{x}\\n\";\n")
    assert not found and not await actions_for(client, uri, found)
    client.set_configuration({"targets": ["cpu-c17"]}, section="cint")
    before = published_count(client, OPS)
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings=None))
    found = await diagnostics_for(client, OPS, None, before)
    assert not [d for d in found if d.code == "C9100"] and not await actions_for(client, OPS, found)
