"""A narrow sum (contributions of at most 32 bits, `emit.ctypes.is_narrow`) is added in
a 64-bit partial with no overflow check, and the run function takes at most
NARROW_ITEMS work-items at a time so that the partial cannot overflow. With
NARROW_ITEMS made small, the pieces meet what a real dispatch of more than 2^32
work-items would: sums across pieces, a fault in a later piece, an epilogue that
overflows, ranges at the pieces' edges, on 1 and 2 threads."""

from __future__ import annotations

import pytest

from cint_ls.analysis.types import IntType
from cint_ls.exec.c17.emit import kernel as kernel_emitter
from cint_ls.exec.c17.emit.ctypes import NARROW_ITEMS, is_narrow
from cint_ls.exec.c17.library import emit
from cint_ls.ir.build import build
from cint_ls.running.run import RunRequest, run

pytestmark = pytest.mark.needs_cc

SUM = """kernel total[n](in {T}[n] a, out {A} s) over [i: n] {{
    reduce s = sum(a[i]);
}}

void go() {{
    {T}[2] a = [1, 2];
    {A} s = 0;
    total(a, s);
}}
go();
"""

PROGRAM = """kernel k[n](in I32[n] a, in I64 at, I32 d, out I32[n] b, out I64 s, out U64 u, out I32 t) over [i: n] {
    I32 bump = 0;
    if (i == at) {
        bump = 1;
    }
    b[i] = a[i] + bump;
    reduce s = sum(a[i]);
    reduce u = sum(i as U32);
    reduce t = sum(a[i] / d);
}

void go(I32 fill, I32 step, I64 at, I32 d, I64 n) {
    I32[n] a;
    for i in 0..n {
        a[i] = fill + step * (i as I32);
    }
    I32[n] b;
    I64 s = 0;
    U64 u = 0;
    I32 t = 0;
    k(a, at, d, b, s, u, t);
    "{s} {u} {t} {b[0]} {b[n - 1]}\\n";
}
"""


def emitted(text: str) -> str:
    program = build(text, "narrow.ci").program
    assert program is not None
    return emit(program)


@pytest.mark.parametrize("element,accumulator,narrow", [
    ("I32", "I64", True), ("U32", "U64", True), ("I8", "I32", True), ("U16", "I64", True),
    ("I64", "I64", False), ("U64", "U64", False),
])
def test_which_sums_are_narrow(element, accumulator, narrow):
    bits, signed = int(element[1:]), element[0] == "I"
    assert is_narrow(IntType(bits, signed)) == narrow
    c = emitted(SUM.format(T=element, A=accumulator))
    assert ("cint_p0 += " in c) == narrow
    assert ("cint_part_" in c) != narrow
    assert (f"INT64_C({NARROW_ITEMS})" in c) == narrow  # the run function's pieces


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("call,fault", [
    ("go(2147483647, 0, -1, 1000, 100);", None),  # sums over 15 pieces of 7
    ("go(2147483647, 0, 3, 1000, 100);", 3),  # a[3] + 1 overflows: in the first piece
    ("go(2147483647, 0, 58, 1000, 100);", 58),  # in the ninth
    ("go(2147483647, 0, -1, 1, 100);", "epilogue"),  # the I32 sum overflows at the end
    ("go(-2147483647 - 1, 0, -1, 1000, 100);", None),  # the smallest contributions
    ("go(-30, 1, -1, 1, 7);\ngo(-30, 1, -1, 1, 8);\ngo(-30, 1, -1, 1, 1);\ngo(-30, 1, -1, 1, 14);", None),
])
def test_pieces_agree_with_the_reference(monkeypatch, threads, call, fault):
    monkeypatch.setattr(kernel_emitter, "NARROW_ITEMS", 7)
    text = PROGRAM + call + "\n"
    assert "INT64_C(7)" in emitted(text)
    for fuel in (None, 150):  # 150: the dispatch's charge (fuel.charge) fails
        outcome = run(RunRequest("narrow.ci", text, "cpu-c17", fuel=fuel, check="cpu-sir-interp", isolate=False,
                                 options={"cpu-c17": {"threads": threads, "parallel_min": 2}}))
        assert outcome.error is None and not outcome.diagnostics, outcome.error
        assert outcome.comparison is not None and outcome.comparison.agree, outcome.comparison.line
        found = outcome.result.fault
        if fuel is None:  # the fault the case is about
            if fault is None:
                assert found is None, found
            elif fault == "epilogue":
                assert found.code == "E_OVERFLOW" and found.address.work_item is None
            else:
                assert found.code == "E_OVERFLOW" and found.address.work_item == fault
