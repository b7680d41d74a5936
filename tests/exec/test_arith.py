"""Tests of the exact-arithmetic run-time, cint_ls.exec.arith.

Spec references: LANGUAGE.md "Expressions" (operators, identifiers, fault records),
SPEC-02P.1 clause 9 (reductions) and 10.1 (exact or refused), and the conformance
examples of SPEC-02P.1 (heat_e1, heat_e2, heat_e9, heat_sum32, heat_fold32,
mix1, tie_a, tie_b, sat, acc, fixed_kernel, fixed_reduce, ops_kernel, u128_kernel).
"""

from __future__ import annotations

import math
import pickle
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cint_ls.analysis.literals import fixed_literal_to_stored, parse_integer_literal
from cint_ls.analysis.types import (
    BOOL,
    I8,
    I16,
    I32,
    I64,
    I128,
    I256,
    I1024,
    U8,
    U16,
    U32,
    U64,
    U128,
    U256,
    U512,
    FixedType,
    IntType,
)
from cint_ls.exec.arith import (
    DIV_ROUND_MODES,
    FoldChecked,
    OperationFault,
    binary,
    binary_fn,
    convert,
    div_round,
    fold_checked_add,
    make_reducer,
    reduce_count,
    reduce_max,
    reduce_min,
    reduce_sum,
    reduce_sum_sat,
    reduce_sum_wrap,
    sum_accumulator_bits,
    unary,
)
from cint_ls.vocabulary.operations import (
    E_DIV_ZERO,
    E_EMPTY,
    E_NARROW,
    E_OVERFLOW,
    E_SHIFT,
    conversion_id,
    div_round_id,
    op_id,
    reduction_id,
)
from cint_ls.vocabulary.values import format_exact, format_typed, format_value

Q16_16 = FixedType(16, 16)
Q8_8 = FixedType(8, 8)
Q1_7 = FixedType(1, 7)
Q32_32 = FixedType(32, 32)
Q64_64 = FixedType(64, 64)

INT_TYPES = [I8, U8, I16, U16, I32, U32, I64, U64, I128, U128, I256, U256, U512, I1024]
FIXED_TYPES = [Q8_8, Q16_16, Q1_7, Q32_32]
NUM_TYPES = INT_TYPES + FIXED_TYPES

I64_MIN, I64_MAX = -(2**63), 2**63 - 1


def fault(fn, *args) -> OperationFault:
    with pytest.raises(OperationFault) as info:
        fn(*args)
    return info.value


def record(f: OperationFault) -> tuple:
    return (f.code, f.operation, f.operands, f.exact, f.limit)


def q(t: FixedType, text: str) -> int:
    stored = fixed_literal_to_stored(text, t)
    assert stored is not None
    return stored


# --- strategies -----------------------------------------------------------------------------


