"""The JSON-RPC protocol of cint-ls: the few places where pygls' defaults are not what
cint-ls needs (malformed requests answered, cancellation routed to runs)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method


if TYPE_CHECKING:
    from .server import CintLanguageServer

logger = logging.getLogger("cint_ls.server")


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


