"""The digest of a dispatch's published data, one of the quantities compared at each
boundary of two runs (SPEC-02P.1 8.4 example 9; running/compare.py).

FNV-1a (64 bits) over, for each out or inout parameter in declaration order, every
element of its argument in row-major order (a scalar out: its result), each as
little-endian two's complement at its element size (Bool one byte); cpu-c17's
rt/dispatch.c computes the same in C.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..analysis.types import Type
from ..ir import nodes as ir
from .views import View, copy_elements, element_size

FNV_OFFSET, FNV_PRIME, MASK = 14695981039346656037, 1099511628211, (1 << 64) - 1


def _digest_value(h: int, t: Type, value: int) -> int:
    size = element_size(t)
    for byte in (int(value) & ((1 << (8 * size)) - 1)).to_bytes(size, "little"):
        h = ((h ^ byte) * FNV_PRIME) & MASK
    return h


def published_digest(kernel: ir.Kernel, args: Sequence[object], results: Sequence[int | None]) -> int:
    h = FNV_OFFSET
    for p, param in enumerate(kernel.params):
        if param.mode == "in":
            continue
        if param.extents is not None:
            view = args[p]
            assert isinstance(view, View)
            for value in copy_elements(view):
                h = _digest_value(h, param.type, value)
        else:
            result = results[p]
            assert result is not None, f"no value of out scalar {param.name} to digest"
            h = _digest_value(h, param.type, result)
    return h
