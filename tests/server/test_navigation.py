"""documentHighlight and workspace/symbol over stdio. The workspace is a folder of
`.ci` files on disk (some never opened, one not UTF-8, one huge, one under `.git`)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
import pytest_lsp
from lsp_support import SERVER_COMMAND, capabilities, conformance, doc_id, make_client, open_document, raw_request
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcInvalidParams
from pytest_lsp import ClientServerConfig, LanguageClient

pytestmark = pytest.mark.asyncio(loop_scope="module")

FOLDER = Path(tempfile.mkdtemp(prefix="cint-ls-workspace-"))


def setup_module():
    (FOLDER / "lib").mkdir()
    (FOLDER / ".git").mkdir()
    (FOLDER / "heat.ci").write_text(conformance("heat_e1"))
    (FOLDER / "lib" / "ops.ci").write_text(conformance("ops_kernel"))
    (FOLDER / "lib" / "broken.ci").write_text("void half_done() {}\nvoid broken( {\n    I64 x = \n")
    (FOLDER / ".git" / "hidden.ci").write_text("void hidden_function() {}\n")
    (FOLDER / "binary.ci").write_bytes(b"void binary_function() {}\n\xff\xfe\0")
    (FOLDER / "huge.ci").write_text("void huge_function() {}\n" + "// filler\n" * 300_000)
    (FOLDER / "notes.txt").write_text("void text_function() {}\n")


def teardown_module():
    shutil.rmtree(FOLDER, ignore_errors=True)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND, client_factory=make_client),
                    scope="module")
async def client(lsp_client: LanguageClient):
    result = await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=capabilities(), root_uri=FOLDER.as_uri(),
        workspace_folders=[lsp.WorkspaceFolder(uri=FOLDER.as_uri(), name="w")]))
    lsp_client.initialize_result = result
    yield
    await lsp_client.shutdown_session()


async def symbols(client, query: str):
    return [(s.name, Path(s.location.uri.removeprefix("file://")).name, s.location.range.start.line + 1)
            for s in await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query=query))]


async def test_capabilities(client):
    caps = client.initialize_result.capabilities
    assert caps.document_highlight_provider and caps.workspace_symbol_provider


async def test_highlight_reads_and_writes(client):
    uri = (FOLDER / "heat.ci").as_uri()
    await open_document(client, uri, conformance("heat_e1"))
    found = await client.text_document_document_highlight_async(lsp.DocumentHighlightParams(
        text_document=doc_id(uri), position=lsp.Position(23, 9)))  # `total` of step()
    assert [(h.range.start.line + 1, h.range.start.character + 1, h.kind) for h in found] == [
        (24, 9, lsp.DocumentHighlightKind.Write), (25, 61, lsp.DocumentHighlightKind.Write),
        (26, 7, lsp.DocumentHighlightKind.Read)]
    assert not await client.text_document_document_highlight_async(lsp.DocumentHighlightParams(
        text_document=doc_id(uri), position=lsp.Position(0, 0)))


async def test_workspace_symbols_of_files_never_opened(client):
    assert await symbols(client, "ops") == [("ops", "ops.ci", 1)]
    assert await symbols(client, "half") == [("half_done", "broken.ci", 1)]  # a broken file still has its items
    names = [s[0] for s in await symbols(client, "")]
    assert {"diffuse", "step", "ops", "go", "half_done"} <= set(names)
    for skipped in ("hidden_function", "binary_function", "huge_function", "text_function"):
        assert skipped not in names


async def test_fuzzy_subsequence_and_order(client):
    assert [s[0] for s in await symbols(client, "dfs")] == ["diffuse"]
    assert [s[0] for s in await symbols(client, "DIFF")] == ["diffuse"]
    assert await symbols(client, "zzz") == []
    # A prefix before a match inside the name: `s` is step's first letter, inside diffuse.
    names = [s[0] for s in await symbols(client, "s")]
    assert names.index("step") < names.index("diffuse")


async def test_an_open_document_answers_from_its_text(client):
    uri = (FOLDER / "lib" / "ops.ci").as_uri()
    await open_document(client, uri, "kernel renamed_ops[n](in I64[n] a, out I64[n] b) over [i: n] {\n"
                                     "    b[i] = a[i];\n}\n")
    assert await symbols(client, "ops") == [("renamed_ops", "ops.ci", 1)]


async def test_a_file_changed_on_disk_is_read_again(client):
    path = FOLDER / "lib" / "later.ci"
    path.write_text("void first_version() {}\n")
    assert await symbols(client, "version") == [("first_version", "later.ci", 1)]
    path.write_text("void second_version() {}\n\n")
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10_000_000))
    assert await symbols(client, "version") == [("second_version", "later.ci", 1)]


async def test_malformed_params(client):
    uri = (FOLDER / "heat.ci").as_uri()
    for method, params in ((lsp.WORKSPACE_SYMBOL, {}),
                           (lsp.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT, {"textDocument": {"uri": uri}}),
                           (lsp.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT,
                            {"textDocument": {"uri": uri}, "position": {"line": -1, "character": 0}})):
        with pytest.raises(JsonRpcInvalidParams):
            await raw_request(client, method, params)
    assert await symbols(client, "dfs") == [("diffuse", "heat.ci", 1)]
