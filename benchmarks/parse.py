"""Parse speed on a 10,000-line file: the heat kernel of SPEC-02P.1 clause 11 repeated.

Measures, side by side in one run: a full parse; a one-character incremental reparse
(Tree.edit + reparse, as the language server does it) of an edit that keeps the file
valid; the same for an edit that leaves a syntax error (which reparses from scratch, see
cint_ls/syntax/parser.py); and lowering the tree to the AST.

    python benchmarks/parse.py [--lines 10000] [--repeat 30]
"""

from __future__ import annotations

import argparse
import statistics
import time

from heat_kernel import heat_file

from cint_ls.syntax import ParsedDocument, Position, SourceText, TextEdit, parse
from cint_ls.syntax.lower import lower


def timed(fn, repeat: int) -> list[float]:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def summary(name: str, samples: list[float]) -> str:
    samples = sorted(samples)
    p95 = samples[min(len(samples) - 1, int(len(samples) * 0.95))]
    return f"{name:<42} median {statistics.median(samples):8.3f} ms   p95 {p95:8.3f} ms"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    text = heat_file(args.lines)
    line = text.count("\n") // 2
    # `- 4 * c` on line 12 of a kernel in the middle of the file.
    while "- 4 * c" not in text.split("\n")[line]:
        line += 1
    column = text.split("\n")[line].index("4")
    print(f"{text.count(chr(10))} lines, {len(text.encode())} bytes")

    print(summary("full parse", timed(lambda: parse(text), args.repeat)))

    document = ParsedDocument(text)
    digits = iter("5454545454" * (args.repeat + 1))

    def valid_edit() -> None:
        document.apply(TextEdit(Position(line, column), Position(line, column + 1), next(digits)))

    print(summary("1-char incremental reparse (valid)", timed(valid_edit, args.repeat)))

    broken = ParsedDocument(text)
    toggle = iter(["@", "4"] * (args.repeat + 1))

    def error_edit() -> None:
        broken.apply(TextEdit(Position(line, column), Position(line, column + 1), next(toggle)))

    print(summary("1-char reparse (syntax error on/off)", timed(error_edit, args.repeat)))

    source = SourceText(text)
    tree = parse(text)
    print(summary("lower tree to AST", timed(lambda: lower(tree, source), max(5, args.repeat // 5))))


if __name__ == "__main__":
    main()
