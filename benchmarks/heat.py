"""The heat kernel of SPEC-02P.1 clause 11 on a 2048 by 2048 grid for 40 steps, side by
side in one run: cpu-c17 on 1 thread and on all threads, the same arithmetic in
hand-written C without checks (-O2) on 1 thread and with OpenMP on all threads, and in
NumPy (int64 arrays). Prints the median and best times (compilation excluded) and the
ratios; every program must print the same total and center.

    python benchmarks/heat.py [--size 2048] [--steps 40] [--runs 7] [--threads N]

Every program fills the grid with the same pattern, takes the steps by double buffering
(SPEC-02P.1 11.5), and prints the last total and the center. The runs are interleaved
(each round runs every program once, in a rotated order), so that all see the same
machine; the load average and, for the threaded runs, the CPU time over the wall time
(how many threads were busy on average) are printed, since a shared machine may not
give a second core when it is asked for. With --quiet only the rounds during which the
machine gave every thread a core are kept (see --help).

Targets (issue 14): cpu-c17 on 2 threads at least 1.7x faster than on 1; cpu-c17 on 1
thread within 1.15x of the hand-written C (GCC -O2); cpu-c17 faster than NumPy.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # OpenMP's threads must not spin between its runs

from heat_kernel import heat_kernel

KERNEL = heat_kernel()

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

# The same arithmetic in plain C: no checks, no staging, no fuel, no step counting; kn and
# kd are run-time arguments, as in the cint program. Compiled without -fopenmp the
# pragma is ignored (one thread); with it, the rows are shared among `threads` threads.
HAND_WRITTEN = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static int64_t div_round_half_even(int64_t a, int64_t b) {
    int64_t q = a / b, r = a % b;
    if (r != 0) {
        int negative = (r < 0) != (b < 0);
        uint64_t ur = r < 0 ? (uint64_t)0 - (uint64_t)r : (uint64_t)r;
        uint64_t ub = b < 0 ? (uint64_t)0 - (uint64_t)b : (uint64_t)b;
        uint64_t other = ub - ur;
        if (ur > other || (ur == other && (q & 1) != 0)) q += negative ? -1 : 1;
    }
    return q;
}

static int64_t step(const int32_t *u, int32_t *v, int64_t h, int64_t w, int64_t kn, int64_t kd) {
    int64_t total = 0;
#pragma omp parallel for reduction(+ : total) schedule(static)
    for (int64_t y = 0; y < h; y++) {
        for (int64_t x = 0; x < w; x++) {
            int64_t c = u[y * w + x];
            int32_t r = u[y * w + x];
            if (y > 0 && y < h - 1 && x > 0 && x < w - 1) {
                int64_t lap = (int64_t)u[(y - 1) * w + x] + (int64_t)u[(y + 1) * w + x]
                    + (int64_t)u[y * w + x - 1] + (int64_t)u[y * w + x + 1] - 4 * c;
                int64_t flux = div_round_half_even(kn * lap, kd);
                r = (int32_t)(c + flux);
            }
            v[y * w + x] = r;
            total += r;
        }
    }
    return total;
}

int heat_main(int64_t n, int64_t steps, int64_t kn, int64_t kd, int threads, int64_t *total, int32_t *center);
int heat_main(int64_t n, int64_t steps, int64_t kn, int64_t kd, int threads, int64_t *total, int32_t *center) {
#ifdef _OPENMP
    omp_set_num_threads(threads);
#else
    (void)threads;
#endif
    int32_t *a = calloc((size_t)(n * n), sizeof *a), *b = calloc((size_t)(n * n), sizeof *b);
    if (a == NULL || b == NULL) return 1;
    for (int64_t y = 0; y < n; y++)
        for (int64_t x = 0; x < n; x++) a[y * n + x] = (int32_t)((y * 7 + x * 13) % 1000 * 100);
    int64_t heat = 0;
    for (int64_t t = 0; t < steps / 2; t++) {
        heat = step(a, b, n, n, kn, kd);
        heat = step(b, a, n, n, kn, kd);
    }
    *total = heat;
    *center = a[(n / 2) * n + n / 2];
    free(a);
    free(b);
    return 0;
}

/* How many cores the machine gives now: a busy loop on 1 thread, then the same loop on
 * each of `threads` threads; the work done per second on all over that on one (about
 * `threads` on an idle machine, about 1 when the other cores are busy). */
double parallel_check(int threads);
double parallel_check(int threads) {
#ifdef _OPENMP
    volatile uint64_t sink = 0;
    double start = omp_get_wtime();
    for (uint64_t i = 0; i < 100000000u; i++) sink += i;
    double one = omp_get_wtime() - start;
    start = omp_get_wtime();
#pragma omp parallel num_threads(threads)
    {
        volatile uint64_t local = 0;
        for (uint64_t i = 0; i < 100000000u; i++) local += i;
    }
    double all = omp_get_wtime() - start;
    (void)sink;
    return threads * one / all;
#else
    (void)threads;
    return 1.0;
#endif
}
"""


