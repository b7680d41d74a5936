"""The pygls shim: the one module of cint-ls that knows pygls' internals.

Written for pygls 2.1 (tested with 2.1.1) and lsprotocol 2025.0.0. It overrides private
methods of `pygls.protocol.JsonRPCProtocol` / `LanguageServerProtocol`
(`_execute_handler`, `send_request`, `_handle_cancel_notification`,
`_send_handler_result`, `_send_response`, `_run_generator`, `structure_message`,
`handle_message`, the `lsp_*` built-ins), uses `_send_data`, `_handle_response`,
`_request_futures`, `_result_types`, `_shutdown`, `msg_id`, `fm.features` and
`Progress.tokens`, runs `lsp_initialize` by hand (`initialize`), and replaces
`JsonRPCServer.start_io` and `pygls.io_.run_async`: check them all when pygls changes
(PYGLS_TESTED; tests/server/test_prelude.py checks the recorded answer to `initialize`).

What it changes of pygls, and why:
- `initialize`: positions are UTF-16 code units, whatever the client prefers.
- didOpen/didChange/didClose go straight to the handlers: pygls' own copy of each
  document (its workspace) would double the work of every keystroke.
- The future of a notification's handler, and of each step of a built-in handler,
  leaves `_request_futures` when it is done: pygls kept it there for good, one per
  didOpen/didChange/didClose (issue 28). A request of ours that we stop waiting for
  (a time-out) leaves it too: a late answer is dropped, not an error.
- `workspace/executeCommand` hands the handler its whole params (arguments and
  workDoneToken); `$/cancelRequest` also stops a run's child process.
- A request whose params do not parse gets InvalidParams (pygls would not answer it);
  a body that is not JSON gets ParseError with a null id.
- The errors a handler means to send (ContentModified, RequestCancelled, RequestFailed,
  InvalidParams) are sent without pygls' traceback in the log.
- The base protocol is read by `framing.StdinReader` (headers in any case, a maximum
  message size, resynchronisation after a wrong length) on a thread of its own, a
  chunk at a time, instead of one thread-pool round trip per header line; it says when
  every message that arrived is handled (`handled`: a heavy request's next step waits
  for it). `serve` replaces `start_io` and `run_async`; stdout is written by
  `framing.Writer` on a thread of its own.
- The fast start (prelude.py) answers `initialize` and publishes the first document's
  diagnostics before this module is imported; `serve` takes over what it read:
  `initialize` is run through pygls and our handler without answering it again (and
  the answer compared with the one sent), the document adopted, the rest handled.
- The lifecycle as LSP says (pygls answered requests before `initialize`, accepted a
  second one, and left requests after `shutdown` unanswered): before `initialize` a
  request gets ServerNotInitialized and a notification is dropped; a second
  `initialize` and any request after `shutdown` get InvalidRequest, notifications
  then are dropped, `exit` never is. A batch (a JSON array; LSP has none) is answered
  InvalidRequest element by element (`_batch`).
- `shutdown` answers every request in flight (RequestCancelled; pygls' own failed with
  "dictionary changed size during iteration") and answers null once the runs' children
  are gone; a step of a built-in handler cancelled as the loop closes cancels its
  request quietly (no CancelledError traceback); stdout is quiet once closed, so that
  what the cancelled tasks still send after `exit` neither fails nor recurses.

Everything else (the handlers, the session) is plain code of (session, params):
`handlers/`, `session.py`.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import threading
import uuid
from functools import partial
from typing import Any

from lsprotocol import types as lsp
from pygls.exceptions import FeatureRequestError, JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, default_converter
from pygls.protocol.language_server import lsp_method

from .. import __version__
from .framing import FramingError, StdinReader, Writer
from .handlers import ROUTES, Route, serve, serve_heavy, serve_light
from .handlers.commands import COMMANDS, cancel_request, execute_command
from .handlers.documents import adopt
from .heap import collect_when_idle
from .prelude import Answered, Opened, Taken
from .session import Serialized, Session

logger = logging.getLogger("cint_ls.server")

PYGLS_TESTED = "2.1.1"
SHUTDOWN_WAIT = 3.0  # seconds `shutdown` waits at most for the runs' threads (their children killed)
# Test-only: the server's text of a document, registered by `cint-ls --test-hooks`
# (fuzz/lsp.py compares it with the client's). Never advertised.
DOCUMENT_TEXT = "cint/test/documentText"
# Test-only, likewise: the sizes of the server's tables (tests/server/test_leaks.py).
TABLES = "cint/test/tables"


class _MalformedRequest:
    """A request whose params did not parse: answered with InvalidParams."""

    def __init__(self, msg_id: Any, method: str, error: JsonRpcException) -> None:
        self.id = msg_id
        self.method = method
        self.error = error


class CintProtocol(LanguageServerProtocol):
    _server: CintLanguageServer

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._initialize_seen = False
        self._client_requests: set[Any] = set()  # ids of the client's requests not answered yet

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
        # The whole params (arguments and workDoneToken) go to the handler, which runs
        # the command as a coroutine; the request id stays in the context for cancellation.
        result = yield self._server.execute_command, (params,), None
        return result

    def _execute_handler(self, msg_id, handler, callback, args=None, kwargs=None):
        # pygls keeps the future of every handler it starts in `_request_futures`, under
        # the request's id or, for a notification and for each step of a built-in
        # handler (didOpen/didChange/didClose are generators of one step), under a fresh
        # uuid; only a request's answer (`_send_handler_result`) or a cancellation takes
        # it out again. Each notification left one Future behind for good (issue 28:
        # 15,000 edits, +28 MB). A future under a key of pygls' own making (no request
        # of the client's: nothing can cancel it by that key) leaves the table when it
        # is done.
        if msg_id not in self._client_requests:
            callback = partial(self._step_done, msg_id=msg_id, callback=callback)
        super()._execute_handler(msg_id, handler, callback, args, kwargs)

    def _step_done(self, future, *, msg_id, callback) -> None:
        if self._request_futures.get(msg_id) is future:
            del self._request_futures[msg_id]
        callback(future)

    def send_request(self, method, params=None, callback=None, msg_id=None):
        # A request of ours that the client has not answered when we stop waiting (a
        # time-out: workDoneProgress/create after 5 s, configuration after 10 s) leaves
        # pygls' tables with its future: pygls kept it, and its result type, until an
        # answer that may never come, and an answer that came late then failed
        # (InvalidStateError on the cancelled future) and was logged as an error. Now a
        # late answer is one to an unknown id, which pygls logs and drops.
        msg_id = str(uuid.uuid4()) if msg_id is None else msg_id
        future = super().send_request(method, params, callback, msg_id)
        future.add_done_callback(partial(self._request_done, msg_id=msg_id))
        return future

    def _request_done(self, future, *, msg_id) -> None:
        if future.cancelled() and self._request_futures.get(msg_id) is future:
            del self._request_futures[msg_id]
            self._result_types.pop(msg_id, None)

    def _handle_cancel_notification(self, msg_id):
        # A run's child is killed (its event); a heavy request's task is cancelled by
        # pygls, which answers RequestCancelled.
        cancel_request(self._server.session, msg_id)
        super()._handle_cancel_notification(msg_id)

    def _send_handler_result(self, future, *, msg_id):
        error = None if future.cancelled() else future.exception()
        if error is None and not future.cancelled() and isinstance(future.result(), Serialized):
            self._request_futures.pop(msg_id, None)
            self._client_requests.discard(msg_id)
            self._send_serialized(msg_id, future.result().text)
            return
        if isinstance(error, JsonRpcException):  # meant: no traceback in pygls' log
            self._request_futures.pop(msg_id, None)
            logger.info("request %r answered %s: %s", msg_id, type(error).__name__, error)
            self._send_response(msg_id, error=error.to_response_error())
            return
        super()._send_handler_result(future, msg_id=msg_id)

    def _send_serialized(self, msg_id, text: str) -> None:
        """A response whose result is serialized already (`_send_data`, less the
        serialization)."""
        if self.writer is None:
            logger.error("no transport for the response to %r", msg_id)
            return
        # Three writes rather than one joined copy: the result is megabytes for a big file.
        prefix = f'{{"jsonrpc": "2.0", "id": {json.dumps(msg_id)}, "result": '.encode(self.CHARSET)
        # Our writer takes ASCII text as it is and encodes it a slice at a time: no
        # whole copy of an answer of megabytes (issue 11's peak memory at 50,000 lines).
        if isinstance(self.writer, Writer) and text.isascii():
            result = text
        else:
            result = text.encode(self.CHARSET)
        length = len(prefix) + len(result) + 1
        header = (f"Content-Length: {length}\r\n"
                  f"Content-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n").encode(self.CHARSET)
        for data in (header + prefix, result, b"}"):
            written = self.writer.write(data)
            if inspect.isawaitable(written):
                asyncio.ensure_future(written)

    def serialize(self, result: Any) -> str:
        return json.dumps(self._converter.unstructure(result))

    def structure_message(self, data):
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            if isinstance(data, dict) and "id" in data and isinstance(data.get("method"), str):
                return _MalformedRequest(data["id"], data["method"], error)
            raise

    # ---- lifecycle (LSP "Lifecycle Messages"), before pygls sees a message

    def handle_message(self, message):
        method = getattr(message, "method", None)
        if method is None:  # the client's answer to a request of ours: even after shutdown
            if getattr(message, "error", None) is not None:
                self._handle_response(message.id, None, message.error)
            else:
                self._handle_response(message.id, getattr(message, "result", None))
            return
        request = isinstance(message, _MalformedRequest) or hasattr(message, "id")
        refusal = self._refusal(method, request, isinstance(message, _MalformedRequest))
        if refusal is not None:
            if request:
                logger.info("request %r (%s) refused: %s", message.id, method, refusal[1])
                self.send_error(message.id, *refusal)
            else:
                logger.info("notification %s dropped: %s", method, refusal[1])
            return
        if isinstance(message, _MalformedRequest):
            logger.warning("malformed %s request %r: %s", message.method, message.id, message.error)
            error = JsonRpcInvalidParams(f"invalid params for {message.method}")
            self._send_response(message.id, error=error.to_response_error())
            return
        if request:
            self._client_requests.add(message.id)
        super().handle_message(message)

    def _refusal(self, method: str, request: bool, malformed: bool) -> tuple[int, str] | None:
        """Why a message is refused in this state of the session, as (code, message);
        None to handle it. A refused notification is dropped (`exit` never is)."""
        if method == lsp.EXIT:
            return None
        if self._shutdown:
            return int(lsp.ErrorCodes.InvalidRequest), f"{method} after shutdown"
        if not self._initialize_seen:
            if method == lsp.INITIALIZE:
                self._initialize_seen = not malformed  # the client may send a well-formed one again
                return None
            return int(lsp.ErrorCodes.ServerNotInitialized), f"{method} before initialize"
        if method == lsp.INITIALIZE:
            return int(lsp.ErrorCodes.InvalidRequest), "initialize was already received"
        return None

    def send_error(self, msg_id: Any, code: int, message: str) -> None:
        """An error response; a plain dict, so that a null id is written out."""
        self._client_requests.discard(msg_id)
        self._send_data({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}})

    def _send_response(self, msg_id, result=None, error=None):
        self._client_requests.discard(msg_id)
        super()._send_response(msg_id, result, error)

    @lsp_method(lsp.SHUTDOWN)
    def lsp_shutdown(self, *args):
        # pygls' own iterates `_request_futures` while cancelling them, and a cancelled
        # future's callback removes itself from the dict ("dictionary changed size
        # during iteration": the shutdown failed and most requests went unanswered).
        current = self.msg_id
        self._shutdown = True  # requests from now on get InvalidRequest; `exit` then means 0
        if (user_handler := self.fm.features.get(lsp.SHUTDOWN)) is not None:
            yield user_handler, args, None  # session.stop(): the runs' children are killed
        # Every request of the client still in flight is answered: RequestCancelled.
        for msg_id in [i for i in self._client_requests if i != current]:
            future = self._request_futures.get(msg_id)
            if future is not None and not future.done():
                future.cancel()
        # The null answer goes once the runs' threads are done (their children gone) and
        # the cancelled requests answered, so that nothing of the session outlives it.
        yield self._server.wind_down, ([i for i in self._client_requests if i != current],), None

    def _run_generator(self, future, *, gen, result_future):
        # A step of a built-in handler cancelled (the loop closing at exit): the request
        # is cancelled, quietly; pygls would raise CancelledError out of the callback
        # and asyncio would log its traceback.
        if future is not None and future.cancelled():
            gen.close()
            if not result_future.done():
                result_future.cancel()
            return
        super()._run_generator(future, gen=gen, result_future=result_future)


class CintLanguageServer(LanguageServer):
    """pygls' LanguageServer with cint-ls' routes, and the `Client` of the session."""

    def __init__(self) -> None:
        super().__init__("cint-ls", __version__, protocol_cls=CintProtocol, converter_factory=_converter,
                         text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental, max_workers=4)
        self.session = Session(self)
        for route in ROUTES:
            self.feature(route.method, route.options)(self._handler(route))
        # Advertised for executeCommandProvider; CintProtocol sends the requests to
        # execute_command with their whole params.
        for name in COMMANDS:
            async def command(*arguments):
                raise JsonRpcInvalidParams("commands go through CintProtocol")
            self.command(name)(command)

    def _handler(self, route: Route):
        session = self.session
        if route.kind == "heavy":
            async def heavy(params):
                return await serve_heavy(session, route, params)
            return heavy
        if route.kind == "light":
            def light(params):
                return serve_light(session, route, params)
            return light
        if asyncio.iscoroutinefunction(route.fn):
            async def coroutine(params):  # a function of its own: pygls sets attributes on it
                return await route.fn(session, params)
            return coroutine

        def plain(params):
            return serve(session, route, params)
        return plain

    async def execute_command(self, params: lsp.ExecuteCommandParams) -> Any:
        return await execute_command(self.session, params)

    # ---- running

    async def serve(self, reader: StdinReader, writer: Writer, taken: list[Taken]) -> None:
        """Serve the client after the fast start (prelude.py): what it took, in order,
        then the rest of the input. In place of pygls' `start_io` and `run_async`
        (whose header parsing took only `Content-Length: N` exactly and never
        resynchronised): `framing.StdinReader` reads, `framing.Writer` writes."""
        self._stop_event = threading.Event()
        self.protocol.set_writer(writer)
        self._reader = reader
        reader.report_to(self._framing_error)
        collect_when_idle()  # the collector is off until the first publication (heap.py)
        for item in taken:
            # As `read_message`: the tasks of the messages handled so far take their first step.
            await asyncio.sleep(0)
            if isinstance(item, Answered):
                self._adopt_initialize(item)
            elif isinstance(item, Opened):
                adopt(self.session, item.uri, item.doc)
            else:
                self._handle_body(item)
        while not self._stop_event.is_set():
            body = await reader.read_message()
            if body is None:
                break
            self._handle_body(body)

    def _handle_body(self, body: bytes) -> None:
        try:
            data = json.loads(body.decode("utf-8"))
        except ValueError as error:  # JSONDecodeError, UnicodeDecodeError
            logger.warning("a body that is not JSON: %s", error)
            self.protocol.send_error(None, int(lsp.ErrorCodes.ParseError), f"Parse error: {error}")
            self.session.log(lsp.MessageType.Error, f"cint-ls: {type(error).__name__}: {error}")
            self._reader.resync(body)
            return
        if isinstance(data, list):
            self._batch(data)
        else:
            self._dispatch(data)

    def _adopt_initialize(self, answered: Answered) -> None:
        """The `initialize` the fast start answered: the client's capabilities, the
        workspace and the settings taken as pygls and our handler take them, and the
        answer computed again, which must be the one sent."""
        self.protocol._initialize_seen = True
        result = self.initialize(self._initialize_params(answered.params))
        if result != answered.result:
            logger.error("the fast start answered initialize with %s, the server's answer is %s",
                         json.dumps(answered.result), json.dumps(result))
            self.session.log(lsp.MessageType.Error, "cint-ls: the fast start's answer to initialize differs "
                             "from the server's (a defect: please report it with the server's log)")

    def initialize(self, params: lsp.InitializeParams) -> dict[str, Any]:
        """Take `initialize` as pygls and our handler do, and return its answer (JSON),
        without sending it."""
        protocol = self.protocol
        steps = protocol.lsp_initialize(params)
        value: Any = None
        try:
            while True:
                handler, args, kwargs = steps.send(value)
                value = handler(*args, **(kwargs or {}))
        except StopIteration as stop:
            answer: dict[str, Any] = json.loads(json.dumps(protocol._converter.unstructure(stop.value)))
        return answer

    def _initialize_params(self, params: dict[str, Any]) -> lsp.InitializeParams:
        """The client's initialize params as pygls takes them. The prelude answered only
        params of the right shapes at the top level; capabilities that do not parse are
        taken as none (pygls would have refused the request: too late for that)."""
        converter = self.protocol._converter
        try:
            structured: lsp.InitializeParams = converter.structure(params, lsp.InitializeParams)
            return structured
        except Exception as error:  # noqa: BLE001 - cattrs' errors are many kinds
            self.session.log(lsp.MessageType.Warning,
                             f"cint-ls: the client's capabilities do not parse, taken as none: {error}")
        try:
            structured = converter.structure({**params, "capabilities": {}}, lsp.InitializeParams)
            return structured
        except Exception:  # noqa: BLE001
            return lsp.InitializeParams(capabilities=lsp.ClientCapabilities())

    def _dispatch(self, data: Any) -> None:
        if not _is_message(data):
            logger.warning("not a JSON-RPC 2.0 message: %.200r", data)
            self.protocol.send_error(_id_of(data), int(lsp.ErrorCodes.InvalidRequest),
                                     "Invalid Request: not a JSON-RPC 2.0 message")
            return
        try:
            message = self.protocol.structure_message(data)
        except Exception as error:  # noqa: BLE001 - a notification or response that does not parse
            logger.warning("a message that does not parse (%s): dropped", error)
            self.report_server_error(error, JsonRpcException)
            return
        try:
            self.protocol.handle_message(message)
        except Exception as error:
            logger.exception("Unable to handle message")
            self.report_server_error(error, JsonRpcException)

    def _batch(self, items: list) -> None:
        """A JSON-RPC batch. LSP sends one message at a time and its clients read one
        object per message, so batches are not supported: each request in it gets
        InvalidRequest with its own id (its client waits for that id: nobody waits
        forever), each element that is no message gets InvalidRequest with a null id,
        as JSON-RPC 2.0 answers the invalid elements of a batch, notifications get
        nothing (JSON-RPC never answers one), and an empty batch one InvalidRequest with
        a null id. Each answer is a message of its own, not an array."""
        logger.warning("a batch of %d messages: not supported", len(items))
        code = int(lsp.ErrorCodes.InvalidRequest)
        if not items:
            self.protocol.send_error(None, code, "Invalid Request: an empty batch")
        for item in items:
            if not _is_message(item) or ("id" in item and "method" in item):
                self.protocol.send_error(_id_of(item), code, "Invalid Request: batches are not supported")

    async def wind_down(self, refused: list) -> None:
        """`shutdown`'s last step: wait (SHUTDOWN_WAIT at most) until the runs' threads
        are done, their children killed, and the requests it cancelled answered."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + SHUTDOWN_WAIT
        pending = set(refused)
        while loop.time() < deadline and (self.session.cancels or pending & self.protocol._client_requests):
            await asyncio.sleep(0.005)
        if self.session.cancels:
            logger.warning("shutdown: %d runs still stopping", len(self.session.cancels))

    def _framing_error(self, error: FramingError) -> None:
        self.session.log(lsp.MessageType.Error if error.severe else lsp.MessageType.Warning,
                         f"cint-ls: {error.message}")

    def enable_test_hooks(self) -> None:
        """Test-only requests (`cint-ls --test-hooks`): DOCUMENT_TEXT answers the text and
        version of an open document as the server holds it, or null; TABLES the sizes
        of the tables that hold something per document or request (pygls' and the
        session's)."""
        @self.feature(DOCUMENT_TEXT)
        def document_text(params):
            uri = getattr(params, "uri", None) if not isinstance(params, dict) else params.get("uri")
            doc = self.session.document(uri) if isinstance(uri, str) else None
            return None if doc is None else {"text": doc.text, "version": doc.version}

        @self.feature(TABLES)
        def tables(params):
            # A plain function: pygls keeps no future of it; its id is among the
            # client's requests until answered.
            protocol = self.protocol
            return {"requestFutures": len(protocol._request_futures),
                    "resultTypes": len(protocol._result_types),
                    "clientRequests": len(protocol._client_requests) - 1,
                    "progressTokens": len(self.work_done_progress.tokens), **self.session.tables()}

    def shut_down_cleanly(self) -> bool:
        """Whether `shutdown` came before the end (LSP: exit status 0, else 1)."""
        return bool(self.protocol._shutdown)

    def shutdown(self) -> None:
        self.session.close()
        super().shutdown()

    def report_server_error(self, error: Exception, source) -> None:
        # pygls calls this for errors outside a request (a notification that failed).
        # A log message, not a pop-up.
        if source is FeatureRequestError:
            return  # the request already has its error response
        if source is JsonRpcInternalError:
            return  # sending failed (pygls' `_send_data`): a log message would fail again, and recurse
        self.session.log(lsp.MessageType.Error, f"cint-ls: {type(error).__name__}: {error}")

    # ---- session.Client

    def log(self, kind: lsp.MessageType, message: str) -> None:
        self.window_log_message(lsp.LogMessageParams(type=kind, message=message))

    def notify(self, method: str, params: Any) -> None:
        self.protocol.notify(method, params)

    def publish_diagnostics(self, params: dict[str, Any]) -> None:
        # JSON already (`wire`): as a plain dict, which pygls' serializer passes through
        # (its `notify` would take the params for lsprotocol's object of the method).
        self.protocol._send_data({"jsonrpc": "2.0", "method": lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, "params": params})

    def supports(self, path: str) -> bool:
        item: Any = getattr(self.protocol, "client_capabilities", None)
        for name in path.split("."):
            item = getattr(item, name, None)
            if item is None:
                return False
        return bool(item)

    def request_id(self) -> Any:
        return self.protocol.msg_id

    async def handled(self) -> None:
        reader = getattr(self, "_reader", None)
        if reader is not None:
            await reader.handled()
        writer = self.protocol.writer
        if isinstance(writer, Writer):
            await writer.written()

    async def configuration(self, section: str, timeout: float) -> list:
        return await asyncio.wait_for(self.workspace_configuration_async(
            lsp.ConfigurationParams(items=[lsp.ConfigurationItem(section=section)])), timeout)

    async def register_configuration(self, section: str) -> None:
        await self.client_register_capability_async(lsp.RegistrationParams(registrations=[
            lsp.Registration(id=str(uuid.uuid4()), method=lsp.WORKSPACE_DID_CHANGE_CONFIGURATION,
                             register_options={"section": section})]))

    def refresh_inlay_hints(self) -> None:
        self.workspace_inlay_hint_refresh(None)

    async def show_document(self, uri: str, selection: lsp.Range, timeout: float) -> lsp.ShowDocumentResult:
        return await asyncio.wait_for(self.window_show_document_async(
            lsp.ShowDocumentParams(uri=uri, take_focus=True, selection=selection)), timeout)

    def refresh_semantic_tokens(self) -> None:
        self.workspace_semantic_tokens_refresh(None)

    async def create_progress(self, token: str, timeout: float) -> None:
        await asyncio.wait_for(self.work_done_progress.create_async(token), timeout)

    def progress_begin(self, token: Any, begin: lsp.WorkDoneProgressBegin) -> None:
        self.work_done_progress.begin(token, begin)

    def progress_end(self, token: Any, end: lsp.WorkDoneProgressEnd) -> None:
        self.work_done_progress.end(token, end)
        self.work_done_progress.tokens.pop(token, None)

    def progress_cancelled(self, token: Any) -> bool:
        future = self.work_done_progress.tokens.get(token)
        return future is not None and future.cancelled()


