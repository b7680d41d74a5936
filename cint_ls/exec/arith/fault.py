"""Fault records of the arithmetic run-time and type bounds.

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
from cint_ls.vocabulary.faults import E_OVERFLOW

from ..faults import OperationFault

NumType: TypeAlias = IntType | FixedType
"""A type that arithmetic acts on. Values are Python ints; a fixed value is its stored integer."""

Typed: TypeAlias = tuple[Type, int]
"""A typed value: (type, value), a fixed value given by its stored integer."""

Exact: TypeAlias = int | Fraction | None
"""An exact result: an int for integer results, the real value as a Fraction for
fixed-point results, None where there is none (a division by 0)."""

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
