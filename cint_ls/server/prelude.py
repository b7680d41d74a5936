"""The fast start: `initialize` answered and the first opened document's diagnostics
published before pygls, lsprotocol and asyncio are imported (issue 29, "a fast first
impression"). Importing `lsprotocol.types` alone takes longer than analysing a
5,000-line file; an editor waits for the answer to `initialize` before it opens anything,
and a person for the first diagnostics. It reads blocking, with no event loop, and
writes to stdout itself.

What it takes, in the order clients send it, and nothing else:
- `initialize`, a well-formed one first: answered from `schema/initialize-result.json`,
  the answer pygls gives this server, with the three parts that depend on the client's
  capabilities worked out as pygls's ServerCapabilitiesBuilder does (`initialize_result`).
  The server, once built, computes the answer again and logs an error if they differ;
  tests/server/test_prelude.py compares them over many clients' capabilities.
- `initialized`, `$/setTrace` and `workspace/didChangeConfiguration` (Neovim sends
  it between `initialized` and the first `didOpen`; its settings count, as the
  server's handler applies them, when the client cannot be asked for them).
- `textDocument/didOpen`: the document is analysed and its diagnostics published
  (`wire`, the JSON the server publishes). That is the hand-over.

Any other message, one that is not well-formed, or the end of the input hands over at
once: the server (`protocol.py`) is built and then takes what was read in order,
`Answered` and `Opened` for what the prelude did (it adopts the document and the
client's capabilities without answering or publishing again) and the bodies of the
rest, which it handles as if it had read them itself. So the prelude decides nothing
the server would decide otherwise: a message it is not sure of is the server's.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from .framing import StdinReader, framed
from .settings import Settings, parse_settings

if TYPE_CHECKING:  # the analysis is imported once `initialize` is answered (`_warm_up`)
    import tree_sitter

    from ..ide.document import Document

logger = logging.getLogger("cint_ls.server")

RESULT_FILE = Path(__file__).with_name("schema") / "initialize-result.json"
_NOTIFICATIONS_KEPT = frozenset({"initialized", "$/setTrace", "workspace/didChangeConfiguration"})


@dataclass(frozen=True)
class Answered:
    """The `initialize` request the prelude answered, and its answer."""

    msg_id: int | str
    params: dict[str, Any]
    result: dict[str, Any]


@dataclass(frozen=True)
class Opened:
    """A document the prelude opened and published the diagnostics of."""

    uri: str
    doc: Document


Taken = bytes | Answered | Opened  # a body the server is to handle, or what the prelude did


def _capability(capabilities: Any, path: str) -> Any:
    """pygls' `get_capability`: the value at a dotted path of the client's capabilities
    (JSON names), None where a part is missing."""
    item = capabilities
    for name in path.split("."):
        if not isinstance(item, dict):
            return None
        item = item.get(name)
    return item


def initialize_result(capabilities: dict[str, Any], recorded: dict[str, Any]) -> dict[str, Any]:
    """The answer to `initialize` for a client of `capabilities`: the recorded answer (for
    a client that states nothing), with what pygls' builder derives from the client."""
    result = json.loads(json.dumps(recorded["result"]))  # a copy
    server = result["capabilities"]
    sync = server["textDocumentSync"]
    # pygls: `client's flag and the feature registered`; None (left out) when the client
    # does not state the flag. cint-ls registers neither feature.
    for flag in ("willSave", "willSaveWaitUntil"):
        if _capability(capabilities, f"textDocument.synchronization.{flag}") is not None:
            sync[flag] = bool(_capability(capabilities, f"textDocument.synchronization.{flag}")) and \
                flag in recorded["registered"]
    # LSP: RenameOptions only for a client that states prepareSupport.
    if _capability(capabilities, "textDocument.rename.prepareSupport"):
        server["renameProvider"] = recorded["renameWithPrepareSupport"]
    return result


def _plain_initialize(data: Any) -> bool:
    """An `initialize` request whose params are the shapes LSP gives them: the prelude
    answers only those (any other, the server refuses or answers as pygls does)."""
    if not (isinstance(data, dict) and data.get("jsonrpc") == "2.0" and data.get("method") == "initialize"):
        return False
    msg_id, params = data.get("id"), data.get("params")
    if isinstance(msg_id, bool) or not isinstance(msg_id, (int, str)) or not isinstance(params, dict):
        return False
    client_info = params.get("clientInfo")
    folders = params.get("workspaceFolders")
    return (isinstance(params.get("capabilities"), dict)
            and (params.get("processId") is None or type(params.get("processId")) is int)
            and all(params.get(key) is None or isinstance(params.get(key), str)
                    for key in ("rootUri", "rootPath", "locale"))
            and params.get("trace") in (None, "off", "messages", "verbose")
            and (client_info is None or (isinstance(client_info, dict) and isinstance(client_info.get("name"), str)
                                         and (client_info.get("version") is None or
                                              isinstance(client_info.get("version"), str))))
            and (folders is None or (isinstance(folders, list) and all(
                isinstance(f, dict) and isinstance(f.get("uri"), str) and isinstance(f.get("name"), str)
                for f in folders))))


def _opened(data: Any) -> tuple[str, str, int] | None:
    """(uri, text, version) of a well-formed `textDocument/didOpen` notification."""
    if not (isinstance(data, dict) and data.get("jsonrpc") == "2.0" and "id" not in data
            and data.get("method") == "textDocument/didOpen" and isinstance(data.get("params"), dict)):
        return None
    item = data["params"].get("textDocument")
    if not isinstance(item, dict):
        return None
    uri, text, version, language = item.get("uri"), item.get("text"), item.get("version"), item.get("languageId")
    if not (isinstance(uri, str) and isinstance(text, str) and type(version) is int and isinstance(language, str)):
        return None
    return uri, text, version


