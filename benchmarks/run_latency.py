"""How long a Run of tests/conformance/heat_tour.ci takes from the editor (issue 14: a
cold Run under 1 s, a cached one under 150 ms; issue 29: a first Run on a fresh install
at most 0.6 s).

The path is the editor's: `server.runs.run_program` (the run façade, `running.run.run`, in a
child process with the server's time limit, output limit and cancellation hook), with
the executor of the plain Run lens, `auto` (cpu-c17 where there is a C compiler), from a
process that has already run once (a server's imports are warm). Five cases, the
median of N runs each:

- fresh install: an empty cache (XDG_CACHE_HOME a fresh directory for each run) and the
  run-time prebuilt with the package (cint_ls/exec/c17/prebuilt, made by setup.py):
  its objects are copied into the cache and only the program is compiled. The run
  stops with a message where the package has no prebuilt run-time this compiler can
  use (reinstall it: `pip install -e .`);
- cold: an empty cache and the prebuilt run-time ignored (`CINT_C17_PREBUILT=off`, as
  for a compiler other than the package's): the C run-time and the program are
  compiled;
- cold program: the run-time's objects cached, the program's library not (a fresh copy
  of a cache holding only the run-time);
- cached: the program's library cached;
- cached, no spare: the same without the child the server keeps started for the next
  Run (`running.isolated.keep_spare`, which the server turns on at `initialize`): each
  run starts its child, as the CLI does.

The runs are PAUSE seconds apart (a person clicks Run again after reading the output;
the server's spare child imports in that time). In the cold cases each run has its own
cache directory, so no spare serves them (a spare serves only a run with the
environment it was started in).

    python benchmarks/run_latency.py [-n 7] [--executor auto]

Prints each case's median, minimum and maximum, the machine's load average before and
after, the C compiler's CPU time for a first Run's library with and without the prebuilt
run-time (which the machine's load changes little), and whether the targets were met.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEAT = ROOT / "tests" / "conformance" / "heat_tour.ci"
EXPECTED = "after 40 steps: total=60150 center=1042 edge=72\n"
TARGETS = {"fresh install": 0.6, "cold": 1.0, "cached": 0.150}
PAUSE = 0.5  # seconds between runs


def one_run(executor: str) -> tuple[float, str]:
    from cint_ls.server.runs import run_program
    from cint_ls.server.settings import Settings

    started = time.perf_counter()
    outcome = run_program(executor, str(HEAT), HEAT.read_text(), Settings(), cancel=lambda: False)
    seconds = time.perf_counter() - started
    if outcome.result is None or outcome.result.output != EXPECTED:
        raise SystemExit(f"the run went wrong: {outcome.summary}")
    return seconds, outcome.executor


@contextmanager
def cache_environment(directory: str, prebuilt: bool) -> Iterator[None]:
    """XDG_CACHE_HOME `directory`, and CINT_C17_PREBUILT `off` unless `prebuilt`."""
    changes = {"XDG_CACHE_HOME": directory, "CINT_C17_PREBUILT": None if prebuilt else "off"}
    previous = {name: os.environ.get(name) for name in changes}

    def put(values: dict[str, str | None]) -> None:
        for name, value in values.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value

    put(changes)
    try:
        yield
    finally:
        put(previous)


def with_cache(directory: str, executor: str, prebuilt: bool = True) -> tuple[float, str]:
    time.sleep(PAUSE)
    with cache_environment(directory, prebuilt):
        return one_run(executor)


def check_prebuilt() -> str:
    """The compiler whose prebuilt run-time the package holds (SystemExit when it holds
    none that the compiler cpu-c17 chooses here can use)."""
    from cint_ls.exec.c17.build import find_compiler, runtime_sources
    from cint_ls.exec.c17.toolchain import PREBUILT_DIR, object_name, usable_prebuilt

    compiler = find_compiler()
    usable = usable_prebuilt(compiler)
    missing = [name for name in runtime_sources() if object_name(name) not in usable]
    if missing:
        raise SystemExit(f"the package has no prebuilt run-time for {' '.join(compiler.argv)} in {PREBUILT_DIR} "
                         f"(missing or stale: {', '.join(missing)}); reinstall it (pip install -e .)")
    return f"{' '.join(compiler.argv)} ({compiler.version})"


def compiler_time(directory: str, prebuilt: bool) -> float:
    """The CPU seconds of the C compiler (user and system, of the processes this one
    waited for) when cpu-c17 builds heat_tour's library on an empty cache, in this
    process: a figure the machine's load changes little, beside the Run's time."""
    from cint_ls.exec.c17.build import build_library
    from cint_ls.exec.c17.library import emit
    from cint_ls.ir.build import build

    c_text = emit(build(HEAT.read_text(), str(HEAT)).program)
    with cache_environment(directory, prebuilt):
        before = os.times()
        build_library(c_text)
        after = os.times()
    return (after.children_user - before.children_user) + (after.children_system - before.children_system)


def runtime_only_cache(base: Path, executor: str) -> Path:
    """A cache holding the run-time's objects and no program library."""
    cache = base / "runtime-only"
    with_cache(str(cache), executor)
    c17 = cache / "cint-ls" / "c17"
    for entry in c17.iterdir():
        if entry.is_dir() and not entry.name.startswith("rt-"):
            shutil.rmtree(entry)
    auto = cache / "cint-ls" / "auto"
    if auto.exists():
        shutil.rmtree(auto)
    return cache


