"""`workspace/codeLens/refresh` when a document's code lenses may have moved.

A client that asks for lenses only now and then (Neovim asks on attach and on write)
goes on showing them where they were: after two lines are inserted above a Run lens,
running the lens under the cursor finds none. The refresh request makes every client
that declares `workspace.codeLens.refreshSupport` ask again.

After a change, once the document has been quiet for REFRESH_DELAY (a burst of typing
makes one check, after its diagnostics are published), the document's lens layout
(each lens's line, title, command and arguments) is computed on the loop and compared
with the layout of the previous check; a difference sends one refresh (the request is
for the whole workspace). Lenses are memoized per version by the ide, so the client's
codeLens request that follows costs nothing more. The first check after a didOpen only
records the layout: the client asks for lenses of a document it opens anyway.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Protocol

from .. import ide
from ..running.run import simulated_executors

logger = logging.getLogger("cint_ls.server")

REFRESH_DELAY = 0.3  # seconds of quiet after a change before its lenses are compared


class _Session(Protocol):
    """What the refresh reads of the session (session.py's Session, which makes it: so
    named here by what it does, not imported)."""

    client: Any

    def supports(self, path: str) -> bool: ...

    def entry(self, uri: str) -> Any: ...

    def executors(self) -> list[str]: ...

    def client_says(self, flag: str) -> bool: ...


class LensRefresh:
    def __init__(self, session: _Session) -> None:
        self.session = session
        self.layouts: dict[str, tuple] = {}  # uri -> the layout of the last check
        self.timers: dict[str, asyncio.TimerHandle] = {}
        self.sent = 0  # refresh requests sent (tests, logs)

    def changed(self, uri: str) -> None:
        """`uri` changed, opened or closed: check its lenses once it is quiet."""
        if not self.session.supports("workspace.code_lens.refresh_support"):
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop: unit tests of the session
            return
        timer = self.timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        self.timers[uri] = loop.call_later(REFRESH_DELAY, self._check, uri)

    def _check(self, uri: str) -> None:
        self.timers.pop(uri, None)
        entry = self.session.entry(uri)
        if entry is None:  # closed
            self.layouts.pop(uri, None)
            return
        executors = self.session.executors()
        simulated = simulated_executors(executors)  # the façade's forecast (the ide's lenses ask no probe)
        try:
            layout = tuple((lens.span.line, lens.title, lens.command, lens.arguments)
                           for lens in ide.code_lenses(entry.doc.snapshot(), executors, simulated,
                                                       self.session.client_says("debug")))
        except Exception:  # logged; a refresh is a courtesy, the lenses' own request reports errors
            logger.exception("code lens layout failed")
            return
        before = self.layouts.get(uri)
        self.layouts[uri] = layout
        if before is None or before == layout:
            return
        client = self.session.client
        if client is None:
            return
        try:
            client.workspace_code_lens_refresh(None)
            self.sent += 1
        except Exception as error:  # noqa: BLE001 - a closing connection
            logger.info("workspace/codeLens/refresh failed: %s", error)
