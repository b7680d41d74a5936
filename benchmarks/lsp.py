"""Language-server latency through a real client over stdio (pygls' LanguageClient
talking to `python -m cint_ls.server`), on a 5,000-line file: the heat kernel of
SPEC-02P.1 clause 11 repeated under different names.

Measures:
- edit -> diagnostics: from sending a one-character `didChange` to receiving the
  `publishDiagnostics` of that version. The edits are spread over the file: a space
  put in and taken out again (the file stays valid), and a `;` taken out and put back
  (a syntax error comes and goes).
- hover: request to response, on a counted operation (the `*` of `kn * lap`, step 22)
  of a kernel picked at random; the first hover in a kernel builds its IR, later ones
  reuse it.

    python benchmarks/lsp.py [--lines 5000] [--edits 60] [--hovers 300] [--seed 1]

Prints median and p95 of each, in milliseconds. Targets (issue 4): p95 under 100 ms for
the edit, under 10 ms for a hover.

Editor-burst mode (issue 11): after each one-character edit, what an editor sends.

    python benchmarks/lsp.py --burst vscode,neovim --lines 5000,50000 [--rounds 30] [--pause 0.1] [--broken]

- vscode: semanticTokens/full/delta (full when the server offers no delta), inlayHint
  for the 60 visible lines, codeLens, documentSymbol and foldingRange, pipelined at
  once; 300 ms after the edit a hover and a completion.
- neovim: semanticTokens/full and inlayHint of the whole buffer, pipelined; 300 ms
  after the edit a hover and a completion.

Times run from sending a request (or the edit) to reading the last byte of its answer
(or of the publication), before the benchmark's own parsing of it. A Python client takes
0.1-0.5 s to parse the megabytes of a 50,000-line file's tokens, symbols or folds, and
reads nothing meanwhile, which would count that time against the answers queued behind
(a hover): so an answer over 64 kB is skimmed for its id and result id (`skim`),
not parsed. A round waits for every answer and
the edit's publishDiagnostics, then `--pause`
seconds, then the next edit (a space in and out again; every third pair a `;` out
and in again, a syntax error for one version). One unmeasured round first (the first
answers of a file compute every item). Prints, for each pattern and size, p50 and p95
of each request (from sending it to its answer; an error answer such as ContentModified
is counted, not timed), of edit -> publishDiagnostics, and the server's peak resident
memory (VmHWM of /proc/<pid>/status). After the rounds, FORMAT_ROUNDS times format on
save: an edit, its diagnostics, a formatting request and 20 ms later a hover on the
same document (the hover must not wait for the formatting). Targets (issue 11, p95, 5,000 lines): semantic
tokens 150 ms, whole-buffer inlay hints 150 ms, codeLens/documentSymbol/foldingRange
50 ms on an unchanged version; 50,000 lines: edit -> diagnostics 300 ms, peak 400 MB.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import statistics
import sys
import time

from heat_kernel import heat_file
from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

URI = "file:///cint-ls-benchmark/big.ci"


def summary(name: str, samples: list[float]) -> str:
    samples = sorted(samples)
    p95 = samples[min(len(samples) - 1, int(len(samples) * 0.95))]
    return (f"{name:<34} median {statistics.median(samples):8.2f} ms   p95 {p95:8.2f} ms"
            f"   max {samples[-1]:8.2f} ms   (n={len(samples)})")


class Publications:
    """When each version's publishDiagnostics arrived, for both clients below."""

    def __init__(self) -> None:
        self.published: dict[int, float] = {}  # version -> arrival time
        self.counts: dict[int, int] = {}  # version -> number of diagnostics
        self.arrived = asyncio.Event()

    def record(self, version: int | None, count: int, arrived: float | None = None) -> None:
        if version is not None:
            self.published[version] = time.perf_counter() if arrived is None else arrived
            self.counts[version] = count
            self.arrived.set()

    async def diagnostics_of(self, version: int, timeout: float = 60.0) -> float:
        deadline = time.monotonic() + timeout
        while version not in self.published:
            self.arrived.clear()
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no diagnostics for version {version}")
            try:
                await asyncio.wait_for(self.arrived.wait(), remaining)
            except TimeoutError:
                pass
        return self.published[version]


