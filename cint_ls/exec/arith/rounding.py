"""Rounded integer division: `div_round(a, b, mode)` and the rounding that fixed-point
`*` and `/` use (LANGUAGE.md "Expressions"; SPEC-02P.1 10.1 forbids rounding otherwise)."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from cint_ls.analysis.types import IntType
from cint_ls.vocabulary.faults import E_DIV_ZERO
from cint_ls.vocabulary.operations import div_round_id

from ..faults import OperationFault
from .fault import bounds, overflow

DIV_ROUND_MODES = ("floor", "ceil", "trunc", "away", "half_even", "half_away", "half_trunc")
"""The rounding modes of div_round; `half_trunc` sends ties toward zero."""


# Whether a quotient strictly between q and q + 1 (q = floor) rounds up to q + 1, given
# q and `side`, the sign of 2|r| - |b| (below, at or above the midpoint). The exact
# quotient q + f, 0 < f < 1, is negative exactly when q < 0.
_ROUNDS_UP: dict[str, Callable[[int, int], bool]] = {
    "floor": lambda q, side: False,
    "ceil": lambda q, side: True,
    "trunc": lambda q, side: q < 0,
    "away": lambda q, side: q >= 0,
    "half_even": lambda q, side: side > 0 or (side == 0 and q & 1 == 1),
    "half_away": lambda q, side: side > 0 or (side == 0 and q >= 0),
    "half_trunc": lambda q, side: side > 0 or (side == 0 and q < 0),
}


def _rounder(mode: str) -> Callable[[int, int], int]:
    try:
        rounds_up = _ROUNDS_UP[mode]
    except KeyError:
        raise ValueError(f"unknown rounding mode {mode!r}") from None

    def quotient(a: int, b: int) -> int:
        q, r = divmod(a, b)  # q = floor(a / b); r has the sign of b
        if r == 0:
            return q
        twice = 2 * abs(r) - abs(b)
        return q + 1 if rounds_up(q, (twice > 0) - (twice < 0)) else q

    return quotient


def rounded_quotient(a: int, b: int, mode: str) -> int:
    """a / b (b != 0) rounded to an integer by `mode`, exactly, with no range check."""
    return _rounder(mode)(a, b)


_half_even = _rounder("half_even")


def div_half_even(a: int, b: int) -> int:
    """a / b (b != 0) rounded half-to-even: the rounding of fixed-point `/`."""
    return _half_even(a, b)


def shift_half_even(a: int, n: int) -> int:
    """a / 2**n rounded half-to-even (n >= 0), without a division: fixed-point `*`."""
    if n == 0:
        return a
    q = a >> n
    r = a - (q << n)  # 0 <= r < 2**n
    half = 1 << (n - 1)
    if r > half or (r == half and q & 1):
        return q + 1
    return q


@cache
def div_round_fn(t: IntType, mode: str) -> Callable[[int, int], int]:
    """div_round specialized to a type and a mode, for the interpreter's inner loop."""
    if not isinstance(t, IntType):
        raise TypeError(f"div_round needs an integer type, not {t}")
    quotient = _rounder(mode)
    ident = div_round_id(t, mode)
    lo, hi = bounds(t)

    def run(a: int, b: int) -> int:
        if b == 0:
            raise OperationFault(E_DIV_ZERO, ident, [(t, a), (t, b)], None, None)
        q = quotient(a, b)
        if lo <= q <= hi:
            return q
        # |a / b| <= |a| for b != 0, so an overflow has a whole quotient: q is exact.
        raise overflow(ident, t, [(t, a), (t, b)], q, q)

    return run


def div_round(t: IntType, a: int, b: int, mode: str) -> int:
    """div_round(a, b, mode) of type `t` [checked]: E_DIV_ZERO for b = 0 (exact and
    limit none), E_OVERFLOW when the rounded quotient leaves `t` (only MIN / -1)."""
    return div_round_fn(t, mode)(a, b)
