"""The server keeps nothing per notification and nothing of a closed document (issue 28,
finding 2): pygls kept the Future of every didOpen, didChange and didClose in its
`_request_futures` for good (RSS 48 -> 77 MB over 15,000 edits, 57 -> 97 MB over 12,000
open/close pairs). Driven over raw stdio (`fuzz/lsp_raw.py`), the tables read with
the test-only request `cint/test/tables` of `cint-ls --test-hooks`."""

from __future__ import annotations

import time

import pytest

from fuzz.lsp_raw import Deaf, RawServer

TEXT = "void f() {\n    I64 x = 1;\n}\nf();\n"
# What a client that refreshes tokens, hints and lenses says (the lens checks keep a
# layout and a timer per document), and asks for configuration.
CAPABILITIES = {"workspace": {"configuration": True, "codeLens": {"refreshSupport": True},
                              "semanticTokens": {"refreshSupport": True}, "inlayHint": {"refreshSupport": True}}}


def _at(character: int) -> dict:
    return {"line": 1, "character": character}


# Four edits that leave the text as it was: a syntax error made and mended (a
# provisional tree, parsed again from scratch), a name lengthened and shortened.
EDITS = ({"range": {"start": _at(4), "end": _at(4)}, "text": "("},
         {"range": {"start": _at(4), "end": _at(5)}, "text": ""},
         {"range": {"start": _at(9), "end": _at(9)}, "text": "y"},
         {"range": {"start": _at(9), "end": _at(10)}, "text": ""})


def _open(server: RawServer, uri: str) -> None:
    server.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "cint", "version": 1,
                                                            "text": TEXT}})


def _edit(server: RawServer, uri: str, count: int, version: int) -> int:
    """`count` didChange notifications from `version` on; the next version."""
    for i in range(count):
        server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version + i},
                                                 "contentChanges": [EDITS[i % len(EDITS)]]})
    return version + count


def _open_and_close(server: RawServer, count: int, tag: str) -> None:
    for i in range(count):
        uri = f"file:///cint-ls-tests/leaks/{tag}{i}.ci"
        _open(server, uri)
        server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})


def _tables(server: RawServer) -> dict:
    return server.call("cint/test/tables", {}, timeout=60)["result"]


def _settled(server: RawServer, expected: dict, limit: float = 10.0) -> dict:
    """The tables once they are `expected` (publications, confirmations and lens
    checks of the last edits finish a moment after them), or as they are after `limit`."""
    tables = _tables(server)  # after every message sent before it
    deadline = time.monotonic() + limit
    while tables != expected and time.monotonic() < deadline:
        time.sleep(0.05)
        tables = _tables(server)
    return tables


def _empty_after_initialize(server: RawServer) -> dict:
    """The tables once the client has answered the server's requests of `initialized`
    (configuration, registration): empty, if nothing of `initialize` is left behind."""
    server.initialize(CAPABILITIES)
    return _settled(server, dict.fromkeys(_tables(server), 0))


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS")) / 1024


def _text(server: RawServer, uri: str) -> dict:
    return server.call("cint/test/documentText", {"uri": uri}, timeout=60)["result"]


def test_document_notifications_leave_no_future_behind():
    server = RawServer(["--test-hooks"])
    try:
        start = _empty_after_initialize(server)
        uri = "file:///cint-ls-tests/leaks/typed.ci"
        _open(server, uri)
        version = _edit(server, uri, 10_000, 2)
        assert _text(server, uri) == {"text": TEXT, "version": version - 1}  # all 10,000 applied
        with_one = _settled(server, {**start, "documents": 1, "lensRefresh.layouts": 1})
        assert with_one["requestFutures"] == start["requestFutures"], with_one  # 10,001 more
        assert with_one == {**start, "documents": 1, "lensRefresh.layouts": 1}
        server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        _open_and_close(server, 500, "pair")
        # Nothing of a closed document is kept, and no notification's future.
        assert _settled(server, start) == start
        # The requests of the client still come and go (an executeCommand runs as a
        # step of pygls' built-in handler: a future of its own, under a key of pygls').
        answer = server.call("workspace/executeCommand", {"command": "cint.run", "arguments": [uri]}, timeout=60)
        assert "error" in answer or "result" in answer
        assert _settled(server, start) == start
        assert start == dict.fromkeys(start, 0)  # nor anything of `initialize`
        assert server.call("shutdown", timeout=60)["result"] is None
        server.notify("exit")
        assert server.proc.wait(20) == 0
    except Deaf:
        pytest.fail(f"the server did not answer (status {server.proc.poll()})")
    finally:
        server.kill()


@pytest.mark.slow
def test_document_notifications_keep_the_servers_rss_flat():
    # The real server's resident memory (/proc/PID/status VmRSS): after a warm-up
    # (imports, the allocator's arena, the first parses), 15,000 edits and then 12,000
    # open/close pairs each grow it by less than 8 MB (they grew it by 28 and 40 MB; on a
    # loaded machine the notifications wait in a longer queue: 5.2 MB once, 2026-12-03).
    server = RawServer(["--test-hooks"])
    try:
        start = {**_empty_after_initialize(server), "documents": 1, "lensRefresh.layouts": 1}  # one open
        uri = "file:///cint-ls-tests/leaks/rss.ci"
        _open(server, uri)
        version = _edit(server, uri, 2_000, 2)
        _open_and_close(server, 1_000, "warm")
        _settled(server, start)  # the tables are test_document_notifications_leave_no_future_behind's
        before = _rss_mb(server.proc.pid)
        _edit(server, uri, 15_000, version)
        _settled(server, start)
        after_edits = _rss_mb(server.proc.pid)
        assert after_edits - before < 8, f"15,000 edits: RSS {before:.1f} -> {after_edits:.1f} MB"
        _open_and_close(server, 12_000, "pair")
        _settled(server, start)
        after_pairs = _rss_mb(server.proc.pid)
        assert after_pairs - after_edits < 8, f"12,000 open/close pairs: RSS {after_edits:.1f} -> {after_pairs:.1f} MB"
    finally:
        server.kill()


class _Slow(RawServer):
    """A client that does not answer `window/workDoneProgress/create` (until the test
    does, late)."""

    def _received(self, message: dict) -> None:
        if message.get("method") == "window/workDoneProgress/create":
            with self._changed:
                self.server_requests.append(message)
                self._changed.notify_all()
            return
        super()._received(message)


@pytest.mark.slow
def test_a_request_the_client_never_answers_leaves_no_future_behind():
    # A Run asks for a progress token and waits 5 s at most: then it runs without one.
    # pygls kept the unanswered request's future and result type for good, and the
    # client's late answer failed (InvalidStateError, an Error log message).
    server = _Slow(["--test-hooks"])
    try:
        server.initialize({"window": {"workDoneProgress": True}})
        start = _settled(server, dict.fromkeys(_tables(server), 0))
        uri = "file:///cint-ls-tests/leaks/run.ci"
        _open(server, uri)
        answer = server.call("workspace/executeCommand", {"command": "cint.run", "arguments": [uri]}, timeout=60)
        assert "result" in answer, answer
        asked = server.wait_for(lambda: [m for m in server.server_requests
                                         if m["method"] == "window/workDoneProgress/create"])
        assert _settled(server, {**start, "documents": 1}) == {**start, "documents": 1}
        server.message({"jsonrpc": "2.0", "id": asked[0]["id"], "result": None})  # late
        assert _text(server, uri)["text"] == TEXT  # the server goes on
        errors = [m for m in server.notifications
                  if m["method"] == "window/logMessage" and m["params"]["type"] == 1]
        assert errors == []
    finally:
        server.kill()
