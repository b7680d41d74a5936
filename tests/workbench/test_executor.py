"""`:executor cpu-c17` (issue 31): the session's dispatches run their work-items in C
(exec/c17/runner.py) and every answer is the reference's: each reduction kind, element
types of every width, strided and reversed views, inout staging, a fuel budget, faults."""

from __future__ import annotations

import pytest

from cint_ls.workbench.session import Session

pytest.importorskip("cffi")

DECLARATIONS = [
    "kernel sums[n](in I32[n] a, out I64 s, out I32 w, out I8 sat, out I64 c, out I32 lo, out I32 hi, "
    "out I64 f) over [i: n] {\n"
    "    reduce s = sum(a[i]);\n    reduce w = sum_wrap(a[i]);\n    reduce sat = sum_sat(a[i] as% I8);\n"
    "    reduce c = count(a[i] > 10);\n    reduce lo = min(a[i]);\n    reduce hi = max(a[i]);\n"
    "    reduce f = fold_checked(add, 5, a[i] as I64);\n}",
    "kernel widen[n](in U16[n] u, in Q16.16[n] q, in Bool[n] b, out I128[n] w, inout Q16.16[n] r) over [i: n] {\n"
    "    I128 x = (u[i] as I128) * 1000000000000000000000000000000;\n"
    "    if (b[i]) { w[i] = x; } else { w[i] = 0 - (u[i] as I128); }\n    r[i] = r[i] + q[i] * 0.5;\n}",
    "kernel loops[n](in I32[n] a, out I64[n] r) over [i: n] {\n"
    "    I64 acc = a[i] as I64;\n    for j in 0..10 { acc = acc + 1; }\n    r[i] = acc;\n}",
    "kernel grid[h, w](in I64[h, w] a, out I64[h, w] b) over [y: h, x: w] where h >= 2 {\n"
    "    b[y, x] = a[y, x] * 10 + y;\n}",
]
INPUTS = [
    "I32[300] a;", "for i in 0..300 { a[i] = ((i * 7919) % 201 - 100) as I32; }",
    "I64 s = 0; I32 w = 0; I8 sat = 0; I64 c = 0; I32 lo = 0; I32 hi = 0; I64 f = 0;",
    "sums(a, s, w, sat, c, lo, hi, f);", "s", "w", "sat", "c", "lo", "hi", "f",
    "sums(a[1..300 by 3], s, w, sat, c, lo, hi, f);", "s", "sat", "lo", "f",
    "U16[5] u = [1, 2, 65535, 4, 5];", "Q16.16[5] q = [1.5, -2.25, 0.0, 3.0, 0.125];",
    "Bool[5] b = [true, false, true, true, false];", "I128[5] wide;", "Q16.16[5] r = [1.0, 1.0, 1.0, 1.0, 1.0];",
    "widen(u, q, b, wide, r);", "wide", "r",
    "I64[3, 4] m;", "for y in 0..3 { for x in 0..4 { m[y, x] = y * 4 + x; } }", "I64[3, 4] n;",
    "grid(m, n);", "n", "I64[4, 3] t;", "grid(m[0..3, 0..3], t[0..3, 0..3]);", "t",
    "I64[1, 4] one;", "grid(m[0..1, 0..4], one);",  # where h >= 2: E_SHAPE at the entry checks
    "a[7] = 2147483647; a[8] = 2147483647;", "sums(a, s, w, sat, c, lo, hi, f);", "s",  # sum's total fits
    "I64[300] r;", "loops(a, r);", "r", ":fuel 2000", "loops(a, r);", ":fuel none",  # E_FUEL in work-item 154
    "I32[2] big = [2147483647, 2147483647];", "I32 ww = 0;",
    "kernel over32[n](in I32[n] a, out I32 t) over [i: n] { reduce t = sum(a[i]); }",
    "over32(big, ww);", "ww",  # the sum overflows its I32 target: E_OVERFLOW in the epilogue
]


def session(executor: str) -> tuple[Session, list[str]]:
    s = Session()
    assert not s.enter(f":executor {executor}").error
    said = [s.enter(text).text for text in DECLARATIONS + INPUTS]
    return s, said


def test_every_answer_is_the_references() -> None:
    reference, expected = session("cpu-sir-interp")
    c17, got = session("cpu-c17")
    for text, want, have in zip(DECLARATIONS + INPUTS, expected, got):
        assert have == want, text
    ran, fell_back = c17.dispatched
    assert ran >= 6 and fell_back >= 1  # the fuel fault is found on the reference
    assert any("fault[E_FUEL]" in a for a in got) and any("fault[E_OVERFLOW]" in a for a in got)
    assert any("fault[E_SHAPE]" in a for a in got)
    assert "in C" in c17.enter(":executor").text
    shown = dict(zip(DECLARATIONS + INPUTS, expected))
    assert shown["s"] != "= 0 : I64\n" and shown["lo"] != "= 0 : I32\n" and shown["sat"] != "= 0 : I8\n"


def test_executor_names_are_checked() -> None:
    s = Session()
    answer = s.enter(":executor gpu-cuda")
    assert answer.error and "cpu-c17" in answer.text
    assert s.enter(":executor").text == "executor: cpu-sir-interp\n"
