"""Conversions `e as T` (checked) and `e as% T` (wrapping) (LANGUAGE.md "Expressions").

A checked conversion between integer and fixed types is exact or E_NARROW: the
operand is the source (type, value), `exact` the exact value converted (an int between
integer types, the real value as a Fraction when either side is fixed point), `limit`
the destination bound crossed as (destination, stored value), or None when the value
lies within the destination's range but is not a multiple of its resolution (a fixed
value with a fraction converted to an integer type or to fewer fractional bits).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import cache

from cint_ls.analysis.types import FixedType, IntType
from cint_ls.vocabulary.faults import E_NARROW
from cint_ls.vocabulary.operations import conversion_id

from ..faults import OperationFault
from .fault import NumType, Typed, bounds, frac_bits
from .scalar import CHECKED, WRAP, wrap

ConvertFn = Callable[[int], int]


def _narrow(ident: str, src: NumType, v: int, exact: int | Fraction, limit: Typed | None) -> OperationFault:
    return OperationFault(E_NARROW, ident, [(src, v)], exact, limit)


def _int_to_int(src: IntType, dst: IntType) -> ConvertFn:
    lo, hi = bounds(dst)
    slo, shi = bounds(src)
    if lo <= slo and shi <= hi:
        return lambda v: v
    ident = conversion_id(CHECKED, src, dst)

    def run(v: int) -> int:
        if lo <= v <= hi:
            return v
        raise _narrow(ident, src, v, v, (dst, hi) if v > hi else (dst, lo))

    return run


def _scaled(src: NumType, dst: NumType) -> ConvertFn:
    """Any checked conversion with a fixed-point side: rescale the stored integer from
    the source's fractional bits to the destination's, exactly, then check the range."""
    ident = conversion_id(CHECKED, src, dst)
    lo, hi = bounds(dst)
    ns, nd = frac_bits(src), frac_bits(dst)

    def exact_of(v: int) -> Fraction:
        return Fraction(v, 1 << ns)

    if nd >= ns:
        up = nd - ns

        def widen(v: int) -> int:
            r = v << up
            if lo <= r <= hi:
                return r
            raise _narrow(ident, src, v, exact_of(v), (dst, hi) if r > hi else (dst, lo))

        return widen
    down = ns - nd
    lost = (1 << down) - 1

    def narrow(v: int) -> int:
        r = v >> down  # floor of the value in destination units
        if v & lost == 0 and lo <= r <= hi:
            return r
        # An inexact value lies strictly between r and r + 1 destination units.
        limit: Typed | None = None
        if r > hi or (r == hi and v & lost):
            limit = (dst, hi)
        elif r < lo:
            limit = (dst, lo)
        raise _narrow(ident, src, v, exact_of(v), limit)

    return narrow


def _wrapping(src: NumType, dst: NumType) -> ConvertFn:
    if not (isinstance(src, IntType) and isinstance(dst, IntType)):
        raise TypeError(f"as% converts between integer types, not {src} to {dst}")
    return lambda v: wrap(dst, v)


@cache
def convert_fn(src: NumType, dst: NumType, form: str = CHECKED) -> ConvertFn:
    """The function v -> `v as dst` (form checked) or `v as% dst` (form wrap)."""
    for t in (src, dst):
        if not isinstance(t, (IntType, FixedType)):
            raise TypeError(f"no numeric conversion with {t}")
    if form == WRAP:
        return _wrapping(src, dst)
    if form != CHECKED:
        raise ValueError(f"unknown conversion form {form!r}")
    if isinstance(src, IntType) and isinstance(dst, IntType):
        return _int_to_int(src, dst)
    return _scaled(src, dst)


def convert(src: NumType, dst: NumType, v: int, form: str = CHECKED) -> int:
    """`v as dst` (checked) or `v as% dst` (wrap) for a value `v` of type `src`."""
    return convert_fn(src, dst, form)(v)
