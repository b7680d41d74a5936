"""The lifecycle of LSP over raw stdin (issue 13, items 6 and 9): requests before
`initialize` get ServerNotInitialized, a second `initialize` and requests after
`shutdown` get InvalidRequest, notifications then are dropped, batches are answered
InvalidRequest; `shutdown` while runs are in flight answers every request, leaves no
child, and `exit` ends the server at once with status 0 and no traceback. The child the
server keeps started for the next Run goes at shutdown and with the server."""

from __future__ import annotations

import time

from fuzz.lsp_raw import RawServer, descendants, encode, frame, left_running

SERVER_NOT_INITIALIZED, INVALID_REQUEST, REQUEST_CANCELLED = -32002, -32600, -32800
URI = "file:///cint-ls-tests/lifecycle.ci"
HOVER = {"textDocument": {"uri": URI}, "position": {"line": 0, "character": 0}}
LOOP = """void spin() {
    I64 i = 0;
    while (true) {
        i = i +% 1;
    }
}
spin();
"""


def _open(server, text: str, uri: str = URI) -> None:
    server.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "cint", "version": 1,
                                                            "text": text}})


def _code(answer: dict) -> int:
    return answer["error"]["code"]


def test_requests_before_initialize_and_a_second_initialize():
    server = RawServer(["--test-hooks"])
    try:
        assert _code(server.call("textDocument/hover", HOVER)) == SERVER_NOT_INITIALIZED
        assert _code(server.call("shutdown")) == SERVER_NOT_INITIALIZED
        _open(server, "void f() {}\n")  # a notification before initialize: dropped
        server.notify("$/cancelRequest", {"id": 1})
        assert "capabilities" in server.initialize()["result"]
        assert server.call("cint/test/documentText", {"uri": URI})["result"] is None
        again = server.call("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
        assert _code(again) == INVALID_REQUEST
        _open(server, "void f() {}\n")
        assert server.call("cint/test/documentText", {"uri": URI})["result"]["text"] == "void f() {}\n"
        assert server.call("shutdown")["result"] is None
        server.notify("exit")
        assert server.proc.wait(20) == 0
    finally:
        server.kill()


def test_requests_after_shutdown_get_invalid_request_and_notifications_are_dropped():
    server = RawServer(["--test-hooks"])
    try:
        server.initialize()
        _open(server, "void f() {}\n")
        assert server.call("shutdown")["result"] is None
        assert _code(server.call("textDocument/hover", HOVER)) == INVALID_REQUEST
        assert _code(server.call("cint/test/documentText", {"uri": URI})) == INVALID_REQUEST
        assert _code(server.call("shutdown")) == INVALID_REQUEST
        server.notify("textDocument/didClose", {"textDocument": {"uri": URI}})
        assert _code(server.call("initialize", {"processId": None, "capabilities": {}})) == INVALID_REQUEST
        server.notify("exit")
        assert server.proc.wait(20) == 0
    finally:
        server.kill()


def test_batches_are_answered_invalid_request():
    server = RawServer()
    try:
        server.initialize()
        batch = [{"jsonrpc": "2.0", "id": 7, "method": "textDocument/hover", "params": HOVER},
                 {"jsonrpc": "2.0", "method": "initialized", "params": {}}, 1, {"jsonrpc": "2.0", "id": "x"}]
        server.send(frame(encode(batch)))
        assert _code(server.wait(7)) == INVALID_REQUEST
        assert _code(server.wait("x")) == INVALID_REQUEST  # no message, but its id can be read
        server.send(frame(b"[]") + frame(b"5") + frame(b'{"id": 8, "method": "shutdown"}'))
        assert _code(server.wait(8)) == INVALID_REQUEST  # no "jsonrpc": "2.0"
        nulls = server.wait_for(lambda: len(server.null_id) >= 3 and server.null_id)
        assert [_code(m) for m in nulls] == [INVALID_REQUEST] * 3  # 1, [], 5
        assert server.call("textDocument/hover", HOVER)["result"] is None  # still answering
    finally:
        server.kill()


def test_shutdown_while_runs_are_in_flight(tmp_path):
    log = tmp_path / "server.log"
    with open(log, "wb") as err:
        server = RawServer(["--log-level", "INFO"], stderr=err)
    try:
        server.initialize(capabilities={"window": {"workDoneProgress": True}})
        _open(server, LOOP)
        runs = [server.request("workspace/executeCommand", {"command": "cint.run", "arguments": [URI, None]})
                for _ in range(2)]
        symbols = server.request("textDocument/documentSymbol", {"textDocument": {"uri": URI}})
        children = server.wait_for(lambda: len(descendants(server.proc.pid)) >= 2 and descendants(server.proc.pid))
        shutdown = server.request("shutdown")
        assert server.wait(shutdown, timeout=10)["result"] is None
        # Every request in flight has its answer, and no run's child is left.
        for msg_id in runs:
            answer = server.wait(msg_id, timeout=0.1)
            assert "result" in answer or _code(answer) == REQUEST_CANCELLED
        server.wait(symbols, timeout=0.1)
        assert not descendants(server.proc.pid)
        assert not left_running(children)
        start = time.monotonic()
        server.notify("exit")
        assert server.proc.wait(10) == 0
        assert time.monotonic() - start < 1.0
    finally:
        server.kill()
    text = log.read_text()
    assert "CancelledError" not in text and "Traceback" not in text, text


def test_exit_without_shutdown_while_a_run_is_in_flight(tmp_path):
    # Status 1 (no shutdown), at once; the run's task is cancelled as the loop closes,
    # quietly, and its child dies with the server.
    log = tmp_path / "server.log"
    with open(log, "wb") as err:
        server = RawServer(["--log-level", "INFO"], stderr=err)
    try:
        server.initialize()
        _open(server, LOOP)
        server.request("workspace/executeCommand", {"command": "cint.run", "arguments": [URI]})
        children = server.wait_for(lambda: descendants(server.proc.pid))
        start = time.monotonic()
        server.notify("exit")
        assert server.proc.wait(10) == 1
        assert time.monotonic() - start < 1.0
        assert not left_running(children)
    finally:
        server.kill()
    text = log.read_text()
    assert "CancelledError" not in text and "Traceback" not in text, text


RUN_PRINT = {"command": "cint.run", "arguments": [URI, "cpu-sir-interp"]}


def _spare_after_a_run(server) -> list[int]:
    """Initialize, run a program that prints, and wait for the child the server starts
    for the next Run (running/isolated.py, keep_spare): its pid, alone."""
    server.initialize()
    _open(server, 'void f() { "x\\n"; }\nf();\n')
    assert server.call("workspace/executeCommand", RUN_PRINT)["result"]["output"] == "x\n"
    spare = server.wait_for(lambda: descendants(server.proc.pid))
    assert len(spare) == 1
    return spare


def test_the_spare_run_child_goes_at_shutdown():
    # The next Run takes the spare; shutdown kills the one started after it.
    server = RawServer()
    try:
        spare = _spare_after_a_run(server)
        assert server.call("workspace/executeCommand", RUN_PRINT)["result"]["output"] == "x\n"
        assert not left_running(spare)  # it served the Run
        assert server.wait_for(lambda: descendants(server.proc.pid))  # and another waits
        assert server.call("shutdown")["result"] is None
        assert not descendants(server.proc.pid)
        server.notify("exit")
        assert server.proc.wait(10) == 0
    finally:
        server.kill()


def test_the_spare_run_child_dies_with_a_killed_server():
    server = RawServer()
    try:
        spare = _spare_after_a_run(server)
        server.proc.kill()  # no shutdown, no atexit: the parent-death signal and the watcher
        server.proc.wait(10)
        assert not left_running(spare, wait=3)
    finally:
        server.kill()
