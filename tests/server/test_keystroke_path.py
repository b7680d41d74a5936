"""A keystroke's way from didChange to publishDiagnostics (issue 29: it visited about 15
modules, documents.py and session.py six times each, between a worker, its polling and
the document's lock). Traced in process with `sys.setprofile`, from the handler of
didChange to the session's call of publishDiagnostics: the cint_ls modules the server's code runs in or calls into, and how
often control comes into each of the server's modules from another one of cint_ls (the
loop's own calls, a timer's, do not count). The ide's modules count as the ones the
server calls; what they call below is the ide's business."""

from __future__ import annotations

import asyncio
import sys
from collections import Counter

from lsp_support import conformance
from lsprotocol import types as lsp

from cint_ls.server.handlers import documents
from cint_ls.server.session import Session

LIMIT = 8  # the issue's: at most 8 modules, each once
URI = "file:///keystroke/k.ci"
TEXT = conformance("heat_e1")


class _Client:
    """The session's `Client`, recording the publications."""

    def __init__(self) -> None:
        self.published: list[dict] = []

    def log(self, kind, message) -> None:
        pass

    def publish_diagnostics(self, params: dict) -> None:
        sys.setprofile(None)  # the way ends here
        self.published.append(params)

    def supports(self, path: str) -> bool:
        return True

    async def handled(self) -> None:
        pass


def _module(frame) -> str:
    return frame.f_globals.get("__name__", "") if frame is not None else ""


async def _way(change: lsp.TextDocumentContentChangePartial) -> tuple[list[str], Counter, list]:
    """The modules visited from didChange to its publication, in order; how often each
    of the server's was entered from another cint_ls module; the diagnostics published."""
    client = _Client()
    session = Session(client)
    documents.did_open(session, lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=URI, language_id="cint", version=1, text=TEXT)))
    published = len(client.published)
    visited: list[str] = []
    entered: Counter = Counter()

    def profile(frame, event, arg) -> None:
        if event != "call":
            return
        callee, caller = _module(frame), _module(frame.f_back)
        if not callee.startswith("cint_ls.") or not (callee.startswith("cint_ls.server") or
                                                     caller.startswith("cint_ls.server")):
            return
        if callee not in visited:
            visited.append(callee)
        if caller != callee and caller.startswith("cint_ls.") and callee.startswith("cint_ls.server"):
            entered[callee] += 1

    params = lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=URI, version=2), content_changes=[change])
    sys.setprofile(profile)
    try:
        documents.did_change(session, params)  # the handler of didChange (handlers.ROUTES)
        deadline = asyncio.get_running_loop().time() + 10
        while len(client.published) == published and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.001)
    finally:
        sys.setprofile(None)
        session.close()
    assert client.published[-1]["version"] == 2
    return visited, entered, client.published[-1]["diagnostics"]


def _change(line: int, start: int, end: int, text: str) -> lsp.TextDocumentContentChangePartial:
    return lsp.TextDocumentContentChangePartial(
        range=lsp.Range(start=lsp.Position(line, start), end=lsp.Position(line, end)), text=text)


def test_a_keystroke_visits_at_most_8_modules_each_once():
    line = next(i for i, text in enumerate(TEXT.split("\n")) if text.rstrip().endswith(";"))
    semicolon = TEXT.split("\n")[line].rstrip().rindex(";")
    for change, broken in ((_change(line, 0, 0, " "), False), (_change(line, semicolon, semicolon + 1, ""), True)):
        visited, entered, diagnostics = asyncio.run(_way(change))
        assert bool(diagnostics) == broken
        assert len(visited) <= LIMIT, visited
        assert max(entered.values()) == 1, entered
