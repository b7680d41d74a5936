"""The LSP fuzzer (fuzz/lsp.py, issue 13): a short fixed-seed run finds no
crash, deafness, unanswered request or text mismatch; its model of a document follows
LSP's rules; its check does catch a server whose text drifts; and the regressions it
found stay fixed. The long runs are `python -m fuzz.lsp --steps N --seed S`."""

from __future__ import annotations

import time

import pytest

import fuzz.lsp
from fuzz.lsp_raw import RawServer


def test_short_run_finds_nothing():
    # Seed 2's first 700 steps include two shutdowns while a run is in flight.
    stats = fuzz.lsp.fuzz(seed=2, steps=700, quiet=True)
    assert not stats.failures, stats.failures
    assert stats.steps == 700 and stats.restarts >= 1
    assert stats.answered == stats.requests
    assert stats.kinds["framing"] and stats.kinds["cancel_storm"] and stats.kinds["edit"] > 200


def _range(a, b, c, d):
    return {"start": {"line": a, "character": b}, "end": {"line": c, "character": d}}


def test_model_follows_lsp():
    # A lone \r ends a line (issue 13, item 7's example).
    assert fuzz.lsp.apply_change("void f() {}\rvoid g() {}\r", {"range": _range(1, 5, 1, 6), "text": "h"}) == \
        "void f() {}\rvoid h() {}\r"
    # CRLF is one line end; a character past the line's end is the line's end.
    assert fuzz.lsp.apply_change("ab\r\ncd", {"range": _range(0, 9, 1, 1), "text": ""}) == "abd"
    # UTF-16 units; inside a surrogate pair means after it; past the last line: the end.
    assert fuzz.lsp.apply_change("😀x", {"range": _range(0, 1, 0, 1), "text": "-"}) == "😀-x"
    assert fuzz.lsp.apply_change("😀x", {"range": _range(0, 2, 0, 3), "text": ""}) == "😀"
    assert fuzz.lsp.apply_change("a\nb", {"range": _range(7, 0, 0, 1), "text": "!"}) == "a!"
    # An escaped pair is one character; a lone surrogate is U+FFFD.
    assert fuzz.lsp.apply_change("", {"text": "\ud83d\ude00\ud800"}) == "😀\ufffd"


def test_check_catches_a_drift():
    fuzzer = fuzz.lsp.Fuzzer(seed=5)
    fuzzer.start()
    try:
        fuzzer.check()
        doc = fuzzer.docs[0]
        fuzzer._notify("textDocument/didChange", {"textDocument": {"uri": doc.uri, "version": 99},
                                                  "contentChanges": [{"text": "drift"}]})
        fuzzer.stats.steps = 0  # checks docs[0]
        with pytest.raises(fuzz.lsp.Failure, match="text mismatch"):
            fuzzer.check()
    finally:
        fuzzer.stop()


@pytest.mark.parametrize("text", [None, 5, ["x"]])
def test_change_whose_text_is_not_a_string_is_dropped(text):
    # Found by the fuzzer: cattrs made `null` the text "None" and 5 the text "5".
    server = RawServer(["--test-hooks"])
    try:
        server.initialize()
        uri = "file:///fuzz/strict.ci"
        server.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "cint", "version": 1,
                                                                "text": "void f() {}\n"}})
        server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                                 "contentChanges": [{"text": text}]})
        answer = server.call("cint/test/documentText", {"uri": uri})
        assert answer["result"] == {"text": "void f() {}\n", "version": 1}
    finally:
        server.kill()


def test_request_cancelled_at_shutdown_is_no_failure():
    # Issue 28, finding 10: `shutdown` answers every request still in flight
    # RequestCancelled (docs/server.md), whatever its kind; the fuzzer took that answer
    # for a failure when the kind allows no error (a hover, wrong params). Here such a
    # request is a run of an endless loop expected to answer a result: in flight at
    # shutdown, it is cancelled, and that is right.
    fuzzer = fuzz.lsp.Fuzzer(seed=7)
    fuzzer.start()
    try:
        uri = "file:///fuzz/spin-before.ci"
        fuzzer._notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "cint", "version": 1,
                                                                 "text": fuzz.lsp.LOOP}})
        run = fuzzer._request("workspace/executeCommand", {"command": "cint.run", "arguments": [uri]}, allowed=())
        fuzzer._step_shutdown()  # the shutdown step's own run, shutdown, exit, a fresh server
        assert run not in fuzzer.expected and fuzzer.stats.cancelled == 2 and fuzzer.stats.restarts == 1
        # Before a shutdown, RequestCancelled to a request that allows no error is a failure.
        fuzzer.expected["early"] = fuzz.lsp.Expected("textDocument/hover", time.monotonic(), frozenset())
        with fuzzer.server._changed:
            fuzzer.server.responses["early"] = {"jsonrpc": "2.0", "id": "early",
                                                "error": {"code": fuzz.lsp.CANCELLED, "message": "cancelled"}}
        with pytest.raises(fuzz.lsp.Failure, match="textDocument/hover early answered"):
            fuzzer._collect()
    finally:
        fuzzer.stop()
