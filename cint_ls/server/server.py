"""The cint language server: LSP over stdio on top of `cint_ls.ide`.

Everything that knows LSP is in this package. The editor features are the plain
functions of `cint_ls.ide` (byte offsets in, `Span`s out); this module keeps the open
documents, publishes diagnostics and reads the settings. `features.py` answers the
editor features, `commands.py` runs programs in child processes (`exec.isolated`) on a
thread of its own, so a hang or a crash of user code never blocks or ends the server,
and `protocol.py` holds the few changes to pygls' JSON-RPC handling.

Robustness: every feature handler is guarded (an exception becomes an empty answer and
a log message), an unknown document gives an empty answer, a request whose params do
not parse gets an InvalidParams error (pygls alone would not answer it), and a body
that is not JSON gets a ParseError response with a null id.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import json
import logging
import os
import threading
import traceback
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from lsprotocol import types as lsp
from pygls.exceptions import FeatureRequestError, JsonRpcException, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from .. import __version__, ide
from ..ide import SEMANTIC_TOKEN_KINDS, SEMANTIC_TOKEN_MODIFIERS, Document
from ..syntax.parser import TextEdit
from ..syntax.source import Position
from . import convert
from .commands import COMPARE_COMMAND, RUN_COMMAND, CommandHandlers
from .features import FeatureHandlers
from .protocol import CintProtocol
from .settings import Settings, parse_settings

logger = logging.getLogger("cint_ls.server")

_STARTUP_CC = os.environ.get("CC")
PUBLISH_DELAY = 0.002  # seconds from a change to the analysis of the document
IDLE_COLLECT = 1.0  # seconds without a publication before a full garbage collection
FULL_COLLECT_EVERY = 100  # publications


# ---- the server

class OpenDocument:
    """An open document and the diagnostic of its last run's fault."""

    __slots__ = ("doc", "fault")

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.fault: list[lsp.Diagnostic] = []


def _path_of(uri: str) -> str:
    try:
        path = to_fs_path(uri)
    except Exception:  # noqa: BLE001
        path = None
    return path or uri