def values(t) -> st.SearchStrategy[int]:
    """Values of `t` (stored for fixed), biased toward the edges."""
    lo, hi = t.min, t.max
    edges = {lo, lo + 1, -1, 0, 1, 2, hi - 1, hi, hi // 2, lo // 2, (hi + 1) // 2}
    edges = sorted(v for v in edges if lo <= v <= hi)
    return st.one_of(st.sampled_from(edges), st.integers(lo, hi))


def clamp(t, v: int) -> int:
    return max(t.min, min(t.max, v))


def crossed(t, v: int):
    return (t, t.max) if v > t.max else (t, t.min)


def real(t, stored: int):
    return Fraction(stored, 2**t.n) if isinstance(t, FixedType) else stored


# --- identifiers and records ----------------------------------------------------------------


def test_operation_identifiers() -> None:
    assert op_id("add", "checked", I64) == "add.checked.i64"
    assert op_id("add", "wrap", U8) == "add.wrap.u8"
    assert op_id("add", "sat", Q16_16) == "add.sat.q16.16"
    assert op_id("min", None, I64) == "min.i64"
    assert conversion_id("checked", I64, I32) == "as.checked.i64.i32"
    assert conversion_id("wrap", I64, I32) == "as.wrap.i64.i32"
    assert div_round_id(I64, "half_even") == "div_round.checked.i64.half_even"
    assert reduction_id("sum", I32, I64) == "sum.checked.i32.i64"
    assert reduction_id("sum_sat", I8, I8) == "sum_sat.i8"
    assert reduction_id("sum_wrap", U8, U8) == "sum_wrap.u8"
    assert reduction_id("max", Q16_16, Q16_16) == "max.q16.16"
    assert reduction_id("count", BOOL, I64) == "count.checked.i64"
    assert reduction_id("fold_checked", I64, I64) == "fold_checked.add.i64"


def test_fault_fields_message_and_pickle() -> None:
    f = OperationFault(E_DIV_ZERO, "div.checked.i64", [(I64, 1), (I64, 0)], None, None)
    assert f.message == "division by zero"
    assert "div.checked.i64" in str(f)
    assert pickle.loads(pickle.dumps(f)) == f


def test_format_typed_operands() -> None:
    assert format_typed(I64, 1) == "I64 1"
    assert format_typed(Q16_16, -3 << 14) == "Q16.16 -0.75"


# --- spec examples ----------------------------------------------------------------------------


def test_heat_e1_mul_overflow() -> None:
    # heat_e1.out: kn * lap overflows I64 [LANGUAGE.md Expressions].
    f = fault(binary, "mul", "checked", I64, 2305843009213693952, 1000)
    assert record(f) == (
        E_OVERFLOW,
        "mul.checked.i64",
        [(I64, 2305843009213693952), (I64, 1000)],
        2305843009213693952000,
        (I64, 9223372036854775807),
    )


def test_heat_e2_narrowing() -> None:
    # heat_e2.out: (c + flux) as I32.
    f = fault(convert, I64, I32, -6442450941)
    assert record(f) == (
        E_NARROW,
        "as.checked.i64.i32",
        [(I64, -6442450941)],
        -6442450941,
        (I32, -2147483648),
    )
    assert f.message == "the value does not fit the destination type"


def test_heat_e9_and_tie_b_div_round_by_zero() -> None:
    f = fault(div_round, I64, 0, 0, "half_even")
    assert record(f) == (E_DIV_ZERO, "div_round.checked.i64.half_even", [(I64, 0), (I64, 0)], None, None)
    f = fault(div_round, I64, 100, 0, "floor")
    assert record(f) == (E_DIV_ZERO, "div_round.checked.i64.floor", [(I64, 100), (I64, 0)], None, None)


def test_heat_spot_rounding() -> None:
    # SPEC-02P.1 note to heat_spot: 12 / 8 = 1.5 rounds to 2; -4 / 8 = -0.5 rounds to 0.
    assert div_round(I64, 12, 8, "half_even") == 2
    assert div_round(I64, -4, 8, "half_even") == 0


def test_heat_sum32_epilogue_overflow() -> None:
    # heat_sum32.out: 64 contributions of MAX(I32), checked once at the end.
    f = fault(reduce_sum, I32, I32, [2147483647] * 64)
    assert record(f) == (E_OVERFLOW, "sum.checked.i32.i32", [(I64, 64)], 137438953408, (I32, 2147483647))


def test_mix1_sum_overflow() -> None:
    x = [5, 1073741824, 7, 1073741824]
    v = [binary("mul", "checked", I32, a, 1) for a in x]
    f = fault(reduce_sum, I32, I32, v)
    assert record(f) == (E_OVERFLOW, "sum.checked.i32.i32", [(I64, 4)], 2147483660, (I32, 2147483647))


def test_heat_fold32_first_overflow() -> None:
    # heat_fold32.out: the fold faults when contribution 1 is added [R-9, IM-83].
    f = fault(fold_checked_add, I32, 0, [2147483647] * 64)
    assert record(f) == (
        E_OVERFLOW,
        "fold_checked.add.i32",
        [(I64, 1), (I32, 2147483647), (I32, 2147483647)],
        4294967294,
        (I32, 2147483647),
    )


def test_tie_a_fold_overflow() -> None:
    f = fault(fold_checked_add, I64, 0, [I64_MAX, 10, 0])
    assert record(f) == (
        E_OVERFLOW,
        "fold_checked.add.i64",
        [(I64, 1), (I64, I64_MAX), (I64, 10)],
        9223372036854775817,
        (I64, I64_MAX),
    )


def test_fold_index_is_the_callers() -> None:
    fold = FoldChecked(I8, 100)
    fold.add(20, 3)
    with pytest.raises(OperationFault) as info:
        fold.add(10, 7)
    assert info.value.operands == [(I64, 7), (I8, 120), (I8, 10)]
    assert fold.finish() == 120  # the accumulator before the faulting contribution


def test_sat_example_is_left_to_right() -> None:
    # sat.out: sum_sat is the fold acc = acc +| x from 0 [IM-84].
    assert reduce_sum_sat(I8, [120, 120, -120]) == 7
    assert reduce_sum_sat(I8, [120, -120, 120]) == 120


def test_acc_example_exact_sums() -> None:
    # acc.out: exact sums through MAX(I64) + 1 and back [R-5, IM-80].
    assert reduce_sum(I64, I64, [I64_MAX, 1, -1]) == I64_MAX
    assert reduce_sum(I32, I64, [2147483647] * 4) == 8589934588
    total = reduce_sum(I128, I128, [I128.max, 1, -1])
    assert format_value(I128, total) == "170141183460469231731687303715884105727"


def test_fixed_kernel_example() -> None:
    # fixed_kernel.out: 3.0 * 0.5 and -1.5 * 0.5 in Q16.16.
    half = q(Q16_16, "0.5")
    b = [binary("mul", "checked", Q16_16, q(Q16_16, a), half) for a in ("3.0", "-1.5")]
    assert " ".join(format_value(Q16_16, v) for v in b) == "1.5 -0.75"


def test_fixed_reduce_example() -> None:
    # fixed_reduce.out: reductions act on the stored integers [SPEC-04P.2 R-4].
    a = [q(Q16_16, t) for t in ("1.25", "-0.5", "2.0")]
    s = reduce_sum(Q16_16, Q16_16, a)
    m = reduce_max(Q16_16, a)
    assert f"{format_value(Q16_16, s)} {format_value(Q16_16, m)}" == "2.75 2.0"


def test_ops_kernel_example() -> None:
    # ops_kernel.out: 19 35 39.
    def ops(x: int) -> int:
        y = unary("neg", I64, x)
        z = binary("or", None, I64, binary("and", None, I64, x, 6), binary("xor", None, I64, x, 3))
        m = binary("max", None, I64, x, 2)
        s = binary("add", "sat", I64, x, 1)
        d = binary("div", "checked", I64, x, 2)
        sh = binary("shl", "checked", I64, x, 1)
        w = convert(I64, I32, x, "wrap")
        sw = 10 if x == 1 else 20
        total = 0
        for v in (y, z, m, s, d, sh, convert(I32, I64, w), sw, x):
            total = binary("add", "checked", I64, total, v)
        return total

    assert [ops(x) for x in (1, 2, 3)] == [19, 35, 39]


def test_u128_kernel_example() -> None:
    assert binary("add", "checked", U128, 18446744073709551615, 1) == 18446744073709551616
    assert binary("add", "checked", U128, 3, 1) == 4


# --- add, sub, mul: edges -------------------------------------------------------------------


@pytest.mark.parametrize("t", [I8, U8, I64, U64, I128, U256, I1024, U512], ids=str)
def test_add_sub_mul_edges(t: IntType) -> None:
    lo, hi = t.min, t.max
    assert binary("add", "checked", t, hi - 1, 1) == hi
    assert binary("sub", "checked", t, lo + 1, 1) == lo
    assert binary("mul", "checked", t, hi, 1) == hi
    assert binary("mul", "checked", t, lo, 1) == lo
    assert binary("mul", "checked", t, 0, hi) == 0
    f = fault(binary, "add", "checked", t, hi, 1)
    assert record(f) == (E_OVERFLOW, op_id("add", "checked", t), [(t, hi), (t, 1)], hi + 1, (t, hi))
    f = fault(binary, "sub", "checked", t, lo, 1)
    assert record(f) == (E_OVERFLOW, op_id("sub", "checked", t), [(t, lo), (t, 1)], lo - 1, (t, lo))
    assert binary("add", "wrap", t, hi, 1) == lo
    assert binary("sub", "wrap", t, lo, 1) == hi
    assert binary("add", "sat", t, hi, 1) == hi
    assert binary("sub", "sat", t, lo, 1) == lo
    assert binary("mul", "sat", t, hi, 2) == hi
    assert binary("mul", "wrap", t, hi, 2) == (-2 if t.signed else hi - 1)


@pytest.mark.parametrize("t", [I8, I64, I128, I1024], ids=str)
def test_signed_min_times_minus_one(t: IntType) -> None:
    f = fault(binary, "mul", "checked", t, t.min, -1)
    assert (f.exact, f.limit) == (-t.min, (t, t.max))
    assert binary("mul", "wrap", t, t.min, -1) == t.min
    assert binary("mul", "sat", t, t.min, -1) == t.max
    assert binary("mul", "sat", t, t.min, 2) == t.min


def test_unsigned_below_zero() -> None:
    f = fault(binary, "sub", "checked", U8, 0, 1)
    assert (f.exact, f.limit) == (-1, (U8, 0))
    assert binary("sub", "wrap", U8, 0, 1) == 255
    assert binary("sub", "sat", U256, 3, 5) == 0


def test_narrow_wrap_examples() -> None:
    assert binary("add", "wrap", I8, 127, 1) == -128
    assert binary("mul", "wrap", I8, 16, 16) == 0
    assert binary("mul", "wrap", U8, 16, 17) == 16
    assert binary("add", "sat", I8, -100, -100) == -128


def test_min_max() -> None:
    assert binary("min", None, I64, -3, 2) == -3
    assert binary("max", None, I1024, I1024.min, I1024.max) == I1024.max
    assert binary("max", None, Q8_8, q(Q8_8, "-0.5"), q(Q8_8, "0.25")) == q(Q8_8, "0.25")


def test_forms_that_do_not_exist() -> None:
    with pytest.raises(ValueError):
        binary_fn("div", "wrap", I64)
    with pytest.raises(ValueError):
        binary_fn("min", "checked", I64)
    with pytest.raises(TypeError):
        binary_fn("shl", "checked", Q16_16)
    with pytest.raises(TypeError):
        binary_fn("and", None, Q16_16)
    with pytest.raises(TypeError):
        binary_fn("add", "checked", BOOL)
    assert binary_fn("add", "checked", I64) is binary_fn("add", "checked", I64)


# --- div, rem ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "a, b, quotient, remainder",
    [(7, 2, 3, 1), (-7, 2, -3, -1), (7, -2, -3, 1), (-7, -2, 3, -1), (6, 3, 2, 0), (0, -5, 0, 0), (1, 3, 0, 1)],
)
def test_div_rem_truncate(a: int, b: int, quotient: int, remainder: int) -> None:
    for t in (I8, I64, I1024):
        assert binary("div", "checked", t, a, b) == quotient
        assert binary("rem", "checked", t, a, b) == remainder


