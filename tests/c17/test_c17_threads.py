"""cpu-c17 on a pool of threads (issue 14; rt/pool.c): whatever the number of threads
and the size of the chunks, the output, the fault record, the fuel consumed and the
dispatch count are those of one thread, which are the reference's.

The tests force the pool on every dispatch of two or more work-items (`parallel_min`
1) in chunks of as few as one work-item (`chunk_min`), so that the small dispatches of
the conformance suite are cut at every place: faults at chunk boundaries, fuel that
runs out in a later chunk than the fault, folds that overflow across chunks, sum_sat
composed from chunks. Threads 1, 2 and 7 (an odd count, more threads than this
machine's cores); 2 and 7 are `slow` over the whole suite."""

from __future__ import annotations

import os
import time

import pytest
from conftest import conformance_case, conformance_programs, matches_expected
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cint_ls.exec.c17.library import MAX_THREADS, default_threads, run, thread_options
from cint_ls.exec.executors import ExecutorUnavailable
from cint_ls.ir.build import build
from cint_ls.running.executors import get
from cint_ls.running.report import render
from cint_ls.syntax import SourceText

pytestmark = pytest.mark.needs_cc

THREADS = [1, pytest.param(2, marks=pytest.mark.slow), pytest.param(7, marks=pytest.mark.slow)]
FORCED = {"parallel_min": 1, "chunk_min": 1}


def reference(program, fuel):
    return get("cpu-sir-interp").run(program, fuel, None, {})


def c17(program, fuel, threads, **options):
    return run(program, fuel, None, {"threads": threads, **FORCED, **options})


def outcome(result):
    return result.output, result.fault, result.fuel_consumed, result.dispatches


def _fuel(args: list[str]) -> int | None:
    return int(args[args.index("--fuel") + 1]) if "--fuel" in args else None


# ---- the conformance suite on 1, 2 and 7 threads


@pytest.mark.parametrize("threads", THREADS)
@pytest.mark.parametrize("path", conformance_programs(), ids=lambda p: p.stem)
def test_conformance_c17_threads(path, threads):
    args, expected = conformance_case(path)
    text = path.read_text()
    built = build(text, path.name)
    if built.program is None:
        pytest.skip("translation errors: nothing runs")
    fuel = _fuel(args)
    result = c17(built.program, fuel, threads)
    assert outcome(result) == outcome(reference(built.program, fuel))
    report = render(SourceText(text, path.name), result.fault) if result.fault is not None else ""
    actual = result.output + report
    assert matches_expected(expected, actual), f"--- expected\n{expected}\n--- actual\n{actual}"


# ---- the options


def test_threads_default_to_the_cores_this_process_may_use():
    expected = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert default_threads() == expected
    assert thread_options({}) == (expected, 4096, 1024)
    assert thread_options({"threads": 3, "parallel_min": 10, "chunk_min": 2}) == (3, 10, 2)


@pytest.mark.parametrize("bad", [0, -1, MAX_THREADS + 1, 2.5, "2", True])
def test_a_bad_thread_count_is_one_line(bad):
    with pytest.raises(ExecutorUnavailable, match="the option threads takes a whole number from 1 to 1024"):
        thread_options({"threads": bad})


