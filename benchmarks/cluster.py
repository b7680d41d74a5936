"""The heat kernel (SPEC-02P.1 clause 11) on a 4096 by 4096 grid for 10 steps: cpu-c17
in this process (1 thread, and its default threads) beside `--cluster local:2` (the
work-items of every dispatch as tiles on a Dask LocalCluster of 2 worker processes,
cint_ls/exec/c17/cluster.py), all in one process. Prints a table: the wall time, the
dispatches' time, the bytes sent to the workers and back per dispatch, the mean time of
a tile on its worker and the overhead per tile; every run must print the same total and
center and consume the same fuel.

    python benchmarks/cluster.py [--size 4096] [--steps 10] [--workers 2] [--tiles 2] [--rounds 1] [--calls on,off]

The overhead per tile of a dispatch is what the dispatch took beyond its tiles' work
spread evenly over the workers, per tile: (dispatch time - sum of tile times on their
workers / workers) / tiles. It holds everything the cluster adds: packing the plan
(every array argument's storage and every output's staging), scattering it to each
worker, Dask's scheduling, the results' way back, and taking them in (cint_tile_accept).
The LocalCluster's start is timed on its own (`--cluster local:2` pays it on every run).
The load average before and after is printed: on a shared machine the figures move with it.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from heat_kernel import heat_kernel

PROGRAM = """
void run() {{
    I32[{n}, {n}] a;
    I32[{n}, {n}] b;
    for y in 0..{n} {{
        for x in 0..{n} {{
            a[y, x] = ((y * 7 + x * 13) % 1000 * 100) as I32;
        }}
    }}
    I64 heat = 0;
    for t in 0..{half} {{
        diffuse(a, 1, 8, b, heat);
        diffuse(b, 1, 8, a, heat);
    }}
    "total={{heat}} center={{a[{c}, {c}]}}\\n";
}}

run();
"""


# A kernel whose work-items compute: about 1,000 iterations of a linear congruential
# step each (issue 33: the cluster must pay where the work is in the work-items).
COMPUTE = """
kernel churn[n](in I64[n] seed, out I64[n] r, out I64 total) over [i: n] {{
    I64 x = seed[i];
    for j in 0..1000 {{
        x = (x * 1103515245 + 12345) % 2147483648;
    }}
    r[i] = x;
    reduce total = sum(x % 1000);
}}

void run() {{
    I64[{n}] a;
    I64[{n}] b;
    for i in 0..{n} {{
        a[i] = i * 7919 % 2147483648;
    }}
    I64 sum = 0;
    for t in 0..{half} {{
        churn(a, b, sum);
        churn(b, a, sum);
    }}
    "total={{sum}} a7={{a[7]}}\\n";
}}