@pytest.mark.parametrize("t", [I8, I64, I128, I1024], ids=str)
def test_div_min_by_minus_one(t: IntType) -> None:
    f = fault(binary, "div", "checked", t, t.min, -1)
    assert record(f) == (E_OVERFLOW, op_id("div", "checked", t), [(t, t.min), (t, -1)], -t.min, (t, t.max))
    assert binary("rem", "checked", t, t.min, -1) == 0  # exact 0 fits: no fault
    assert binary("div", "checked", t, t.min, 1) == t.min


@pytest.mark.parametrize("t", [I8, U8, I64, U64, U256, Q16_16], ids=str)
@pytest.mark.parametrize("op", ["div", "rem"])
def test_division_by_zero(t, op: str) -> None:
    f = fault(binary, op, "checked", t, 5, 0)
    assert record(f) == (E_DIV_ZERO, op_id(op, "checked", t), [(t, 5), (t, 0)], None, None)


def test_unsigned_division() -> None:
    assert binary("div", "checked", U64, U64.max, 1) == U64.max
    assert binary("div", "checked", U8, 255, 2) == 127
    assert binary("rem", "checked", U512, U512.max, 2) == 1


# --- shifts -----------------------------------------------------------------------------------


@pytest.mark.parametrize("t", [I8, U8, I64, U64, I128, U256, I1024, U512], ids=str)
def test_shift_counts(t: IntType) -> None:
    w = t.bits
    assert binary("shr", "checked", t, t.max, w - 1) == (0 if t.signed else 1)
    assert binary("shl", "checked", t, 0, w - 1) == 0
    f = fault(binary, "shl", "checked", t, 1, w)
    assert record(f) == (E_SHIFT, op_id("shl", "checked", t), [(t, 1), (t, w)], None, (t, w - 1))
    f = fault(binary, "shr", "checked", t, 1, w)
    assert record(f) == (E_SHIFT, op_id("shr", "checked", t), [(t, 1), (t, w)], None, (t, w - 1))
    if t.signed:
        f = fault(binary, "shl", "checked", t, 1, -1)
        assert (f.code, f.exact, f.limit) == (E_SHIFT, None, (t, 0))
        assert binary("shl", "checked", t, -1, w - 1) == t.min
        assert binary("shr", "checked", t, t.min, w - 1) == -1  # arithmetic
        f = fault(binary, "shl", "checked", t, 1, w - 1)
        assert record(f) == (E_OVERFLOW, op_id("shl", "checked", t), [(t, 1), (t, w - 1)], 2 ** (w - 1), (t, t.max))
        f = fault(binary, "shl", "checked", t, -2, w - 1)
        assert (f.exact, f.limit) == (-(2**w), (t, t.min))
    else:
        assert binary("shl", "checked", t, 1, w - 1) == 2 ** (w - 1)
        assert binary("shr", "checked", t, t.max, 1) == t.max // 2  # logical
        f = fault(binary, "shl", "checked", t, 3, w - 1)
        assert (f.code, f.exact, f.limit) == (E_OVERFLOW, 3 * 2 ** (w - 1), (t, t.max))


