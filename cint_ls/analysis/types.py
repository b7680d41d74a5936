"""The types of cint (LANGUAGE.md "Types and values").

Values at run time are plain Python objects: ``bool`` for Bool, ``int`` for every
integer type, and the *stored* integer (value * 2**n) for a fixed-point type Qm.n.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SIGNED_WIDTHS = (8, 16, 32, 64, 128, 256, 512, 1024)
UNSIGNED_WIDTHS = (8, 16, 32, 64, 128, 256, 512)
FIXED_WIDTHS = (8, 16, 32, 64, 128)


class Type:
    """Base of every cint type."""

    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class BoolType(Type):
    @property
    def name(self) -> str:  # type: ignore[override]
        return "Bool"

    @property
    def suffix(self) -> str:
        return "bool"


@dataclass(frozen=True)
class IntType(Type):
    bits: int
    signed: bool

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"{'I' if self.signed else 'U'}{self.bits}"

    @property
    def suffix(self) -> str:
        """The lower-case type suffix of operation identifiers (`i64`, `u128`)."""
        return self.name.lower()

    @property
    def min(self) -> int:
        return -(1 << (self.bits - 1)) if self.signed else 0

    @property
    def max(self) -> int:
        return (1 << (self.bits - 1)) - 1 if self.signed else (1 << self.bits) - 1

    def contains(self, value: int) -> bool:
        return self.min <= value <= self.max


@dataclass(frozen=True)
class FixedType(Type):
    """Signed fixed point Qm.n: m + n bits (m counts the sign bit), scaled by 2**n."""

    m: int
    n: int

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"Q{self.m}.{self.n}"

    @property
    def suffix(self) -> str:
        return self.name.lower()

    @property
    def bits(self) -> int:
        return self.m + self.n

    @property
    def storage(self) -> IntType:
        """The integer type that holds the stored value."""
        return IntType(self.bits, True)

    @property
    def min(self) -> int:
        """The least stored integer."""
        return self.storage.min

    @property
    def max(self) -> int:
        """The greatest stored integer."""
        return self.storage.max

    def contains(self, stored: int) -> bool:
        return self.min <= stored <= self.max


@dataclass(frozen=True)
class VoidType(Type):
    @property
    def name(self) -> str:  # type: ignore[override]
        return "void"


@dataclass(frozen=True)
class ArrayType(Type):
    """An array or view type: element type and rank (extents are run-time values)."""

    element: Type
    rank: int

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"{self.element.name}[{', '.join('_' * 1 for _ in range(self.rank))}]"


BOOL = BoolType()
VOID = VoidType()
I8, I16, I32, I64 = (IntType(b, True) for b in (8, 16, 32, 64))
I128, I256, I512, I1024 = (IntType(b, True) for b in (128, 256, 512, 1024))
U8, U16, U32, U64 = (IntType(b, False) for b in (8, 16, 32, 64))
U128, U256, U512 = (IntType(b, False) for b in (128, 256, 512))

ScalarType = BoolType | IntType | FixedType

_FIXED_NAME = re.compile(r"Q([0-9]+)\.([0-9]+)")


def scalar_type_named(name: str) -> ScalarType | None:
    """The scalar type spelled `name`, or None when no such type exists
    (`I24`, `Q3.4` whose width is not 8..128, `U1024`)."""
    if name == "Bool":
        return BOOL
    if len(name) > 1 and name[0] in "IU" and name[1:].isdigit():
        bits = int(name[1:])
        widths = SIGNED_WIDTHS if name[0] == "I" else UNSIGNED_WIDTHS
        if bits in widths and name[1] != "0":
            return IntType(bits, name[0] == "I")
        return None
    match = _FIXED_NAME.fullmatch(name)
    if match:
        m, n = int(match.group(1)), int(match.group(2))
        if m >= 1 and m + n in FIXED_WIDTHS:
            return FixedType(m, n)
    return None


def is_integer(t: Type) -> bool:
    return isinstance(t, IntType)


def is_numeric(t: Type) -> bool:
    return isinstance(t, (IntType, FixedType))
