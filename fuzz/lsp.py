"""The LSP fuzzer (issue 13): drives `cint-ls` over stdio with random and mutated input
and checks, after every step, that the server still answers and that its text of each
document is the client's.

    python -m fuzz.lsp [--steps N | --seconds S] [--seed S] [--keep-going]

A step is one of: an incremental edit (1-3 changes at random positions, in range or
not, inverted ranges, text with `\\r`, `\\n`, CRLF, lone surrogates and emoji, positions
inside a surrogate pair), a whole-document change, a change whose params do not parse,
a feature request at random positions (all of hover ... formatting, on open and unknown
documents), a request with wrong params or an unknown method, a framing error
(a header in another case or spacing, garbage between messages, a Content-Length a
few bytes off, an absurd one, a body with a byte changed), a batch, a second
`initialize`, a storm of heavy requests cancelled at random, a run (cancelled or not),
and, now and then, `shutdown` while a run of an endless loop is in flight, then
`exit` (answers, status 0 within a second, no child left) and a fresh server with the
documents opened again.

After each step: a round trip (`cint/test/documentText`, the test-only request of
`cint-ls --test-hooks`) within 10 s, the text it answers equal to the client's model
(LSP's rules: `\\r\\n`, `\\r` and `\\n` end lines, positions in UTF-16 units, past the end
clamped, a position inside a surrogate pair taken after it, a lone surrogate stored as
U+FFFD, which is one unit too); every request answered within 30 s with a result or an
error its kind allows (RequestCancelled and ContentModified for what can be cancelled
or superseded, InvalidParams for wrong params; any request still in flight at `shutdown`
may be RequestCancelled, as docs/server.md says `shutdown` answers them); no
InternalError answer and no Error log message of a failed handler.

The input is a function of the seed alone (no choice reads an answer), so a failure
is reproduced by the same seed and step count; the last steps' bytes are also written
to a file. Prints a summary: steps, kinds, requests, restarts, failures.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from fuzz.lsp_raw import Deaf, RawServer, descendants, encode, frame, running

ROOT = Path(__file__).resolve().parents[1]
CONFORMANCE = ROOT / "tests" / "conformance"
BASES = ("heat_e1", "same_c5010", "scale", "sat", "mix", "fixed_reduce", "ops_kernel", "budget")
LOOP = "void spin() {\n    I64 i = 0;\n    while (true) {\n        i = i +% 1;\n    }\n}\nspin();\n"
PIECES = ("\r", "\n", "\r\n", "\r\r\n", "😀", "é", "\ud800", "\udc00", "\udbff", "x", " ", "    ", "{", "}",
          ";", "(", ")", "I64 ", "U8 ", "kernel ", "void ", "return ", "while (true) ", "+% ", "1", "0x7f",
          "\"str {x}\"", "//c\r\n", "/*", "*/", "\t", "𝕏", "\u200b", "a_b", "dispatch ", "=", ",")
HEAVY = ("textDocument/semanticTokens/full", "textDocument/semanticTokens/full/delta",
         "textDocument/semanticTokens/range", "textDocument/inlayHint", "textDocument/codeLens",
         "textDocument/documentSymbol", "textDocument/foldingRange", "textDocument/formatting",
         "textDocument/rename", "textDocument/references")
LIGHT = ("textDocument/hover", "textDocument/completion", "textDocument/signatureHelp",
         "textDocument/definition", "textDocument/prepareRename")
CANCELLED, MODIFIED, INVALID_PARAMS, NOT_FOUND, INVALID_REQUEST, FAILED = -32800, -32801, -32602, -32601, -32600, -32803
DEAF_TIMEOUT = 10.0
REAP_TIMEOUT = 5.0  # seconds a killed child of the server may take to be reaped
ANSWER_TIMEOUT = 30.0
MAX_TEXT = 3000  # characters: a document grown past it is replaced by a base program

_LINE_END = re.compile("\r\n|\r|\n")
_SURROGATE = re.compile("[\ud800-\udfff]")


# ---- the client's model of a document (LSP's rules)

def lsp_offset(text: str, line: int, character: int) -> int:
    """The index in `text` of an LSP position, as the server must read it."""
    starts = [0] + [m.end() for m in _LINE_END.finditer(text)]
    if line >= len(starts):
        return len(text)
    start = starts[line]
    content = text[start:starts[line + 1] if line + 1 < len(starts) else len(text)]
    content = content.rstrip("\n").rstrip("\r") if content.endswith(("\n", "\r")) else content
    units = 0
    for index, char in enumerate(content):
        if units >= character:
            return start + index
        units += 2 if ord(char) > 0xFFFF else 1
    return start + len(content)


def as_received(text: str) -> str:
    """What the server reads of a string the client sends: JSON joins an escaped
    surrogate pair into one character, and a lone surrogate becomes U+FFFD (one UTF-16
    unit either way)."""
    return _SURROGATE.sub("\ufffd", json.loads(json.dumps(text)))


def apply_change(text: str, change: dict) -> str:
    inserted = as_received(change["text"])
    if "range" not in change:
        return inserted
    r = change["range"]
    a = lsp_offset(text, r["start"]["line"], r["start"]["character"])
    b = lsp_offset(text, r["end"]["line"], r["end"]["character"])
    a, b = min(a, b), max(a, b)
    return text[:a] + inserted + text[b:]


def lines_of(text: str) -> list[str]:
    return _LINE_END.split(text)


def utf16_len(s: str) -> int:
    return sum(2 if ord(c) > 0xFFFF else 1 for c in s)


@dataclass
class Doc:
    uri: str
    text: str
    version: int = 1


@dataclass
class Expected:
    method: str
    sent: float
    allowed: frozenset  # error codes this answer may have
    at_shutdown: bool = False  # in flight when `shutdown` was sent: RequestCancelled is right too


@dataclass
class Stats:
    steps: int = 0
    kinds: Counter = field(default_factory=Counter)
    requests: int = 0
    answered: int = 0
    cancelled: int = 0
    modified: int = 0
    parse_errors: int = 0
    restarts: int = 0
    failures: list = field(default_factory=list)


class Failure(Exception):
    pass


class Fuzzer:
    def __init__(self, seed: int, server_args: list[str] | None = None, log: Path | None = None) -> None:
        self.rng = random.Random(seed)
        self.seed = seed
        self.stats = Stats()
        self.server_args = ["--test-hooks"] + list(server_args or [])
        self.log_path = log or Path(tempfile.mkstemp(prefix="fuzz_lsp-", suffix=".log")[1])
        self.docs = [Doc(f"file:///fuzz/doc{i}.ci", self._base()) for i in range(3)]
        self.expected: dict = {}
        self.trail: list[tuple[int, str, bytes]] = []  # (step, kind, bytes sent): the last steps
        self.server: RawServer | None = None
        self.step_kind = ""
        self._ids = 0
        self._seen_notifications = 0

    # ---- the server

    def start(self) -> None:
        with open(self.log_path, "ab") as log:
            self.server = RawServer(self.server_args, stderr=log)
        self._seen_notifications = 0
        self.server.initialize(options={"run": {"timeLimit": 3}})
        for doc in self.docs:
            self._notify("textDocument/didOpen", {"textDocument": {
                "uri": doc.uri, "languageId": "cint", "version": doc.version, "text": doc.text}})

    def stop(self) -> None:
        if self.server is not None:
            self.server.kill()

    def _send(self, data: bytes) -> None:
        self.trail.append((self.stats.steps, self.step_kind, data))
        self.server.send(data)

    def _notify(self, method: str, params) -> None:
        self._send(frame(encode({"jsonrpc": "2.0", "method": method, "params": params})))

    def _id(self) -> str:
        self._ids += 1
        return f"f{self._ids}"

    def _request(self, method: str, params, allowed=(), expect: bool = True) -> str:
        msg_id = self._id()
        self._send(frame(encode({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})))
        if expect:
            self.expected[msg_id] = Expected(method, time.monotonic(), frozenset(allowed))
            self.stats.requests += 1
        return msg_id

    # ---- random pieces

    def _base(self) -> str:
        name = self.rng.choice(BASES + ("loop",))
        text = LOOP if name == "loop" else (CONFORMANCE / f"{name}.ci").read_text()
        if self.rng.random() < 0.2:
            text = text.replace("\n", "\r\n")
        return text

    def _text(self) -> str:
        return "".join(self.rng.choice(PIECES) for _ in range(self.rng.choice((0, 1, 1, 2, 3, 5, 8))))

    def _position(self, doc: Doc) -> dict:
        lines = lines_of(doc.text)
        rng = self.rng
        roll = rng.random()
        if roll < 0.05:
            return {"line": rng.choice((len(lines), len(lines) + 3, 10 ** 6)), "character": rng.randrange(0, 50)}
        line = rng.randrange(len(lines))
        length = utf16_len(lines[line])
        if roll < 0.12:
            return {"line": line, "character": rng.choice((length + 1, length + 7, 2 ** 31 - 1))}
        return {"line": line, "character": rng.randint(0, length)}

    def _range(self, doc: Doc) -> dict:
        a, b = self._position(doc), self._position(doc)
        if self.rng.random() < 0.8 and (b["line"], b["character"]) < (a["line"], a["character"]):
            a, b = b, a  # mostly in order; the rest inverted
        return {"start": a, "end": b}

    # ---- steps

    def step(self) -> None:
        rng = self.rng
        roll = rng.random()
        kind = "request"  # the remainder of the weights
        for candidate, weight in (("edit", 0.42), ("whole", 0.02), ("bad_edit", 0.03), ("request", 0.25),
                                  ("wrong_params", 0.05), ("framing", 0.08), ("batch", 0.01),
                                  ("initialize", 0.005), ("cancel_storm", 0.04), ("run", 0.01), ("shutdown", 0.0015)):
            if roll < weight:
                kind = candidate
                break
            roll -= weight
        self.step_kind = kind
        self.stats.kinds[kind] += 1
        getattr(self, f"_step_{kind}")()

    def _step_edit(self) -> None:
        doc = self.rng.choice(self.docs)
        if len(doc.text) > MAX_TEXT:
            return self._step_whole(doc)
        changes = [{"range": self._range(doc), "text": self._text()} for _ in range(self.rng.choice((1, 1, 1, 2, 3)))]
        for change in changes:
            doc.text = apply_change(doc.text, change)
        # A change's range reads the text as the changes before it left it: the model
        # applied them in order; the positions were drawn on the text before all of
        # them, which is fine (any position is legal).
        self._change(doc, changes)

    def _step_whole(self, doc: Doc | None = None) -> None:
        doc = doc or self.rng.choice(self.docs)
        text = self._base() + (self._text() if self.rng.random() < 0.5 else "")
        doc.text = apply_change(doc.text, {"text": text})
        self._change(doc, [{"text": text}])

    def _change(self, doc: Doc, changes: list) -> None:
        doc.version += 1
        self._notify("textDocument/didChange", {"textDocument": {"uri": doc.uri, "version": doc.version},
                                                "contentChanges": changes})

    def _step_bad_edit(self) -> None:
        # Params that do not parse: the whole notification is dropped, the model too.
        doc = self.rng.choice(self.docs)
        bad = self.rng.choice((
            [{"range": {"start": {"line": -1, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "x"}],
            7, [{"range": {"start": {"line": 0}}, "text": "x"}], [{"text": None}], [{"text": 5}], None))
        self._notify("textDocument/didChange", {"textDocument": {"uri": doc.uri, "version": doc.version + 1},
                                                "contentChanges": bad})

    def _feature_params(self, method: str, doc_uri: str, doc: Doc) -> dict:
        ident = {"textDocument": {"uri": doc_uri}}
        rng = self.rng
        if method in ("textDocument/semanticTokens/full", "textDocument/documentSymbol",
                      "textDocument/foldingRange", "textDocument/codeLens"):
            return ident
        if method == "textDocument/semanticTokens/full/delta":
            return {**ident, "previousResultId": str(rng.randrange(0, 50))}
        if method in ("textDocument/semanticTokens/range", "textDocument/inlayHint"):
            return {**ident, "range": self._range(doc)}
        if method == "textDocument/formatting":
            return {**ident, "options": {"tabSize": rng.choice((2, 4)), "insertSpaces": True}}
        params = {**ident, "position": self._position(doc)}
        if method == "textDocument/rename":
            params["newName"] = rng.choice(("renamed", "x", "1bad", "", "é"))
        if method == "textDocument/references":
            params["context"] = {"includeDeclaration": rng.random() < 0.5}
        return params

    def _feature(self, method: str | None = None) -> str:
        doc = self.rng.choice(self.docs)
        uri = doc.uri if self.rng.random() < 0.95 else "file:///fuzz/unknown.ci"
        method = method or self.rng.choice(HEAVY + LIGHT)
        allowed = {MODIFIED, CANCELLED, FAILED} if method in HEAVY else set()
        if method == "textDocument/rename":
            allowed.add(FAILED)  # a refused rename (`1bad`)
        return self._request(method, self._feature_params(method, uri, doc), allowed)

    def _step_request(self) -> None:
        self._feature()

    def _step_wrong_params(self) -> None:
        doc = self.rng.choice(self.docs)
        choice = self.rng.randrange(5)
        if choice == 0:
            self._request("textDocument/hover", {"textDocument": {"uri": doc.uri},
                                                 "position": {"line": -1, "character": 0}}, {INVALID_PARAMS})
        elif choice == 1:
            self._request("textDocument/hover", {"textDocument": {"uri": doc.uri}, "position": "x"}, {INVALID_PARAMS})
        elif choice == 2:
            self._request("textDocument/documentSymbol", {"uri": doc.uri}, {INVALID_PARAMS})
        elif choice == 3:
            self._request("cint/noSuchMethod", {"x": 1}, {NOT_FOUND})
        else:
            self._request("workspace/executeCommand", {"command": "cint.run", "arguments": [7]}, {INVALID_PARAMS})

    def _step_framing(self) -> None:
        rng = self.rng
        doc = rng.choice(self.docs)
        msg_id = self._id()
        body = encode({"jsonrpc": "2.0", "id": msg_id, "method": "textDocument/hover",
                       "params": {"textDocument": {"uri": doc.uri}, "position": self._position(doc)}})
        choice = rng.randrange(7)
        expect = True
        if choice == 0:
            data = b"content-length:%d\r\n\r\n" % len(body) + body
        elif choice == 1:
            data = b"CONTENT-LENGTH:  %d \r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" \
                   % len(body) + body
        elif choice == 2:
            junk = rng.choice((b"\x00\xff", b"garbage\r\n\r\n", b"X-Junk: 1\r\n\r\n", b"{}", b"\r\n" * 3,
                               b"Content-Length: x\r\n\r\n"))
            data = junk + frame(body)
        elif choice == 3:
            # A length a few bytes off: this message is lost (ParseError), the next is read.
            data = b"Content-Length: %d\r\n\r\n" % (len(body) + rng.choice((-5, -2, -1, 1, 2, 9))) + body
            expect = False
        elif choice == 4:
            data = b"Content-Length: 99999999999\r\n\r\n" + body[: rng.randrange(len(body))]
            expect = False
        elif choice == 5:
            mutated = bytearray(body)
            mutated[rng.randrange(len(mutated))] = rng.randrange(256)
            data = frame(bytes(mutated))
            expect = False  # it may be another request now, or none
        else:
            data = b"Content-Length: %d\n\n" % len(body) + body  # bare \n line ends
        self._send(data)
        if expect:
            self.expected[msg_id] = Expected("textDocument/hover", time.monotonic(), frozenset())
            self.stats.requests += 1

    def _step_batch(self) -> None:
        ids = [self._id() for _ in range(self.rng.randint(0, 3))]
        batch = [{"jsonrpc": "2.0", "id": i, "method": "textDocument/hover",
                  "params": {"textDocument": {"uri": self.docs[0].uri}, "position": {"line": 0, "character": 0}}}
                 for i in ids]
        self._send(frame(encode(batch)))
        for i in ids:
            self.expected[i] = Expected("batch", time.monotonic(), frozenset({INVALID_REQUEST}))
            self.stats.requests += 1

    def _step_initialize(self) -> None:
        self._request("initialize", {"processId": None, "rootUri": None, "capabilities": {}}, {INVALID_REQUEST})

    def _step_cancel_storm(self) -> None:
        ids = [self._feature(self.rng.choice(HEAVY)) for _ in range(self.rng.randint(3, 15))]
        if self.rng.random() < 0.3:
            time.sleep(self.rng.random() * 0.01)
        for msg_id in ids + [self._id()]:  # and an id the server never saw
            if self.rng.random() < 0.7:
                self._notify("$/cancelRequest", {"id": msg_id})

    def _step_run(self) -> None:
        doc = self.rng.choice(self.docs)
        msg_id = self._request("workspace/executeCommand", {"command": "cint.run", "arguments": [doc.uri]},
                               {CANCELLED})
        if self.rng.random() < 0.6:
            if self.rng.random() < 0.5:
                time.sleep(0.05)
            self._notify("$/cancelRequest", {"id": msg_id})

    def _step_shutdown(self) -> None:
        """`shutdown` while a run of an endless loop is in flight, then `exit`."""
        server = self.server
        uri = "file:///fuzz/spin.ci"
        self._notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "cint", "version": 1,
                                                               "text": LOOP}})
        run = self._request("workspace/executeCommand", {"command": "cint.run", "arguments": [uri]}, {CANCELLED})
        try:
            children = server.wait_for(lambda: descendants(server.proc.pid), timeout=DEAF_TIMEOUT)
        except Deaf:
            raise Failure("the run of an endless loop started no child process") from None
        # `shutdown` answers every request still in flight RequestCancelled
        # (docs/server.md), whatever its kind; an answer that came before it is judged
        # as ever.
        self._collect()
        for expected in self.expected.values():
            expected.at_shutdown = True
        shutdown = self._request("shutdown", None, expect=False)
        answer = self._wait(shutdown)
        if answer.get("result", "missing") is not None:
            raise Failure(f"shutdown answered {answer}")
        self._collect()
        if run in self.expected or [i for i in self.expected]:
            raise Failure(f"requests not answered at shutdown: {sorted(self.expected)}")
        if descendants(server.proc.pid):
            raise Failure("a run's child is left after shutdown")
        start = time.monotonic()
        self._notify("exit", None)
        try:
            status = server.proc.wait(5)
        except Exception:  # noqa: BLE001
            raise Failure("the server did not end within 5 s of exit") from None
        took = time.monotonic() - start
        if status != 0 or took > 1.0:
            raise Failure(f"exit after shutdown: status {status} after {took:.2f} s")
        # Killed children go at once, but a loaded machine may take a moment to reap
        # them (a zombie, state Z, has ended): they must be gone within REAP_TIMEOUT.
        deadline = time.monotonic() + REAP_TIMEOUT
        while [pid for pid in children if running(pid)]:
            if time.monotonic() > deadline:
                raise Failure("a run's child outlived the server")
            time.sleep(0.05)
        self.stats.restarts += 1
        self.start()

    # ---- checks

    def _wait(self, msg_id: str) -> dict:
        try:
            return self.server.wait(msg_id, DEAF_TIMEOUT)
        except Deaf as error:
            raise Failure(f"deaf: {error}; server {'alive' if self.server.proc.poll() is None else 'gone'}") from None

    def _collect(self) -> None:
        """Check the answers that came; fail on one too late or of a kind not allowed."""
        server = self.server
        with server._changed:
            answers = {i: server.responses.pop(i) for i in list(server.responses) if i in self.expected}
            self.stats.parse_errors += sum(1 for m in server.null_id if m["error"]["code"] == -32700)
            server.null_id.clear()
            server.responses.clear()  # answers to mutated requests
            notes = server.notifications[self._seen_notifications:]
            self._seen_notifications = len(server.notifications)
        for msg_id, answer in answers.items():
            expected = self.expected.pop(msg_id)
            self.stats.answered += 1
            error = answer.get("error")
            if error is None:
                if expected.allowed == {INVALID_PARAMS} or expected.allowed == {INVALID_REQUEST} \
                        or expected.allowed == {NOT_FOUND}:
                    raise Failure(f"{expected.method} {msg_id} answered a result, expected error {set(expected.allowed)}")
                continue
            code = error.get("code")
            self.stats.cancelled += code == CANCELLED
            self.stats.modified += code == MODIFIED
            if code not in expected.allowed and not (code == CANCELLED and expected.at_shutdown):
                raise Failure(f"{expected.method} {msg_id} answered {error}")
        for note in notes:
            if note["method"] == "window/logMessage" and note["params"]["type"] == 1 and \
                    " failed: " in note["params"]["message"]:
                raise Failure(f"a handler failed: {note['params']['message']}")
        now = time.monotonic()
        late = [i for i, e in self.expected.items() if now - e.sent > ANSWER_TIMEOUT]
        if late:
            raise Failure(f"not answered within {ANSWER_TIMEOUT} s: {[(i, self.expected[i].method) for i in late]}")

    def check(self) -> None:
        if self.server.proc.poll() is not None:
            raise Failure(f"the server ended with status {self.server.proc.returncode}")
        doc = self.docs[self.stats.steps % len(self.docs)]
        answer = self._wait(self._request("cint/test/documentText", {"uri": doc.uri}, expect=False))
        result = answer.get("result")
        if result is None or result.get("text") != doc.text:
            raise Failure(f"text mismatch on {doc.uri} version {doc.version}: "
                          f"server {None if result is None else result.get('text')!r}, client {doc.text!r}")
        self._collect()

    def drain(self) -> None:
        """Wait for every request still expected (the end of a run)."""
        deadline = time.monotonic() + ANSWER_TIMEOUT
        while self.expected and time.monotonic() < deadline:
            self.server.wait_for(lambda: any(i in self.server.responses for i in self.expected) or None,
                                 timeout=max(0.1, deadline - time.monotonic()))
            self._collect()
        self._collect()

    # ---- reporting

    def reproducer(self, error: Exception) -> str:
        path = Path(tempfile.mkstemp(prefix=f"fuzz_lsp-{self.seed}-", suffix=".jsonl")[1])
        with open(path, "w") as f:
            f.writelines(json.dumps({"step": step, "kind": kind, "bytes": data.decode("latin-1")}) + "\n" for step, kind, data in self.trail[-400:])
        return (f"FAILURE at step {self.stats.steps} ({self.step_kind}): {error}\n"
                f"  reproduce: python -m fuzz.lsp --seed {self.seed} --steps {self.stats.steps + 1}\n"
                f"  the last steps' bytes (latin-1): {path}\n  server log: {self.log_path}")


def fuzz(seed: int = 1, steps: int | None = None, seconds: float | None = None, keep_going: bool = False,
         quiet: bool = False, server_args: list[str] | None = None) -> Stats:
    fuzzer = Fuzzer(seed, server_args)
    stats = fuzzer.stats
    start = time.monotonic()
    fuzzer.start()
    try:
        while (steps is None or stats.steps < steps) and (seconds is None or time.monotonic() - start < seconds):
            try:
                fuzzer.step()
                fuzzer.check()
                if len(fuzzer.trail) > 2000:
                    del fuzzer.trail[:1000]
            except Failure as error:
                report = fuzzer.reproducer(error)
                stats.failures.append(report)
                print(report, file=sys.stderr, flush=True)
                if not keep_going:
                    break
                fuzzer.stop()
                fuzzer.expected.clear()
                fuzzer.start()
            stats.steps += 1
            if not quiet and stats.steps % 1000 == 0:
                rate = stats.steps / (time.monotonic() - start)
                print(f"  {stats.steps} steps, {rate:.0f}/s, {len(stats.failures)} failures", file=sys.stderr, flush=True)
        if not stats.failures:
            try:
                fuzzer.drain()
                fuzzer.check()
                if fuzzer.expected:
                    raise Failure(f"never answered: {sorted(fuzzer.expected)}")
            except Failure as error:
                stats.failures.append(fuzzer.reproducer(error))
                print(stats.failures[-1], file=sys.stderr, flush=True)
    finally:
        fuzzer.stop()
    stats.seconds = time.monotonic() - start
    return stats


def summary(stats: Stats, seed: int) -> str:
    kinds = ", ".join(f"{k} {n}" for k, n in sorted(stats.kinds.items()))
    return (f"fuzz.lsp seed {seed}: {stats.steps} steps in {stats.seconds:.0f} s "
            f"({stats.steps / max(stats.seconds, 1e-9):.0f}/s); {stats.requests} requests, {stats.answered} answered "
            f"({stats.cancelled} RequestCancelled, {stats.modified} ContentModified), {stats.parse_errors} "
            f"ParseErrors, {stats.restarts} shutdowns mid-run; failures: {len(stats.failures)}\n  steps: {kinds}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, help="steps to run (default: 1000 unless --seconds)")
    parser.add_argument("--seconds", type=float, help="run for this long")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep-going", action="store_true", help="after a failure, restart the server and go on")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    steps = args.steps if args.steps is not None or args.seconds is not None else 1000
    stats = fuzz(args.seed, steps, args.seconds, args.keep_going, args.quiet)
    print(summary(stats, args.seed))
    return 1 if stats.failures else 0


if __name__ == "__main__":
    sys.exit(main())