def test_shift_examples() -> None:
    assert binary("shl", "checked", I64, 5, 3) == 40
    assert binary("shr", "checked", I64, -7, 1) == -4
    assert binary("shr", "checked", I8, -128, 7) == -1
    assert binary("shr", "checked", U8, 255, 7) == 1


# --- unary and bitwise --------------------------------------------------------------------------


@pytest.mark.parametrize("t", [I8, I64, I128, I1024], ids=str)
def test_neg_abs_signed(t: IntType) -> None:
    assert unary("neg", t, t.max) == -t.max
    assert unary("abs", t, t.min + 1) == t.max
    assert unary("neg", t, 0) == 0
    for op in ("neg", "abs"):
        f = fault(unary, op, t, t.min)
        assert record(f) == (E_OVERFLOW, op_id(op, "checked", t), [(t, t.min)], -t.min, (t, t.max))


@pytest.mark.parametrize("t", [U8, U64, U256, U512], ids=str)
def test_neg_abs_unsigned(t: IntType) -> None:
    assert unary("neg", t, 0) == 0
    assert unary("abs", t, t.max) == t.max
    f = fault(unary, "neg", t, 1)
    assert record(f) == (E_OVERFLOW, op_id("neg", "checked", t), [(t, 1)], -1, (t, 0))


def test_bitwise() -> None:
    assert unary("not", I8, 0) == -1
    assert unary("not", I8, I8.max) == I8.min
    assert unary("not", U8, 0) == 255
    assert unary("not", U512, U512.max) == 0
    assert binary("and", None, I8, -1, 0x0F) == 15
    assert binary("or", None, I8, -128, 1) == -127
    assert binary("xor", None, U8, 0xF0, 0xFF) == 0x0F
    assert binary("xor", None, I64, -1, I64_MAX) == I64_MIN
    with pytest.raises(TypeError):
        unary("not", Q8_8, 0)


# --- div_round -----------------------------------------------------------------------------------

MODES = ("floor", "ceil", "trunc", "away", "half_even", "half_away", "half_trunc")
DIV_ROUND_TABLE = {
    # a, b: floor ceil trunc away half_even half_away half_trunc (checked by hand)
    (7, 2): (3, 4, 3, 4, 4, 4, 3),
    (-7, 2): (-4, -3, -3, -4, -4, -4, -3),
    (7, -2): (-4, -3, -3, -4, -4, -4, -3),
    (-7, -2): (3, 4, 3, 4, 4, 4, 3),
    (5, 2): (2, 3, 2, 3, 2, 3, 2),
    (-5, 2): (-3, -2, -2, -3, -2, -3, -2),
    (6, 4): (1, 2, 1, 2, 2, 2, 1),
    (1, 2): (0, 1, 0, 1, 0, 1, 0),
    (-1, 2): (-1, 0, 0, -1, 0, -1, 0),
    (1, 3): (0, 1, 0, 1, 0, 0, 0),
    (-1, 3): (-1, 0, 0, -1, 0, 0, 0),
    (2, 3): (0, 1, 0, 1, 1, 1, 1),
    (-2, 3): (-1, 0, 0, -1, -1, -1, -1),
    (6, 3): (2,) * 7,
    (-6, 3): (-2,) * 7,
    (0, 5): (0,) * 7,
}


def test_div_round_modes_listed() -> None:
    assert DIV_ROUND_MODES == MODES


@pytest.mark.parametrize("ab", sorted(DIV_ROUND_TABLE))
def test_div_round_table(ab: tuple[int, int]) -> None:
    a, b = ab
    for mode, expected in zip(MODES, DIV_ROUND_TABLE[ab]):
        for t in (I8, I64, I1024):
            assert div_round(t, a, b, mode) == expected, (a, b, mode)


@pytest.mark.parametrize("t", [I8, I64, I128, I1024], ids=str)
@pytest.mark.parametrize("mode", MODES)
def test_div_round_min_by_minus_one(t: IntType, mode: str) -> None:
    f = fault(div_round, t, t.min, -1, mode)
    assert record(f) == (E_OVERFLOW, div_round_id(t, mode), [(t, t.min), (t, -1)], -t.min, (t, t.max))


def test_div_round_unsigned_and_unknown_mode() -> None:
    assert div_round(U8, 255, 2, "half_even") == 128
    assert div_round(U8, 255, 2, "floor") == 127
    assert div_round(U512, U512.max, 1, "ceil") == U512.max
    with pytest.raises(ValueError):
        div_round(I64, 1, 2, "nearest")
    with pytest.raises(ValueError):
        div_round(I64, 4, 2, "nearest")
    with pytest.raises(ValueError):
        div_round(I64, 1, 3, "nearest")


def div_round_oracle(a: int, b: int, mode: str) -> int:
    x = Fraction(a, b)
    lo, hi = math.floor(x), math.ceil(x)
    if lo == hi:
        return lo
    toward_zero, away = (lo, hi) if x > 0 else (hi, lo)
    direct = {"floor": lo, "ceil": hi, "trunc": toward_zero, "away": away}
    if mode in direct:
        return direct[mode]
    frac = x - lo
    if frac != Fraction(1, 2):
        return lo if frac < Fraction(1, 2) else hi
    return {"half_even": lo if lo % 2 == 0 else hi, "half_away": away, "half_trunc": toward_zero}[mode]


