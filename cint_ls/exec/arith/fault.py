"""Fault records of the arithmetic run-time, operation identifiers and type bounds.

A fault record here carries what SPEC-02P.1 7.1 and LANGUAGE.md "Expressions" put
in a record apart from the position and the address, which the executor adds:
the fault code, the operation identifier, the operands with their types, the
exact result and the limit that the exact result crossed.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from typing import TypeAlias

from cint_ls.analysis.types import FixedType, IntType, Type

from ..faults import OperationFault

NumType: TypeAlias = IntType | FixedType
"""A type that arithmetic acts on. Values are Python ints; a fixed value is its stored integer."""

Typed: TypeAlias = tuple[Type, int]
"""A typed value: (type, value), a fixed value given by its stored integer."""

Exact: TypeAlias = int | Fraction | None
"""An exact result: an int for integer results, the real value as a Fraction for
fixed-point results, None where there is none (a division by 0)."""

E_OVERFLOW = "E_OVERFLOW"
E_DIV_ZERO = "E_DIV_ZERO"
E_NARROW = "E_NARROW"
E_SHIFT = "E_SHIFT"
E_EMPTY = "E_EMPTY"

# --- operation identifiers (LANGUAGE.md "Expressions") ---------------------------------


def op_id(op: str, form: str | None, t: Type) -> str:
    """`add.checked.i64`, `add.wrap.u8`, `add.sat.q16.16`; `min.i64` when form is None."""
    suffix = t.suffix  # type: ignore[attr-defined]
    return f"{op}.{suffix}" if form is None else f"{op}.{form}.{suffix}"


def conversion_id(form: str, src: Type, dst: Type) -> str:
    """`as.checked.i64.i32`, `as.wrap.i64.i32`: the source, then the destination."""
    return f"as.{form}.{src.suffix}.{dst.suffix}"  # type: ignore[attr-defined]


def div_round_id(t: Type, mode: str) -> str:
    """`div_round.checked.i64.half_even`."""
    return f"div_round.checked.{t.suffix}.{mode}"  # type: ignore[attr-defined]


# --- bounds -------------------------------------------------------------------------------


@cache
def bounds(t: NumType) -> tuple[int, int]:
    """(least, greatest) value of an integer type, or stored value of a fixed type."""
    return t.min, t.max


@cache
def storage_bits(t: NumType) -> int:
    """The number of bits that hold a value of `t`."""
    return t.bits


def frac_bits(t: NumType) -> int:
    """The number of fractional bits: n for Qm.n, 0 for an integer type."""
    return t.n if isinstance(t, FixedType) else 0


def real(t: NumType, stored: int) -> int | Fraction:
    """The exact real value of a value of `t`: an int for an integer type, the Fraction
    stored / 2**n for a fixed type (a Fraction even when it is whole)."""
    if isinstance(t, FixedType):
        return Fraction(stored, 1 << t.n)
    return stored


def crossed(t: NumType, r: int) -> Typed:
    """The limit of `t` that a result `r` (in `t`'s units) crossed: the max above, the min below."""
    lo, hi = bounds(t)
    return (t, hi) if r > hi else (t, lo)


def overflow(operation: str, t: NumType, operands: list[Typed], exact: Exact, r: int) -> OperationFault:
    """An E_OVERFLOW record for a result `r` of type `t` (stored units) outside its range."""
    return OperationFault(E_OVERFLOW, operation, operands, exact, crossed(t, r))