class CintLanguageServer(FeatureHandlers, CommandHandlers, LanguageServer):
    def __init__(self) -> None:
        super().__init__("cint-ls", __version__, protocol_cls=CintProtocol,
                         text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental, max_workers=4)
        self.documents: dict[str, OpenDocument] = {}
        self.settings = Settings()
        self._cancels: dict[Any, threading.Event] = {}
        self._stopping = threading.Event()
        self._run_pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="cint-run")
        self._executors: list[str] | None = None
        self._pending: set[str] = set()
        self._publications = 0
        self._idle_collect: asyncio.TimerHandle | None = None
        self._register()

    # ---- plumbing

    def _log(self, kind: lsp.MessageType, message: str) -> None:
        try:
            self.window_log_message(lsp.LogMessageParams(type=kind, message=message))
        except Exception:  # noqa: BLE001 - no transport (tests, shutdown)
            logger.log(logging.ERROR if kind == lsp.MessageType.Error else logging.INFO, "%s", message)

    def report_server_error(self, error: Exception, source) -> None:
        # pygls calls this for errors outside a request (a notification that failed, a
        # body that is not JSON). A log message, not a pop-up; and a body that is not
        # JSON gets JSON-RPC's ParseError, with a null id since none could be read.
        if source is FeatureRequestError:
            return  # the request already has its error response
        if isinstance(error, (json.JSONDecodeError, UnicodeDecodeError)):
            try:  # a plain dict, so that the null id is written out
                self.protocol._send_data({"jsonrpc": "2.0", "id": None, "error": {
                    "code": int(lsp.ErrorCodes.ParseError), "message": f"Parse error: {error}"}})
            except Exception:  # noqa: BLE001
                pass
        self._log(lsp.MessageType.Error, f"cint-ls: {type(error).__name__}: {error}")

    def _guard(self, method: str, fn, empty):
        """`fn` with every exception turned into the empty answer and a log message."""

        @functools.wraps(fn)
        def guarded(params):
            try:
                return fn(params)
            except JsonRpcException:
                raise
            except Exception as error:  # noqa: BLE001
                logger.exception("%s failed", method)
                where = traceback.extract_tb(error.__traceback__)[-1]
                self._log(lsp.MessageType.Error,
                          f"cint-ls: {method} failed: {type(error).__name__}: {error}"
                          f" ({where.filename}:{where.lineno})")
                return empty() if callable(empty) else empty

        return guarded

    def _register(self) -> None:
        on = self._on
        on(lsp.INITIALIZE, self.initialize_)
        on(lsp.INITIALIZED, self.initialized_)
        on(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION, self.did_change_configuration)
        on(lsp.SHUTDOWN, self.shutdown_)
        on(lsp.EXIT, self.exit_)
        on(lsp.TEXT_DOCUMENT_DID_OPEN, self.did_open)
        on(lsp.TEXT_DOCUMENT_DID_CHANGE, self.did_change)
        on(lsp.TEXT_DOCUMENT_DID_CLOSE, self.did_close)
        on(lsp.TEXT_DOCUMENT_DID_SAVE, self.did_save)
        on(lsp.TEXT_DOCUMENT_HOVER, self.hover, empty=None)
        on(lsp.TEXT_DOCUMENT_INLAY_HINT, self.inlay_hints, empty=list)
        on(lsp.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, self.semantic_tokens,
           lsp.SemanticTokensLegend(token_types=list(SEMANTIC_TOKEN_KINDS),
                                    token_modifiers=list(SEMANTIC_TOKEN_MODIFIERS)),
           empty=lambda: lsp.SemanticTokens(data=[]))
        on(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL, self.document_symbols, empty=list)
        on(lsp.TEXT_DOCUMENT_DEFINITION, self.definition, empty=list)
        on(lsp.TEXT_DOCUMENT_REFERENCES, self.references, empty=list)
        on(lsp.TEXT_DOCUMENT_PREPARE_RENAME, self.prepare_rename, empty=None)
        on(lsp.TEXT_DOCUMENT_RENAME, self.rename, empty=None)
        on(lsp.TEXT_DOCUMENT_COMPLETION, self.completion, lsp.CompletionOptions(trigger_characters=["."]),
           empty=lambda: lsp.CompletionList(is_incomplete=False, items=[]))
        on(lsp.TEXT_DOCUMENT_SIGNATURE_HELP, self.signature_help,
           lsp.SignatureHelpOptions(trigger_characters=["(", ","], retrigger_characters=[","]), empty=None)
        on(lsp.TEXT_DOCUMENT_FOLDING_RANGE, self.folding_ranges, empty=list)
        on(lsp.TEXT_DOCUMENT_FORMATTING, self.formatting, empty=list)
        on(lsp.TEXT_DOCUMENT_CODE_LENS, self.code_lenses, empty=list)
        # Advertised for executeCommandProvider; CintProtocol sends the requests to
        # execute_command with their whole params.
        for name in (RUN_COMMAND, COMPARE_COMMAND):
            async def command(*arguments):
                raise JsonRpcInvalidParams("commands go through CintProtocol")
            self.command(name)(command)

    def _on(self, method: str, fn, options=None, *, empty=None) -> None:
        if asyncio.iscoroutinefunction(fn):
            async def handler(params):  # a function: pygls sets attributes on it
                return await fn(params)
        else:
            handler = self._guard(method, fn, empty)
        self.feature(method, options)(handler)

    def _open(self, uri: str) -> Document | None:
        entry = self.documents.get(uri)
        return None if entry is None else entry.doc

    def shutdown(self) -> None:
        self._stopping.set()
        for event in list(self._cancels.values()):
            event.set()
        self._run_pool.shutdown(wait=False, cancel_futures=True)
        super().shutdown()

    # ---- lifecycle and settings

    def initialize_(self, params: lsp.InitializeParams) -> None:
        if params.initialization_options is not None:
            self._apply_settings(params.initialization_options, initial=True)

    def _client_supports(self, path: str) -> bool:
        item: Any = self.client_capabilities
        for name in path.split("."):
            item = getattr(item, name, None)
            if item is None:
                return False
        return bool(item)

    async def initialized_(self, params: lsp.InitializedParams) -> None:
        if self._client_supports("workspace.did_change_configuration.dynamic_registration"):
            try:
                await self.client_register_capability_async(lsp.RegistrationParams(registrations=[
                    lsp.Registration(id=str(uuid.uuid4()), method=lsp.WORKSPACE_DID_CHANGE_CONFIGURATION,
                                     register_options={"section": "cint"})]))
            except Exception as error:  # noqa: BLE001
                logger.info("didChangeConfiguration registration failed: %s", error)
        await self._pull_settings()

    async def _pull_settings(self) -> bool:
        """Read the settings with workspace/configuration, when the client can."""
        if not self._client_supports("workspace.configuration"):
            return False
        try:
            values = await asyncio.wait_for(self.workspace_configuration_async(
                lsp.ConfigurationParams(items=[lsp.ConfigurationItem(section="cint")])), 10)
        except Exception as error:  # noqa: BLE001
            self._log(lsp.MessageType.Warning, f"cint-ls: workspace/configuration failed: {error}")
            return False
        value = values[0] if values else None
        self._apply_settings(value if value is not None else {})
        return True

    def _apply_settings(self, value: Any, initial: bool = False) -> None:
        # Every source (a pull, a push, initializationOptions) gives the whole section:
        # a key it leaves out has its default.
        before = self.settings
        self.settings, warnings = parse_settings(value)
        for warning in warnings:
            self._log(lsp.MessageType.Warning, f"cint-ls: {warning}")
        self._apply_compiler()
        if initial or self.settings == before:
            return
        if self.settings.targets != before.targets:
            for uri in list(self.documents):
                self.publish(uri)
        if self.settings.step_ordinals != before.step_ordinals and \
                self._client_supports("workspace.inlay_hint.refresh_support"):
            self.workspace_inlay_hint_refresh(None)

    def _apply_compiler(self) -> None:
        """cpu-c17 takes its compiler from `$CC`; the runs are child processes of the
        server, so the setting becomes the server's `$CC` (and the one it started with
        comes back when the setting is cleared)."""
        compiler = self.settings.c17_compiler
        if compiler:
            os.environ["CC"] = compiler
        elif _STARTUP_CC is None:
            os.environ.pop("CC", None)
        else:
            os.environ["CC"] = _STARTUP_CC

    async def did_change_configuration(self, params: lsp.DidChangeConfigurationParams) -> None:
        if not await self._pull_settings():
            settings = params.settings
            if isinstance(settings, dict):
                self._apply_settings(settings)

    def shutdown_(self, params) -> None:
        self._stopping.set()
        for event in list(self._cancels.values()):
            event.set()

    def exit_(self, params) -> None:
        self.shutdown_(params)

    # ---- documents and diagnostics

    def did_open(self, params: lsp.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        doc = Document(item.uri, item.text, item.version, _path_of(item.uri))
        self.documents[item.uri] = OpenDocument(doc)
        self.publish(item.uri)

    def did_change(self, params: lsp.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        entry = self.documents.get(uri)
        if entry is None:
            self._log(lsp.MessageType.Warning, f"cint-ls: didChange for a document that is not open: {uri}")
            return
        changes: list[TextEdit | str] = []
        for change in params.content_changes:
            if isinstance(change, lsp.TextDocumentContentChangePartial):
                r = change.range
                changes.append(TextEdit(Position(r.start.line, r.start.character),
                                        Position(r.end.line, r.end.character), change.text))
            else:
                changes.append(change.text)
        entry.doc.apply(changes, params.text_document.version)
        entry.fault = []  # a run's fault stays until the document changes
        self.schedule_publish(uri)

    def did_close(self, params: lsp.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        if self.documents.pop(uri, None) is not None:
            self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def did_save(self, params: lsp.DidSaveTextDocumentParams) -> None:
        pass

    def schedule_publish(self, uri: str) -> None:
        """Publish the diagnostics PUBLISH_DELAY after a change: the changes that arrive
        meanwhile (those that queued up while the previous analysis ran, when someone
        types faster than the file is analysed) are analysed once, in their newest
        version."""
        if uri in self._pending:
            return
        self._pending.add(uri)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._pending.discard(uri)
            self.publish(uri)
            return
        loop.call_later(PUBLISH_DELAY, self._publish_pending, uri)

    def _publish_pending(self, uri: str) -> None:
        self._pending.discard(uri)
        self.publish(uri)

    def publish(self, uri: str) -> None:
        entry = self.documents.get(uri)
        if entry is None:
            return
        doc = entry.doc
        try:
            found = [convert.lsp_diagnostic(doc, d) for d in ide.diagnostics(doc, self.settings.targets)]
        except Exception as error:  # noqa: BLE001
            logger.exception("diagnostics failed")
            self._log(lsp.MessageType.Error, f"cint-ls: diagnostics failed: {type(error).__name__}: {error}")
            found = []
        self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
            uri=uri, diagnostics=found + entry.fault, version=doc.version))
        self._settle_heap()

    # ---- the heap
    #
    # A big document's syntax trees, AST and analysis are hundreds of thousands of
    # objects that live long. Python's cyclic collector walks all of them in each of its
    # full collections, which come every few edits and cost as much as the analysis of
    # the edit itself (about 100 ms at 5,000 lines). So after each publication the heap
    # is frozen (`gc.freeze`: the collector leaves those objects alone), and the full
    # collection that reclaims what an edit left behind runs when the server is idle, or
    # every FULL_COLLECT_EVERY publications while someone types without a pause.

    def _settle_heap(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        gc.freeze()
        self._publications += 1
        if self._idle_collect is not None:
            self._idle_collect.cancel()
            self._idle_collect = None
        if self._publications % FULL_COLLECT_EVERY == 0:
            self._collect()
        else:
            self._idle_collect = loop.call_later(IDLE_COLLECT, self._collect)

    def _collect(self) -> None:
        self._idle_collect = None
        gc.unfreeze()
        gc.collect()
        gc.freeze()


def create_server() -> CintLanguageServer:
    return CintLanguageServer()