@given(st.data())
def test_div_round_property(data: st.DataObject) -> None:
    t = data.draw(st.sampled_from(INT_TYPES))
    a = data.draw(values(t))
    b = data.draw(values(t).filter(lambda v: v != 0))
    mode = data.draw(st.sampled_from(MODES))
    expected = div_round_oracle(a, b, mode)
    if t.min <= expected <= t.max:
        assert div_round(t, a, b, mode) == expected
    else:
        f = fault(div_round, t, a, b, mode)
        assert (f.code, f.exact, f.limit) == (E_OVERFLOW, expected, crossed(t, expected))


@given(st.data())
def test_div_round_small_operands(data: st.DataObject) -> None:
    a = data.draw(st.integers(-50, 50))
    b = data.draw(st.integers(-12, 12).filter(bool))
    mode = data.draw(st.sampled_from(MODES))
    assert div_round(I64, a, b, mode) == div_round_oracle(a, b, mode)


# --- properties of + - * / % << >> ----------------------------------------------------------------


def exact_of(op: str, t, a: int, b: int):
    """(result in t's units before the range, exact record value) by Fraction arithmetic."""
    if op in ("add", "sub"):
        r = a + b if op == "add" else a - b
        return r, real(t, r)
    if isinstance(t, FixedType):
        x = Fraction(a * b, 2 ** (2 * t.n))
        return round(x * 2**t.n), x  # round() of a Fraction is half-to-even
    return a * b, a * b


@given(st.data())
def test_checked_wrap_sat_property(data: st.DataObject) -> None:
    t = data.draw(st.sampled_from(NUM_TYPES))
    op = data.draw(st.sampled_from(["add", "sub", "mul"]))
    a, b = data.draw(values(t)), data.draw(values(t))
    r, exact = exact_of(op, t, a, b)
    if t.min <= r <= t.max:
        assert binary(op, "checked", t, a, b) == r
    else:
        f = fault(binary, op, "checked", t, a, b)
        assert record(f) == (E_OVERFLOW, op_id(op, "checked", t), [(t, a), (t, b)], exact, crossed(t, r))
    wrapped = binary(op, "wrap", t, a, b)
    assert t.min <= wrapped <= t.max and (wrapped - r) % 2**t.bits == 0
    assert binary(op, "sat", t, a, b) == clamp(t, r)


@given(st.data())
def test_div_rem_property(data: st.DataObject) -> None:
    t = data.draw(st.sampled_from(INT_TYPES))
    a, b = data.draw(values(t)), data.draw(values(t).filter(bool))
    quotient = int(Fraction(a, b))  # int() truncates toward zero
    assert binary("rem", "checked", t, a, b) == a - b * quotient
    if quotient <= t.max:
        assert binary("div", "checked", t, a, b) == quotient
    else:
        assert fault(binary, "div", "checked", t, a, b).exact == quotient


@given(st.data())
def test_shift_property(data: st.DataObject) -> None:
    t = data.draw(st.sampled_from(INT_TYPES))
    a = data.draw(values(t))
    k = data.draw(st.integers(max(t.min, -3), min(t.max, t.bits + 3)))
    if not 0 <= k < t.bits:
        for op in ("shl", "shr"):
            assert fault(binary, op, "checked", t, a, k).code == E_SHIFT
        return
    assert binary("shr", "checked", t, a, k) == a // 2**k
    r = a * 2**k
    if t.min <= r <= t.max:
        assert binary("shl", "checked", t, a, k) == r
    else:
        f = fault(binary, "shl", "checked", t, a, k)
        assert (f.code, f.exact, f.limit) == (E_OVERFLOW, r, crossed(t, r))


@given(st.data())
def test_neg_abs_property(data: st.DataObject) -> None:
    t = data.draw(st.sampled_from(NUM_TYPES))
    a = data.draw(values(t))
    for op, r in (("neg", -a), ("abs", abs(a))):
        if t.min <= r <= t.max:
            assert unary(op, t, a) == r
        else:
            f = fault(unary, op, t, a)
            assert (f.exact, f.limit) == (real(t, r), crossed(t, r))


# --- fixed point ---------------------------------------------------------------------------------


def test_fixed_add_overflow_record() -> None:
    a, b = q(Q8_8, "127.5"), q(Q8_8, "1.0")
    f = fault(binary, "add", "checked", Q8_8, a, b)
    assert record(f) == (E_OVERFLOW, "add.checked.q8.8", [(Q8_8, a), (Q8_8, b)], Fraction(257, 2), (Q8_8, 32767))
    assert format_exact(f.exact) == "128.5"
    assert binary("add", "sat", Q8_8, a, b) == Q8_8.max
    assert binary("add", "wrap", Q8_8, a, b) == a + b - 2**16


def test_fixed_mul_rounds_half_to_even() -> None:
    # Stored 1 * 0.5 is 2**-9, a tie between 0 and 2**-8: to the even 0. [LANGUAGE.md fixed point]
    half = q(Q8_8, "0.5")
    assert [binary("mul", "checked", Q8_8, s, half) for s in (1, 3, -1, -3, 5)] == [0, 2, 0, -2, 2]
    assert binary("mul", "checked", Q8_8, 1, 1) == 0  # 2**-16 rounds to 0
    assert binary("mul", "checked", Q8_8, 1, 192) == 1  # 0.75 * 2**-8 rounds up
    assert binary("mul", "checked", Q16_16, q(Q16_16, "2.5"), q(Q16_16, "-4.0")) == q(Q16_16, "-10.0")


