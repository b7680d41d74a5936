"""The server over raw stdin/stdout, without an LSP client library: bodies that are not
JSON (or not UTF-8, or cut short) get a ParseError response with a null id, and the
server goes on answering; `exit` after `shutdown` ends it with status 0."""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import threading
import time

from lsp_support import SERVER_COMMAND
from lsprotocol import types as lsp

from fuzz.lsp_raw import frame, read_messages


def _message(payload: dict) -> bytes:
    return frame(json.dumps(payload).encode())


# `initialize` (id 1) from a client with no capabilities, as each test here starts.
INITIALIZE = _message({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                       "params": {"processId": None, "rootUri": None, "capabilities": {}}})


def _read_messages(stream, count: int, timeout: float = 30.0) -> list[dict]:
    """Read framed messages until `count` responses (with an `id` key, null included)
    have come, or the time is up; notifications and requests are skipped over."""
    found: queue.Queue = queue.Queue()

    def reader() -> None:
        for message in read_messages(stream):
            found.put(message)

    threading.Thread(target=reader, daemon=True).start()
    messages: list[dict] = []
    deadline = time.monotonic() + timeout
    while len(messages) < count:
        try:
            message = found.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            break
        if "id" in message and ("result" in message or "error" in message):
            messages.append(message)
    return messages


def test_garbage_json_on_stdin():
    server = subprocess.Popen(SERVER_COMMAND, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL)
    try:
        send = server.stdin
        send.write(INITIALIZE)
        send.write(_message({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
        send.write(frame(b"{this is not json"))
        send.write(frame("\u00e9\u00e9 \xff not even utf-8".encode("latin-1")))
        send.write(frame(b'{"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover", "params": {"textDocument"'))
        send.write(b"Garbage-Header: yes\r\n\r\n")
        send.write(_message({"jsonrpc": "2.0", "id": 3, "method": "textDocument/hover", "params": {
            "textDocument": {"uri": "file:///nowhere.ci"}, "position": {"line": 0, "character": 0}}}))
        send.write(_message({"jsonrpc": "2.0", "id": 4, "method": "shutdown"}))
        send.flush()
        replies = _read_messages(server.stdout, 6)
        by_id = {m.get("id"): m for m in replies}
        assert by_id[1]["result"]["capabilities"]["positionEncoding"] == "utf-16"
        parse_errors = [m for m in replies if m.get("id") is None]
        assert len(parse_errors) == 3
        assert all(m["error"]["code"] == lsp.ErrorCodes.ParseError for m in parse_errors)
        assert by_id[3]["result"] is None  # the server still answers
        assert "result" in by_id[4]
        send.write(_message({"jsonrpc": "2.0", "method": "exit"}))
        send.flush()
        assert server.wait(timeout=20) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


def test_exit_without_shutdown_and_end_of_input():
    # LSP: `exit` without `shutdown` ends the server with status 1; so does the end of
    # the input (the client is gone).
    for ending, status in ((_message({"jsonrpc": "2.0", "method": "exit"}), 1), (b"", 1)):
        server = subprocess.Popen(SERVER_COMMAND, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL)
        try:
            server.stdin.write(INITIALIZE)
            server.stdin.flush()
            assert _read_messages(server.stdout, 1)[0]["id"] == 1
            server.stdin.write(ending)
            server.stdin.close()  # end of input: the client is gone
            assert server.wait(timeout=20) == status
        finally:
            if server.poll() is None:
                server.kill()
                server.wait()


def test_version():
    out = subprocess.run(SERVER_COMMAND + ["--version"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.startswith("cint-ls ")


def test_sigusr1_writes_every_threads_stack_and_the_server_goes_on():
    """`kill -USR1` a server that stops answering: its threads' stacks on stderr
    (docs/server.md), and it still answers afterwards."""
    server = subprocess.Popen(SERVER_COMMAND, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    try:
        server.stdin.write(INITIALIZE)
        server.stdin.flush()
        answers: queue.Queue = queue.Queue()
        threading.Thread(target=lambda: [answers.put(m) for m in read_messages(server.stdout)], daemon=True).start()
        assert answers.get(timeout=30)["id"] == 1
        server.send_signal(signal.SIGUSR1)
        server.stdin.write(_message({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
        server.stdin.write(_message({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
        server.stdin.flush()
        while (message := answers.get(timeout=30)).get("id") != 2:
            pass
        assert "result" in message
        server.stdin.write(_message({"jsonrpc": "2.0", "method": "exit"}))  # after shutdown's answer, as LSP says
        server.stdin.flush()
        assert server.wait(timeout=30) == 0
        stderr = server.stderr.read().decode()
        assert "the stack of each thread (SIGUSR1)" in stderr and "thread MainThread" in stderr, stderr
        assert 'cint_ls/server/main.py", line' in stderr and "in serve_stdio" in stderr, stderr
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
