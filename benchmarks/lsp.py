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
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

from heat_kernel import heat_file


URI = "file:///cint-ls-benchmark/big.ci"


def summary(name: str, samples: list[float]) -> str:
    samples = sorted(samples)
    p95 = samples[min(len(samples) - 1, int(len(samples) * 0.95))]
    return (f"{name:<34} median {statistics.median(samples):8.2f} ms   p95 {p95:8.2f} ms"
            f"   max {samples[-1]:8.2f} ms   (n={len(samples)})")


class Bench:
    def __init__(self) -> None:
        self.client = LanguageClient("cint-ls-benchmark", "1")
        self.published: dict[int, float] = {}  # version -> arrival time
        self.counts: dict[int, int] = {}  # version -> number of diagnostics
        self.arrived = asyncio.Event()

        @self.client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def publish(params: lsp.PublishDiagnosticsParams):
            if params.version is not None:
                self.published[params.version] = time.perf_counter()
                self.counts[params.version] = len(params.diagnostics)
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
            except asyncio.TimeoutError:
                pass
        return self.published[version]


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
    stars = [(i, lines[i].index("kn * lap") + 3) for i, line in enumerate(lines) if "kn * lap" in line]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=5000)
    parser.add_argument("--edits", type=int, default=60)
    parser.add_argument("--hovers", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
