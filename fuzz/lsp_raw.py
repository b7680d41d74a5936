"""A minimal LSP client over a child's stdin/stdout that sends raw bytes: what the
LSP fuzzer (`fuzz/lsp.py`) and the framing and lifecycle tests
(`tests/server/test_framing.py`, `test_lifecycle.py`) use to send what no client
library would (wrong lengths, batches, requests out of order).

A thread reads the server's messages: responses are kept by id (those with a null id
in a list of their own), requests of the server are answered at once (null, or a list
of nulls for `workspace/configuration`), notifications are kept in order.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

SERVER_COMMAND = [sys.executable, "-P", "-m", "cint_ls.server"]


class Deaf(AssertionError):
    """The server did not answer in time (or is gone)."""


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_messages(stream) -> Iterator[Any]:
    """The messages framed on `stream` (the server's stdout), decoded, until it ends
    (or ends inside a message). The one reader of the tests and benchmarks that read
    a server's raw output."""
    while True:
        length = None
        while True:
            line = stream.readline()
            if not line:
                return
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
            if line in (b"\r\n", b"\n"):
                break
        if length is None:  # a header without a length: nothing after it can be framed
            return
        body = stream.read(length)
        if len(body) < length:
            return
        yield json.loads(body)


def encode(payload: Any) -> bytes:
    # ensure_ascii: lone surrogates go out as \\udxxx escapes, legal JSON.
    return json.dumps(payload, ensure_ascii=True).encode("ascii")


class RawServer:
    def __init__(self, args: list[str] | None = None, stderr: Any = subprocess.DEVNULL,
                 command: list[str] | None = None) -> None:
        self.proc = subprocess.Popen((command or SERVER_COMMAND) + list(args or []), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=stderr)
        self._write_lock = threading.Lock()
        self._changed = threading.Condition()
        self.responses: dict[Any, dict] = {}
        self.null_id: list[dict] = []
        self.notifications: list[dict] = []
        self.server_requests: list[dict] = []
        self._ids = itertools.count(1)
        self.closed = False
        threading.Thread(target=self._read, daemon=True).start()

    # ---- sending

    def send(self, data: bytes) -> None:
        with self._write_lock:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()

    def message(self, payload: Any) -> None:
        self.send(frame(encode(payload)))

    def notify(self, method: str, params: Any = None) -> None:
        payload = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            payload["params"] = params
        self.message(payload)

    def next_id(self) -> int:
        return next(self._ids)

    def request(self, method: str, params: Any = None, msg_id: Any = None) -> Any:
        """Send a request; its id."""
        msg_id = self.next_id() if msg_id is None else msg_id
        payload = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if params is not None:
            payload["params"] = params
        self.message(payload)
        return msg_id

    def call(self, method: str, params: Any = None, timeout: float = 20.0) -> dict:
        return self.wait(self.request(method, params), timeout)

    def initialize(self, capabilities: dict | None = None, options: Any = None) -> dict:
        answer = self.call("initialize", {"processId": os.getpid(), "rootUri": None,
                                          "capabilities": capabilities or {}, "initializationOptions": options})
        self.notify("initialized", {})
        return answer

    # ---- receiving

    def wait(self, msg_id: Any, timeout: float = 20.0) -> dict:
        """The response to `msg_id` (taken off the kept ones)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while msg_id not in self.responses:
                left = deadline - time.monotonic()
                if left <= 0 or self.closed:
                    raise Deaf(f"no answer to request {msg_id!r} within {timeout} s"
                               + (" (the server's output ended)" if self.closed else ""))
                self._changed.wait(min(left, 0.5))
            return self.responses.pop(msg_id)

    def wait_for(self, predicate, timeout: float = 20.0) -> Any:
        deadline = time.monotonic() + timeout
        with self._changed:
            while not (value := predicate()):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise Deaf("timed out waiting")
                self._changed.wait(min(left, 0.5))
            return value

    def _read(self) -> None:
        try:
            for message in read_messages(self.proc.stdout):
                self._received(message)
        finally:
            with self._changed:
                self.closed = True
                self._changed.notify_all()

    def _received(self, message: dict) -> None:
        if "method" in message and "id" in message:
            self.server_requests.append(message)
            result = None
            if message["method"] == "workspace/configuration":
                result = [None for _ in message.get("params", {}).get("items", [])]
            try:
                self.message({"jsonrpc": "2.0", "id": message["id"], "result": result})
            except (BrokenPipeError, ValueError):
                pass
            return
        with self._changed:
            if "method" in message:
                self.notifications.append(message)
            elif message.get("id") is None:
                self.null_id.append(message)
            else:
                self.responses[message["id"]] = message
            self._changed.notify_all()

    # ---- the end

    def end(self, timeout: float = 10.0) -> int:
        """Close stdin and wait for the exit status (killed after `timeout`)."""
        try:
            self.proc.stdin.close()
        except (BrokenPipeError, OSError):
            pass
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def descendants(pid: int) -> list[int]:
    """The pids of the processes below `pid` (Linux, from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rindex(b")") + 2:].split()
        children.setdefault(int(fields[1]), []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def running(pid: int) -> bool:
    """Whether process `pid` exists and has not ended. A killed process whose parent died
    first is a zombie until init reaps it (some containers' init never does): it has
    ended, and holds nothing but its entry in /proc."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return False
    return stat[stat.rindex(b")") + 2:][:1] != b"Z"


def left_running(pids: list[int], wait: float = 2.0) -> list[int]:
    """Those of `pids` still running after at most `wait` seconds (a process sent
    SIGKILL is gone a moment later, not at once)."""
    deadline = time.monotonic() + wait
    while (left := [pid for pid in pids if running(pid)]) and time.monotonic() < deadline:
        time.sleep(0.01)
    return left
