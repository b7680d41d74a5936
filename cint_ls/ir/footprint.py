"""Which elements of each array parameter a kernel's work-items can read (issue 33).

A cluster sends each tile of a dispatch (a contiguous range of work-item numbers) only
the rows of each input array its work-items can read, not the whole array. This module
gives, from the kernel's IR, a sound over-approximation of those reads: per dimension of
each array parameter read, the indices as an over variable plus a constant range, or a
constant range. Whatever it cannot bound precisely it gives as None (the whole extent of
a dimension, or the whole parameter): an under-approximation would make a tile read
elements it was never sent.

Only an index that is an over variable, an integer constant, or one of those plus or
minus constants (checked `+ -`, unary `-`, `*` of constants, value-preserving `as`) is
bounded. Checked arithmetic and `as` either give the exact value or fault, and a faulting
read reads nothing, so the exact value bounds every read that happens.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..analysis.types import IntType
from . import nodes as ir
from .walk import walk


@dataclass(frozen=True)
class Offsets:
    """Dimension d of a parameter is read at index `over[var] + k` for k in [low, high]
    (var: the position of an over variable in the kernel's `over` list), or, when var is
    None, at constant indices in [low, high]."""
    var: int | None
    low: int
    high: int


def reads(kernel: ir.Kernel) -> dict[int, tuple[Offsets | None, ...] | None]:
    """For each array parameter that is read (mode in or inout; key: the parameter's index
    in kernel.params), per dimension of the parameter (its rank), the Offsets that cover
    every index any read of it can use, or None for a dimension that cannot be bounded (any
    index in its extent); the whole value None when the parameter's reads cannot be
    described at all (it is passed to a function, sliced, aliased, or used any other way
    than direct element reads). Parameters that are never read (out, or in but unused) are
    absent."""
    over = {slot: position for position, (_, slot, _) in enumerate(kernel.over)}
    # An out array is never read (C5014): its only uses are stores, which do not count.
    params = {p.slot: i for i, p in enumerate(kernel.params) if p.extents is not None and p.mode != "out"}
    found: dict[int, list[Offsets | None]] = {}
    opaque: set[int] = set()
    direct: set[int] = set()  # ids of the ArrayVar nodes that are an element read's or store's array
    for statement in kernel.body:
        for node in walk(statement):  # preorder: a Load or Store comes before its array
            if isinstance(node, (ir.Load, ir.Store)) and isinstance(node.array, ir.ArrayVar) \
                    and node.array.slot in params:
                direct.add(id(node.array))
                if isinstance(node, ir.Store):
                    continue  # an inout's writes are not reads
                i = params[node.array.slot]
                extents = kernel.params[i].extents
                if extents is None or len(node.indices) != len(extents):
                    opaque.add(i)
                    continue
                each = [_offsets(index, over) for index in node.indices]
                merged = found.get(i)
                found[i] = each if merged is None else [_merge(a, b) for a, b in zip(merged, each)]
            elif isinstance(node, (ir.ArrayVar, ir.Var)) and node.slot in params and id(node) not in direct:
                opaque.add(params[node.slot])  # the whole array: a view, a call's argument, ...
    result: dict[int, tuple[Offsets | None, ...] | None] = {i: tuple(dims) for i, dims in found.items()}
    result.update((i, None) for i in opaque)
    return result


def _merge(a: Offsets | None, b: Offsets | None) -> Offsets | None:
    if a is None or b is None or a.var != b.var:
        return None
    return Offsets(a.var, min(a.low, b.low), max(a.high, b.high))


def _offsets(e: ir.Expr, over: dict[int, int]) -> Offsets | None:
    affine = _affine(e, over)
    return None if affine is None else Offsets(affine[0], affine[1], affine[1])


def _affine(e: ir.Expr, over: dict[int, int]) -> tuple[int | None, int] | None:
    """`e` as (over variable position or None, constant): its exact value whenever its
    evaluation does not fault; None when it is not of that form."""
    if not isinstance(e.type, IntType):
        return None
    if isinstance(e, ir.Const):
        return None if isinstance(e.value, bool) else (None, e.value)
    if isinstance(e, ir.Var):
        return (over[e.slot], 0) if e.slot in over else None
    if isinstance(e, ir.Convert):
        source, target = e.source, e.type
        if not isinstance(source, IntType) or not isinstance(target, IntType):
            return None
        # `as` gives the value or faults; `as%` keeps it only when it cannot wrap (a widening).
        preserving = e.form == "checked" or (target.min <= source.min and source.max <= target.max)
        return _affine(e.value, over) if preserving else None
    if not isinstance(e, ir.Arith) or e.form != "checked":
        return None
    args = [_affine(a, over) for a in e.args]
    if any(a is None for a in args):
        return None
    if e.op == "neg" and len(args) == 1:
        return _constant_result(args, lambda v: -v[0])
    if len(args) != 2:
        return None
    left, right = args
    assert left is not None and right is not None
    if e.op == "add" and (left[0] is None or right[0] is None):
        return (left[0] if left[0] is not None else right[0], left[1] + right[1])
    if e.op == "sub" and right[0] is None:
        return (left[0], left[1] - right[1])
    if e.op == "mul":
        return _constant_result(args, lambda v: v[0] * v[1])
    return None


def _constant_result(args: list[tuple[int | None, int] | None], f: Callable[[list[int]], int]
                     ) -> tuple[int | None, int] | None:
    """An operation on constants only, folded."""
    values = [a[1] for a in args if a is not None and a[0] is None]
    return (None, f(values)) if len(values) == len(args) else None
