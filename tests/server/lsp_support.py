"""What the end-to-end tests of the language server share: a pytest-lsp client that
also records the version of each publishDiagnostics and the `cint/*` notifications, a
fixture factory that starts `python -m cint_ls.server` over stdio, and helpers that
wait for the server's answers.

Each test module makes one client with `server_fixture(...)` (module scope: one server
per module keeps the suite quick) and uses its own document URIs.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import pytest_lsp
from lsprotocol import types as lsp
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

CONFORMANCE = Path(__file__).resolve().parent.parent / "conformance"
# -P: the server imports the installed package, never a source tree in the cwd.
SERVER_COMMAND = [sys.executable, "-P", "-m", "cint_ls.server"]


def conformance(name: str) -> str:
    return (CONFORMANCE / f"{name}.ci").read_text()


def uri_of(name: str) -> str:
    """A file URI in a directory that does not exist: the server never reads the disk
    for an open document, and the module name is the file's stem."""
    return f"file:///cint-ls-tests/{name}.ci"


def plain(value):
    """pygls hands the params of a notification it has no type for as namedtuples
    (`pygls.protocol.Object`): back to dicts and lists."""
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def make_client() -> LanguageClient:
    client = LanguageClient(converter_factory=default_converter)
    features = dict(DEFAULT_CLIENT_FEATURES)
    features.pop(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    register_lsp_features(client, features)
    client.published = {}  # uri -> [PublishDiagnosticsParams], in arrival order
    client.run_results = []
    client.compare_results = []
    client.inlay_hint_refreshes = 0
    client.token_refreshes = 0

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def publish(params: lsp.PublishDiagnosticsParams):
        client.diagnostics[params.uri] = params.diagnostics
        client.published.setdefault(params.uri, []).append(params)

    @client.feature("cint/runResult")
    def run_result(params):
        client.run_results.append(plain(params))

    @client.feature("cint/compareResult")
    def compare_result(params):
        client.compare_results.append(plain(params))

    @client.feature(lsp.WORKSPACE_INLAY_HINT_REFRESH)
    def inlay_hint_refresh(params):
        client.inlay_hint_refreshes += 1

    @client.feature(lsp.WORKSPACE_SEMANTIC_TOKENS_REFRESH)
    def semantic_tokens_refresh(params):
        client.token_refreshes += 1

    @client.feature(lsp.CLIENT_REGISTER_CAPABILITY)
    def register_capability(params):
        return None

    return client


def capabilities(**changes) -> lsp.ClientCapabilities:
    """VS Code's capabilities (workspace/configuration, workDoneProgress, inlay hint
    refresh, ...), which pytest-lsp ships."""
    caps = client_capabilities("visual-studio-code")
    for name, value in changes.items():
        setattr(caps, name, value)
    return caps


def server_fixture(settings: dict | None = None, initialization_options: dict | None = None,
                   caps: lsp.ClientCapabilities | None = None):
    """A module-scoped fixture: a server with `settings` as the client's `cint`
    configuration section."""
    config = ClientServerConfig(server_command=SERVER_COMMAND, client_factory=make_client)

    @pytest_lsp.fixture(config=config, scope="module")
    async def client(lsp_client: LanguageClient):
        if settings is not None:
            lsp_client.set_configuration(settings, section="cint")
        result = await lsp_client.initialize_session(lsp.InitializeParams(
            capabilities=caps or capabilities(), initialization_options=initialization_options,
            root_uri="file:///cint-ls-tests"))
        lsp_client.initialize_result = result
        yield
        await lsp_client.shutdown_session()

    return client


async def wait_for(predicate, timeout: float = 20.0, what: str = "the server"):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.005)


async def diagnostics_for(client: LanguageClient, uri: str, version: int | None,
                          after: int = 0) -> list[lsp.Diagnostic]:
    """The diagnostics of the first publication for `uri` with `version` (None: any)
    among those from index `after` on."""

    def found():
        for params in client.published.get(uri, [])[after:]:
            if version is None or params.version == version:
                return params
        return None

    params = await wait_for(found, what=f"diagnostics of {uri} version {version}")
    return list(params.diagnostics)


def published_count(client: LanguageClient, uri: str) -> int:
    return len(client.published.get(uri, []))


async def open_document(client: LanguageClient, uri: str, text: str, version: int = 1) -> list[lsp.Diagnostic]:
    before = published_count(client, uri)
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=uri, language_id="cint", version=version, text=text)))
    return await diagnostics_for(client, uri, version, before)


async def change_document(client: LanguageClient, uri: str, version: int, changes) -> list[lsp.Diagnostic]:
    before = published_count(client, uri)
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version), content_changes=changes))
    return await diagnostics_for(client, uri, version, before)


def edit(line: int, character: int, end_line: int, end_character: int, text: str):
    return lsp.TextDocumentContentChangePartial(
        range=lsp.Range(start=lsp.Position(line, character), end=lsp.Position(end_line, end_character)), text=text)


def at(line1: int, column1: int) -> lsp.Position:
    """The LSP position of a 1-based line and column (ASCII text)."""
    return lsp.Position(line=line1 - 1, character=column1 - 1)


def doc_id(uri: str) -> lsp.TextDocumentIdentifier:
    return lsp.TextDocumentIdentifier(uri=uri)


def raw_request(client: LanguageClient, method: str, params):
    """A request written as it is, params unchecked (pygls' client refuses to serialize
    malformed ones): the future of its answer."""
    import json
    import uuid
    from concurrent.futures import Future

    msg_id = f"raw-{uuid.uuid4()}"
    future: Future = Future()
    client.protocol._request_futures[msg_id] = future
    body = json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}).encode()
    written = client.protocol.writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    if asyncio.iscoroutine(written):
        asyncio.ensure_future(written)
    return asyncio.wait_for(asyncio.wrap_future(future), 10)
