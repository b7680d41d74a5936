"""Defects of cpu-c17 the differential fuzzer found (fuzz/exec.py), each
minimized: the run must equal the reference's, byte for byte, at every boundary."""

from __future__ import annotations

import pytest

from cint_ls.running.run import RunRequest, run

pytestmark = pytest.mark.needs_cc

# A scalar `out` argument is written by the dispatch: the range analysis took `s` for its
# initial 0 and left out the check of `10 - s` (cpu-c17 printed 18446744073709551566).
SCALAR_OUT = """kernel total[n](in I64[n] a, out U64 s) over [i: n] {
    reduce s = sum(a[i]);
}

void go() {
    I64[3] a = [10, 20, 30];
    U64 s = 0;
    total(a, s);
    "{10 - s}\\n";
}
go();
"""

# The bounded fast path tested a narrow factor against its own type's maximum, which GCC's
# -Werror=type-limits rejects ("a defect of cint-ls").
NARROW_FACTOR = """kernel k[n](in {T}[n] a, {T} s, I64 c, out I64[n] b) over [i: n] {{
    b[i] = c * 7 + (a[i] * s) as I64;
}}

void go() {{
    {T}[3] a = [1, 2, 3];
    I64[3] b;
    k(a, {S}, 9, b);
    "{{b[0]}} {{b[2]}}\\n";
}}
go();
"""

# A store in a branch that can never run (an index greater than INT64_MAX - 1): GCC's
# -Warray-bounds, in -Wall, took it for an access out of bounds and -Werror refused the
# program (seed 305:1990). The emitted C now says each index is within its extent.
DEAD_STORE = """kernel k[h, w](out U8[h, w] v, out I64 s) over [y: h, x: w] {
    if (x > max(9223372036854775806, 5)) {
        v[y, x] = 7 +% 221;
    }
    if (y > max(9223372036854775806, 5)) {
        v[y, x] = 1;
    }
    reduce s = sum(x * 2);
}

void go() {
    U8[2, 3] v;
    I64 s = 0;
    k(v, s);
    "{s} {v[1, 2]}\\n";
}
go();
"""

# `~` of a U8 or U16 compared with a constant (the check of `as I8`, `as I16`): C takes the
# complement in int, and GCC's -Wsign-compare under -Werror refused the program, through
# the cast back to the narrow type (seeds 306:4699 in a kernel, 306:5078 in a function).
COMPLEMENT_CONVERTED = """kernel k[n](in U8[n] a, in U16[n] b, out I8[n] c, out I16[n] d) over [i: n] {
    c[i] = (~a[i]) as I8;
    d[i] = (~b[i]) as I16;
}

void go(U8 x) {
    U8[3] a = [200, 255, x];
    U16[3] b = [40000, 65535, 65535];
    I8[3] c;
    I16[3] d;
    k(a, b, c, d);
    "{c[0]} {c[1]} {c[2]} {d[0]} {d[1]}\\n";
    U8 y = x;
    "{(~y) as I8}\\n";
}
go(200);
go(0);
"""


def checked(text: str):
    outcome = run(RunRequest("found.ci", text, "cpu-c17", check="cpu-sir-interp"))
    assert outcome.error is None and not outcome.diagnostics, outcome.error
    assert outcome.comparison is not None and outcome.comparison.agree, outcome.comparison.line
    return outcome.result


def test_a_scalar_out_argument_is_a_write():
    result = checked(SCALAR_OUT)
    assert result.fault is not None and result.fault.operation == "sub.checked.u64"


@pytest.mark.parametrize("element,factor,output,code", [
    ("U8", "5", "68 78\n", None),
    ("I16", "5", "68 78\n", None),
    ("I16", "-32767 - 1", "", "E_OVERFLOW"),  # 2 * MIN(I16) overflows I16, the same on both
    ("I8", "-127 - 1", "", "E_OVERFLOW"),
])
def test_a_narrow_uniform_factor_compiles_and_agrees(element, factor, output, code):
    result = checked(NARROW_FACTOR.format(T=element, S=factor))
    assert result.output == output
    assert (result.fault.code if result.fault is not None else None) == code


def test_a_store_that_can_never_run_compiles_and_agrees():
    result = checked(DEAD_STORE)
    assert result.output == "12 0\n" and result.fault is None


def test_a_narrow_unsigned_complement_converted_compiles_and_agrees():
    result = checked(COMPLEMENT_CONVERTED)
    assert result.output == "55 0 55 25535 0\n55\n"
    assert result.fault is not None and result.fault.operation == "as.checked.u8.i8"  # ~0 is 255
    assert result.fault.address.work_item == 2
