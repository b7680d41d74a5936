"""The version of a document a request reads, and its document's lock on the loop.

A request reads one version: `Document.snapshot()` (`ide.Snapshot`), immutable and safe
to read from the worker thread while the loop applies the next edit. Each ide feature
computes on a snapshot holding the document's lock (one per document, shared by its
versions); its results have frozen spans, so the handlers convert them to LSP without
the lock.

The loop must never block on that lock while the worker holds it: `hold` takes it
without blocking the loop (it tries again every HOLD_POLL), and the worker lets go at
its next checkpoint (`scheduling.loop_busy`).
"""

from __future__ import annotations

import asyncio
from contextlib import contextmanager

from ..ide import Document, Snapshot

HOLD_POLL = 0.001  # seconds between tries of a document's lock on the loop


def pin(doc: Document) -> Snapshot:
    """The version a request reads: the document's current version."""
    return doc.snapshot()


async def hold(lock) -> None:
    """Take `lock` on the loop thread without blocking the loop: while the worker holds
    it (it computes on the same document), try again every HOLD_POLL."""
    while not lock.acquire(blocking=False):
        await asyncio.sleep(HOLD_POLL)


@contextmanager
def held(lock):
    """After `hold(lock)` (or a successful `acquire`): release it at the end."""
    try:
        yield
    finally:
        lock.release()
