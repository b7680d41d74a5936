"""`workspace/codeLens/refresh` (issue 12): sent after an edit that moves or changes the
lenses, once per burst of edits and after the burst's diagnostics; not for an edit that
leaves them where they are, not on open, and never to a client without refreshSupport."""

from __future__ import annotations

import asyncio

import pytest
import pytest_lsp
from lsp_support import (
    SERVER_COMMAND,
    capabilities,
    change_document,
    doc_id,
    edit,
    make_client,
    open_document,
    uri_of,
    wait_for,
)
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from cint_ls.server.lens_refresh import REFRESH_DELAY

pytestmark = pytest.mark.asyncio(loop_scope="module")

PROGRAM = """export void hello() {
    "hello\\n";
}

hello();
"""

QUIET = REFRESH_DELAY + 1.0  # long enough for a refresh that would come


def refreshing_client() -> LanguageClient:
    client = make_client()
    client.lens_refreshes = []  # for each refresh: {uri: the version of the last publication} then

    @client.feature(lsp.WORKSPACE_CODE_LENS_REFRESH)
    def code_lens_refresh(params):
        client.lens_refreshes.append({uri: p[-1].version for uri, p in client.published.items()})

    return client


def fixture_with(caps: lsp.ClientCapabilities):
    config = ClientServerConfig(server_command=SERVER_COMMAND, client_factory=refreshing_client)

    @pytest_lsp.fixture(config=config, scope="module")
    async def a_client(lsp_client: LanguageClient):
        await lsp_client.initialize_session(lsp.InitializeParams(capabilities=caps,
                                                                 root_uri="file:///cint-ls-tests"))
        yield
        await lsp_client.shutdown_session()

    return a_client


client = fixture_with(capabilities())


def without_refresh_support() -> lsp.ClientCapabilities:
    caps = capabilities()
    caps.workspace.code_lens = lsp.CodeLensWorkspaceClientCapabilities(refresh_support=False)
    return caps


plain_client = fixture_with(without_refresh_support())


async def lens_lines(client, uri: str) -> set[int]:
    lenses = await client.text_document_code_lens_async(lsp.CodeLensParams(text_document=doc_id(uri)))
    return {lens.range.start.line for lens in lenses}


async def test_no_refresh_on_open_or_for_an_edit_that_moves_nothing(client):
    uri = uri_of("refresh_still")
    await open_document(client, uri, PROGRAM)
    await asyncio.sleep(QUIET)
    assert client.lens_refreshes == []
    # A character inside a line: every lens stays on its line.
    await change_document(client, uri, 2, [edit(1, 5, 1, 5, "x")])
    await asyncio.sleep(QUIET)
    assert client.lens_refreshes == []


async def test_inserted_lines_move_the_lenses_and_the_server_says_so(client):
    uri = uri_of("refresh_moved")
    await open_document(client, uri, PROGRAM)
    assert await lens_lines(client, uri) == {0, 4}
    await asyncio.sleep(QUIET)
    before = len(client.lens_refreshes)
    # A burst of five edits, two new lines at the top among them.
    for version in range(2, 7):
        text = "\n" if version in (2, 3) else " "
        client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[edit(0, 0, 0, 0, text)]))
        await asyncio.sleep(0.02)
    await wait_for(lambda: len(client.lens_refreshes) > before, timeout=10, what="workspace/codeLens/refresh")
    await asyncio.sleep(QUIET)
    assert len(client.lens_refreshes) == before + 1  # one for the burst
    # It came after the diagnostics of the burst's last version.
    assert client.lens_refreshes[-1][uri] == 6
    assert await lens_lines(client, uri) == {2, 6}


async def test_a_new_export_changes_the_lenses(client):
    uri = uri_of("refresh_items")
    await open_document(client, uri, PROGRAM)
    await asyncio.sleep(QUIET)
    before = len(client.lens_refreshes)
    # `export void bye() {}` at the end of line 3: no line added, one function more.
    await change_document(client, uri, 2, [edit(2, 1, 2, 1, " export void bye() {}")])
    await wait_for(lambda: len(client.lens_refreshes) > before, timeout=10, what="workspace/codeLens/refresh")
    assert await lens_lines(client, uri) == {0, 2, 4}


async def test_no_refresh_for_a_client_without_refresh_support(plain_client):
    uri = uri_of("refresh_unsupported")
    await open_document(plain_client, uri, PROGRAM)
    await change_document(plain_client, uri, 2, [edit(0, 0, 0, 0, "\n\n")])
    await asyncio.sleep(QUIET)
    assert plain_client.lens_refreshes == []
