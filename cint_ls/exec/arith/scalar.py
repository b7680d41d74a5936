"""Binary and unary operators on integer and fixed-point values (LANGUAGE.md "Expressions").

`binary_fn(op, form, t)` and `unary_fn(op, t)` give a function specialized to the
type, with its bounds and operation identifier bound once, for the interpreter's inner
loop; `binary` and `unary` are the one-off forms. Values are Python ints; a fixed value
is its stored integer.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from fractions import Fraction
from functools import cache

from cint_ls.analysis.types import FixedType, IntType
from cint_ls.vocabulary.faults import E_DIV_ZERO, E_SHIFT
from cint_ls.vocabulary.operations import op_id

from ..faults import OperationFault
from .fault import Exact, NumType, bounds, overflow, real, storage_bits
from .rounding import div_half_even, shift_half_even

BinaryFn = Callable[[int, int], int]
UnaryFn = Callable[[int], int]

CHECKED, WRAP, SAT = "checked", "wrap", "sat"
ARITH_FORMS = (CHECKED, WRAP, SAT)
"""Ops with all three forms: + - * (`+ +% +|`)."""
ARITH_OPS = ("add", "sub", "mul")
CHECKED_ONLY_OPS = ("div", "rem", "shl", "shr")
"""Ops whose only form is checked; shl and shr are integer-only."""
FORMLESS_OPS = ("min", "max", "and", "or", "xor")
"""Ops without a form (never fault); and, or, xor are integer-only."""
INTEGER_ONLY_OPS = ("shl", "shr", "and", "or", "xor", "not")


def _check_type(t: object) -> None:
    if not isinstance(t, (IntType, FixedType)):
        raise TypeError(f"no arithmetic on {t}")


def truncated_div(a: int, b: int) -> int:
    """a / b (b != 0) truncated toward zero (C17 and Rust `/`)."""
    q = a // b
    if q < 0 and q * b != a:
        q += 1
    return q


def truncated_rem(a: int, b: int) -> int:
    """a % b (b != 0) with the sign of the dividend (C17 and Rust `%`)."""
    r = a % b
    if r and (r < 0) != (a < 0):
        r -= b
    return r


# --- results: the raw (exact, rounded) result and the exact value for a fault record ------

Raw = Callable[[int, int], int]
ExactOf = Callable[[int, int], Exact]


def _raw_and_exact(op: str, t: NumType) -> tuple[Raw, ExactOf]:
    """For add, sub, mul: the result in `t`'s units before the range is applied, and the
    exact mathematical result that a fault record carries (computed only on a fault)."""
    if op == "add":
        raw: Raw = operator.add
    elif op == "sub":
        raw = operator.sub
    elif op == "mul":
        if isinstance(t, FixedType):
            n = t.n
            scale = 1 << (2 * n)

            def fixed_mul(a: int, b: int) -> int:
                return shift_half_even(a * b, n)

            return fixed_mul, lambda a, b: Fraction(a * b, scale)
        raw = operator.mul
    else:
        raise ValueError(f"no operation {op!r} with wrapping or saturating forms")
    return raw, lambda a, b: real(t, raw(a, b))


def _checked(ident: str, t: NumType, raw: Raw, exact_of: ExactOf) -> BinaryFn:
    lo, hi = bounds(t)

    def run(a: int, b: int) -> int:
        r = raw(a, b)
        if lo <= r <= hi:
            return r
        raise overflow(ident, t, [(t, a), (t, b)], exact_of(a, b), r)

    return run


def _wrapping(t: NumType, raw: Raw) -> BinaryFn:
    lo, _ = bounds(t)
    mask = (1 << storage_bits(t)) - 1

    def run(a: int, b: int) -> int:
        return ((raw(a, b) - lo) & mask) + lo

    return run


def _saturating(t: NumType, raw: Raw) -> BinaryFn:
    lo, hi = bounds(t)

    def run(a: int, b: int) -> int:
        r = raw(a, b)
        return lo if r < lo else hi if r > hi else r

    return run


def wrap(t: NumType, v: int) -> int:
    """`v` reduced modulo 2**bits into the range of `t` (two's complement)."""
    lo, _ = bounds(t)
    return ((v - lo) & ((1 << storage_bits(t)) - 1)) + lo


def saturate(t: NumType, v: int) -> int:
    """`v` clamped to the range of `t`."""
    lo, hi = bounds(t)
    return lo if v < lo else hi if v > hi else v


# --- division, remainder, shifts ---------------------------------------------------------


def _div_zero(ident: str, t: NumType, a: int, b: int) -> OperationFault:
    return OperationFault(E_DIV_ZERO, ident, [(t, a), (t, b)], None, None)


def _division(op: str, t: NumType) -> BinaryFn:
    """`/` and `%`: E_DIV_ZERO first [IM-124]; `/` of MIN by -1 overflows; `%` never does
    (its exact result, 0 for MIN % -1, always fits)."""
    ident = op_id(op, CHECKED, t)
    lo, hi = bounds(t)
    if op == "rem":

        def rem(a: int, b: int) -> int:
            if b == 0:
                raise _div_zero(ident, t, a, b)
            return truncated_rem(a, b)

        return rem
    if isinstance(t, FixedType):
        n = t.n

        def fixed_div(a: int, b: int) -> int:
            if b == 0:
                raise _div_zero(ident, t, a, b)
            q = div_half_even(a << n, b)
            if lo <= q <= hi:
                return q
            raise overflow(ident, t, [(t, a), (t, b)], Fraction(a, b), q)

        return fixed_div

    def div(a: int, b: int) -> int:
        if b == 0:
            raise _div_zero(ident, t, a, b)
        q = truncated_div(a, b)
        if q <= hi:
            return q
        raise overflow(ident, t, [(t, a), (t, b)], q, q)

    return div


def _shift(op: str, t: IntType) -> BinaryFn:
    """`<<` and `>>`: the count is tested first [IM-125]; outside [0, width) it is
    E_SHIFT with exact none and limit the crossed end of [0, width - 1] as a value of
    `t`. `<<` is checked: x * 2**k must fit. `>>` is arithmetic for signed types and
    logical for unsigned ones (their values are never negative)."""
    ident = op_id(op, CHECKED, t)
    lo, hi = bounds(t)
    width = t.bits

    def shift_fault(a: int, k: int) -> OperationFault:
        limit = (t, 0) if k < 0 else (t, width - 1)
        return OperationFault(E_SHIFT, ident, [(t, a), (t, k)], None, limit)

    if op == "shr":

        def shr(a: int, k: int) -> int:
            if 0 <= k < width:
                return a >> k
            raise shift_fault(a, k)

        return shr

    def shl(a: int, k: int) -> int:
        if not 0 <= k < width:
            raise shift_fault(a, k)
        r = a << k
        if lo <= r <= hi:
            return r
        raise overflow(ident, t, [(t, a), (t, k)], r, r)

    return shl


def _formless(op: str, t: NumType) -> BinaryFn:
    if op == "min":
        return min
    if op == "max":
        return max
    if not isinstance(t, IntType):
        raise TypeError(f"bitwise {op} needs an integer type, not {t}")
    # Python's & | ^ act on the infinite two's complement, so results stay in range.
    return {"and": operator.and_, "or": operator.or_, "xor": operator.xor}[op]


@cache
def binary_fn(op: str, form: str | None, t: NumType) -> BinaryFn:
    """The function (a, b) -> result of `op` in `form` on type `t`.

    op: add sub mul (form checked, wrap or sat), div rem shl shr (form checked),
    min max and or xor (form None). Raises ValueError for a combination that does not
    exist and TypeError for a type that does not support the op.
    """
    _check_type(t)
    if op in FORMLESS_OPS:
        if form is not None:
            raise ValueError(f"{op} has no form, not {form!r}")
        return _formless(op, t)
    if op in CHECKED_ONLY_OPS:
        if form != CHECKED:
            raise ValueError(f"{op} has only the checked form, not {form!r}")
        if op in ("shl", "shr"):
            if not isinstance(t, IntType):
                raise TypeError(f"{op} needs an integer type, not {t}")
            return _shift(op, t)
        return _division(op, t)
    raw, exact_of = _raw_and_exact(op, t)
    if form == CHECKED:
        return _checked(op_id(op, form, t), t, raw, exact_of)
    if form == WRAP:
        return _wrapping(t, raw)
    if form == SAT:
        return _saturating(t, raw)
    raise ValueError(f"unknown form {form!r}")


def binary(op: str, form: str | None, t: NumType, a: int, b: int) -> int:
    """`a op b` in `form` on type `t` (see binary_fn)."""
    return binary_fn(op, form, t)(a, b)


# --- unary ---------------------------------------------------------------------------------


def _negation(op: str, t: NumType) -> UnaryFn:
    """Checked `-a` and abs(a): E_OVERFLOW for MIN, and for `-a` of an unsigned a > 0."""
    ident = op_id(op, CHECKED, t)
    lo, hi = bounds(t)
    take = operator.neg if op == "neg" else abs

    def run(a: int) -> int:
        r = take(a)
        if lo <= r <= hi:
            return r
        raise overflow(ident, t, [(t, a)], real(t, r), r)

    return run


def _bitwise_not(t: IntType) -> UnaryFn:
    if t.signed:
        return operator.invert
    mask = (1 << t.bits) - 1
    return lambda a: a ^ mask


@cache
def unary_fn(op: str, t: NumType) -> UnaryFn:
    """The function a -> result of `op` on type `t`: neg and abs (checked, every numeric
    type), not (`~`, integer types)."""
    _check_type(t)
    if op in ("neg", "abs"):
        return _negation(op, t)
    if op == "not":
        if not isinstance(t, IntType):
            raise TypeError(f"~ needs an integer type, not {t}")
        return _bitwise_not(t)
    raise ValueError(f"unknown unary operation {op!r}")


def unary(op: str, t: NumType, a: int) -> int:
    """`op a` on type `t` (see unary_fn)."""
    return unary_fn(op, t)(a)
