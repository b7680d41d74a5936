"""A DAP client for the adapter's tests, as pytest-lsp is for the server's: `cint-debug`
in a child process, requests written as an editor writes them, every message read on a
thread of its own, responses matched to their requests, events waited for by name.
A test module makes its `dap` fixture from `session()` (this is no conftest.py: the
tests import the top-level one as `conftest`)."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from fuzz.lsp_raw import read_messages

CONFORMANCE = Path(__file__).resolve().parent.parent / "conformance"
TIMEOUT = 20.0


class DapClient:
    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-P", "-m", "cint_ls.debug"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.seq = 0
        self.responses: dict[int, dict[str, Any]] = {}
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()
        self.seen: list[dict[str, Any]] = []  # every event, in order
        self._arrived = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for message in read_messages(self.proc.stdout):
            with self._arrived:
                if message["type"] == "response":
                    self.responses[message["request_seq"]] = message
                    self._arrived.notify_all()
                elif message["type"] == "event":
                    self.seen.append(message)
                    self.events.put(message)

    def send(self, command: str, arguments: dict[str, Any] | None = None) -> int:
        self.seq += 1
        message: dict[str, Any] = {"seq": self.seq, "type": "request", "command": command}
        if arguments is not None:
            message["arguments"] = arguments
        body = json.dumps(message).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()
        return self.seq

    def response(self, seq: int) -> dict[str, Any]:
        with self._arrived:
            if not self._arrived.wait_for(lambda: seq in self.responses, TIMEOUT):
                raise AssertionError(f"no response to request {seq}")
            return self.responses[seq]

    def request(self, command: str, arguments: dict[str, Any] | None = None, ok: bool = True) -> dict[str, Any]:
        answer = self.response(self.send(command, arguments))
        if ok:
            assert answer["success"], answer
        return answer

    def event(self, name: str) -> dict[str, Any]:
        """The next event of that name (the others before it are skipped)."""
        while True:
            try:
                event = self.events.get(timeout=TIMEOUT)
            except queue.Empty:
                raise AssertionError(f"no `{name}` event; seen: {[e['event'] for e in self.seen]}") from None
            if event["event"] == name:
                return event

    def output(self) -> str:
        return "".join(e["body"]["output"] for e in self.seen if e["event"] == "output"
                       and e["body"].get("category") == "stdout")

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.send("disconnect", {})
                self.proc.wait(5)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()

    # ---- an editor's opening

    def start(self, program: Path, breakpoints: list[int | dict[str, Any]] | None = None, faults: bool = True,
              **launch: Any) -> dict[str, Any]:
        """initialize, launch, then (at `initialized`) setBreakpoints (lines, or
        SourceBreakpoints with a condition, ...), setExceptionBreakpoints and
        configurationDone, as VS Code does; the first `stopped` or `terminated`."""
        self.request("initialize", {"clientID": "vscode", "adapterID": "cint", "linesStartAt1": True,
                                    "columnsStartAt1": True, "pathFormat": "path"})
        self.request("launch", {"program": str(program), **launch})
        self.event("initialized")
        self.request("setBreakpoints", {"source": {"path": str(program)},
                                        "breakpoints": [b if isinstance(b, dict) else {"line": b}
                                                        for b in breakpoints or []]})
        self.request("setExceptionBreakpoints", {"filters": ["faults"] if faults else []})
        self.request("configurationDone")
        return self.next_stop()

    def next_stop(self) -> dict[str, Any]:
        while True:
            try:
                event = self.events.get(timeout=TIMEOUT)
            except queue.Empty:
                raise AssertionError(f"the run neither stopped nor ended; seen: {[e['event'] for e in self.seen]}") \
                    from None
            if event["event"] in ("stopped", "terminated"):
                return event

    def top(self) -> dict[str, Any]:
        return self.request("stackTrace", {"threadId": 1})["body"]["stackFrames"][0]

    def locals(self, frame: int | None = None) -> dict[str, str]:
        frame_id = frame if frame is not None else self.top()["id"]
        scopes = self.request("scopes", {"frameId": frame_id})["body"]["scopes"]
        found: dict[str, str] = {}
        for scope in scopes:
            for v in self.request("variables", {"variablesReference": scope["variablesReference"]})["body"]["variables"]:
                found[v["name"]] = v["value"]
        return found


def session() -> Iterator[DapClient]:
    """A client and its adapter for one test (a module's `dap` fixture yields from it)."""
    client = DapClient()
    try:
        yield client
    finally:
        client.close()


HEAT_E1 = CONFORMANCE / "heat_e1.ci"  # SPEC-02P.1's example: E_OVERFLOW in work-item 20