class Bench(Publications):
    def __init__(self) -> None:
        super().__init__()
        self.client = LanguageClient("cint-ls-benchmark", "1")

        @self.client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def publish(params: lsp.PublishDiagnosticsParams):
            self.record(params.version, len(params.diagnostics))


async def run(args: argparse.Namespace) -> None:
    rng = random.Random(args.seed)
    text = heat_file(args.lines)
    lines = text.split("\n")
    print(f"{text.count(chr(10))} lines, {len(text.encode())} bytes, "
          f"{text.count('kernel diffuse')} kernels; server: {sys.executable} -P -m cint_ls.server")

    bench = Bench()
    client = bench.client
    await client.start_io(sys.executable, "-P", "-m", "cint_ls.server")
    await client.initialize_async(lsp.InitializeParams(capabilities=lsp.ClientCapabilities()))
    client.initialized(lsp.InitializedParams())

    version = 1
    sent = time.perf_counter()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=URI, language_id="cint", version=version, text=text)))
    opened = await bench.diagnostics_of(version) - sent
    assert bench.counts[version] == 0, "the benchmark file should have no diagnostics"
    print(f"{'open -> first diagnostics':<34} {opened * 1000:8.2f} ms")

    # Lines of the form `        I64 c = u[y, x] as I64;` (a space after `=`) and the
    # `;` at the end of `r = (c + flux) as I32;`, one of each per kernel.
    spaces = [i for i, line in enumerate(lines) if line.startswith("    I64 c = ")]
    semis = [i for i, line in enumerate(lines) if line.endswith("as I32;")]

    def change(line: int, start: int, end: int, new: str) -> lsp.DidChangeTextDocumentParams:
        return lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=URI, version=version),
            content_changes=[lsp.TextDocumentContentChangePartial(
                range=lsp.Range(start=lsp.Position(line, start), end=lsp.Position(line, end)), text=new)])

    edit_ms: list[float] = []
    for n in range(args.edits):
        if n % 2 == 0:  # a pair of edits: first in, then out again
            kind = "space" if (n // 2) % 3 else "semi"
            line = rng.choice(spaces if kind == "space" else semis)
            column = len("    I64 c = ") if kind == "space" else len(lines[line]) - 1
            step = (line, column, column, " ") if kind == "space" else (line, column, column + 1, "")
        else:
            step = (line, column, column + 1, "") if kind == "space" else (line, column, column, ";")
        version += 1
        sent = time.perf_counter()
        client.text_document_did_change(change(*step))
        edit_ms.append((await bench.diagnostics_of(version) - sent) * 1000)
        if n % 2 == 1:
            assert bench.counts[version] == 0
        elif kind == "semi":
            assert bench.counts[version] > 0, "removing a `;` should give a diagnostic"
    print(summary("edit -> diagnostics (1 char)", edit_ms))

    # Hovers on `*` of `kn * lap`, the next line after each `- 4 * c;`.
    stars = [(i, line.index("kn * lap") + 3) for i, line in enumerate(lines) if "kn * lap" in line]
    every: list[float] = []
    first: list[float] = []  # the first hover in a kernel (it builds the kernel's IR)
    seen: set[int] = set()
    for _ in range(args.hovers):
        line, column = rng.choice(stars)
        sent = time.perf_counter()
        hover = await client.text_document_hover_async(lsp.HoverParams(
            text_document=lsp.TextDocumentIdentifier(uri=URI), position=lsp.Position(line, column)))
        elapsed = (time.perf_counter() - sent) * 1000
        assert hover is not None and "step 22" in hover.contents.value, hover
        every.append(elapsed)
        if line not in seen:
            first.append(elapsed)
            seen.add(line)
    print(summary("hover on a counted op", every))
    print(summary("  of which first in its kernel", first))

    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()


# ------------------------------------------------------------------ editor bursts

def p95(samples: list[float]) -> float:
    samples = sorted(samples)
    return samples[min(len(samples) - 1, int(len(samples) * 0.95))]


BURST_CAPABILITIES = {
    "workspace": {"configuration": True},
    "textDocument": {
        "synchronization": {"dynamicRegistration": False},
        "hover": {"contentFormat": ["markdown"]},
        "completion": {"completionItem": {"snippetSupport": True}},
        "semanticTokens": {"requests": {"range": True, "full": {"delta": True}}, "tokenTypes": [],
                           "tokenModifiers": [], "formats": ["relative"]},
        "inlayHint": {},
        "codeLens": {},
        "documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
        "foldingRange": {},
    },
}


BIG_ANSWER = 1 << 16  # bytes of an answer that the client skims rather than parses
_ANSWER_HEAD = re.compile(rb'\{"jsonrpc": ?"2\.0", ?"id": ?(\d+), ?"result": ?')
_RESULT_ID = re.compile(rb'"resultId": ?"([^"]*)"')


def skim(body: bytes) -> dict:
    """A message as JSON; of a big answer (the tokens, symbols, folds or hints of a
    50,000-line file: megabytes), only its id and its tokens' result id. Parsing one
    takes this client 0.1-0.5 s, during which it reads nothing: the answers behind it
    (a hover) would be timed late by the client's own work, not the server's."""
    if len(body) > BIG_ANSWER:
        head = _ANSWER_HEAD.match(body)
        if head is not None:
            result_id = _RESULT_ID.search(body, head.end(), head.end() + 64)
            return {"id": int(head.group(1)),
                    "result": {"resultId": result_id.group(1).decode()} if result_id else {}}
    return json.loads(body)


class RawClient(Publications):
    """A minimal LSP client over the server's stdio: JSON in and out, answers as plain
    JSON (`json.loads`), so that the time measured is the server's, not the time a
    Python client takes to turn a large answer into objects."""

    def __init__(self) -> None:
        super().__init__()
        self.process: asyncio.subprocess.Process | None = None
        self.pending: dict[int, asyncio.Future] = {}
        self.sent: dict[asyncio.Future, float] = {}  # when a request was written
        self.arrival: dict[asyncio.Future, float] = {}  # an answer's last byte read
        self.next_id = 0
        self.reader_task: asyncio.Task | None = None

    async def start(self, command: list[str]) -> None:
        self.process = await asyncio.create_subprocess_exec(
            *command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL, limit=1 << 20)
        self.reader_task = asyncio.ensure_future(self.read())

    async def read(self) -> None:
        stream = self.process.stdout
        while True:
            length = 0
            while True:
                line = await stream.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.partition(b":")
                if name.lower() == b"content-length":
                    length = int(value)
            body = await stream.readexactly(length)
            arrived = time.perf_counter()  # before the client's own parsing
            self.dispatch(skim(body), arrived)

    def dispatch(self, message: dict, arrived: float) -> None:
        method = message.get("method")
        if method is None:
            future = self.pending.pop(message.get("id"), None)
            if future is not None and not future.done():
                self.arrival[future] = arrived
                if "error" in message:
                    future.set_exception(RuntimeError(message["error"].get("message", "error")))
                else:
                    future.set_result(message.get("result"))
            return
        if "id" in message:  # a request of the server: configuration, registrations, refreshes
            params = message.get("params") or {}
            result = [None for _ in params.get("items", [])] if method == "workspace/configuration" else None
            self.send({"jsonrpc": "2.0", "id": message["id"], "result": result})
        elif method == "textDocument/publishDiagnostics":
            params = message["params"]
            self.record(params.get("version"), len(params["diagnostics"]), arrived)

    def send(self, message: dict) -> None:
        body = json.dumps(message).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def notify(self, method: str, params: dict) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params: dict | None) -> asyncio.Future:
        self.next_id += 1
        future = asyncio.get_running_loop().create_future()
        self.pending[self.next_id] = future
        self.sent[future] = time.perf_counter()
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        return future

    async def diagnostics_of(self, version: int, timeout: float = 600.0) -> float:
        return await super().diagnostics_of(version, timeout)

    async def stop(self) -> None:
        await self.request("shutdown", None)
        self.notify("exit", None)
        await self.process.stdin.drain()
        try:
            await asyncio.wait_for(self.process.wait(), 10)
        except TimeoutError:
            self.process.kill()
        if self.reader_task is not None:
            self.reader_task.cancel()


