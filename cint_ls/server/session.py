"""The state of a cint-ls session, passed explicitly to every handler: the open
documents, the settings, the run pool and its cancellations.

Nothing here imports pygls' server: the session talks to the client through `Client`,
which the pygls shim (`protocol.py`) implements. The handlers (`handlers/`) are plain
functions of (session, params).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import threading
import traceback
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

from lsprotocol import types as lsp

from ..ide import Document
from .lens_refresh import LensRefresh
from .runs import implemented_executors, keep_spare
from .settings import Settings

logger = logging.getLogger("cint_ls.server")


class Client(Protocol):
    """What the session needs of the connection to the client. Every method is called
    on the event loop's thread."""

    def log(self, kind: lsp.MessageType, message: str) -> None: ...

    def notify(self, method: str, params: Any) -> None: ...

    def publish_diagnostics(self, params: dict[str, Any]) -> None:
        """`textDocument/publishDiagnostics` with its params as JSON (`wire`)."""
        ...

    def supports(self, path: str) -> bool:
        """Whether the client's capabilities have `path` (`"workspace.configuration"`)."""
        ...

    def request_id(self) -> Any:
        """The id of the request being handled (None in a notification)."""
        ...

    async def handled(self) -> None:
        """Return once every message that has arrived is handled and every answer
        written is out."""
        ...

    async def configuration(self, section: str, timeout: float) -> list: ...

    async def register_configuration(self, section: str) -> None: ...

    def refresh_inlay_hints(self) -> None: ...

    async def show_document(self, uri: str, selection: lsp.Range, timeout: float) -> lsp.ShowDocumentResult:
        """`window/showDocument` with `selection` selected, taking the focus."""
        ...

    def refresh_semantic_tokens(self) -> None: ...

    def workspace_code_lens_refresh(self, params: None) -> Any:
        """`workspace/codeLens/refresh` (pygls' own method, so the shim needs none)."""
        ...

    async def create_progress(self, token: str, timeout: float) -> None: ...

    def progress_begin(self, token: Any, begin: lsp.WorkDoneProgressBegin) -> None: ...

    def progress_end(self, token: Any, end: lsp.WorkDoneProgressEnd) -> None: ...

    def progress_cancelled(self, token: Any) -> bool:
        """Whether the client cancelled the progress `token` (thread-safe)."""
        ...


generations = itertools.count(1)  # handlers/documents.py numbers each new version


class Serialized:
    """A request's result already serialized (`fragments`): sent as it is."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


class OpenDocument:
    """An open document, the diagnostic of its last run's fault, its generation (a
    number no other version of any document has: what a heavy request compares to know
    whether its answer is current), and the last semantic tokens sent for it (result id
    and data, for deltas)."""

    __slots__ = ("doc", "fault", "generation", "tokens")

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.fault: list[dict[str, Any]] = []  # as JSON (`convert.fault_diagnostic_json`)
        self.generation = next(generations)
        self.tokens: tuple[str, list[int]] | None = None


class Session:
    def __init__(self, client: Client | None = None) -> None:
        self.client = client
        self.documents: dict[str, OpenDocument] = {}
        self.settings = Settings()
        self.cancels: dict[Any, threading.Event] = {}  # request id -> its run's cancel event
        self.stopping = threading.Event()
        self.run_pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="cint-run")
        # Held by the heavy request whose steps run (handlers.serve_heavy): taken in turn,
        # the first asked is answered first, as a client that pipelines them waits for it.
        self.heavy = asyncio.Lock()
        self.publishing = Publishing()
        self.lens_refresh = LensRefresh(self)
        self._executors: list[str] | None = None
        self._result_ids = 0

    # ---- the client

    def log(self, kind: lsp.MessageType, message: str) -> None:
        try:
            if self.client is None:
                raise RuntimeError("no client")
            self.client.log(kind, message)
        except Exception:  # noqa: BLE001 - no transport (tests, shutdown)
            logger.log(logging.ERROR if kind == lsp.MessageType.Error else logging.INFO, "%s", message)

    def failed(self, method: str, error: BaseException) -> None:
        """A handler's exception as an Error log message naming the request and the place."""
        logger.error("%s failed", method, exc_info=error)
        where = traceback.extract_tb(error.__traceback__)[-1] if error.__traceback__ else None
        place = f" ({where.filename}:{where.lineno})" if where is not None else ""
        self.log(lsp.MessageType.Error, f"cint-ls: {method} failed: {type(error).__name__}: {error}{place}")

    def supports(self, path: str) -> bool:
        return self.client is not None and self.client.supports(path)

    async def handled(self) -> None:
        """Return once every message from the client that has arrived is handled and
        every answer written is out."""
        if self.client is not None:
            await self.client.handled()

    # ---- documents

    def entry(self, uri: str) -> OpenDocument | None:
        return self.documents.get(uri)

    def document(self, uri: str) -> Document | None:
        entry = self.documents.get(uri)
        return None if entry is None else entry.doc

    def current(self, uri: str, generation: int) -> OpenDocument | None:
        """The open document `uri` if it has not changed since `generation`."""
        entry = self.documents.get(uri)
        return entry if entry is not None and entry.generation == generation else None

    def client_says(self, flag: str) -> bool:
        """Whether the client states `capabilities.experimental.cint.<flag>: true`: a
        command of its own it runs (`setTargets`, `debug`)."""
        caps = getattr(getattr(self.client, "protocol", None), "client_capabilities", None)
        experimental = getattr(caps, "experimental", None)
        cint = experimental.get("cint") if isinstance(experimental, dict) else None
        return isinstance(cint, dict) and cint.get(flag) is True

    def executors(self) -> list[str]:
        if self._executors is None:
            self._executors = implemented_executors()
        return self._executors

    def tables(self) -> dict[str, int]:
        """The sizes of the session's tables that hold something per document or per
        request: back to their size once the documents close and the requests are
        answered (`cint-ls --test-hooks`, tests/server/test_leaks.py)."""
        publishing = self.publishing
        return {"documents": len(self.documents), "cancels": len(self.cancels),
                "publishing.pending": len(publishing.pending), "publishing.confirming": len(publishing.confirming),
                "publishing.published": len(publishing.published),
                "lensRefresh.layouts": len(self.lens_refresh.layouts), "lensRefresh.timers": len(self.lens_refresh.timers)}

    def next_result_id(self) -> str:
        self._result_ids += 1
        return str(self._result_ids)

    # ---- the end

    def stop(self) -> None:
        """shutdown/exit: stop the runs (their children die)."""
        self.stopping.set()
        keep_spare(False)  # the child kept ready for the next Run goes now, and no other starts
        for event in list(self.cancels.values()):
            event.set()

    def close(self) -> None:
        self.stop()
        self.run_pool.shutdown(wait=False, cancel_futures=True)


class Publishing:
    """The state of diagnostics publication (handlers/documents.py, which changes it):
    the documents whose publication is scheduled, the count of publications and the
    idle collection."""

    def __init__(self) -> None:
        self.pending: set[str] = set()
        self.confirming: dict[str, Any] = {}  # uri -> the provisional snapshot being parsed again
        self.count = 0
        self.idle_collect: Any = None  # asyncio.TimerHandle
        self.published: dict[str, asyncio.Event] = {}  # uri -> set once no publication of it is pending