def path_of(uri: str) -> str:
    """The path a buffer is analysed under: a file's own, or a module name made from an
    untitled buffer's name or a file name that is no module name (`syntax.buffer_path`)."""
    from pygls.uris import to_fs_path  # no lsprotocol: urllib and re

    from ..syntax import buffer_path

    try:
        path = to_fs_path(uri)
    except Exception:  # noqa: BLE001
        path = None
    return buffer_path(path or uri)


def _warm_up() -> None:
    """Import what the first diagnostics need (on a thread of its own)."""
    from ..ide import diagnostics, document  # noqa: F401
    from . import wire  # noqa: F401


class Prelude:
    """Reads and answers until the hand-over; `taken` is what the server goes on from."""

    def __init__(self, reader: StdinReader, stdout: BinaryIO) -> None:
        self.reader = reader
        self.stdout = stdout
        self.taken: list[Taken] = []
        self._settings = Settings()
        self._capabilities: dict[str, Any] = {}
        self._warming: threading.Thread | None = None
        self._parse: Callable[[str], tree_sitter.Tree] | None = None

    def run(self) -> list[Taken]:
        """Read, answer and publish, blocking (no event loop yet, nor asyncio), until
        the hand-over; what the server takes over, in order."""
        answered = False
        while (body := self.reader.read_message_now()) is not None:
            try:
                data = json.loads(body.decode("utf-8"))
            except ValueError:  # the server answers ParseError and reads on
                self.taken.append(body)
                break
            if not answered:
                if not _plain_initialize(data) or not self._taken_by(self._answer, data):
                    self.taken.append(body)
                    break
                answered = True
            elif isinstance(data, dict) and "id" not in data and data.get("method") in _NOTIFICATIONS_KEPT:
                self.taken.append(body)
                if data.get("method") == "workspace/didChangeConfiguration":
                    self._pushed(data.get("params"))
            else:
                opened = _opened(data)
                if opened is None or not self._taken_by(self._open, *opened):
                    self.taken.append(body)
                break
        return self.taken

    @staticmethod
    def _taken_by(handle: Callable[..., None], *args: Any) -> bool:
        """Whether `handle` did its part; a defect of the prelude leaves the message to
        the server, which has its own ways with a failure (a log message, an error
        answer), rather than ending the session."""
        try:
            handle(*args)
        except Exception:
            logger.exception("the fast start failed: the server takes over")
            return False
        return True

    def _send(self, message: dict[str, Any]) -> None:
        # Written here and now: the server's writer and its thread come with the server.
        self.stdout.write(framed(json.dumps(message).encode("utf-8")))
        self.stdout.flush()

    def _answer(self, data: dict[str, Any]) -> None:
        # Everything that could fail before the answer is sent: after it, nothing may.
        from ..syntax.parser import parse  # the parser now, so that `_open` parses while the thread imports

        params = data["params"]
        settings = self._parsed(params.get("initializationOptions"), self._settings)
        recorded = json.loads(RESULT_FILE.read_text(encoding="utf-8"))
        result = initialize_result(params["capabilities"], recorded)
        self._send({"jsonrpc": "2.0", "id": data["id"], "result": result})
        self.taken.append(Answered(data["id"], params, result))
        self._capabilities, self._settings = params["capabilities"], settings
        # The analysis' imports (about 80 ms) while the client reads the answer and
        # opens its first document; `_open` waits for them. One thread imports at a
        # time: two importing the same modules could meet a partly made one.
        self._parse = parse
        warming = threading.Thread(target=_warm_up, name="cint-warm-up", daemon=True)
        try:
            warming.start()
            self._warming = warming
        except RuntimeError:  # no thread to be had: `_open` imports them itself
            logger.warning("no thread for the imports ahead")

    def _pushed(self, params: Any) -> None:
        """didChangeConfiguration's settings, taken as the server's handler takes them:
        when the client cannot be asked for them (`workspace/configuration`)."""
        if not _capability(self._capabilities, "workspace.configuration") and isinstance(params, dict) and \
                isinstance(params.get("settings"), dict):
            self._taken_by(self._take_settings, params["settings"])

    def _take_settings(self, value: Any) -> None:
        self._settings = self._parsed(value, self._settings)

    @staticmethod
    def _parsed(value: Any, previous: Settings) -> Settings:
        # The server parses them again and logs the warnings.
        return previous if value is None else parse_settings(value, previous=previous)[0]

    def _open(self, uri: str, text: str, version: int) -> None:
        # The parse first: tree-sitter lets go of the GIL while it parses, so the
        # thread's imports go on beside it on another core.
        tree = None
        if self._warming is not None and self._parse is not None:
            tree = self._parse(text)
            self._warming.join()
        from ..ide.diagnostics import diagnostics
        from ..ide.document import Document
        from .wire import diagnostics_json

        doc = Document(uri, text, version, path_of(uri), tree)
        snapshot = doc.snapshot()
        found = diagnostics_json(snapshot, diagnostics(snapshot, self._settings.targets))
        self._send({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
                    "params": {"uri": uri, "diagnostics": found, "version": snapshot.version}})
        self.taken.append(Opened(uri, doc))

