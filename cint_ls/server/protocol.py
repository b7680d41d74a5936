"""The pygls shim: the one module of cint-ls that knows pygls' internals.

Written for pygls 2.1 (tested with 2.1.1) and lsprotocol 2025.0.0. It overrides private
methods of `pygls.protocol.JsonRPCProtocol` / `LanguageServerProtocol`
(`_handle_cancel_notification`, `_send_handler_result`, `structure_message`,
`handle_message`, the `lsp_*` built-ins), uses `_send_data`, `_shutdown`, `msg_id`,
`fm.features`, `Progress.tokens` and `pygls.io_.run_async`, and replaces
`JsonRPCServer.start_io`: check them all when pygls changes (PYGLS_TESTED).

What it changes of pygls, and why:
- `initialize`: positions are UTF-16 code units, whatever the client prefers.
- didOpen/didChange/didClose go straight to the handlers: pygls' own copy of each
  document (its workspace) would double the work of every keystroke.
- `workspace/executeCommand` hands the handler its whole params (arguments and
  workDoneToken); `$/cancelRequest` also stops a run's child process.
- A request whose params do not parse gets InvalidParams (pygls would not answer it);
  a body that is not JSON gets ParseError with a null id (`report_server_error`).
- The errors a handler means to send (ContentModified, RequestCancelled, RequestFailed,
  InvalidParams) are sent without pygls' traceback in the log.
- stdin is read by a thread of its own, a chunk at a time, instead of one thread-pool
  round trip per header line: with a heavy request computing on the worker thread, each
  hand-over of the GIL costs up to a switch interval, and a hover would pay several.

Everything else (the handlers, the session) is plain code of (session, params):
`handlers/`, `session.py`.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
import logging
import os
import sys
import threading
import uuid
from typing import Any, BinaryIO

from lsprotocol import types as lsp
from pygls.exceptions import FeatureRequestError, JsonRpcException, JsonRpcInvalidParams
from pygls.io_ import StdoutWriter, run_async
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

from .. import __version__
from .handlers import ROUTES, Route, serve, serve_heavy, serve_light
from .handlers.commands import COMMANDS, cancel_request, execute_command
from .session import Serialized, Session

logger = logging.getLogger("cint_ls.server")

PYGLS_TESTED = "2.1.1"


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
        # The whole params (arguments and workDoneToken) go to the handler, which runs
        # the command as a coroutine; the request id stays in the context for cancellation.
        result = yield self._server.execute_command, (params,), None
        return result

    def _handle_cancel_notification(self, msg_id):
        # A run's child is killed (its event); a heavy request's task is cancelled by
        # pygls, which answers RequestCancelled.
        cancel_request(self._server.session, msg_id)
        super()._handle_cancel_notification(msg_id)

    def _send_handler_result(self, future, *, msg_id):
        error = None if future.cancelled() else future.exception()
        if error is None and not future.cancelled() and isinstance(future.result(), Serialized):
            self._request_futures.pop(msg_id, None)
            self._send_serialized(msg_id, future.result().text)
            return
        if isinstance(error, JsonRpcException):  # meant: no traceback in pygls' log
            self._request_futures.pop(msg_id, None)
            logger.info("request %r answered %s: %s", msg_id, type(error).__name__, error)
            self._send_response(msg_id, error=error.to_response_error())
            return
        super()._send_handler_result(future, msg_id=msg_id)

    def _send_serialized(self, msg_id, text: str) -> None:
        """A response whose result the worker serialized (`_send_data`, less the
        serialization)."""
        if self.writer is None:
            logger.error("no transport for the response to %r", msg_id)
            return
        body = f'{{"jsonrpc": "2.0", "id": {json.dumps(msg_id)}, "result": {text}}}'.encode(self.CHARSET)
        header = (f"Content-Length: {len(body)}\r\n"
                  f"Content-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n").encode(self.CHARSET)
        written = self.writer.write(header + body)
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

    def handle_message(self, message):
        if isinstance(message, _MalformedRequest):
            logger.warning("malformed %s request %r: %s", message.method, message.id, message.error)
            error = JsonRpcInvalidParams(f"invalid params for {message.method}")
            self._send_response(message.id, error=error.to_response_error())
            return
        super().handle_message(message)


class _StdinReader:
    """pygls' reader interface (`readline`, `readexactly`) over a thread that reads the
    input a chunk at a time (whatever has arrived) and hands each chunk to the loop."""

    CHUNK = 1 << 16

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._buffer = bytearray()
        self._eof = False
        self._arrived: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._arrived = asyncio.Event()
        threading.Thread(target=self._read, name="cint-stdin", daemon=True).start()

    def _read(self) -> None:
        # The file descriptor itself where there is one: a daemon thread blocked inside
        # a BufferedReader holds its lock, and the interpreter aborts at exit on it.
        try:
            fd = self._stream.fileno()
            read = functools.partial(os.read, fd)
        except (AttributeError, OSError, ValueError):
            read = getattr(self._stream, "read1", None) or self._stream.read
        while True:
            try:
                chunk = read(self.CHUNK)
            except (OSError, ValueError):
                chunk = b""
            try:
                self._loop.call_soon_threadsafe(self._feed, chunk)
            except RuntimeError:  # the loop is closed
                return
            if not chunk:
                return

    def _feed(self, chunk: bytes) -> None:
        if chunk:
            self._buffer += chunk
        else:
            self._eof = True
        self._arrived.set()

    async def _more(self) -> None:
        if self._loop is None:
            self._start()
            return
        self._arrived.clear()
        await self._arrived.wait()

    async def readline(self) -> bytes:
        # Let the tasks of the messages handled so far take their first step (a heavy
        # request pins its version and queues its job) before the next message is
        # read: pygls' own reader always waited here.
        await asyncio.sleep(0)
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0 or self._eof:
                size = end + 1 if end >= 0 else len(self._buffer)
                line = bytes(self._buffer[:size])
                del self._buffer[:size]
                return line
            await self._more()

    def pending(self) -> bool:
        """Whether bytes have arrived that are not read yet (a message, or part of one)."""
        return bool(self._buffer)

    async def readexactly(self, n: int) -> bytes:
        while len(self._buffer) < n and not self._eof:
            await self._more()
        body = bytes(self._buffer[:n])
        del self._buffer[:n]
        return body


class CintLanguageServer(LanguageServer):
    """pygls' LanguageServer with cint-ls' routes, and the `Client` of the session."""

    def __init__(self) -> None:
        super().__init__("cint-ls", __version__, protocol_cls=CintProtocol,
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
            async def light(params):
                return await serve_light(session, route, params)
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

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """pygls' `_start_io_async`, with `_StdinReader`. (The GIL's switch interval
        stays Python's 5 ms: 1 ms measured no different under an editor's burst, the
        chunks and checkpoints of the heavy work doing what a shorter interval would.)"""
        self._stop_event = threading.Event()
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        self._reader = _StdinReader(stdin or sys.stdin.buffer)
        try:
            asyncio.run(run_async(stop_event=self._stop_event, reader=self._reader,
                                  protocol=self.protocol, logger=logger, error_handler=self.report_server_error))
        except BrokenPipeError:
            logger.error("the connection to the client is lost")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    def shut_down_cleanly(self) -> bool:
        """Whether `shutdown` came before the end (LSP: exit status 0, else 1)."""
        return bool(self.protocol._shutdown)

    def shutdown(self) -> None:
        self.session.close()
        super().shutdown()

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
            except Exception as failure:  # noqa: BLE001 - no transport: the log below is all
                logger.info("ParseError response not sent: %s", failure)
        self.session.log(lsp.MessageType.Error, f"cint-ls: {type(error).__name__}: {error}")

    # ---- session.Client

    def log(self, kind: lsp.MessageType, message: str) -> None:
        self.window_log_message(lsp.LogMessageParams(type=kind, message=message))

    def notify(self, method: str, params: Any) -> None:
        self.protocol.notify(method, params)

    def publish_diagnostics(self, params: lsp.PublishDiagnosticsParams) -> None:
        self.text_document_publish_diagnostics(params)

    def supports(self, path: str) -> bool:
        item: Any = getattr(self.protocol, "client_capabilities", None)
        for name in path.split("."):
            item = getattr(item, name, None)
            if item is None:
                return False
        return bool(item)

    def request_id(self) -> Any:
        return self.protocol.msg_id

    def backlog(self) -> bool:
        reader = getattr(self, "_reader", None)
        return reader is not None and reader.pending()

    def serialize(self, result: Any) -> str:
        return self.protocol.serialize(result)

    async def configuration(self, section: str, timeout: float) -> list:
        return await asyncio.wait_for(self.workspace_configuration_async(
            lsp.ConfigurationParams(items=[lsp.ConfigurationItem(section=section)])), timeout)

    async def register_configuration(self, section: str) -> None:
        await self.client_register_capability_async(lsp.RegistrationParams(registrations=[
            lsp.Registration(id=str(uuid.uuid4()), method=lsp.WORKSPACE_DID_CHANGE_CONFIGURATION,
                             register_options={"section": section})]))

    def refresh_inlay_hints(self) -> None:
        self.workspace_inlay_hint_refresh(None)

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


def create_server() -> CintLanguageServer:
    return CintLanguageServer()
