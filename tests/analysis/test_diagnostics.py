"""Translation diagnostics: each rule with a program that breaks it, the code and the
position reported, and a clean run of every conformance program."""

from __future__ import annotations

import pytest
from conftest import conformance_programs

from cint_ls.analysis import check
from cint_ls.syntax import parse_source

KERNEL = "kernel copy1[n](in I32[n] u, out I32[n] v) over [i: n] {\n    v[i] = u[i] + 1;\n}\n"


def diagnostics(text: str, path: str = "m.ci"):
    result = check(parse_source(text, path))
    return [(d.code, d.span.line, d.span.column) for d in result.diagnostics]


def codes(text: str) -> list[str]:
    return [code for code, _, _ in diagnostics(text)]


@pytest.mark.parametrize("path", conformance_programs(), ids=lambda p: p.stem)
def test_conformance_programs_check(path):
    found = diagnostics(path.read_text(), path.name)
    if path.stem == "same_c5010":
        assert found == [("C5010", 7, 14)]  # SPEC-02P.1 6.5 example 1
    else:
        assert found == []


CASES = {
    # names
    "unknown name": ("void f() { I64 x = y; }", [("C2001", 1, 20)]),
    "duplicate local": ("void f() { I64 x = 1; I64 x = 2; }", [("C2002", 1, 27)]),
    "duplicate item": ("void f() { }\nvoid f() { }", [("C2002", 2, 6)]),
    "builtin name": ("I64 min(I64 a) { return a; }", [("C2003", 1, 5)]),
    "kernel as value": (KERNEL + "void f() { I64 x = copy1; }", [("C2005", 4, 20)]),
    "module state": ("I64 g = 1;\nI64 f() { return g; }", [("C9002", 2, 18)]),
    # types
    "unknown type": ("void f() { I24 x = 1; }", [("C3001", 1, 12)]),
    "literal too big": ("void f() { U8 x = 256; }", [("C3002", 1, 19)]),
    # At the whole `-128`, which its quick fix replaces with `I8.min` (issue 32).
    "minus min hint": ("void f() { I8 x = -128; }", [("C3002", 1, 19)]),
    "mixed operands": ("void f(I32 a, I64 b) { I64 c = a + b; }", [("C3003", 1, 34)]),
    "no implicit conversion": ("void f(I32 a) { I64 c = a; }", [("C3003", 1, 25)]),
    "fixed literal needs context": ("void f() { I64 x = 1.5; }", [("C3017", 1, 20)]),
    "fixed not representable": ("void f() { Q8.8 x = 0.001; }", [("C3002", 1, 21)]),
    "bool condition": ("void f(I64 a) { if (a) { } }", [("C3003", 1, 21)]),
    "comparison chain": ("void f(I64 a) { Bool b = 1 < a < 3; }", [("C3015", 1, 28)]),
    "shift of fixed": ("void f(Q16.16 a) { Q16.16 b = a << a; }", [("C3007", 1, 33)]),
    "as% of fixed": ("void f(Q16.16 a) { I64 b = a as% I64; }", [("C3007", 1, 30)]),
    "as? refused": ("void f(I64 a) { I32 b = a as? I32; }", [("C9003", 1, 27)]),
    "wrong arity": ("I64 g(I64 a) { return a; }\nvoid f() { I64 x = g(1, 2); }", [("C3004", 2, 20)]),
    "void value": ("void g() { }\nvoid f() { I64 x = g(); }", [("C3016", 2, 20)]),
    "missing return": ("I64 f(Bool c) { if (c) { return 1; } }", [("C3009", 1, 15)]),
    "return in void": ("void f() { return 1; }", [("C3009", 1, 19)]),
    "break outside loop": ("void f() { break; }", [("C3010", 1, 12)]),
    "duplicate case": ("void f(I64 x) { switch (x) { case 1: case 1: } }", [("C3013", 1, 43)]),
    "bad rounding mode": ("void f(I64 a) { I64 b = div_round(a, 2, up); }", [("C3012", 1, 41)]),
    "index count": ("void f() { I64[2, 2] a; I64 x = a[0, 0, 0]; }", [("C3008", 1, 34)]),
    "array literal shape": ("void f() { I64[3] a = [1, 2]; }", [("C3011", 1, 23)]),
    "assign array": ("void f() { I64[2] a; I64[2] b; a = b; }", [("C3006", 1, 32)]),
    "loop variable assigned": ("void f() { for i in 0..3 { i = 2; } }", [("C3006", 1, 28)]),
    "view in variable": ("void f() { I64[4] a; I64 x = a[0..2]; }", [("C9006", 1, 30)]),
    "struct refused": ("struct P { I64 x; }", [("C9001", 1, 8)]),
    "import refused": ("import other;", [("C9004", 1, 1)]),
    # kernels
    "extent form": ("kernel k[n](in I64[n * 2] a, out I64[n] b) over [i: n] { b[i] = 1; }", [("C5001", 1, 20)]),
    "unbound size": ("kernel k[n, m](in I64[n] a, out I64[n + m] b) over [i: n] { }", [("C5002", 1, 13), ("C5001", 1, 37)]),
    "over uses a parameter": ("kernel k[n](in I64[n] a, I64 c, out I64[n] b) over [i: c] { b[i] = 1; }", [("C5003", 1, 56)]),
    "store outside owned block": ("kernel k[n](in I64[n] a, out I64[n] b) over [i: n] { b[0] = 1; }", [("C5004", 1, 54)]),
    "store into in": ("kernel k[n](in I64[n] a, out I64[n] b) over [i: n] { a[i] = 1; b[i] = 1; }", [("C5005", 1, 54)]),
    "assign parameter": ("kernel k[n](in I64[n] a, I64 c, out I64[n] b) over [i: n] { c = 1; b[i] = c; }", [("C5006", 1, 61)]),
    "out not reduced": ("kernel k[n](in I64[n] a, out I64 s) over [i: n] { }", [("C5007", 1, 34)]),
    "reduce twice": ("kernel k[n](in I64[n] a, out I64 s) over [i: n] { reduce s = sum(a[i]); reduce s = sum(a[i]); }",
                     [("C5007", 1, 80)]),
    "reduce in loop": ("kernel k[n](in I64[n] a, out I64 s) over [i: n] { for j in 0..2 { reduce s = sum(a[i]); } }",
                       [("C5008", 1, 67)]),
    "reduce target": ("kernel k[n](in I64[n] a, out I64[n] b, out I64 s) over [i: n] { reduce b = sum(a[i]); "
                      "reduce s = sum(a[i]); b[i] = 1; }", [("C5009", 1, 72)]),
    "reduce outside kernel": ("void f() { reduce s = sum(1); }", [("C5012", 1, 12)]),
    "read out array": ("kernel k[n](in I64[n] a, out I64[n] b) over [i: n] { b[i] = b[i]; }", [("C5014", 1, 61)]),
    "read scalar out": ("kernel k[n](in I64[n] a, out I64 s) over [i: n] { I64 x = s; reduce s = sum(a[i]); }",
                        [("C5014", 1, 59)]),
    "print in kernel": ("kernel k[n](in I64[n] a, out I64[n] b) over [i: n] { \"x\\n\"; b[i] = 1; }", [("C9007", 1, 54)]),
    "element type": (KERNEL + "void f() { I64[8] a; I32[8] b; copy1(a, b); }", [("C5011", 4, 38)]),
    "rank": (KERNEL + "void f() { I32[2, 4] a; I32[8] b; copy1(a, b); }", [("C5011", 4, 41)]),
    "scalar out not a variable": ("kernel k[n](in I64[n] a, out I64 s) over [i: n] { reduce s = sum(a[i]); }\n"
                                  "void f() { I64[2] a; k(a, 1); }", [("C5011", 2, 27)]),
    "dispatch as value": (KERNEL + "void f() { I32[8] a; I32[8] b; I64 x = copy1(a, b); }", [("C5016", 4, 40)]),
    "where uses parameter": ("kernel k[n](in I64[n] a, I64 c, out I64[n] b) over [i: n] where n > c { b[i] = 1; }",
                             [("C5017", 1, 69)]),
    # C5010
    "same view slices": (KERNEL + "void f() { I32[16] m; copy1(m[0..8], m[0..8]); }", [("C5010", 4, 38)]),
    "same with whole slice": (KERNEL + "void f() { I32[8] m; copy1(m, m[..]); }", [("C5010", 4, 31)]),
    "same scalar out twice": ("kernel k[n](in I64[n] a, out I64 s, out I64 t) over [i: n] { reduce s = sum(a[i]); "
                              "reduce t = sum(a[i]); }\nvoid f() { I64[2] a; I64 s = 0; k(a, s, s); }",
                              [("C5010", 2, 41)]),
    "different views are not C5010": (KERNEL + "void f() { I32[16] m; copy1(m[0..8], m[8..16]); }", []),
}


@pytest.mark.parametrize("name", CASES)
def test_rule(name):
    text, expected = CASES[name]
    assert diagnostics(text) == expected


def test_every_diagnostic_of_a_broken_file():
    text = "void f() { I64 x = y; U8 z = 300; I24 w; }\n"
    assert codes(text) == ["C2001", "C3002", "C3001"]


def test_module_name_must_be_an_identifier():
    assert diagnostics("I64 x = 1;", "not-an-id.ci") == [("C2004", 1, 1)]