def test_stacks_under_an_address_space_limit(monkeypatch):
    import resource

    from cint_ls.exec.c17 import library

    monkeypatch.setattr(resource, "getrlimit", lambda _: (4 << 30, resource.RLIM_INFINITY))
    assert library._fit_threads(1, 256 << 20) == (1, 256 << 20)
    assert library._fit_threads(2, 256 << 20) == (2, 256 << 20)  # the entry thread's stack
    threads, stack = library._fit_threads(7, 256 << 20)
    assert threads == 7 and 6 * stack <= 1 << 30 and stack >= library.WORKER_STACK_MIN and stack % 65536 == 0
    assert library._fit_threads(64, 256 << 20) == (17, 64 << 20)  # a quarter of the limit, 64 MiB each
    monkeypatch.setattr(resource, "getrlimit", lambda _: (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    assert library._fit_threads(64, 256 << 20) == (64, 256 << 20)


def test_an_isolated_run_takes_the_option():
    from cint_ls.running.isolated import Request, run_isolated

    options = {"threads": 3, **FORCED}
    result = run_isolated(Request.of_text("cpu-c17", "heat100.ci", HEAT_100, options=options), time_limit=120)
    assert result.notes == ["cpu-c17 ran the work-items of 6 of 6 dispatches on 3 threads"]
    assert result.output == reference(build(HEAT_100, "heat100.ci").program, None).output


HEAT_100 = """
kernel diffuse[h, w](in I32[h, w] u, I64 kn, I64 kd, out I32[h, w] v, out I64 total) over [y: h, x: w] {
    I64 c = u[y, x] as I64;
    I32 r = u[y, x];
    if (y > 0 && y < h - 1 && x > 0 && x < w - 1) {
        I64 lap = (u[y - 1, x] as I64) + (u[y + 1, x] as I64) + (u[y, x - 1] as I64) + (u[y, x + 1] as I64) - 4 * c;
        r = (c + div_round(kn * lap, kd, half_even)) as I32;
    }
    v[y, x] = r;
    reduce total = sum(r);
}
void go() {
    I32[100, 100] a;
    I32[100, 100] b;
    for y in 0..100 { for x in 0..100 { a[y, x] = ((y * 7 + x * 13) % 1000 * 100) as I32; } }
    I64 heat = 0;
    for t in 0..3 { diffuse(a, 1, 8, b, heat); diffuse(b, 1, 8, a, heat); }
    "{heat} {a[50, 50]}\\n";
}
go();
"""


def test_dispatches_from_4096_work_items_run_on_the_pool_by_default():
    program = build(HEAT_100, "heat100.ci").program
    expected = outcome(reference(program, None))
    result = run(program, None, None, {"threads": 2})  # 10,000 work-items: above the threshold
    assert outcome(result) == expected
    assert result.notes == ["cpu-c17 ran the work-items of 6 of 6 dispatches on 2 threads"]
    alone = run(program, None, None, {"threads": 2, "parallel_min": 10001})
    assert outcome(alone) == expected and alone.notes == []
    assert run(program, None, None, {"threads": 1}).notes == []


# ---- faults, fuel and reductions across chunks


PROGRAMS = {
    # work-items 3, 9 and 10 overflow; the fold would overflow at work-item 6 first
    "fold_before_overflow": """
kernel k[n](in I64[n] a, out I64[n] b, out I64 s) over [i: n] {
    reduce s = fold_checked(add, 0, a[i]);
    b[i] = a[i] * 2;
}
void go() {
    I64[12] a = [1, 2, 3, 4611686018427387904, -4611686018427387904, 4611686018427387903, 4611686018427387903,
                 5, 6, 4611686018427387904, 4611686018427387904, 7];
    I64[12] b; I64 s = 0; k(a, b, s); "{s}\\n";
}
go();
""",
    # the fold overflows below zero across chunks; the overflow of work-item 7 comes later
    "fold_below": """
kernel k[n](in I64[n] a, out I64[n] b, out I64 s) over [i: n] {
    b[i] = a[i] + 1;
    if (i % 2 == 0) { reduce s = fold_checked(add, 5, a[i]); }
}
void go() {
    I64[9] a = [-4611686018427387904, 0, -4611686018427387904, 1, 9, 2, -7, 9223372036854775807, -1];
    I64[9] b; I64 s = 0; k(a, b, s); "{s}\\n";
}
go();
""",
    # sum_sat saturates up and down in different chunks; min, max, count and a wide sum merge
    "sum_sat_and_friends": """
kernel k[n](in I64[n] a, out I64 t, out I64 lo, out I64 hi, out I64 c, out I128 w) over [i: n] {
    reduce t = sum_sat(a[i]);
    reduce lo = min(a[i]);
    reduce hi = max(a[i]);
    reduce c = count(a[i] > 0);
    reduce w = sum(a[i] as I128);
}
void go() {
    I64[11] a = [9223372036854775807, 5, 9223372036854775807, -3, -9223372036854775807, -9223372036854775807,
                 -9223372036854775807, 4, 1, 9223372036854775807, -2];
    I64 t = 0; I64 lo = 0; I64 hi = 0; I64 c = 0; I128 w = 0;
    k(a, t, lo, hi, c, w); "{t} {lo} {hi} {c} {w}\\n";
}
go();
""",
    # a sum that overflows I64 only in the epilogue, after every chunk completed
    "epilogue_sum": """
kernel k[n](in I64[n] a, out I64 s) over [i: n] { reduce s = sum(a[i]); }
void go() { I64[7] a = [4611686018427387904, 4611686018427387904, 1, 2, 3, -1, 5]; I64 s = 0; k(a, s); "{s}\\n"; }
go();
""",
    # loops charge fuel: each work-item i charges i units; item 5 overflows in its loop
    "loops": """
kernel k[h, w](in I64[h, w] a, out I64[h, w] b) over [y: h, x: w] {
    I64 v = a[y, x];
    for j in 0..(y * w + x) { v = v + 1; }
    b[y, x] = v;
}
void go() {
    I64[3, 4] a = [[0, 0, 0, 0], [0, 9223372036854775805, 0, 0], [0, 0, 0, 0]];
    I64[3, 4] b; k(a, b); "{b[2, 3]}\\n";
}
go();
""",
    # calls from the work-items (fuel, depth, a fault inside a call, output of a call)
    "calls": """
I64 f(I64 x, I64 d) { if (d == 0) { return x * 3; } return f(x, d - 1) + 1; }
I64 say(I64 x) { "v{x}\\n"; return x; }
kernel k[n](in I64[n] a, out I64[n] b) over [i: n] { b[i] = f(say(a[i]), i); }
void go() {
    I64[8] a = [1, 2, 3, 4, 3074457345618258603, 6, 3074457345618258603, 8];
    I64[8] b; k(a, b); "{b[3]}\\n";
}
go();
""",
    # a 3-dimensional space: the index tuple of each chunk's first work-item, rows carried
    "three_d": """
kernel k[p, q, r](in I64[p, q, r] a, out I64[p, q, r] b, out I64 s) over [z: p, y: q, x: r] {
    I64 v = a[z, y, x] * (z * 100 + y * 10 + x + 1);
    b[z, y, x] = v;
    reduce s = sum(v);
}
void go() {
    I64[2, 3, 5] a;
    for z in 0..2 { for y in 0..3 { for x in 0..5 { a[z, y, x] = z + y + x; } } }
    I64[2, 3, 5] b; I64 s = 0;
    k(a, b, s); "{s} {b[1, 2, 4]}\\n";
    a[1, 1, 3] = 4611686018427387904;
    k(a, b, s);
}
go();
""",
}


@pytest.mark.parametrize("chunk", [1, 2, 3, 5])
@pytest.mark.parametrize("threads", [2, 7])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_faults_fuel_and_reductions_across_chunks(name, threads, chunk):
    program = build(PROGRAMS[name], f"{name}.ci").program
    assert program is not None
    budgets = [None] + ([0, 3, 11, 20, 30, 47, 80] if name in ("loops", "calls") else [])
    for fuel in budgets:
        expected = outcome(reference(program, fuel))
        assert outcome(c17(program, fuel, 1)) == expected, fuel
        assert outcome(c17(program, fuel, threads, chunk_min=chunk)) == expected, fuel


def test_a_fault_in_a_called_function_that_prints_prints_once():
    # The counting re-run of the faulting work-item prints nothing more (it once did).
    text = """
I64 f(I64 x) { "hi {x}\\n"; return x; }
kernel k[n](in I64[n] a, out I64[n] b) over [i: n] { b[i] = f(a[i]) * 2; }
void run() { I64[3] a = [1, 4611686018427387904, 3]; I64[3] b; k(a, b); }
run();
"""
    program = build(text, "prints.ci").program
    expected = reference(program, None)
    assert expected.output == "hi 1\nhi 4611686018427387904\n"
    for threads in (1, 2, 7):
        assert outcome(c17(program, None, threads)) == outcome(expected)


def test_work_items_above_a_fault_do_not_run_on():
    # Work-item 1 faults; every work-item above it would loop 10^15 times. One thread
    # stops at the fault; on the pool, a chunk above it stops at its next fuel slice.
    text = """
kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {
    I64 v = a[i] * 2;
    if (i > 1) { for j in 0..1000000000000000 { v = v + 0; } }
    b[i] = v;
}
void run() { I64[64] a; a[1] = 4611686018427387904; I64[64] b; k(a, b); }
run();
"""
    program = build(text, "runs_on.ci").program
    expected = outcome(reference(program, None))
    for threads in (2, 7):
        started = time.monotonic()
        assert outcome(c17(program, None, threads)) == expected
        assert time.monotonic() - started < 60


# ---- generated dispatches (hypothesis): several work-items fault


BIG = [2 ** 61, -2 ** 61, 2 ** 62, -2 ** 62, 2 ** 62 + 5, 9223372036854775805, -9223372036854775805]

GENERATED = """
kernel k[h, w](in I64[h, w] a, in I64[h, w] c, out I64[h, w] b, out I64 s, out I64 f, out I64 t, out I64 m)
        over [y: h, x: w] {{
    I64 v = a[y, x];
    for j in 0..c[y, x] {{ v = v + 1; }}
    {store}
    reduce s = sum(v);
    if (x % 2 == 0) {{ reduce f = fold_checked(add, {init}, v); }}
    reduce t = sum_sat(v);
    reduce m = min(v);
}}
void go() {{
    I64[{h}, {w}] a = {a};
    I64[{h}, {w}] c = {c};
    I64[{h}, {w}] b; I64[{h}, {w}] b2;
    I64 s = 0; I64 f = 0; I64 t = 0; I64 m = 0;
    k(a, c, b, s, f, t, m);
    "{{s}} {{f}} {{t}} {{m}} {{b[{h1}, {w1}]}}\\n";
    k(b, c, b2, s, f, t, m);
    "{{s}} {{f}} {{t}} {{m}}\\n";
}}
go();
"""


@st.composite
def dispatches(draw):
    h, w = draw(st.integers(1, 4)), draw(st.integers(1, 24))
    value = st.one_of(st.integers(-50, 50), st.sampled_from(BIG))
    a = [[draw(value) for _ in range(w)] for _ in range(h)]
    c = [[draw(st.integers(0, 3)) for _ in range(w)] for _ in range(h)]
    store = draw(st.sampled_from(["b[y, x] = v * 2;", "b[y, x] = v;", "b[y, x] = v - 3;"]))
    init = draw(st.sampled_from([0, 2 ** 62, -2 ** 62]))
    text = GENERATED.format(h=h, w=w, h1=h - 1, w1=w - 1, a=a, c=c, store=store, init=init)
    charges = sum(map(sum, c))
    # budgets anywhere, and ones that run out inside the first dispatch's work-items
    budgets = [None, draw(st.integers(0, 2 * (h * w + charges) + 4))]
    budgets += [h * w + 1 + draw(st.integers(0, charges + 1)) for _ in range(2)]
    return text, budgets, draw(st.sampled_from([1, 2, 3, 5, 16]))


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(dispatches())
def test_generated_dispatches_give_the_reference_record(case):
    text, budgets, chunk = case
    program = build(text, "generated.ci").program
    assert program is not None, text
    for fuel in budgets:
        expected = outcome(reference(program, fuel))
        for threads in (1, 2, 7):
            assert outcome(c17(program, fuel, threads, chunk_min=chunk)) == expected, (threads, fuel, chunk)


# ---- the fast path's `bounded` variant: uniform factors tested once per dispatch


BOUNDED = """
kernel k[n](in I32[n] a, I64 f, I32 g, U16 h, I64 d, out I64[n] b, out I64 s) over [i: n] {{
    I64 x = (a[i] as I64) * f;
    I64 y = div_round(x, d, half_even) + (a[i] as I64);
    I64 z = (g as I64) * (a[i] as I64) + (h as I64) * (a[i] as I64);
    b[i] = y + z;
    reduce s = sum(y);
}}
void go() {{
    I32[5] a = [2147483647, I32.min, 3, 0, -7];
    I64[5] b; I64 s = 0;
    k(a, {f}, {g}, {h}, {d}, b, s);
    "{{s}} {{b[0]}} {{b[1]}} {{b[4]}}\\n";
}}
go();
"""


@pytest.mark.parametrize("f,g,h,d", [
    (1, 1, 1, 8), (268435456, 3, 7, 8), (-268435456, -3, 65535, 1), (268435457, 1, 1, 8),
    (4294967298, 2, 2, 3), (-9223372036854775807, 1, 1, 2), (5, 1, 1, 0), (5, 1, 1, -1),
])
def test_uniform_factors_inside_and_outside_their_bounds(f, g, h, d):
    text = BOUNDED.format(f=f, g=g, h=h, d=d)
    program = build(text, "bounded.ci").program
    assert program is not None
    from cint_ls.exec.c17 import emit_text

    assert "_run_bounded(" in emit_text(program)
    expected = outcome(reference(program, None))
    for threads in (1, 2):
        assert outcome(c17(program, None, threads)) == expected