def test_fixed_mul_overflow() -> None:
    a, b = q(Q8_8, "100.0"), q(Q8_8, "2.0")
    f = fault(binary, "mul", "checked", Q8_8, a, b)
    assert record(f) == (E_OVERFLOW, "mul.checked.q8.8", [(Q8_8, a), (Q8_8, b)], Fraction(200), (Q8_8, 32767))
    assert format_exact(f.exact) == "200.0"
    assert binary("mul", "sat", Q8_8, a, b) == Q8_8.max
    assert binary("mul", "sat", Q8_8, a, -b) == Q8_8.min
    assert binary("mul", "wrap", Q8_8, a, b) == 51200 - 65536
    m = q(Q8_8, "-128.0")
    f = fault(binary, "mul", "checked", Q8_8, m, q(Q8_8, "-1.0"))
    assert (f.exact, f.limit) == (Fraction(128), (Q8_8, 32767))


def test_fixed_div() -> None:
    one, three = q(Q8_8, "1.0"), q(Q8_8, "3.0")
    assert binary("div", "checked", Q8_8, one, three) == 85  # 85.33 / 256
    assert binary("div", "checked", Q8_8, -one, three) == -85
    assert binary("div", "checked", Q8_8, q(Q8_8, "3.0"), q(Q8_8, "2.0")) == q(Q8_8, "1.5")
    assert binary("div", "checked", Q8_8, 1, q(Q8_8, "2.0")) == 0  # 2**-9: a tie, to even
    assert binary("div", "checked", Q8_8, 3, q(Q8_8, "2.0")) == 2
    f = fault(binary, "div", "checked", Q8_8, q(Q8_8, "100.0"), q(Q8_8, "0.5"))
    assert (f.code, f.exact, f.limit) == (E_OVERFLOW, Fraction(200), (Q8_8, 32767))
    f = fault(binary, "div", "checked", Q8_8, -one, 1)
    assert (f.exact, f.limit) == (Fraction(-256), (Q8_8, -32768))
    with pytest.raises(ValueError):
        binary_fn("div", "sat", Q8_8)


def test_fixed_rem_and_neg() -> None:
    assert binary("rem", "checked", Q8_8, q(Q8_8, "5.5"), q(Q8_8, "2.0")) == q(Q8_8, "1.5")
    assert binary("rem", "checked", Q8_8, q(Q8_8, "-5.5"), q(Q8_8, "2.0")) == q(Q8_8, "-1.5")
    assert unary("neg", Q16_16, q(Q16_16, "1.5")) == q(Q16_16, "-1.5")
    f = fault(unary, "neg", Q8_8, Q8_8.min)
    assert record(f) == (E_OVERFLOW, "neg.checked.q8.8", [(Q8_8, -32768)], Fraction(128), (Q8_8, 32767))
    assert fault(unary, "abs", Q8_8, Q8_8.min).operation == "abs.checked.q8.8"


@given(st.data())
def test_fixed_div_property(data: st.DataObject) -> None:
    t = data.draw(st.sampled_from(FIXED_TYPES))
    a, b = data.draw(values(t)), data.draw(values(t).filter(bool))
    r = round(Fraction(a * 2**t.n, b))
    if t.min <= r <= t.max:
        assert binary("div", "checked", t, a, b) == r
    else:
        f = fault(binary, "div", "checked", t, a, b)
        assert (f.exact, f.limit) == (Fraction(a, b), crossed(t, r))


# --- conversions ---------------------------------------------------------------------------------


def test_int_conversions() -> None:
    assert convert(I32, I64, -5) == -5
    assert convert(I64, I8, -128) == -128
    f = fault(convert, I8, U8, -1)
    assert record(f) == (E_NARROW, "as.checked.i8.u8", [(I8, -1)], -1, (U8, 0))
    f = fault(convert, U8, I8, 200)
    assert f.limit == (I8, 127)
    f = fault(convert, I1024, U512, I1024.max)
    assert (f.exact, f.limit) == (I1024.max, (U512, U512.max))
    assert convert(U512, I1024, U512.max) == U512.max


def test_wrapping_conversions() -> None:
    assert convert(I64, I32, 2**32 + 5, "wrap") == 5
    assert convert(I64, I32, 2**31, "wrap") == -(2**31)
    assert convert(I64, U8, -1, "wrap") == 255
    assert convert(U8, I8, 255, "wrap") == -1
    assert convert(I1024, U512, -1, "wrap") == U512.max
    with pytest.raises(TypeError):
        convert(Q16_16, I32, 0, "wrap")


def test_int_fixed_conversions() -> None:
    assert convert(I64, Q8_8, 5) == 5 * 256
    assert convert(I64, Q8_8, -128) == Q8_8.min
    f = fault(convert, I64, Q8_8, 128)
    assert record(f) == (E_NARROW, "as.checked.i64.q8.8", [(I64, 128)], Fraction(128), (Q8_8, 32767))
    assert fault(convert, I64, Q8_8, -129).limit == (Q8_8, -32768)
    assert convert(Q16_16, I64, q(Q16_16, "-2.0")) == -2


def test_fixed_to_int_inexact_or_out_of_range() -> None:
    f = fault(convert, Q16_16, I64, q(Q16_16, "2.5"))
    assert record(f) == (E_NARROW, "as.checked.q16.16.i64", [(Q16_16, 5 << 15)], Fraction(5, 2), None)
    assert fault(convert, Q16_16, I8, q(Q16_16, "300.0")).limit == (I8, 127)
    assert fault(convert, Q16_16, I8, q(Q16_16, "127.5")).limit == (I8, 127)
    assert fault(convert, Q16_16, I8, q(Q16_16, "-128.5")).limit == (I8, -128)
    assert fault(convert, Q16_16, I8, q(Q16_16, "-127.5")).limit is None
    assert fault(convert, Q16_16, U8, q(Q16_16, "-0.5")).limit == (U8, 0)
    assert convert(Q16_16, U8, q(Q16_16, "255.0")) == 255


