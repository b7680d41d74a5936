"""The cint language server: LSP over stdio on top of `cint_ls.ide`.

Everything that knows LSP is in this package. The editor features are the plain
functions of `cint_ls.ide` (byte offsets in, `Span`s out); this module keeps the open
documents, converts positions (UTF-16 on the wire), publishes diagnostics, reads the
settings and runs programs in child processes (`exec.isolated`) on a thread of its own,
so a hang or a crash of user code never blocks or ends the server.

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
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method
from pygls.uris import to_fs_path

from .. import __version__, ide
from ..exec.report import render_fault
from ..ide import SEMANTIC_TOKEN_KINDS, SEMANTIC_TOKEN_MODIFIERS, Document
from ..syntax.parser import TextEdit
from ..syntax.source import Position, SourceText
from . import convert
from .runs import REFERENCE, Outcome, compare, implemented_executors, run_program
from .settings import Settings, parse_settings

logger = logging.getLogger("cint_ls.server")

RUN_COMMAND = "cint.run"
COMPARE_COMMAND = "cint.compareExecutors"
RUN_RESULT = "cint/runResult"
COMPARE_RESULT = "cint/compareResult"
_STARTUP_CC = os.environ.get("CC")
PUBLISH_DELAY = 0.002  # seconds from a change to the analysis of the document
IDLE_COLLECT = 1.0  # seconds without a publication before a full garbage collection
FULL_COLLECT_EVERY = 100  # publications


# ---- the protocol: the few places where pygls' defaults are not what cint-ls needs

class _MalformedRequest:
    """A request whose params did not parse: answered with InvalidParams."""

    def __init__(self, msg_id: Any, method: str, error: JsonRpcException) -> None:
        self.id = msg_id
        self.method = method
        self.error = error


class CintProtocol(LanguageServerProtocol):
    _server: CintLanguageServer

    @lsp_method(lsp.INITIALIZE)
    def lsp_initialize(self, params: lsp.InitializeParams):
        # Positions are UTF-16 code units, which every client must support: offer
        # nothing else, whatever the client prefers.
        general = params.capabilities.general
        if general is not None and general.position_encodings is not None:
            general.position_encodings = [lsp.PositionEncodingKind.Utf16]
        return (yield from super().lsp_initialize(params))

    # The server keeps its own documents (cint_ls.ide.Document, incrementally reparsed);
    # pygls' copy in its workspace would only double the work of every keystroke.
    @lsp_method(lsp.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: lsp.DidOpenTextDocumentParams):
        if (handler := self.fm.features.get(lsp.TEXT_DOCUMENT_DID_OPEN)) is not None:
            yield handler, (params,), None

    @lsp_method(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: lsp.DidChangeTextDocumentParams):
        if (handler := self.fm.features.get(lsp.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield handler, (params,), None

    @lsp_method(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: lsp.DidCloseTextDocumentParams):
        if (handler := self.fm.features.get(lsp.TEXT_DOCUMENT_DID_CLOSE)) is not None:
            yield handler, (params,), None

    @lsp_method(lsp.WORKSPACE_EXECUTE_COMMAND)
    def lsp_workspace__execute_command(self, params: lsp.ExecuteCommandParams):
        # The whole params (arguments and workDoneToken) go to the server, which runs the
        # command as a coroutine; the request id stays in the context for cancellation.
        result = yield self._server.execute_command, (params,), None
        return result

    def _handle_cancel_notification(self, msg_id):
        self._server.cancel_request(msg_id)
        super()._handle_cancel_notification(msg_id)

    def structure_message(self, data):
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            if isinstance(data, dict) and "id" in data and isinstance(data.get("method"), str):
                return _MalformedRequest(data["id"], data["method"], error)
            raise

    def handle_message(self, message):
        if isinstance(message, _MalformedRequest):
            logger.warning("malformed %s request %r: %s", message.method, message.id, message.error)
            error = JsonRpcInvalidParams(f"invalid params for {message.method}")
            self._send_response(message.id, error=error.to_response_error())
            return
        super().handle_message(message)


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


class CintLanguageServer(LanguageServer):
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

    # ---- features

    def hover(self, params: lsp.HoverParams) -> lsp.Hover | None:
        doc = self._open(params.text_document.uri)
        if doc is None:
            return None
        result = ide.hover(doc, convert.offset_of(doc.source, params.position))
        if result is None:
            return None
        return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=result.markdown),
                         range=convert.lsp_range(doc.source, result.span))

    def inlay_hints(self, params: lsp.InlayHintParams) -> list[lsp.InlayHint]:
        doc = self._open(params.text_document.uri)
        if doc is None or not self.settings.step_ordinals:
            return []
        start, end = convert.offsets_of(doc.source, params.range)
        return [
            lsp.InlayHint(position=convert.lsp_position(doc.source, h.offset), label=h.label,
                          tooltip=h.tooltip, padding_left=True)
            for h in ide.inlay_hints(doc, start, end)
        ]

    def semantic_tokens(self, params: lsp.SemanticTokensParams) -> lsp.SemanticTokens:
        doc = self._open(params.text_document.uri)
        if doc is None:
            return lsp.SemanticTokens(data=[])
        data = convert.encode_semantic_tokens(doc.source, ide.semantic_tokens(doc), SEMANTIC_TOKEN_KINDS,
                                              SEMANTIC_TOKEN_MODIFIERS)
        return lsp.SemanticTokens(data=data)

    def document_symbols(self, params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol]:
        doc = self._open(params.text_document.uri)
        if doc is None:
            return []
        return [convert.document_symbol(doc.source, s) for s in ide.document_symbols(doc)]

    def _locations(self, doc: Document, found) -> list[lsp.Location]:
        return [lsp.Location(uri=doc.uri, range=convert.lsp_range(doc.source, loc.span)) for loc in found]

    def definition(self, params: lsp.DefinitionParams) -> list[lsp.Location]:
        doc = self._open(params.text_document.uri)
        if doc is None:
            return []
        return self._locations(doc, ide.definition(doc, convert.offset_of(doc.source, params.position)))

    def references(self, params: lsp.ReferenceParams) -> list[lsp.Location]:
        doc = self._open(params.text_document.uri)
        if doc is None:
            return []
        include = bool(params.context.include_declaration) if params.context is not None else True
        return self._locations(doc, ide.references(doc, convert.offset_of(doc.source, params.position), include))

    def prepare_rename(self, params: lsp.PrepareRenameParams) -> lsp.Range | None:
        doc = self._open(params.text_document.uri)
        if doc is None:
            return None
        span = ide.prepare_rename(doc, convert.offset_of(doc.source, params.position))
        return None if span is None else convert.lsp_range(doc.source, span)

    def rename(self, params: lsp.RenameParams) -> lsp.WorkspaceEdit | None:
        doc = self._open(params.text_document.uri)
        if doc is None:
            return None
        result = ide.rename(doc, convert.offset_of(doc.source, params.position), params.new_name)
        if result.error is not None:
            raise JsonRpcException(message=result.error, code=lsp.LSPErrorCodes.RequestFailed)
        if result.changes is None:
            return None
        edits = [lsp.TextEdit(range=convert.lsp_range(doc.source, c.span), new_text=c.new_text)
                 for c in result.changes]
        return lsp.WorkspaceEdit(changes={doc.uri: edits})

    def completion(self, params: lsp.CompletionParams) -> lsp.CompletionList:
        doc = self._open(params.text_document.uri)
        items: list[lsp.CompletionItem] = []
        if doc is not None:
            for item in ide.completion(doc, convert.offset_of(doc.source, params.position)):
                snippet = item.kind == "snippet" and item.insert_text is not None
                items.append(lsp.CompletionItem(
                    label=item.label, kind=convert.completion_kind(item.kind), detail=item.detail or None,
                    insert_text=item.insert_text,
                    insert_text_format=lsp.InsertTextFormat.Snippet if snippet else None))
        return lsp.CompletionList(is_incomplete=False, items=items)

    def signature_help(self, params: lsp.SignatureHelpParams) -> lsp.SignatureHelp | None:
        doc = self._open(params.text_document.uri)
        if doc is None:
            return None
        found = ide.signature_help(doc, convert.offset_of(doc.source, params.position))
        if found is None:
            return None
        parameters = [lsp.ParameterInformation(label=p) for p in found.parameters]
        documentation = lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=found.documentation) \
            if found.documentation else None
        active = found.active_parameter if found.parameters else None
        return lsp.SignatureHelp(
            signatures=[lsp.SignatureInformation(label=found.label, documentation=documentation,
                                                 parameters=parameters, active_parameter=active)],
            active_signature=0, active_parameter=active)

    def folding_ranges(self, params: lsp.FoldingRangeParams) -> list[lsp.FoldingRange]:
        doc = self._open(params.text_document.uri)
        if doc is None:
            return []
        return [lsp.FoldingRange(start_line=f.start_line, end_line=f.end_line, kind=convert.folding_kind(f.kind))
                for f in ide.folding_ranges(doc) if f.end_line > f.start_line]

    def formatting(self, params: lsp.DocumentFormattingParams) -> list[lsp.TextEdit]:
        doc = self._open(params.text_document.uri)
        if doc is None:
            return []
        formatted = ide.format_document(doc)
        if formatted is None or formatted == doc.text:
            return []
        return [minimal_edit(doc.source, formatted)]

    def code_lenses(self, params: lsp.CodeLensParams) -> list[lsp.CodeLens]:
        doc = self._open(params.text_document.uri)
        if doc is None:
            return []
        return [
            lsp.CodeLens(range=convert.lsp_range(doc.source, lens.span),
                         command=lsp.Command(title=lens.title, command=lens.command,
                                             arguments=list(lens.arguments)))
            for lens in ide.code_lenses(doc, self.executors())
        ]

    def executors(self) -> list[str]:
        if self._executors is None:
            self._executors = implemented_executors()
        return self._executors

    # ---- commands: runs in child processes

    def cancel_request(self, msg_id) -> None:
        event = self._cancels.get(msg_id)
        if event is not None:
            event.set()

    async def execute_command(self, params: lsp.ExecuteCommandParams) -> Any:
        args = list(params.arguments or [])
        uri = args[0] if args else None
        if isinstance(uri, dict):
            uri = uri.get("uri")
        if not isinstance(uri, str):
            raise JsonRpcInvalidParams(f"{params.command}: the first argument must be a document URI")
        entry = self.documents.get(uri)
        if entry is None:
            raise JsonRpcInvalidParams(f"{params.command}: the document is not open: {uri}")
        if params.command == RUN_COMMAND:
            executor = args[1] if len(args) > 1 and args[1] is not None else REFERENCE
            if not isinstance(executor, str):
                raise JsonRpcInvalidParams(f"{RUN_COMMAND}: the second argument must be an executor name")
            return await self._run(params, entry, [executor], compare_them=False)
        if params.command == COMPARE_COMMAND:
            return await self._run(params, entry, self.executors(), compare_them=True)
        raise JsonRpcInvalidParams(f"unknown command {params.command!r}")

    async def _progress_token(self, params: lsp.ExecuteCommandParams):
        if params.work_done_token is not None:
            return params.work_done_token
        if not self._client_supports("window.work_done_progress"):
            return None
        token = f"cint-run-{uuid.uuid4()}"
        try:
            await asyncio.wait_for(self.work_done_progress.create_async(token), 5)
        except Exception as error:  # noqa: BLE001
            logger.info("workDoneProgress/create failed: %s", error)
            return None
        return token

    async def _run(self, params: lsp.ExecuteCommandParams, entry: OpenDocument, executors: list[str],
                   compare_them: bool) -> dict:
        msg_id = self.protocol.msg_id
        doc = entry.doc
        uri, version, text, path = doc.uri, doc.version, doc.text, doc.path
        settings = self.settings
        event = threading.Event()
        if msg_id is not None:
            self._cancels[msg_id] = event
        token = await self._progress_token(params)
        progress = self.work_done_progress
        title = "cint: compare executors" if compare_them else f"cint: run on {executors[0]}"

        def cancelled() -> bool:
            if event.is_set() or self._stopping.is_set():
                return True
            future = progress.tokens.get(token) if token is not None else None
            return future is not None and future.cancelled()

        if token is not None:
            progress.begin(token, lsp.WorkDoneProgressBegin(
                title=title, cancellable=True, message=", ".join(executors)))
        loop = asyncio.get_running_loop()
        try:
            jobs = [loop.run_in_executor(self._run_pool, run_program, name, path, text, settings, cancelled)
                    for name in executors]
            outcomes: list[Outcome] = list(await asyncio.gather(*jobs))
        except BaseException:
            event.set()
            raise
        finally:
            self._cancels.pop(msg_id, None)
            if token is not None:
                progress.end(token, lsp.WorkDoneProgressEnd(message="cancelled" if cancelled() else "done"))
                progress.tokens.pop(token, None)

        source = SourceText(text, path)
        for outcome in outcomes:
            self._report_run(uri, version, source, outcome, notify=not compare_them)
        # The fault of the run (for a comparison, the reference's) becomes a diagnostic
        # while the document is the one that ran.
        shown = outcomes[0]
        live = self.documents.get(uri)
        if live is not None and live.doc.version == version and (shown.result is not None):
            live.fault = [] if shown.fault is None else [convert.fault_diagnostic(live.doc, shown.fault,
                                                                                  shown.executor)]
            self.publish(uri)
        if not compare_them:
            return outcomes[0].to_json(uri, version)

        verdict = compare(outcomes)
        self._log(lsp.MessageType.Info if verdict.agree else lsp.MessageType.Error, f"cint compare: {verdict.message}")
        result = {
            "uri": uri,
            "version": version,
            "executors": executors,
            "compared": verdict.compared,
            "skipped": [{"executor": e, "reason": r} for e, r in verdict.skipped],
            "agree": verdict.agree,
            "difference": verdict.difference,
            "message": verdict.message,
            "results": [o.to_json(uri, version) for o in outcomes],
        }
        self.protocol.notify(COMPARE_RESULT, result)
        return result

    def _report_run(self, uri: str, version: int, source: SourceText, outcome: Outcome, notify: bool) -> None:
        """The run's output, fault report, executor notes and summary as log messages
        (what an editor shows in its output panel), and for a single run the
        `cint/runResult` notification."""
        result = outcome.result
        if result is not None and result.output:
            self._log(lsp.MessageType.Log, f"[{outcome.executor}] output:\n{result.output.rstrip()}")
        if result is not None and result.fault is not None:
            try:
                outcome.report = render_fault(source, result.fault)
            except Exception:  # noqa: BLE001 - a record the renderer cannot place
                outcome.report = None
            self._log(lsp.MessageType.Error, f"[{outcome.executor}]\n{(outcome.report or outcome.summary).rstrip()}")
        for note in (result.notes if result is not None else []):
            self._log(lsp.MessageType.Info, f"[{outcome.executor}] {note}")
        kind = lsp.MessageType.Info if outcome.error is None else lsp.MessageType.Error
        self._log(kind, f"cint run {outcome.summary}")
        if notify:
            self.protocol.notify(RUN_RESULT, outcome.to_json(uri, version))


def minimal_edit(source: SourceText, new: str) -> lsp.TextEdit:
    """One edit that turns the text of `source` into `new`, covering only the part
    between their common prefix and common suffix."""
    old = source.text
    prefix = 0
    limit = min(len(old), len(new))
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[len(old) - 1 - suffix] == new[len(new) - 1 - suffix]:
        suffix += 1
    start = len(old[:prefix].encode("utf-8"))
    end = len(old[:len(old) - suffix].encode("utf-8"))
    return lsp.TextEdit(
        range=lsp.Range(start=convert.lsp_position(source, start), end=convert.lsp_position(source, end)),
        new_text=new[prefix:len(new) - suffix])


def create_server() -> CintLanguageServer:
    return CintLanguageServer()
