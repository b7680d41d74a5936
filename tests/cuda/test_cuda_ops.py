"""Every checked and wrapping operation of Table 3, every checked conversion between the
native types and div_round in every mode, on edge values of every native type: the PTX
on the simulated device faults exactly when the reference does, and otherwise gives its
value (10.5 para 3)."""

from __future__ import annotations

import itertools

import pytest
from cuda_support import DispatchHarness

from cint_ls.analysis.types import BOOL, I8, I16, I32, I64, U8, U16, U32, U64, IntType

NATIVE = (I8, I16, I32, I64, U8, U16, U32, U64)


def edges(t: IntType) -> list[int]:
    values = {t.min, t.max, 0, 1, 2, 3, t.max // 2, t.max // 2 + 1, t.max - 1}
    if t.signed:
        values |= {-1, -2, -3, t.min + 1, t.min // 2, -(t.max // 2) - 1}
    r = 1 << (t.bits // 2)
    values |= {r - 1, r, r + 1}
    if t.signed:
        values |= {-r, -(r + 1)}
    return sorted(v for v in values if t.min <= v <= t.max)


def wide_out(t: IntType) -> IntType:
    """The output element type a result of `t` is stored in (stores are of 32 or 64 bits)."""
    return I64 if t.signed else U64


def pairs(t: IntType):
    return list(itertools.product(edges(t), repeat=2))


def check_binary(expression: str, t: IntType, result: IntType, values):
    out = wide_out(result)
    text = (f"kernel f[n](in {t}[n] a, in {t}[n] b, out {out}[n] r) over [i: n] {{\n"
            f"    r[i] = ({expression}) as {out};\n}}\n")
    h = DispatchHarness(text, "f")
    for x, y in values:
        ref, got = h.compare(lambda: [h.array(t, [x]), h.array(t, [y]), h.array(out, [0])])
        assert ref == got, (expression, t, x, y)


@pytest.mark.slow
@pytest.mark.parametrize("t", NATIVE, ids=str)
@pytest.mark.parametrize("op", ["+", "-", "*", "+%", "-%", "*%"])
def test_arithmetic(op, t):
    check_binary(f"a[i] {op} b[i]", t, t, pairs(t))


@pytest.mark.slow
@pytest.mark.parametrize("t", NATIVE, ids=str)
@pytest.mark.parametrize("mode", ["floor", "ceil", "trunc", "away", "half_even", "half_away", "half_trunc"])
def test_div_round(mode, t):
    values = pairs(t) + [(x, y) for x in (5, 7, 9, 10, 11, 13) for y in (2, 4, 5, 6) if t.contains(x)]
    if t.signed:
        values += [(-x, y) for x, y in values if t.contains(-x)]
        values += [(x, -y) for x, y in values if t.contains(-y)]
    check_binary(f"div_round(a[i], b[i], {mode})", t, t, values)


@pytest.mark.parametrize("source", NATIVE, ids=str)
def test_checked_conversions(source):
    for target in NATIVE:
        out = wide_out(target)
        text = (f"kernel f[n](in {source}[n] a, out {out}[n] r) over [i: n] {{\n"
                f"    r[i] = ((a[i] as {target}) as {out});\n}}\n")
        h = DispatchHarness(text, "f")
        for x in edges(source):
            ref, got = h.compare(lambda: [h.array(source, [x]), h.array(out, [0])])
            assert ref == got, (source, target, x)


@pytest.mark.parametrize("t", NATIVE, ids=str)
def test_comparisons_and_logic(t):
    text = (f"kernel f[n](in {t}[n] a, in {t}[n] b, out I64[n] r) over [i: n] {{\n"
            "    I64 v = 0;\n"
            "    if (a[i] < b[i]) { v = v + 1; }\n"
            "    if (a[i] <= b[i]) { v = v + 2; }\n"
            "    if (a[i] > b[i]) { v = v + 4; }\n"
            "    if (a[i] >= b[i]) { v = v + 8; }\n"
            "    if (a[i] == b[i]) { v = v + 16; }\n"
            "    if (a[i] != b[i]) { v = v + 32; }\n"
            "    if (!(a[i] < b[i]) || a[i] == b[i] && b[i] > a[i]) { v = v + 64; }\n"
            "    r[i] = v;\n}\n")
    h = DispatchHarness(text, "f")
    for x, y in pairs(t):
        ref, got = h.compare(lambda: [h.array(t, [x]), h.array(t, [y]), h.array(I64, [0])])
        assert ref == got, (t, x, y)


def test_bool_elements_and_count():
    text = ("kernel f[n](in Bool[n] a, in I8[n] b, out I32[n] r, out I64 c) over [i: n] {\n"
            "    I32 v = 0;\n"
            "    if (a[i]) { v = (b[i] as I32) + 1; }\n"
            "    r[i] = v;\n"
            "    reduce c = count(a[i] && b[i] < 0);\n}\n")
    h = DispatchHarness(text, "f")
    flags = [True, False, True, True, False]
    small = [-128, 127, -1, 5, 0]
    ref, got = h.compare(lambda: [h.array(BOOL, flags), h.array(I8, small), h.array(I32, [0] * 5), None])
    assert ref == got and ref[0] == "ok"


def test_loads_of_every_width_sign_extend():
    for t in NATIVE:
        out = wide_out(t)
        text = f"kernel f[n](in {t}[n] a, out {out}[n] r) over [i: n] {{ r[i] = a[i] as {out}; }}\n"
        h = DispatchHarness(text, "f")
        values = edges(t)
        ref, got = h.compare(lambda: [h.array(t, values), h.array(out, [0] * len(values))])
        assert ref == got and ref[0] == "ok", t


@pytest.mark.parametrize("t", NATIVE, ids=str)
def test_every_construct_on_random_inputs(t):
    """The kitchen sink (cuda_support.kitchen_sink) on seeded random inputs: faults,
    outputs and every reduction as the reference gives them."""
    import random

    from cuda_support import kitchen

    h = DispatchHarness(kitchen(str(t)), f"ops_{str(t).lower()}", max_launch=3, block_size=2)
    rng = random.Random(str(t))
    values = edges(t)
    for _ in range(60):
        n = rng.randint(0, 6)
        a = [rng.choice(values) if rng.random() < 0.5 else rng.randint(-3, 9) if t.signed else rng.randint(0, 9)
             for _ in range(n)]
        b = [rng.choice([1, 2, 3, 5, -1, -2, t.max]) if t.signed else rng.choice([1, 2, 3, 5, t.max])
             for _ in range(n)]
        a = [min(max(x, t.min), t.max) for x in a]
        f = [rng.random() < 0.5 for _ in range(n)]
        out = wide_out(t)
        ref, got = h.compare(lambda: [h.array(t, a), h.array(t, b), h.array(BOOL, f), h.array(out, [0] * n),
                                      None, None, None, None, None, None, None])
        assert ref == got, (t, a, b, f)
