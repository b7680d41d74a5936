"""Values of literals (LANGUAGE.md "Lexical"): integers in decimal, `0x..`, `0b..` with
`_` separators, and fixed-point literals in a given Qm.n type."""

from __future__ import annotations

import re

from .types import FixedType

_INTEGER = re.compile(r"(-?)(?:0[xX]([0-9a-fA-F_]+)|0[bB]([01_]+)|([0-9][0-9_]*))")
_FIXED = re.compile(r"(-?)([0-9][0-9_]*)(?:\.([0-9][0-9_]*))?")


def _digits(text: str) -> str:
    digits = text.replace("_", "")
    if not digits:
        raise ValueError("a literal needs a digit")
    return digits


def parse_integer_literal(text: str) -> int:
    """The value of an integer literal: decimal, `0x..`, `0b..`, `_` separators (a leading
    `-` is accepted). Raises ValueError for anything else."""
    match = _INTEGER.fullmatch(text)
    if match is None:
        raise ValueError(f"not an integer literal: {text!r}")
    sign, hexa, binary, decimal = match.groups()
    if hexa is not None:
        value = int(_digits(hexa), 16)
    elif binary is not None:
        value = int(_digits(binary), 2)
    else:
        value = int(_digits(decimal), 10)
    return -value if sign else value


def fixed_literal_to_stored(text: str, t: FixedType) -> int | None:
    """The stored integer of the literal `text` (`1.25`, `3`, `-0.5`, `_` separators) in
    `t`, or None when the value is not exactly representable in `t` or out of its range.
    Raises ValueError when `text` is not a decimal literal."""
    match = _FIXED.fullmatch(text)
    if match is None:
        raise ValueError(f"not a fixed-point literal: {text!r}")
    sign, whole, frac = match.groups()
    frac_digits = _digits(frac) if frac is not None else ""
    numerator = int(_digits(whole) + frac_digits)
    scale = 10 ** len(frac_digits)
    stored, rest = divmod(numerator << t.n, scale)
    if rest:
        return None
    if sign:
        stored = -stored
    return stored if t.min <= stored <= t.max else None
