"""Programs aimed at the edges of cpu-c17's fast path, each compared with the reference
field by field (output, fault record, fuel consumed, dispatch count): index checks left
out only where they cannot fail, outputs not fully overwritten, strided, reversed and
transposed inputs, partial sums that overflow, range proofs at their limits, the fuel
and the folds restored for the counting re-run, faults in called functions."""

from __future__ import annotations

import pytest

from cint_ls.exec.interp import run_program
from cint_ls.ir.build import build
from cint_ls.running.executors import get

pytestmark = pytest.mark.needs_cc

PROGRAMS = {
    "unguarded_neighbour": """
kernel k[n](in I64[n] a, out I64[n] b) over [i: n] { b[i] = a[i - 1] + a[i]; }
void go() { I64[4] a = [1, 2, 3, 4]; I64[4] b; k(a, b); "{b[1]}\\n"; }
go();
""",
    "guard_one_short": """
kernel k[n](in I64[n] a, out I64[n] b) over [i: n] { if (i < n) { b[i] = a[i + 1]; } }
void go() { I64[4] a = [1, 2, 3, 4]; I64[4] b; k(a, b); "{b[1]}\\n"; }
go();
""",
    "guards_2d": """
kernel k[h, w](in I32[h, w] u, out I32[h, w] v) over [y: h, x: w] {
    I32 r = u[y, x];
    if (y > 0 && y < h - 1 && x >= 1 && x <= w - 2) { r = u[y - 1, x] + u[y + 1, x] + u[y, x - 1] + u[y, x + 1]; }
    if (y < h - 1) { r = r + u[y + 1, x]; }
    v[y, x] = r;
}
void go() {
    I32[5, 6] a;
    for y in 0..5 { for x in 0..6 { a[y, x] = (y * 10 + x) as I32; } }
    I32[5, 6] b;
    k(a, b);
    "{b[0, 0]} {b[2, 3]} {b[4, 5]}\\n";
}
go();
""",
    "over_smaller_than_output": """
kernel k[n](in I64[n] a, out I64[n] b) over [i: n - 1] { b[i] = a[i + 1] * 2; }
void go() { I64[4] a = [1, 2, 3, 4]; I64[4] b = [7, 7, 7, 7]; k(a, b); "{b[0]} {b[2]} {b[3]}\\n"; }
go();
""",
    "conditional_store_keeps_old_values": """
kernel k[n](in I64[n] a, out I64[n] b) over [i: n] { if (a[i] > 2) { b[i] = a[i]; } }
void go() { I64[4] a = [1, 2, 3, 4]; I64[4] b = [9, 9, 9, 9]; k(a, b); "{b[0]} {b[1]} {b[2]} {b[3]}\\n"; }
go();
""",
    "return_before_store": """
kernel k[n](in I64[n] a, out I64[n] b) over [i: n] { if (a[i] == 2) { return; } b[i] = a[i]; }
void go() { I64[3] a = [1, 2, 3]; I64[3] b = [5, 5, 5]; k(a, b); "{b[0]} {b[1]} {b[2]}\\n"; }
go();
""",
    "strided_reversed_transposed": """
kernel k[h, w](in I64[h, w] u, out I64[h, w] v) over [y: h, x: w] { v[y, x] = u[y, x] * 10 + y; }
kernel k1[n](in I64[n] u, out I64[n] v) over [i: n] { v[i] = u[i] + i; }
void go() {
    I64[4, 6] m;
    for y in 0..4 { for x in 0..6 { m[y, x] = y * 6 + x; } }
    I64[4, 3] out1;
    k(m[.., 0..6 by 2], out1);
    I64[6, 4] out2;
    k(transpose(m), out2);
    I64[6] r;
    k1(reverse(m[1], 0), r);
    "{out1[3, 2]} {out2[5, 3]} {out2[1, 2]} {r[0]} {r[5]}\\n";
}
go();
""",
    "plane_of_3d_and_3d_space": """
kernel k[a, b, c](in I64[a, b, c] u, out I64[a, b, c] v, out I64 t) over [i: a, j: b, l: c] {
    v[i, j, l] = u[i, j, l] + 100 * i;
    reduce t = sum(u[i, j, l]);
}
void go() {
    I64[2, 2, 3, 4] m;
    for p in 0..2 { for i in 0..2 { for j in 0..3 { for l in 0..4 { m[p, i, j, l] = p * 1000 + i * 100 + j * 10 + l; } } } }
    I64[2, 3, 4] o;
    I64 t = 0;
    k(m[1], o, t);
    "{o[1, 2, 3]} {t}\\n";
}
go();
""",
    "partial_sums_overflow": """
kernel s[n](in I64[n] a, out I64 t) over [i: n] { reduce t = sum(a[i]); }
kernel su[n](in U64[n] a, out U64 t) over [i: n] { reduce t = sum(a[i]); }
kernel sw[n](in I64[n] a, out I64 t) over [i: n] { reduce t = sum_wrap(a[i]); }
void go() {
    I64[5] a = [I64.max, I64.max, I64.min, I64.min, 5];
    I64 t = 0;
    s(a, t);
    "{t}\\n";
    sw(a, t);
    "{t}\\n";
    U64[4] u = [U64.max, U64.max, 3, 0];
    U64 v = 0;
    su(u, v);
    "{v}\\n";
}
go();
""",
    "partial_sum_final_overflow": """
kernel s[n](in I64[n] a, out I64 t) over [i: n] { reduce t = sum(a[i]); }
void go() { I64[3] a = [I64.max, I64.max, 1]; I64 t = 0; s(a, t); "{t}\\n"; }
go();
""",
    "counted_conditional_sum": """
kernel s[n](in I32[n] a, out I32 t, out I64 c) over [i: n] {
    if (a[i] > 0) { reduce t = sum(a[i]); }
    reduce c = count(a[i] > 1);
}
void go() { I32[5] a = [I32.max, -3, I32.max, 0, 1]; I32 t = 0; I64 c = 0; s(a, t, c); "{t} {c}\\n"; }
go();
""",
    "range_proof_limits": """
kernel k[n](in I32[n] a, out I64[n] b) over [i: n] {
    I64 x = a[i] as I64;
    I64 sq = x * x;
    b[i] = sq * x;
}
void go() { I32[3] a = [3, -2097152, I32.min]; I64[3] b; k(a, b); "{b[0]}\\n"; }
go();
""",
    "range_proof_loop_variable": """
void go(I64 start) {
    I64 s = 0;
    for j in start..3037000500 { s = j * j; if (j > 3037000498) { break; } }
    "{s}\\n";
    for k in start..3037000502 { s = k * k; }
}
go(3037000497);
""",
    "narrow_checks": """
kernel k[n](in I64[n] a, out I8[n] b, out U16[n] c) over [i: n] { b[i] = a[i] as I8; c[i] = (a[i] + 1000) as U16; }
void go() { I64[3] a = [5, -128, 127]; I8[3] b; U16[3] c; k(a, b, c); "{b[1]} {c[2]}\\n";
    I64[2] d = [1, 128]; I8[2] e; U16[2] f; k(d, e, f); }
go();
""",
    "fuel_and_fold_restored_for_the_rerun": """
kernel k[n](in I64[n] a, out I64 s, out I64[n] b) over [i: n] {
    reduce s = fold_checked(add, 0, a[i]);
    I64 acc = 0;
    for j in 0..3 { acc = acc + a[i]; }
    b[i] = 100 / (a[i] - 7);
}
void go() { I64[4] a = [1, 2, 7, 4]; I64 s = 0; I64[4] b; k(a, s, b); }
go();
""",
    "fuel_fault_in_a_later_item": """
kernel k[n](in I64[n] a, out I64 s, out I64[n] b) over [i: n] {
    reduce s = fold_checked(add, 0, a[i]);
    I64 acc = 0;
    for j in 0..a[i] { acc = acc + 1; }
    b[i] = acc;
}
void go() { I64[4] a = [1, 2, 30, 4]; I64 s = 0; I64[4] b; k(a, s, b); }
go();
""",
    "fault_in_a_called_function": """
I64 f(I64 x) { if (x > 2) { return g(x); } return x; }
I64 g(I64 x) { return x * 4611686018427387904; }
kernel k[n](in I64[n] a, out I64[n] b) over [i: n] { b[i] = f(a[i]) + 1; }
void go() { I64[4] a = [1, 2, 3, 4]; I64[4] b; k(a, b); }
go();
""",
    "local_array_in_a_kernel": """
kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {
    I64[3] t = [a[i], a[i] * 2, a[i] * 3];
    b[i] = t[0] + t[1] + t[2] + t[a[i]];
}
void go() { I64[4] a = [0, 1, 2, 3]; I64[4] b; k(a, b); "{b[2]}\\n"; }
go();
""",
    "inout_reads_the_old_values": """
kernel k[n](inout I64[n] t) over [i: n] { t[i] = t[i] + 1; t[i] = t[i] * 10; }
void go() { I64[3] t = [1, 2, 3]; k(t); k(t[1..3]); "{t[0]} {t[1]} {t[2]}\\n"; }
go();
""",
    "wide_and_fixed_kernels": """
kernel w[n](in I256[n] a, out I256[n] b, out I256 t) over [i: n] { I256 v = a[i] * a[i] - 1; b[i] = v; reduce t = sum(v); }
kernel q[n](in Q32.32[n] a, out Q32.32[n] b, out Q32.32 m) over [i: n] { Q32.32 v = a[i] * a[i] / 3.0; b[i] = v; reduce m = max(v); }
void go() {
    I256[2] a = [I128.max as I256, -5]; I256[2] b; I256 t = 0; w(a, b, t); "{b[0]} {t}\\n";
    Q32.32[2] c = [1.5, -2.25]; Q32.32[2] d; Q32.32 m = 0.0; q(c, d, m); "{d[0]} {d[1]} {m}\\n";
    I256[1] big = [I256.max]; I256[1] b1; w(big, b1, t);
}
go();
""",
    "uniform_divisors": """
kernel k[n](in I64[n] a, in I64 d, out I64[n] b) over [i: n] {
    b[i] = a[i] / d + a[i] % d + div_round(a[i], d, half_away);
}
kernel ku[n](in U16[n] a, in U16 d, out U16[n] b) over [i: n] { b[i] = a[i] / d + div_round(a[i], d, ceil); }
void go() {
    I64[3] a = [7, -7, I64.min + 1]; I64[3] b;
    k(a, 3, b); "{b[0]} {b[1]} {b[2]}\\n";
    k(a, -1, b); "{b[0]} {b[1]} {b[2]}\\n";
    U16[2] u = [65535, 9]; U16[2] v; ku(u, 2, v); "{v[0]} {v[1]}\\n";
    I64[2] m = [5, I64.min]; I64[2] mb; k(m, -1, mb);
}
go();
""",
    "uniform_divisor_zero": """
kernel ku[n](in U16[n] a, in U16 d, out U16[n] b) over [i: n] { b[i] = a[i] % d; }
void go() { U16[2] u = [3, 9]; U16[2] v; ku(u, 0, v); }
go();
""",
    "dispatch_inside_recursion": """
kernel inc[n](inout I64[n] t) over [i: n] { t[i] = t[i] + 1; }
void rec(I64 d) { I64[2] t = [d, d]; inc(t); if (d > 0) { rec(d - 1); } "{t[0]}\\n"; }
rec(3);
""",
    "empty_iteration_space": """
kernel k[n](in I64[n] a, out I64[n] b, out I64 s, out I64 m) over [i: n] { b[i] = a[i]; reduce s = sum(a[i]); reduce m = min(a[i]); }
void go() { I64[0] a; I64[0] b; I64 s = 1; I64 m = 1; k(a, b, s, m); }
go();
""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_cpu_c17_matches_the_reference(name):
    text = PROGRAMS[name]
    program = build(text, f"{name}.ci").program
    assert program is not None, name
    reference = run_program(program)
    result = get("cpu-c17").run(program, None, None, {})
    assert result.output == reference.output
    assert result.fault == reference.fault
    assert (result.fuel_consumed, result.dispatches) == (reference.fuel_consumed, reference.dispatches)


@pytest.mark.parametrize("fuel", [0, 1, 5, 13, 20, 40, 41, 60])
def test_every_fuel_budget(fuel):
    text = PROGRAMS["fuel_fault_in_a_later_item"]
    program = build(text, "fuel.ci").program
    reference = run_program(program, fuel)
    result = get("cpu-c17").run(program, fuel, None, {})
    assert (result.output, result.fault, result.fuel_consumed) == (
        reference.output, reference.fault, reference.fuel_consumed)
