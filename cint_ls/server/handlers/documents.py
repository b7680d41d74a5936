"""Open documents and their diagnostics: didOpen, didChange, didClose, didSave, and
the publication of diagnostics (with the document's version), on the loop thread.

A change makes the document's heavy requests in flight out of date: they answer
ContentModified (`Session.changed`).

An edit that makes a syntax error leaves a provisional tree (`ide.Document.apply`):
error recovery can depend on the old subtrees the incremental parse reused. Parsing the
text again from scratch before answering took 20 ms of a 5,000-line file (180 to 230 ms
at 50,000 lines), with the GIL held, after every such keystroke. So the features answer
from the provisional tree, its diagnostics are published, and then a thread parses the
text again (`_confirm`, in the heavy requests' turn; the parse gives up the GIL at every
chunk it reads). A tree
that differs (one erroneous edit in thousands, benchmarks and tests/syntax) becomes a
new snapshot of the same version: its diagnostics are published again, the requests in
flight answer ContentModified, and the client is asked to refresh its tokens, hints and
lenses. The fresh tree is held beside the provisional one while it is compared (about
40 bytes per byte of text, 53 MB at 50,000 lines): see heap.py for how the server keeps
that within its memory.
"""

from __future__ import annotations

import asyncio
import logging

from lsprotocol import types as lsp

from ... import ide
from ...ide import Document
from ...syntax.parser import parse_yielding
from .. import wire
from ..heap import settle_heap, trim
from ..prelude import path_of
from ..session import OpenDocument, Session, generations

logger = logging.getLogger("cint_ls.server")

# Seconds from a change to the analysis of the document: the changes that arrived with
# it are applied first, and analysed once.
PUBLISH_DELAY = 0.0005


def _changed(session: Session, uri: str) -> None:
    """`uri` changed (or closed): its heavy requests in flight are out of date (they
    answer ContentModified at their next step), and its lenses may have moved."""
    entry = session.documents.get(uri)
    if entry is not None:
        entry.generation = next(generations)
    session.lens_refresh.changed(uri)


def did_open(session: Session, params: lsp.DidOpenTextDocumentParams) -> None:
    item = params.text_document
    _changed(session, item.uri)  # reopened without a close: what was asked of the old one is out of date
    doc = Document(item.uri, item.text, item.version, path_of(item.uri))
    session.documents[item.uri] = OpenDocument(doc)
    publish(session, item.uri)


def adopt(session: Session, uri: str, doc: Document) -> None:
    """A document the fast start (prelude.py) opened and published the diagnostics of:
    the session holds it as `did_open` would have left it."""
    _changed(session, uri)
    session.documents[uri] = OpenDocument(doc)
    settle_heap(session)