def _strict_str(value: Any, _type: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {type(value).__name__}")
    return value


def _converter():
    """pygls' converter, with strings that must be strings: cattrs' own hook is
    `str(value)`, so a change whose text was null or 5 replaced the document with
    `None` or `5` (found by fuzz/lsp.py). Now such params do not parse."""
    converter = default_converter()
    converter.register_structure_hook(str, _strict_str)
    return converter


def _valid_id(msg_id: Any) -> bool:
    return isinstance(msg_id, (str, int)) and not isinstance(msg_id, bool)


def _is_message(data: Any) -> bool:
    """A JSON-RPC 2.0 request, notification or response (pygls checks the rest)."""
    return isinstance(data, dict) and data.get("jsonrpc") == "2.0" and \
        (data.get("id") is None or _valid_id(data["id"])) and \
        (isinstance(data.get("method"), str) or "result" in data or "error" in data)


def _id_of(data: Any) -> Any:
    """A message's id if it is one JSON-RPC allows (a string or an integer), else None."""
    msg_id = data.get("id") if isinstance(data, dict) else None
    return msg_id if _valid_id(msg_id) else None


def create_server() -> CintLanguageServer:
    return CintLanguageServer()


def initialize_answer(capabilities: dict[str, Any]) -> dict[str, Any]:
    """The answer to `initialize` from a client of `capabilities`, by a server of its
    own (the fast start's recording, scripts/record_initialize.py, and its tests)."""
    server = create_server()
    try:
        params = server.protocol._converter.structure({"processId": None, "capabilities": capabilities},
                                                      lsp.InitializeParams)
        return server.initialize(params)
    finally:
        server.session.close()


def initialize_recording() -> dict[str, Any]:
    """What the fast start answers `initialize` from (schema/initialize-result.json,
    scripts/record_initialize.py): the answer to a client that states nothing, and the
    parts that pygls' ServerCapabilitiesBuilder (2.1) derives from the client's
    capabilities: RenameOptions for a client with prepareSupport, and which of
    willSave/willSaveWaitUntil the server registers (`prelude.initialize_result`)."""
    prepare = initialize_answer({"textDocument": {"rename": {"prepareSupport": True}}})
    registered = [flag for flag in ("willSave", "willSaveWaitUntil")
                  if initialize_answer({"textDocument": {"synchronization": {flag: True}}})
                  ["capabilities"]["textDocumentSync"].get(flag)]
    return {"result": initialize_answer({}), "renameWithPrepareSupport": prepare["capabilities"]["renameProvider"],
            "registered": registered}