def server_rss(pid: int) -> tuple[float, float]:
    """(VmHWM, VmRSS) of a process, in MB."""
    found = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("VmHWM", "VmRSS"):
                found[key] = int(value.split()[0]) / 1024
    return found.get("VmHWM", 0.0), found.get("VmRSS", 0.0)


class BurstResult:
    def __init__(self, pattern: str, lines: int) -> None:
        self.pattern = pattern
        self.lines = lines
        self.times: dict[str, list[float]] = {}
        self.errors: dict[str, int] = {}
        self.open_ms = 0.0
        self.warm_ms = 0.0
        self.peak_mb = self.rss_mb = 0.0
        self.bursts_peak_mb = 0.0  # VmHWM when the bursts end, before format on save
        self.delta = False

    def add(self, name: str, ms: float | None) -> None:
        self.times.setdefault(name, [])
        if ms is None:
            self.errors[name] = self.errors.get(name, 0) + 1
        else:
            self.times[name].append(ms)


def position(line: int, character: int) -> dict:
    return {"line": line, "character": character}


FORMAT_ROUNDS = 10  # format-on-save rounds after the bursts
FORMAT_HOVER_DELAY = 0.02  # seconds from a formatting request to the hover that follows it


async def burst(pattern: str, lines_wanted: int, args: argparse.Namespace) -> BurstResult:
    rng = random.Random(args.seed)
    text = heat_file(lines_wanted)
    if args.broken:  # a syntax error the whole time, at the top of the file
        text = text.replace("    I32 r = u[y, x];\n", "    I32 r = u[y, x]\n", 1)
    lines = text.split("\n")
    result = BurstResult(pattern + (" broken" if args.broken else ""), text.count("\n"))
    client = RawClient()
    await client.start(args.server.split() if args.server else [sys.executable, "-P", "-m", "cint_ls.server"])
    pid = client.process.pid
    initialized = await client.request("initialize", {"processId": os.getpid(), "rootUri": None,
                                                      "capabilities": BURST_CAPABILITIES})
    client.notify("initialized", {})
    provider = initialized["capabilities"].get("semanticTokensProvider") or {}
    full = provider.get("full")
    result.delta = pattern == "vscode" and isinstance(full, dict) and bool(full.get("delta"))

    version = 1
    sent = time.perf_counter()
    client.notify("textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "cint", "version": version,
                                                            "text": text}})
    result.open_ms = (await client.diagnostics_of(version) - sent) * 1000

    doc = {"uri": URI}
    spaces = [i for i, line in enumerate(lines) if line.startswith("    I64 c = ")]
    semis = [i for i, line in enumerate(lines) if line.endswith("as I32;")]
    stars = [(i, line.index("kn * lap") + 3) for i, line in enumerate(lines) if "kn * lap" in line]
    result_id: list[str | None] = [None]

    async def timed(name: str, request, warm: bool, also: str | None = None) -> None:
        """`also`: a second row the time goes to (the edits that make a syntax error)."""
        start = client.sent.pop(request, time.perf_counter())
        try:
            answer = await request
        except RuntimeError:  # an error answer (ContentModified, RequestCancelled): counted
            if not warm:
                for row in filter(None, (name, also)):
                    result.add(row, None)
            return
        end = client.arrival.pop(request, time.perf_counter())
        if not warm:
            for row in filter(None, (name, also)):
                result.add(row, (end - start) * 1000)
        if name.startswith("semanticTokens") and isinstance(answer, dict) and answer.get("resultId"):
            result_id[0] = answer["resultId"]

    def tokens_request():
        if result.delta and result_id[0] is not None:
            return "semanticTokens/full/delta", client.request(
                "textDocument/semanticTokens/full/delta", {"textDocument": doc, "previousResultId": result_id[0]})
        return "semanticTokens/full", client.request("textDocument/semanticTokens/full", {"textDocument": doc})

    async def later(delay: float, line: int, column: int, warm: bool) -> None:
        await asyncio.sleep(delay)
        star = min(stars, key=lambda s: abs(s[0] - line))
        await asyncio.gather(
            timed("hover", client.request("textDocument/hover", {"textDocument": doc,
                                                                 "position": position(*star)}), warm),
            timed("completion", client.request("textDocument/completion", {"textDocument": doc,
                                                                           "position": position(line, column)}), warm))

    async def round_(n: int, warm: bool) -> None:
        nonlocal version, line, column, kind
        if n % 2 == 0:
            kind = "space" if (n // 2) % 3 else "semi"
            line = rng.choice(spaces if kind == "space" else semis)
            column = len("    I64 c = ") if kind == "space" else len(lines[line]) - 1
            step = (column, column, " ") if kind == "space" else (column, column + 1, "")
        else:
            step = (column, column + 1, "") if kind == "space" else (column, column, ";")
        # Deleting the `;` makes a syntax error: its rows are also shown apart.
        breaking = " (edits making a syntax error)" if kind == "semi" and n % 2 == 0 else None
        version += 1
        sent = time.perf_counter()
        client.notify("textDocument/didChange", {
            "textDocument": {"uri": URI, "version": version},
            "contentChanges": [{"range": {"start": position(line, step[0]), "end": position(line, step[1])},
                                "text": step[2]}]})
        if pattern == "vscode":
            first = max(0, line - 20)
            visible = {"start": position(first, 0), "end": position(first + 60, 0)}
            name, tokens = tokens_request()
            jobs = [
                timed(name, tokens, warm, breaking and name.split("/", 1)[1] + breaking),
                timed("inlayHint (60 lines)", client.request("textDocument/inlayHint",
                                                             {"textDocument": doc, "range": visible}), warm),
                timed("codeLens", client.request("textDocument/codeLens", {"textDocument": doc}), warm),
                timed("documentSymbol", client.request("textDocument/documentSymbol", {"textDocument": doc}), warm),
                timed("foldingRange", client.request("textDocument/foldingRange", {"textDocument": doc}), warm),
            ]
        else:
            whole = {"start": position(0, 0), "end": position(len(lines) + 1, 0)}
            jobs = [
                timed("semanticTokens/full", client.request("textDocument/semanticTokens/full",
                                                            {"textDocument": doc}), warm),
                timed("inlayHint (whole buffer)", client.request("textDocument/inlayHint",
                                                                 {"textDocument": doc, "range": whole}), warm),
            ]
        jobs.append(later(0.3, line, len("    I64 c = ") if kind == "space" else column, warm))
        diagnostics = asyncio.ensure_future(client.diagnostics_of(version))
        await asyncio.gather(*jobs)
        published = await diagnostics
        if not warm:
            for row in filter(None, ("edit -> publishDiagnostics", breaking and "edit -> diagnostics" + breaking)):
                result.add(row, (published - sent) * 1000)

    line = column = 0
    kind = "space"
    start = time.perf_counter()
    await round_(0, True)  # every item's first results
    await round_(1, True)
    result.warm_ms = (time.perf_counter() - start) * 1000
    for n in range(args.rounds):
        await asyncio.sleep(args.pause)
        await round_(n + 2, False)
    result.bursts_peak_mb = server_rss(pid)[0]
    # Format on save: an edit, its diagnostics, then formatting, and a hover on the same
    # document FORMAT_HOVER_DELAY after it (the formatting of an edited version reuses
    # the lines of every item the edit did not touch; its last guard parses the whole
    # output again).
    for n in range(FORMAT_ROUNDS):
        await asyncio.sleep(args.pause)
        row = spaces[(n // 2 * 7) % len(spaces)]
        at = len("    I64 c = ")
        version += 1
        client.notify("textDocument/didChange", {
            "textDocument": {"uri": URI, "version": version},
            "contentChanges": [{"range": {"start": position(row, at), "end": position(row, at + n % 2)},
                                "text": " " if n % 2 == 0 else ""}]})
        await client.diagnostics_of(version)
        formatting = client.request("textDocument/formatting", {
            "textDocument": doc, "options": {"tabSize": 4, "insertSpaces": True}})
        await asyncio.sleep(FORMAT_HOVER_DELAY)
        star = min(stars, key=lambda s: abs(s[0] - row))
        hover = client.request("textDocument/hover", {"textDocument": doc, "position": position(*star)})
        await asyncio.gather(timed("formatting (after an edit)", formatting, False),
                             timed(f"hover {FORMAT_HOVER_DELAY * 1000:.0f} ms into the formatting", hover, False))
    # The unchanged version: what the same requests cost when nothing changed.
    if pattern == "vscode":
        for _ in range(5):
            for name, method in (("codeLens (unchanged)", "textDocument/codeLens"),
                                 ("documentSymbol (unchanged)", "textDocument/documentSymbol"),
                                 ("foldingRange (unchanged)", "textDocument/foldingRange"),
                                 ("semanticTokens/full (unchanged)", "textDocument/semanticTokens/full")):
                await timed(name, client.request(method, {"textDocument": doc}), False)
    result.peak_mb, result.rss_mb = server_rss(pid)
    await client.stop()
    return result


def print_table(results: list[BurstResult], args: argparse.Namespace) -> None:
    print(f"\neditor bursts: {args.rounds} rounds each, {args.pause * 1000:.0f} ms between rounds; "
          f"times in ms from sending to the answer")
    header = f"{'pattern':<8} {'lines':>6}  {'what':<48} {'p50':>8} {'p95':>8} {'max':>8} {'n':>4} {'errors':>6}"
    print(header)
    print("-" * len(header))
    for r in results:
        for name, samples in r.times.items():
            errors = r.errors.get(name, 0)
            if samples:
                print(f"{r.pattern:<8} {r.lines:>6}  {name:<48} {statistics.median(samples):8.1f} "
                      f"{p95(samples):8.1f} {max(samples):8.1f} {len(samples):>4} {errors:>6}")
            else:
                print(f"{r.pattern:<8} {r.lines:>6}  {name:<48} {'-':>8} {'-':>8} {'-':>8} {0:>4} {errors:>6}")
        print(f"{r.pattern:<8} {r.lines:>6}  {'open -> first diagnostics':<48} {r.open_ms:8.1f}")
        print(f"{r.pattern:<8} {r.lines:>6}  {'first two rounds (unmeasured)':<48} {r.warm_ms:8.1f}")
        print(f"{r.pattern:<8} {r.lines:>6}  {'server peak RSS (VmHWM), MB':<48} {r.peak_mb:8.1f}"
              f"   (RSS at the end {r.rss_mb:.1f} MB; tokens by {'delta' if r.delta else 'full'})")
        print(f"{r.pattern:<8} {r.lines:>6}  {'  the same when the bursts ended, MB':<48} {r.bursts_peak_mb:8.1f}"
              "   (before format on save)")
        print()


async def run_bursts(args: argparse.Namespace) -> None:
    results = []
    for lines in [int(x) for x in str(args.lines).split(",")]:
        for pattern in args.burst.split(","):
            if pattern not in ("vscode", "neovim"):
                raise SystemExit(f"unknown pattern {pattern!r}: vscode or neovim")
            print(f"{pattern}, {lines} lines ...", flush=True)
            try:
                results.append(await burst(pattern, lines, args))
            except Exception as error:  # noqa: BLE001 - the other bursts still report
                print(f"{pattern}, {lines} lines: failed: {error!r}", flush=True)
    print_table(results, args)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", default="5000", help="lines of the file; with --burst, a comma-separated list")
    parser.add_argument("--edits", type=int, default=60)
    parser.add_argument("--hovers", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--burst", help="editor-burst mode: vscode, neovim, or both comma-separated")
    parser.add_argument("--rounds", type=int, default=30, help="measured rounds of a burst")
    parser.add_argument("--pause", type=float, default=0.1, help="seconds between the rounds of a burst")
    parser.add_argument("--broken", action="store_true",
                        help="in a burst, the file has a syntax error (a `;` missing in its first kernel) throughout")
    parser.add_argument("--server", help="the server's command line in a burst (default: this python -P -m "
                                         "cint_ls.server), e.g. to run it under a profiler")
    args = parser.parse_args()
    if args.burst:
        asyncio.run(run_bursts(args))
    else:
        args.lines = int(args.lines)
        asyncio.run(run(args))


if __name__ == "__main__":
    main()
