"""Value text (LANGUAGE.md "Statements", value text; "Reports").

Integers in decimal; Bool `true`/`false`; fixed point as the exact decimal with at
least one fractional digit (`2.0`, `2.75`, `-0.75`). A fixed value is a finite binary
fraction, so its decimal is finite and exact. A fixed value is given by its stored
integer (value * 2**n).
"""

from __future__ import annotations

from fractions import Fraction

from .operations import Spelled


def _decimal(negative: bool, whole: int, frac: int, digits: int) -> str:
    """`whole.frac` with `frac` written in `digits` places, trailing zeros dropped but one kept."""
    text = str(frac).rjust(digits, "0").rstrip("0") if digits else ""
    return f"{'-' if negative else ''}{whole}.{text or '0'}"


def format_fixed(stored: int, n: int) -> str:
    """The exact decimal of stored / 2**n: stored / 2**n = stored * 5**n / 10**n."""
    magnitude = abs(stored)
    whole = magnitude >> n
    frac = (magnitude - (whole << n)) * 5**n
    return _decimal(stored < 0, whole, frac, n)


def format_value(t: Spelled, v: int | bool) -> str:
    """The text of a value of type `t`, told apart by its suffix (`bool`, `i64`/`u8`,
    `q16.16` whose n is after the dot)."""
    spelled = getattr(t, "suffix", "")
    if spelled == "bool":
        return "true" if v else "false"
    if spelled.startswith("q"):
        return format_fixed(int(v), int(spelled.split(".")[1]))
    if spelled[:1] in ("i", "u"):
        return str(int(v))
    raise TypeError(f"no value text for {t}")


def format_typed(t: Spelled, v: int | bool) -> str:
    """An operand or limit as a fault record shows it: `I64 1`, `Q16.16 -0.75`."""
    return f"{t.name} {format_value(t, v)}"


def _power_of_two_scale(q: int) -> int | None:
    """k with 10**k divisible by q (q = 2**a * 5**b, k = max(a, b)), or None."""
    twos = (q & -q).bit_length() - 1
    rest = q >> twos
    fives = 0
    while rest % 5 == 0:
        rest //= 5
        fives += 1
    return max(twos, fives) if rest == 1 else None


def format_exact(x: int | Fraction | None) -> str:
    """A fault record's `exact`: `none`; an int in decimal; a Fraction (a fixed-point real)
    as its exact decimal with at least one fractional digit, or `p/q` when that is not finite."""
    if x is None:
        return "none"
    if isinstance(x, Fraction):
        digits = _power_of_two_scale(x.denominator)
        if digits is None:
            return f"{x.numerator}/{x.denominator}"
        scaled = abs(x.numerator) * (10**digits // x.denominator)
        whole, frac = divmod(scaled, 10**digits)
        return _decimal(x < 0, whole, frac, digits)
    return str(x)
