"""What a heavy request reads of a document, taken on the loop thread for the worker.

`pin(doc)` is `doc.snapshot()` when `ide.Document` has one (a thread-safe view of one
version). Without it, `PinnedDocument` takes the current version's text, source, tree
(a copy: the next edit edits the document's own tree in place), syntax and analysis on
the loop thread, where edits happen, so that the worker never computes anything on the
`Document` itself; the IR of a kernel is lowered from the pinned analysis into the
view's own table. Parts of the analysis are shared with later versions (spans move with
their item's anchor), so a view is only good while its document has not changed: a
heavy request whose document changed is answered ContentModified, never with what the
worker computed.
"""

from __future__ import annotations

import asyncio
from contextlib import contextmanager, nullcontext
from typing import Any

from ..ide import Document


def pin(doc: Document) -> Any:
    snapshot = getattr(doc, "snapshot", None)
    if callable(snapshot):
        return snapshot()
    return PinnedDocument(doc)


def pin_light(doc: Document) -> Any:
    """The version a light request reads on the loop: the snapshot where there is one,
    else the document itself (nothing else edits it while the loop computes)."""
    snapshot = getattr(doc, "snapshot", None)
    return snapshot() if callable(snapshot) else doc


def reading(doc: Any):
    """A context in which the spans of `doc`'s results can be read: the version's
    `reading()` (its document's lock, the version's anchors in place) where the ide has
    one, else nothing to hold. Handlers convert ide results to LSP inside it."""
    read = getattr(doc, "reading", None)
    if read is None:
        snapshot = getattr(doc, "snapshot", None)
        read = getattr(snapshot(), "reading", None) if callable(snapshot) else None
    return read() if callable(read) else nullcontext()


def lock_of(doc: Any):
    """The lock the ide holds while it computes on `doc` (one per document, shared by
    its versions), or None where the ide has none."""
    lock = getattr(doc, "lock", None)
    if lock is None:
        snapshot = getattr(doc, "snapshot", None)
        lock = getattr(snapshot(), "lock", None) if callable(snapshot) else None
    return lock if hasattr(lock, "acquire") else None


HOLD_POLL = 0.001  # seconds between tries of a document's lock on the loop


async def hold(lock) -> None:
    """Take `lock` on the loop thread without blocking the loop: while the worker holds
    it (it computes on the same document), try again every HOLD_POLL; the worker lets
    go at its next checkpoint when the loop is busy (`scheduling.loop_busy`)."""
    if lock is None:
        return
    while not lock.acquire(blocking=False):
        await asyncio.sleep(HOLD_POLL)


@contextmanager
def held(lock):
    """After `hold(lock)`: release it at the end of the block."""
    try:
        yield
    finally:
        if lock is not None:
            lock.release()


class PinnedDocument:
    """The reading side of `ide.Document` for one version (what `cint_ls.ide` reads:
    uri, path, version, text, source, tree, syntax, module, checked, diagnostics,
    kernel_ir)."""

    def __init__(self, doc: Document) -> None:
        self.uri = doc.uri
        self.path = doc.path
        self.version = doc.version
        self.source = doc.source
        self.text = self.source.text
        tree = doc.tree
        copy = getattr(tree, "copy", None)
        self.tree = copy() if callable(copy) else tree
        self.syntax = doc.syntax
        self.module = self.syntax.module
        self.checked = doc.checked
        self.diagnostics = self.checked.diagnostics
        known = getattr(doc, "_kernels", None)
        self._kernels: dict[str, Any] = dict(known) if isinstance(known, dict) else {}
        self.lowered: dict[str, Any] = {}  # kernels lowered by the worker, for `keep_kernels`

    def offset(self, position) -> int:
        return self.source.offset(position)

    def position(self, offset: int):
        return self.source.position(offset)

    def kernel_ir(self, name: str):
        if name not in self._kernels:
            # Document's own lowering, on the pinned analysis (it reads `self.checked`).
            kernel = Document._lower_kernel(self, name)  # type: ignore[arg-type]
            self._kernels[name] = self.lowered[name] = kernel
        return self._kernels[name]


def keep_kernels(view: Any, doc: Document) -> None:
    """On the loop thread, after a heavy request of an unchanged document: the kernels
    its worker lowered go to the document's own table, for the hovers that follow."""
    lowered = getattr(view, "lowered", None)
    table = getattr(doc, "_kernels", None)
    if lowered and isinstance(table, dict):
        for name, kernel in lowered.items():
            table.setdefault(name, kernel)
