"""cint types in C: the C type of a value, its run-time type code, C constants.

Bool is `bool`; integer and fixed-point types of up to 64 bits are the <stdint.h> type
of their storage (a fixed Qm.n holds its stored integer); wider ones are the limb
structs `cint_w2` .. `cint_w16` of cint_rt.h (little-endian two's complement).
"""

from __future__ import annotations

from ....analysis.types import BoolType, FixedType, IntType, Type


class EmitError(Exception):
    """The program uses something cpu-c17 cannot translate (one line)."""


def is_bool(t: Type) -> bool:
    return isinstance(t, BoolType)


def is_fixed(t: Type) -> bool:
    return isinstance(t, FixedType)


def bits(t: Type) -> int:
    if isinstance(t, BoolType):
        return 8
    if isinstance(t, (IntType, FixedType)):
        return t.bits
    raise EmitError(f"{t.name} has no C type")


def signed(t: Type) -> bool:
    if isinstance(t, FixedType):
        return True
    return isinstance(t, IntType) and t.signed


def is_small(t: Type) -> bool:
    """A value of at most 64 bits: a native C integer (or bool)."""
    return bits(t) <= 64


NARROW_ITEMS = 1 << 32  # contributions of a narrow sum one 64-bit partial takes (`is_narrow`)


def is_narrow(t: Type) -> bool:
    """A contribution to a sum of at most 32 bits: NARROW_ITEMS of them add up in a
    64-bit partial without overflow (2^32 x 2^31 = 2^63 signed, 2^32 x (2^32 - 1) <
    2^64 unsigned), so the fast path adds them with no check. A work-item contributes
    at most once: the one `reduce` of a target is never inside a loop (LANGUAGE.md)."""
    return bits(t) <= 32


def suffix(t: Type) -> str:
    """The suffix of the inline operations of cint_rt.h: the storage type (`i32` for
    Q16.16, `u8`)."""
    return f"{'i' if signed(t) else 'u'}{bits(t)}"


def c_type(t: Type) -> str:
    if isinstance(t, BoolType):
        return "bool"
    if not is_small(t):
        return f"cint_w{bits(t) // 64}"
    return f"{'int' if signed(t) else 'uint'}{bits(t)}_t"


def type_code(t: Type) -> str:
    if isinstance(t, BoolType):
        return "CINT_TC_BOOLEAN"
    if isinstance(t, FixedType):
        return f"CINT_TC_Q({t.m}, {t.n})"
    return f"CINT_TC_{'I' if signed(t) else 'U'}({bits(t)})"


def bounds(t: Type) -> tuple[int, int]:
    if isinstance(t, BoolType):
        return 0, 1
    if isinstance(t, (IntType, FixedType)):
        return t.min, t.max
    raise EmitError(f"{t.name} has no bounds")


def constant(t: Type, value: int | bool) -> str:
    """A C expression of type c_type(t) for `value` (a fixed value's stored integer)."""
    if isinstance(t, BoolType):
        return "true" if value else "false"
    v = int(value)
    b = bits(t)
    lo, hi = bounds(t)
    if not lo <= v <= hi:
        raise EmitError(f"the constant {v} does not fit {t.name}")
    if b > 64:
        limbs = [(v >> (64 * i)) & ((1 << 64) - 1) for i in range(b // 64)]
        return f"(({c_type(t)}){{{{{', '.join(f'UINT64_C(0x{x:x})' for x in limbs)}}}}})"
    if signed(t):
        if b == 64:
            if v == lo:
                return "INT64_MIN"
            return f"INT64_C({v})" if v >= 0 else f"(-INT64_C({-v}))"
        if v == lo:
            return f"((int{b}_t)INT{b}_MIN)"
        return f"((int{b}_t){v})" if v >= 0 else f"((int{b}_t)({v}))"
    if b == 64:
        return f"UINT64_C({v})"
    return f"((uint{b}_t){v}u)"


def initializer(t: Type, value: int | bool) -> str:
    """A constant initializer of a static object of type c_type(t) (a compound literal
    is not constant in ISO C)."""
    if is_small(t):
        return constant(t, value)
    v = int(value)
    limbs = [(v >> (64 * i)) & ((1 << 64) - 1) for i in range(bits(t) // 64)]
    constant(t, v)  # the range check
    return f"{{{{{', '.join(f'UINT64_C(0x{x:x})' for x in limbs)}}}}}"


def zero(t: Type) -> str:
    return constant(t, False if isinstance(t, BoolType) else 0)


def c_string(text: str) -> str:
    """A C string literal of `text`'s UTF-8 bytes (see c_bytes)."""
    return c_bytes(text.encode("utf-8"))


def c_bytes(data: bytes) -> str:
    """A C string literal of `data`: printable ASCII as itself, the rest as octal
    escapes (three digits, so a following digit cannot join them); `?` escaped against
    trigraphs."""
    out = []
    for byte in data:
        ch = chr(byte)
        if ch in '"\\?':
            out.append("\\" + ch)
        elif 0x20 <= byte < 0x7F:
            out.append(ch)
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def c_identifier(name: str) -> str:
    """A cint identifier as part of a C identifier (cint identifiers are C-safe)."""
    return name