run();
"""


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def size(value: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kernel", choices=("heat", "compute"), default="heat",
                        help="heat: SIZE x SIZE heat steps (memory-bound); compute: SIZE work-items of about "
                             "1,000 iterations each (default SIZE 1048576)")
    parser.add_argument("--size", type=int, default=None, help="4096 for heat (a side), 1048576 for compute")
    parser.add_argument("--steps", type=int, default=10, help="dispatches (an even number)")
    parser.add_argument("--workers", type=int, default=2, help="local:N")
    parser.add_argument("--tiles", default="auto", help="tiles per worker, a comma-separated list of numbers "
                        "(cluster_tiles) and `auto` (as cint run chooses: from the tiles' times, at most 4)")
    parser.add_argument("--rounds", type=int, default=1, help="each configuration this many times, interleaved")
    parser.add_argument("--calls", default="on", help="on, off or on,off: whether tiles that need nothing from "
                        "Dask go straight to their worker's handler (tile_calls.py) rather than as tasks")
    parser.add_argument("--check", default="first16", choices=("first16", "all", "none"),
                        help="which tiles the host runs again to check (cint run --cluster-check)")
    args = parser.parse_args()

    from cint_ls.exec.c17 import cluster
    from cint_ls.exec.c17.build import build_library
    from cint_ls.exec.c17.library import default_threads, emit, emit_for_cluster, run_library
    from cint_ls.exec.c17.tiles import TileRunner
    from cint_ls.ir.build import build

    n, steps = args.size or (4096 if args.kernel == "heat" else 1 << 20), args.steps
    if steps % 2:
        parser.error("--steps takes an even number (the steps go a -> b -> a)")
    if args.kernel == "heat":
        text = heat_kernel() + PROGRAM.format(n=n, half=steps // 2, c=n // 2)
    else:
        text = COMPUTE.format(n=n, half=steps // 2)
    program = build(text, "heat_cluster.ci").program
    assert program is not None
    started = time.perf_counter()
    library = build_library(emit(program))
    counting = build_library(emit_for_cluster(program))  # a cluster's run counts the host's stores
    print(f"compiled in {time.perf_counter() - started:.2f} s (cached after the first time)")
    threads = default_threads()
    tile_counts = [0 if t == "auto" else int(t) for t in args.tiles.split(",")]

    print(f"load average before: {load()} ({os.cpu_count()} cores)")
    started = time.perf_counter()
    spec = f"local:{args.workers}"
    opened = cluster.open_cluster(spec)
    startup = time.perf_counter() - started
    workers = opened.worker_count()
    print(f"{spec}: started in {startup:.2f} s ({workers} worker processes, 1 thread each)")

    results: dict[str, list[dict]] = {}
    outputs: set[tuple[str, int]] = set()

    def c17(t: int) -> dict:
        begun = time.perf_counter()
        result, _ = run_library(library, None, threads=t, report=True)
        wall = time.perf_counter() - begun
        assert result.fault is None, result.fault
        outputs.add((result.output, result.fuel_consumed))
        return {"wall": wall, "rows": result.dispatch_log, "output": result.output}

    def tiled(per_worker: int, calls: bool) -> dict:  # 0: as `cint run --cluster` chooses (up to 4, from the tiles' times)
        tiles = TileRunner(opened, str(counting), program, args.check)
        tiles.calls = calls
        tiles.per_worker_tiles = per_worker or cluster.TILES_PER_WORKER
        tiles.adapt = per_worker == 0
        begun = time.perf_counter()
        result, _ = run_library(counting, None, threads=1, report=True, tiles=tiles)
        wall = time.perf_counter() - begun
        assert result.fault is None, result.fault
        assert not tiles.errors, tiles.errors
        tiles.attach(result.dispatch_log)
        assert all("cluster" in row for row in result.dispatch_log), "a dispatch stayed on the host"
        outputs.add((result.output, result.fuel_consumed))
        return {"wall": wall, "rows": result.dispatch_log, "output": result.output}

    configs = [("cpu-c17, 1 thread", lambda: c17(1)), (f"cpu-c17, {threads} threads", lambda: c17(threads))]
    calls = [{"on": True, "off": False}[c] for c in args.calls.split(",")]
    configs += [(f"{spec}, {t or 'auto'} tiles/worker{'' if c else ', tasks'}", (lambda t=t, c=c: tiled(t, c)))
                for t in tile_counts for c in calls]
    try:
        for round_ in range(args.rounds):
            order = configs[round_ % len(configs):] + configs[:round_ % len(configs)]
            for name, go in order:
                results.setdefault(name, []).append(go())
                print(f"  round {round_ + 1}: {name}: {results[name][-1]['wall']:.2f} s (load {load()})",
                      flush=True)
    finally:
        began = time.perf_counter()
        opened.close()
        closing = time.perf_counter() - began
    print(f"load average after: {load()}; {spec} closed in {closing:.2f} s")
    if len(outputs) != 1:
        print(f"the runs disagree: {sorted(outputs)}")
        return 1
    (output, fuel), = outputs
    what = f"heat {n} x {n}, {steps} steps" if args.kernel == "heat" else f"compute, {steps} steps"
    items = n * n if args.kernel == "heat" else n
    print(f"{what}: {steps} dispatches of {items:,} work-items; every run printed "
          f"{output.strip()} and consumed fuel {fuel}")

    head = (f"{'':<36} {'wall':>8} {'dispatches':>10} {'/dispatch':>10} {'median':>8} {'sent':>9} {'back':>9} {'tiles':>5} "
            f"{'tile time':>9} {'overhead':>9}")
    print(head)
    print(f"{'':<36} {'s':>8} {'s':>10} {'ms':>10} {'2nd on':>8} {'/disp.':>9} {'/disp.':>9} {'/disp.':>5} "
          f"{'ms':>9} {'ms/tile':>9}")
    for name, _ in configs:
        for run in results[name]:
            rows = run["rows"]
            dispatch = sum(row["seconds"] for row in rows)
            later = sorted(row["seconds"] for row in rows[1:]) or [dispatch]
            line = (f"{name:<36} {run['wall']:>8.2f} {dispatch:>10.2f} {dispatch / len(rows) * 1e3:>10.1f} "
                    f"{later[len(later) // 2] * 1e3:>8.1f}")
            entries = [row.get("cluster") for row in rows]
            if all(entries):
                sent = sum(e["bytes_sent"] for e in entries[1:]) / max(1, len(entries) - 1)  # the first: + library
                back = sum(e["bytes_back"] for e in entries) / len(entries)
                ntiles = sum(e["tiles"] for e in entries)
                seconds = [s for e in entries for s in e["tile_seconds"] if s is not None]
                work = sum(seconds) / workers
                overhead = (dispatch - work) / ntiles
                line += (f" {size(sent):>9} {size(back):>9} {ntiles // len(entries):>5} "
                         f"{sum(seconds) / len(seconds) * 1e3:>9.1f} {overhead * 1e3:>9.1f}")
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
