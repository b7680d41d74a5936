"""Open documents and their diagnostics: didOpen, didChange, didClose, didSave, and
the publication of diagnostics (with the document's version), on the loop thread.

A change makes the document's heavy requests in flight out of date: they answer
ContentModified (`Session.changed`).

An edit that makes a syntax error leaves a provisional tree (`ide.Document.apply`):
error recovery can depend on the old subtrees the incremental parse reused. Parsing the
text again from scratch before answering took 20 ms of a 5,000-line file (180 to 230 ms
at 50,000 lines), with the GIL held, after every such keystroke. So the features answer
from the provisional tree, its diagnostics are published, and then the worker parses
the text again (`confirm`, after the heavy requests that came with the edit). A tree
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
from pygls.exceptions import JsonRpcContentModified
from pygls.uris import to_fs_path

from ... import ide
from ...ide import Document
from ...syntax import buffer_path
from ...syntax.parser import TextEdit, parse_yielding
from ...syntax.source import Position
from .. import convert
from ..heap import settle_heap, trim
from ..pinned import held, pin
from ..scheduling import Stopped, checkpoint, light_in_flight, loop_busy
from ..session import OpenDocument, Session

logger = logging.getLogger("cint_ls.server")

# Seconds from a change to the analysis of the document, and of each step by which a
# publication gives way to messages not handled yet (at most PUBLISH_DEFER steps). 2 ms
# until 2026-12-01: the analysis of every edit now starts 1.5 ms sooner. In three runs
# side by side at 5,000 lines, edit -> diagnostics p50 fell by 0.6-5 ms in VS Code's
# pattern and moved within its runs' spread in Neovim's, as did the token delta.
PUBLISH_DELAY = 0.0005
PUBLISH_DEFER = 100
RETRY_DELAY = 0.002  # seconds between two tries while the worker holds the document


def _path_of(uri: str) -> str:
    """The path a buffer is analysed under: an untitled buffer or a file whose name is
    no module name gets a module name made from its name (`syntax.buffer_path`)."""
    try:
        path = to_fs_path(uri)
    except Exception:  # noqa: BLE001
        path = None
    return buffer_path(path or uri)


def did_open(session: Session, params: lsp.DidOpenTextDocumentParams) -> None:
    item = params.text_document
    session.changed(item.uri)  # reopened without a close: what was asked of the old one is out of date
    doc = Document(item.uri, item.text, item.version, _path_of(item.uri))
    session.documents[item.uri] = OpenDocument(doc)
    publish(session, item.uri)


def did_change(session: Session, params: lsp.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    entry = session.entry(uri)
    if entry is None:
        session.log(lsp.MessageType.Warning, f"cint-ls: didChange for a document that is not open: {uri}")
        return
    changes: list[TextEdit | str] = []
    for change in params.content_changes:
        if isinstance(change, lsp.TextDocumentContentChangePartial):
            r = change.range
            changes.append(TextEdit(Position(r.start.line, r.start.character),
                                    Position(r.end.line, r.end.character), change.text))
        else:
            changes.append(change.text)
    session.changed(uri)
    entry.doc.apply(changes, params.text_document.version, reparse=False)
    entry.fault = []  # a run's fault stays until the document changes
    schedule_publish(session, uri)


def did_close(session: Session, params: lsp.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    session.changed(uri)
    if session.documents.pop(uri, None) is not None and session.client is not None:
        session.client.publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


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
    session.publishing.scheduled(uri)
    loop.call_later(PUBLISH_DELAY, _publish_pending, session, uri)


def _publish_pending(session: Session, uri: str, deferred: int = 0) -> None:
    # Messages that came with the change (a hover after it) are handled first: they
    # wait for nothing else on the loop. At most PUBLISH_DEFER times.
    if deferred < PUBLISH_DEFER and (light_in_flight() or (session.client is not None and session.client.backlog())):
        asyncio.get_running_loop().call_later(PUBLISH_DELAY, _publish_pending, session, uri, deferred + 1)
        return
    session.publishing.pending.discard(uri)
    publish(session, uri)


def publish(session: Session, uri: str) -> None:
    """Publish the diagnostics of the current version of `uri`. While the worker holds
    the document (a heavy request computes on it), try again RETRY_DELAY later; the
    worker lets go at its next checkpoint."""
    entry = session.entry(uri)
    if entry is None:
        _stop_waiting(session, uri)
        session.publishing.published(uri)
        return
    snapshot = pin(entry.doc)
    lock = snapshot.lock
    if not lock.acquire(blocking=False):
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            lock.acquire()
        else:
            _wait_for_worker(session, loop, uri)
            return
    _stop_waiting(session, uri)
    with held(lock):
        try:
            found = [convert.lsp_diagnostic(snapshot, d) for d in ide.diagnostics(snapshot, session.settings.targets)]
        except Exception as error:
            logger.exception("diagnostics failed")
            session.log(lsp.MessageType.Error, f"cint-ls: diagnostics failed: {type(error).__name__}: {error}")
            found = []
    if session.client is not None:
        session.client.publish_diagnostics(lsp.PublishDiagnosticsParams(
            uri=uri, diagnostics=found + entry.fault, version=snapshot.version))
    session.publishing.published(uri)
    if snapshot.provisional and session.publishing.confirming.get(uri) is not snapshot:
        session.publishing.confirming[uri] = snapshot
        asyncio.ensure_future(_confirm(session, uri, snapshot))
    settle_heap(session)


# ---- provisional trees

async def _confirm(session: Session, uri: str, snapshot) -> None:
    """Parse a provisional version again from scratch, on the worker once the heavy
    requests that came with the edit are answered, and make the result the version's
    tree. (They wait for this publication and reach the worker a few turns of the loop
    after it: submitted at once, the parse went first, and the token delta of an edit
    that made an error waited for it.)"""
    try:
        await asyncio.sleep(RETRY_DELAY)
        while session.worker.pending(uri) or uri in session.publishing.pending:
            entry = session.entry(uri)
            if entry is None or entry.doc.snapshot() is not snapshot:
                return
            await asyncio.sleep(RETRY_DELAY)
        tree = await session.worker.run(uri, _parse_again, snapshot.source.data)
    except (asyncio.CancelledError, JsonRpcContentModified):  # the server ends; a newer version came
        return
    except Exception:  # logged; the version keeps its provisional tree
        logger.exception("the parse from scratch failed")
        return
    finally:
        if session.publishing.confirming.get(uri) is snapshot:
            del session.publishing.confirming[uri]
    entry = session.entry(uri)
    if entry is None or tree is None or not entry.doc.confirm(snapshot, tree):
        return
    logger.info("a provisional tree differed from a fresh parse: %s version %s", uri, snapshot.version)
    session.changed(uri)
    if session.client is not None:
        for capability, refresh in (("workspace.semantic_tokens.refresh_support", "refresh_semantic_tokens"),
                                    ("workspace.inlay_hint.refresh_support", "refresh_inlay_hints")):
            if session.supports(capability):
                try:
                    getattr(session.client, refresh)()
                except Exception as error:  # noqa: BLE001 - a refresh is a courtesy
                    logger.info("%s failed: %s", refresh, error)
    schedule_publish(session, uri)


def _parse_again(data: bytes):
    """On the worker: a fresh parse that gives way to the loop and stops when the
    version it is for is superseded (None)."""
    trim()  # the pages freed since the last publication serve the new tree

    def wanted() -> bool:
        try:
            checkpoint()
        except Stopped:
            return False
        return True

    return parse_yielding(data, wanted)


def _wait_for_worker(session: Session, loop: asyncio.AbstractEventLoop, uri: str) -> None:
    waiting = session.publishing.waiting
    if uri not in waiting:
        busy = waiting[uri] = loop_busy()
        busy.__enter__()
    if uri not in session.publishing.pending:
        session.publishing.scheduled(uri)
        loop.call_later(RETRY_DELAY, _publish_pending, session, uri)


def _stop_waiting(session: Session, uri: str) -> None:
    busy = session.publishing.waiting.pop(uri, None)
    if busy is not None:
        busy.__exit__(None, None, None)


def publish_all(session: Session) -> None:
    for uri in list(session.documents):
        publish(session, uri)