def did_change(session: Session, params: lsp.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    entry = session.documents.get(uri)
    if entry is None:
        session.log(lsp.MessageType.Warning, f"cint-ls: didChange for a document that is not open: {uri}")
        return
    changes: list[tuple[int, int, int, int, str] | str] = []
    for change in params.content_changes:
        if isinstance(change, lsp.TextDocumentContentChangePartial):
            r = change.range
            changes.append((r.start.line, r.start.character, r.end.line, r.end.character, change.text))
        else:
            changes.append(change.text)
    _changed(session, uri)
    entry.doc.apply(changes, params.text_document.version, reparse=False)
    entry.fault = []  # a run's fault stays until the document changes
    schedule_publish(session, uri)


def did_close(session: Session, params: lsp.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    _changed(session, uri)
    if session.documents.pop(uri, None) is not None and session.client is not None:
        session.client.publish_diagnostics({"uri": uri, "diagnostics": []})


def did_save(session: Session, params: lsp.DidSaveTextDocumentParams) -> None:
    pass


# ---- diagnostics

def schedule_publish(session: Session, uri: str) -> None:
    """Publish the diagnostics PUBLISH_DELAY after a change: the changes that arrive
    meanwhile (those that queued up while the previous analysis ran, when someone
    types faster than the file is analysed) are analysed once, in their newest
    version."""
    pending = session.publishing.pending
    if uri in pending:
        return
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        publish(session, uri)
        return
    pending.add(uri)
    published = session.publishing.published.get(uri)
    if published is not None:
        published.clear()
    loop.call_later(PUBLISH_DELAY, _publish_pending, session, uri)


def _publish_pending(session: Session, uri: str) -> None:
    session.publishing.pending.discard(uri)
    publish(session, uri)


def publish(session: Session, uri: str) -> None:
    """Publish the diagnostics of the current version of `uri`."""
    entry = session.documents.get(uri)
    if entry is None:
        _published(session, uri)
        return
    snapshot = entry.doc.snapshot()
    try:
        found = wire.diagnostics_json(snapshot, ide.diagnostics(snapshot, session.settings.targets))
    except Exception as error:
        logger.exception("diagnostics failed")
        session.log(lsp.MessageType.Error, f"cint-ls: diagnostics failed: {type(error).__name__}: {error}")
        found = []
    if session.client is not None:
        session.client.publish_diagnostics({"uri": uri, "diagnostics": found + entry.fault,
                                            "version": snapshot.version})
    _published(session, uri)
    if snapshot.provisional and session.publishing.confirming.get(uri) is not snapshot:
        session.publishing.confirming[uri] = snapshot
        asyncio.ensure_future(_confirm(session, uri, entry.generation, snapshot))
    settle_heap(session)


def _published(session: Session, uri: str) -> None:
    if uri not in session.publishing.pending:
        event = session.publishing.published.pop(uri, None)
        if event is not None:
            event.set()


async def settled(session: Session, uri: str) -> None:
    """Return once no publication of `uri` is pending: a heavy request on a new version
    starts after its diagnostics, so the person sees them first."""
    if uri in session.publishing.pending:
        await session.publishing.published.setdefault(uri, asyncio.Event()).wait()


# ---- provisional trees

async def _confirm(session: Session, uri: str, generation: int, snapshot) -> None:
    """Parse a provisional version again from scratch, on a thread, in the heavy
    requests' turn (after those that came with the edit: they answer first), and make
    the result the version's tree; the parse stops when the document changes meanwhile."""
    def wanted() -> bool:  # asked from the thread
        return session.current(uri, generation) is not None

    try:
        async with session.heavy:
            tree = await asyncio.to_thread(_parse_again, snapshot.source.data, wanted) if wanted() else None
    except asyncio.CancelledError:  # the server ends
        return
    except Exception:  # logged; the version keeps its provisional tree
        logger.exception("the parse from scratch failed")
        return
    finally:
        if session.publishing.confirming.get(uri) is snapshot:
            del session.publishing.confirming[uri]
    entry = session.documents.get(uri)
    if entry is None or tree is None or not entry.doc.confirm(snapshot, tree):
        return
    logger.info("a provisional tree differed from a fresh parse: %s version %s", uri, snapshot.version)
    _changed(session, uri)
    if session.client is not None:
        for capability, refresh in (("workspace.semantic_tokens.refresh_support", "refresh_semantic_tokens"),
                                    ("workspace.inlay_hint.refresh_support", "refresh_inlay_hints")):
            if session.supports(capability):
                try:
                    getattr(session.client, refresh)()
                except Exception as error:  # noqa: BLE001 - a refresh is a courtesy
                    logger.info("%s failed: %s", refresh, error)
    schedule_publish(session, uri)


def _parse_again(data: bytes, wanted):
    """On a thread: a fresh parse, None when `wanted()` turns false meanwhile."""
    trim()  # the pages freed since the last publication serve the new tree
    return parse_yielding(data, wanted)


def publish_all(session: Session) -> None:
    for uri in list(session.documents):
        publish(session, uri)