def line(name: str, samples: list[float]) -> str:
    return (f"{name:<17} median {statistics.median(samples) * 1e3:7.1f} ms   min {min(samples) * 1e3:7.1f} ms   "
            f"max {max(samples) * 1e3:7.1f} ms   (n={len(samples)})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=7, help="runs per case (default 7)")
    parser.add_argument("--executor", default="auto", help="the executor (default auto, as the plain Run lens)")
    args = parser.parse_args()
    if args.n < 1:
        parser.error("-n takes 1 or more runs")
    from cint_ls.running.isolated import keep_spare

    prebuilt_by = check_prebuilt()
    keep_spare(True)  # as the server does
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="cint-latency-") as temporary:
        base = Path(temporary)
        _, executor = with_cache(str(base / "warm-up"), args.executor)  # this process's imports, once
        fresh = [with_cache(str(base / f"fresh-{k}"), args.executor)[0] for k in range(args.n)]
        cold = [with_cache(str(base / f"cold-{k}"), args.executor, prebuilt=False)[0] for k in range(args.n)]
        template = runtime_only_cache(base, args.executor)
        program = []
        for k in range(args.n):
            copy = base / f"program-{k}"
            shutil.copytree(template, copy, symlinks=True)
            program.append(with_cache(str(copy), args.executor)[0])
        warm = base / "cached"
        with_cache(str(warm), args.executor)
        cached = [with_cache(str(warm), args.executor)[0] for _ in range(args.n)]
        keep_spare(False)
        unspared = [with_cache(str(warm), args.executor)[0] for _ in range(args.n)]
        compiler_fresh = [compiler_time(str(base / f"cpu-fresh-{k}"), True) for k in range(args.n)]
        compiler_cold = [compiler_time(str(base / f"cpu-cold-{k}"), False) for k in range(args.n)]
    load_after = os.getloadavg()
    print(f"Run of {HEAT.relative_to(ROOT)} through server.runs.run_program, executor {args.executor} "
          f"(ran on {executor}); {os.cpu_count()} CPUs; load average {load_before[0]:.2f} before, "
          f"{load_after[0]:.2f} after; run-time prebuilt by {prebuilt_by}")
    print(line("fresh install", fresh))
    print(line("cold", cold))
    print(line("cold program", program))
    print(line("cached", cached))
    print(line("cached, no spare", unspared))
    print(f"a spare child: cached runs {statistics.median(unspared) / statistics.median(cached):.2f}x faster "
          f"(medians, side by side)")
    print(f"the C compiler's CPU time for a first Run's library: fresh install "
          f"{statistics.median(compiler_fresh):.2f} s, cold {statistics.median(compiler_cold):.2f} s (medians)")
    print(f"the prebuilt run-time: a first Run {statistics.median(cold) / statistics.median(fresh):.2f}x faster "
          f"(medians, side by side)")
    for name, samples in (("fresh install", fresh), ("cold", cold), ("cached", cached)):
        median = statistics.median(samples)
        verdict = "met" if median <= TARGETS[name] else "NOT met"
        print(f"target {name} <= {TARGETS[name] * 1e3:.0f} ms: {verdict} ({median * 1e3:.1f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