def test_fixed_to_fixed() -> None:
    assert convert(Q16_16, Q8_8, q(Q16_16, "1.5")) == q(Q8_8, "1.5")
    assert convert(Q8_8, Q16_16, q(Q8_8, "-127.99609375")) == q(Q16_16, "-127.99609375")
    assert convert(Q32_32, Q16_16, q(Q32_32, "-0.25")) == q(Q16_16, "-0.25")
    f = fault(convert, Q16_16, Q8_8, 1)
    assert (f.operation, f.exact, f.limit) == ("as.checked.q16.16.q8.8", Fraction(1, 2**16), None)
    assert fault(convert, Q16_16, Q8_8, q(Q16_16, "200.0")).limit == (Q8_8, 32767)
    assert fault(convert, Q8_8, Q1_7, q(Q8_8, "1.0")).limit == (Q1_7, 127)
    assert convert(Q8_8, Q1_7, q(Q8_8, "-1.0")) == Q1_7.min


@given(st.data())
def test_checked_conversion_property(data: st.DataObject) -> None:
    src = data.draw(st.sampled_from(NUM_TYPES))
    dst = data.draw(st.sampled_from(NUM_TYPES))
    v = data.draw(values(src))
    value = real(src, v)
    scaled = value * 2**dst.n if isinstance(dst, FixedType) else value
    fits = Fraction(scaled).denominator == 1 and dst.min <= scaled <= dst.max
    if fits:
        assert convert(src, dst, v) == scaled
        return
    f = fault(convert, src, dst, v)
    either_fixed = isinstance(src, FixedType) or isinstance(dst, FixedType)
    assert f.code == E_NARROW and f.operands == [(src, v)]
    assert f.exact == value and isinstance(f.exact, Fraction) == either_fixed
    if scaled > dst.max:
        assert f.limit == (dst, dst.max)
    elif scaled < dst.min:
        assert f.limit == (dst, dst.min)
    else:
        assert f.limit is None


@given(st.data())
def test_wrapping_conversion_property(data: st.DataObject) -> None:
    src, dst = data.draw(st.sampled_from(INT_TYPES)), data.draw(st.sampled_from(INT_TYPES))
    v = data.draw(values(src))
    r = convert(src, dst, v, "wrap")
    assert dst.min <= r <= dst.max and (r - v) % 2**dst.bits == 0


# --- value text and literals --------------------------------------------------------------------


def test_format_value() -> None:
    assert format_value(I64, -42) == "-42"
    assert format_value(BOOL, True) == "true"
    assert format_value(BOOL, False) == "false"
    cases = {"2.0": 2 << 16, "2.75": 11 << 14, "-0.75": -3 << 14, "1.5": 3 << 15, "0.0": 0}
    for text, stored in cases.items():
        assert format_value(Q16_16, stored) == text
    assert format_value(Q16_16, 1) == "0.0000152587890625"
    assert format_value(Q16_16, -1) == "-0.0000152587890625"
    assert format_value(Q8_8, Q8_8.min) == "-128.0"
    assert format_value(Q8_8, Q8_8.max) == "127.99609375"
    assert format_value(FixedType(8, 0), -5) == "-5.0"


def test_format_exact() -> None:
    assert format_exact(None) == "none"
    assert format_exact(9223372036854775817) == "9223372036854775817"
    assert format_exact(Fraction(5)) == "5.0"
    assert format_exact(Fraction(-3, 4)) == "-0.75"
    assert format_exact(Fraction(1, 10)) == "0.1"
    assert format_exact(Fraction(-7, 40)) == "-0.175"
    assert format_exact(Fraction(1, 3)) == "1/3"
    assert format_exact(Fraction(-2, 3)) == "-2/3"


@given(st.data())
def test_fixed_text_round_trip(data: st.DataObject) -> None:
    t = data.draw(st.sampled_from(FIXED_TYPES + [Q64_64]))
    v = data.draw(values(t))
    text = format_value(t, v)
    _, _, frac = text.partition(".")
    assert frac and (frac == "0" or not frac.endswith("0"))
    assert Fraction(text) == Fraction(v, 2**t.n)
    assert fixed_literal_to_stored(text, t) == v
    assert format_exact(Fraction(v, 2**t.n)) == text


def test_parse_integer_literal() -> None:
    cases = {"0": 0, "42": 42, "1_000_000": 10**6, "0xFF": 255, "0x_ff": 255, "0b1010": 10, "0b1_0": 2, "-7": -7}
    for text, value in cases.items():
        assert parse_integer_literal(text) == value
    assert parse_integer_literal("9223372036854775808") == 2**63
    for bad in ("", "x1", "0x", "0b2", "_1", "1.5", "0xg", "--1"):
        with pytest.raises(ValueError):
            parse_integer_literal(bad)


def test_fixed_literal_to_stored() -> None:
    assert fixed_literal_to_stored("1.25", Q16_16) == 5 << 14
    assert fixed_literal_to_stored("-0.5", Q16_16) == -(1 << 15)
    assert fixed_literal_to_stored("3", Q16_16) == 3 << 16
    assert fixed_literal_to_stored("1_000.5", Q16_16) == 2001 << 15
    assert fixed_literal_to_stored("0.1", Q16_16) is None  # not a binary fraction
    assert fixed_literal_to_stored("0.0000152587890625", Q16_16) == 1
    assert fixed_literal_to_stored("0.00000762939453125", Q16_16) is None  # 2**-17
    assert fixed_literal_to_stored("128.0", Q8_8) is None  # out of range
    assert fixed_literal_to_stored("-128.0", Q8_8) == Q8_8.min
    assert fixed_literal_to_stored("127.99609375", Q8_8) == Q8_8.max
    for bad in ("1.", ".5", "1e3", "", "0x1.0"):
        with pytest.raises(ValueError):
            fixed_literal_to_stored(bad, Q8_8)


# --- reductions ----------------------------------------------------------------------------------