def build_hand_written(directory: Path, compiler, openmp: bool) -> Path:
    source = directory / "heat_hand.c"
    source.write_text(HAND_WRITTEN)
    library = directory / ("heat_hand_omp.so" if openmp else "heat_hand.so")
    flags = ["-fopenmp"] if openmp else []
    subprocess.run([*compiler.argv, "-std=c17", "-O2", "-fPIC", "-shared", *flags, "-o", str(library), str(source)],
                   check=True)
    return library


def numpy_heat(n: int, steps: int, kn: int, kd: int) -> str:
    """The same arithmetic on int64 arrays (no overflow checks; kd > 0, as here)."""
    import numpy as np

    y, x = np.indices((n, n), dtype=np.int64)
    a = ((y * 7 + x * 13) % 1000 * 100).astype(np.int32)
    b = np.empty_like(a)
    heat = 0

    def step(u, v):
        c = u.astype(np.int64)
        lap = c[:-2, 1:-1] + c[2:, 1:-1] + c[1:-1, :-2] + c[1:-1, 2:] - 4 * c[1:-1, 1:-1]
        num = kn * lap
        q, r = np.divmod(num, kd)  # floor division, 0 <= r < kd
        twice = 2 * r
        q += (twice > kd) | ((twice == kd) & (q & 1 == 1))  # to nearest, ties to even
        v[...] = u
        v[1:-1, 1:-1] = (c[1:-1, 1:-1] + q).astype(np.int32)
        return int(v.sum(dtype=np.int64))

    for _ in range(steps // 2):
        heat = step(a, b)
        heat = step(b, a)
    return f"total={heat} center={a[n // 2, n // 2]}\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=2048)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--runs", type=int, default=7, help="rounds (each runs every program once)")
    parser.add_argument("--threads", type=int, default=None, help="all threads (default: the cores this "
                        "process may use)")
    parser.add_argument("--no-numpy", action="store_true")
    parser.add_argument("--quiet", action="store_true",
                        help="keep only rounds during which the machine gave all threads a core (a busy loop "
                             "checked before and after each round, and the OpenMP program's CPU time at least "
                             "0.8 x threads x its wall time); NumPy then runs in rounds of its own, beside "
                             "cpu-c17 on 1 thread")
    parser.add_argument("--max-seconds", type=float, default=900.0, help="--quiet gives up after this long")
    args = parser.parse_args()

    import cffi

    from cint_ls.exec.c17.build import build_library, find_compiler
    from cint_ls.exec.c17.library import default_threads, emit, run_library
    from cint_ls.ir.build import build

    n, steps = args.size, args.steps
    threads = args.threads or default_threads()
    text = KERNEL + PROGRAM.format(n=n, half=steps // 2, c=n // 2)
    program = build(text, "heat_bench.ci").program
    assert program is not None
    compiler = find_compiler()
    started = time.perf_counter()
    library = build_library(emit(program), compiler)
    compile_time = time.perf_counter() - started
    try:
        import numpy  # noqa: F401
        have_numpy = not args.no_numpy
    except ImportError:
        have_numpy = False

    with tempfile.TemporaryDirectory() as tmp:
        ffi = cffi.FFI()
        ffi.cdef("int heat_main(int64_t n, int64_t steps, int64_t kn, int64_t kd, int threads, int64_t *total, "
                 "int32_t *center); double parallel_check(int threads);")
        hand = ffi.dlopen(str(build_hand_written(Path(tmp), compiler, openmp=False)))
        hand_omp = ffi.dlopen(str(build_hand_written(Path(tmp), compiler, openmp=True)))
        total, center = ffi.new("int64_t *"), ffi.new("int32_t *")

        def c17(t: int):
            def go() -> str:
                result, _ = run_library(library, None, threads=t)
                assert result.fault is None, result.fault
                return result.output
            return go

        def hand_written(lib, t: int):
            def go() -> str:
                # kn and kd arrive at run time, as they do in the cint program (arguments
                # of the dispatch), so no version can fold the division into a constant.
                assert lib.heat_main(n, steps, 1, 8, t, total, center) == 0
                return f"total={total[0]} center={center[0]}\n"
            return go

        programs = [("cpu-c17, 1 thread", c17(1)), (f"cpu-c17, {threads} threads", c17(threads)),
                    ("hand-written -O2, 1 thread", hand_written(hand, 1)),
                    (f"hand-written -O2 OpenMP, {threads} threads", hand_written(hand_omp, threads))]
        numpy_program = ("NumPy int64", lambda: numpy_heat(n, steps, 1, 8))
        if have_numpy and not args.quiet:
            programs.append(numpy_program)
        names = [name for name, _ in programs] + ([numpy_program[0]] if have_numpy and args.quiet else [])
        walls: dict[str, list[float]] = {name: [] for name in names}
        cpus: dict[str, list[float]] = {name: [] for name in names}
        outputs: dict[str, str] = {}
        busy = 0  # --quiet: rounds not taken or discarded because a core was missing

        def round_(order) -> dict[str, tuple[float, float, str]]:
            times = {}
            for name, go in order:
                wall, cpu = time.perf_counter(), time.process_time()
                output = go()
                times[name] = (time.perf_counter() - wall, time.process_time() - cpu, output)
            return times

        def keep(times) -> None:
            for name, (wall, cpu, output) in times.items():
                walls[name].append(wall)
                cpus[name].append(cpu)
                outputs[name] = output

        quiet = 0.9 * threads
        load_before = os.getloadavg()
        cores_before = hand_omp.parallel_check(threads)
        deadline = time.monotonic() + args.max_seconds
        taken = 0
        while taken < args.runs:  # interleaved, each round in a rotated order
            k = taken % len(programs)
            order = programs[k:] + programs[:k]
            if not args.quiet:
                keep(round_(order))
                taken += 1
                continue
            if time.monotonic() > deadline:
                break
            if hand_omp.parallel_check(threads) < quiet:
                busy += 1
                time.sleep(5)
                continue
            times = round_(order)
            omp_wall, omp_cpu, _ = times[programs[3][0]]
            # the OpenMP program is the witness: it had all threads' worth of CPU time
            if hand_omp.parallel_check(threads) < quiet or omp_cpu < 0.8 * threads * omp_wall:
                busy += 1
                continue
            keep(times)
            taken += 1
        if have_numpy and args.quiet:  # NumPy is one thread: beside cpu-c17 on 1 thread, busy or not
            for _ in range(max(3, args.runs // 2)):
                times = round_([numpy_program, programs[0]])
                walls[numpy_program[0]].append(times[numpy_program[0]][0])
                cpus[numpy_program[0]].append(times[numpy_program[0]][1])
                outputs[numpy_program[0]] = times[numpy_program[0]][2]
                walls.setdefault("cpu-c17 beside NumPy", []).append(times[programs[0][0]][0])
        load_after = os.getloadavg()
        cores_after = hand_omp.parallel_check(threads)

    if not walls[names[0]]:
        print(f"no round was taken in {args.max_seconds:g} s: the machine never gave {threads} cores "
              f"({busy} checks found fewer)")
        return 2
    print(f"heat {n}x{n}, {steps} steps, {taken} interleaved rounds; {compiler.version}; "
          f"{os.cpu_count()} CPUs, {threads} threads; load average {load_before[0]:.2f} before, "
          f"{load_after[0]:.2f} after")
    print(f"  cores the machine gave: a busy loop did {cores_before:.2f} times the work per second on {threads} "
          f"threads as on 1 before the runs, {cores_after:.2f} after ({threads} on an idle machine)")
    if args.quiet:
        print(f"  --quiet: only rounds with a busy loop at {quiet:.1f} or more before and after and OpenMP's "
              f"CPU/wall at {0.8 * threads:.1f} or more; {busy} rounds skipped or discarded")
    print(f"  output: {outputs[names[0]].strip()}   (cpu-c17 compile {compile_time:.2f} s, cached after)")
    width = max(len(name) for name in names)
    print(f"  {'':<{width}}  median wall   best wall   CPU/wall (median)")
    for name in names:
        ratio = statistics.median(c / w for c, w in zip(cpus[name], walls[name]))
        print(f"  {name:<{width}}  {statistics.median(walls[name]):9.3f} s {min(walls[name]):9.3f} s   {ratio:5.2f}")

    def ratio(a: str, b: str) -> str:
        return (f"{statistics.median(walls[a]) / statistics.median(walls[b]):5.2f}x median, "
                f"{min(walls[a]) / min(walls[b]):5.2f}x best")

    rows = [(f"cpu-c17 1 thread / cpu-c17 {threads} threads", names[0], names[1], "target >= 1.7x on 2 threads"),
            ("cpu-c17 1 thread / hand-written 1 thread", names[0], names[2], "target <= 1.15x"),
            (f"cpu-c17 {threads} threads / OpenMP {threads} threads", names[1], names[3], ""),
            (f"hand-written 1 thread / OpenMP {threads} threads", names[2], names[3], "")]
    if have_numpy:
        beside = "cpu-c17 beside NumPy" if args.quiet else names[0]
        rows.append(("NumPy / cpu-c17 1 thread", names[-1], beside, "target > 1x"))
    label = max(len(row[0]) for row in rows)
    print("  ratios (time over time):")
    for text, a, b, target in rows:
        print(f"    {text:<{label}}  {ratio(a, b)}" + (f"   ({target})" if target else ""))
    if len(set(outputs.values())) != 1:
        for name, output in outputs.items():
            print(f"  {name}: {output.strip()}", file=sys.stderr)
        print("  the programs disagree!", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
