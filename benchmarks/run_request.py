"""What a Run's child process is sent (issue 29, a Run builds once): the program's IR as
the façade built it, pickled (`running.isolated.Request.to_bytes`), for
tests/conformance/heat_e1.ci and the heat kernel repeated to a large file, beside the
build the child no longer does (parse, analysis, IR) and the imports it no longer needs.

For each program: its lines, the request's bytes, the CPU time to pickle it (in the
parent) and to unpickle it (in the child, the collector paused as `isolated` pauses
it), and the CPU time of `ir.build.build` (medians of N). Then the child's imports:
`python -X importtime -P -m cint_ls.running.isolated` given heat_e1's request, without
and with `--spare`, the modules it imported and whether the parser is among them.

    python benchmarks/run_request.py [--lines 5000] [-n 5]

CPU time (`time.process_time`), which a loaded machine changes less than wall time.
"""

from __future__ import annotations

import argparse
import gc
import pickle
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from heat_kernel import heat_file

from cint_ls.ir.build import build
from cint_ls.running.isolated import Request

ROOT = Path(__file__).resolve().parent.parent
HEAT_E1 = ROOT / "tests" / "conformance" / "heat_e1.ci"
T = TypeVar("T")
PARSER = ("tree_sitter", "cint_ls.syntax.parser", "cint_ls.analysis.checker", "cint_ls.ir.build")


def cpu_ms(call: Callable[[], T], n: int) -> tuple[float, T]:
    samples = []
    for _ in range(max(1, n)):
        start = time.process_time()
        value = call()
        samples.append(time.process_time() - start)
    return statistics.median(samples) * 1e3, value


def unpickle(data: bytes) -> object:
    gc.disable()
    try:
        return pickle.loads(data)
    finally:
        gc.enable()


def program_row(name: str, text: str, n: int) -> str:
    built_ms, built = cpu_ms(lambda: build(text, f"{name}.ci"), max(1, n // 2))
    program = built.program
    if program is None:
        raise SystemExit(f"{name} has translation errors")
    request = Request("cpu-c17", program)
    dump_ms, data = cpu_ms(request.to_bytes, n)
    load_ms, _ = cpu_ms(lambda: unpickle(data), n)
    return (f"{name:<12} {text.count(chr(10)):>6} lines  text {len(text.encode()):>9,} B  request {len(data):>10,} B  "
            f"pickle {dump_ms:7.1f} ms  unpickle {load_ms:7.1f} ms  build {built_ms:7.1f} ms")


def child_imports(spare: bool) -> str:
    data = Request.of_text("cpu-sir-interp", str(HEAT_E1), HEAT_E1.read_text()).to_bytes()
    done = subprocess.run([sys.executable, "-X", "importtime", "-P", "-m", "cint_ls.running.isolated",
                           *(["--spare"] if spare else [])], input=data, capture_output=True, check=True)
    rows = [line.split("|") for line in done.stderr.decode().splitlines() if line.startswith("import time:")]
    modules = [row[2].strip() for row in rows[1:]]
    top = sum(int(row[1]) for row in rows[1:] if not row[2].startswith("  ") and row[1].strip().isdigit())
    parser = [m for m in modules if m.startswith(PARSER)]
    return (f"child{' --spare' if spare else '':<8} {len(modules)} modules, {top / 1e3:.0f} ms of imports; "
            f"the parser's: {', '.join(parser) or 'none'}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=5000, help="lines of the large program (default 5000)")
    parser.add_argument("-n", type=int, default=5, help="samples per figure (default 5)")
    args = parser.parse_args()
    print(program_row("heat_e1", HEAT_E1.read_text(), args.n))
    print(program_row(f"heat{args.lines}", heat_file(args.lines), args.n))
    print(child_imports(False))
    print(child_imports(True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