def test_sum_accumulator_bits() -> None:
    # SPEC-02P.1 9.1 Table 2 [R-5, BACK-07].
    for t in (I8, I16, I32, I64, U8, U64, Q16_16, Q32_32):
        assert sum_accumulator_bits(t) == 128
    assert [sum_accumulator_bits(t) for t in (I128, U128, Q64_64, I256, U256, U512)] == [256, 256, 256, 512, 512, 1024]
    assert sum_accumulator_bits(I1024) == 1088


def test_sum_bounds_and_wide() -> None:
    assert reduce_sum(I64, I64, []) == 0  # the sum of none is 0
    assert reduce_sum(U8, U8, [255, 0]) == 255
    f = fault(reduce_sum, U8, I8, [200])
    assert (f.operation, f.exact, f.limit) == ("sum.checked.u8.i8", 200, (I8, 127))
    f = fault(reduce_sum, I1024, I1024, [I1024.min, -1])
    assert (f.operands, f.exact, f.limit) == ([(I64, 2)], I1024.min - 1, (I1024, I1024.min))
    f = fault(reduce_sum, Q8_8, Q8_8, [Q8_8.max, 128])
    assert (f.exact, f.limit) == (Fraction(Q8_8.max + 128, 256), (Q8_8, Q8_8.max))
    with pytest.raises(TypeError):
        reduce_sum(Q8_8, Q16_16, [])


def test_sum_wrap_and_sat() -> None:
    assert reduce_sum_wrap(I8, [120, 120, -120]) == 120  # order-free [IM-82]
    assert reduce_sum_wrap(I8, [127, 1]) == -128
    assert reduce_sum_wrap(U512, [U512.max, 2]) == 1
    assert reduce_sum_sat(U8, [200, 100, -0]) == 255
    assert reduce_sum_sat(Q8_8, [Q8_8.max, 256, -256]) == Q8_8.max - 256
    assert reduce_sum_sat(I64, []) == 0


def test_min_max_and_empty() -> None:
    assert reduce_min(I64, [3, -7, 5]) == -7
    assert reduce_max(U256, [0, U256.max, 1]) == U256.max
    for kind, fn in (("min", reduce_min), ("max", reduce_max)):
        f = fault(fn, I32, [])
        assert record(f) == (E_EMPTY, f"{kind}.i32", [(I64, 0)], None, None)
        assert f.message == "the reduction has no contributions"


def test_count() -> None:
    assert reduce_count(I64, [True, False, True]) == 2
    assert reduce_count(U8, [True] * 255) == 255
    f = fault(reduce_count, I8, [True] * 200 + [False])
    assert record(f) == (E_OVERFLOW, "count.checked.i8", [(I64, 201)], 200, (I8, 127))


def test_make_reducer() -> None:
    r = make_reducer("fold_checked", I64, I64, init=5)
    for k, x in enumerate([1, 2, 3]):
        r.add(x, k)
    assert r.finish() == 11
    r = make_reducer("count", BOOL, I32)
    r.add(True, 0)
    assert r.finish() == 1
    with pytest.raises(TypeError):
        make_reducer("sum_sat", I8, I64)
    with pytest.raises(TypeError):
        make_reducer("count", I8, I64)
    with pytest.raises(ValueError):
        make_reducer("product", I64, I64)


def sat_map_oracle(t, xs: list[int]) -> int:
    """SPEC-02P.1 9.2 paragraph 3: compose maps f(c, L, H) and apply to 0 [R-10, IM-86]."""
    c, lo, hi = 0, -math.inf, math.inf
    for e in xs:
        c2, lo2, hi2 = e, t.min, t.max
        lo, hi = max(lo2, min(lo + c2, hi2)), max(lo2, min(hi + c2, hi2))
        c += c2
    return max(lo, min(0 + c, hi))


def test_sat_map_composition_note() -> None:
    # SPEC-02P.1 9.2 note 1: +120 then -120 on I8 gives c = 0, L = -128, H = 7.
    assert sat_map_oracle(I8, [120, -120]) == reduce_sum_sat(I8, [120, -120]) == 0
    assert reduce_sum_sat(I8, [120, 120, -120]) == sat_map_oracle(I8, [120, 120, -120]) == 7


@given(st.data())
def test_reduction_properties(data: st.DataObject) -> None:
    t = data.draw(st.sampled_from(NUM_TYPES))
    xs = data.draw(st.lists(values(t), max_size=12))
    total = sum(xs)
    if t.min <= total <= t.max:
        assert reduce_sum(t, t, xs) == total
    else:
        f = fault(reduce_sum, t, t, xs)
        assert (f.operands, f.exact, f.limit) == ([(I64, len(xs))], real(t, total), crossed(t, total))
    assert reduce_sum_wrap(t, xs) == ((total - t.min) % 2**t.bits) + t.min
    acc = 0
    for x in xs:
        acc = clamp(t, acc + x)
    assert reduce_sum_sat(t, xs) == acc == sat_map_oracle(t, xs)
    if xs:
        assert (reduce_min(t, xs), reduce_max(t, xs)) == (min(xs), max(xs))


@given(st.data())
def test_fold_checked_property(data: st.DataObject) -> None:
    t = data.draw(st.sampled_from(NUM_TYPES))
    init = data.draw(values(t))
    xs = data.draw(st.lists(values(t), max_size=10))
    # SPEC-02P.1 9.2 paragraph 4: the first prefix leaving the range faults [R-9, BACK-08].
    prefix = init
    for k, x in enumerate(xs):
        if not t.min <= prefix + x <= t.max:
            f = fault(fold_checked_add, t, init, xs)
            r = prefix + x
            assert record(f) == (
                E_OVERFLOW,
                f"fold_checked.add.{t.suffix}",
                [(I64, k), (t, prefix), (t, x)],
                real(t, r),
                crossed(t, r),
            )
            return
        prefix += x
    assert fold_checked_add(t, init, xs) == prefix
