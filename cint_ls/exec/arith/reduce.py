"""Reductions of a dispatch (SPEC-02P.1 clause 9; LANGUAGE.md "Kernels").

Each reduction is a small accumulator object: the executor calls `add(x, index)` once
per contribution, in ascending work-item order, and `finish()` in the epilogue. The
`reduce_*` functions run one over a whole sequence. Fixed-point reductions act on the
stored integers and give their result in the contributions' format; none rounds
[SPEC-04P.2 R-4].

Fault records:
- sum: E_OVERFLOW in the epilogue, operation `sum.checked.<contribution>.<target>`,
  operands [(I64, number of contributions)], exact the exact total, limit the crossed
  bound of the target [R-5].
- fold_checked(add, init, x): E_OVERFLOW when a contribution is added, operation
  `fold_checked.add.<t>`, operands [(I64, index), (t, accumulator before), (t,
  contribution)], exact their sum [R-9, IM-83]. The index is the one the caller passes
  to `add` (the work-item's index in the dispatch); left out, it is the position of the
  contribution among those added so far, from 0.
- min, max of no contributions: E_EMPTY in the epilogue, operation `min.<t>` /
  `max.<t>`, operands [(I64, 0)] (the number of contributions, as for sum), exact and
  limit none.
- count(c): counts true Bool contributions; the count is checked against the target's
  integer type in the epilogue: E_OVERFLOW, operation `count.checked.<target>`, operands
  [(I64, number of contributions)], exact the count, limit the target's max.
- sum_wrap and sum_sat never fault.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from cint_ls.analysis.types import BOOL, I64, FixedType, IntType, Type
from cint_ls.vocabulary.faults import E_EMPTY
from cint_ls.vocabulary.operations import reduction_id

from ..faults import OperationFault
from .fault import Exact, NumType, bounds, overflow, real, storage_bits
from .scalar import wrap

REDUCTIONS = ("sum", "sum_wrap", "sum_sat", "min", "max", "count", "fold_checked")


def sum_accumulator_bits(contrib: NumType) -> int:
    """The width of the exact accumulator of a sum of `contrib` values, Table 2 of
    SPEC-02P.1 9.1 [R-5, BACK-07]: 128 bits for contributions of up to 64 bits, twice the
    width up to 512-bit contributions, and 1088 bits for 1024-bit contributions. The
    accumulator has the contributions' signedness (a fixed type's storage is signed)."""
    width = storage_bits(contrib)
    if width <= 64:
        return 128
    if width <= 512:
        return 2 * width
    return width + 64


class Reducer(Protocol):
    def add(self, x: int, index: int | None = None) -> None: ...

    def finish(self) -> int: ...


def _same_type(kind: str, contrib: Type, target: Type) -> NumType:
    if contrib != target or not isinstance(contrib, (IntType, FixedType)):
        raise TypeError(f"{kind} needs a target of the contributions' type, not {contrib} into {target}")
    return contrib


class Sum:
    """sum(x): exact total, checked once against the target at the end [R-5]."""

    def __init__(self, contrib: NumType, target: NumType) -> None:
        if (isinstance(contrib, FixedType) or isinstance(target, FixedType)) and contrib != target:
            raise TypeError(f"a fixed-point sum needs a target of its type, not {contrib} into {target}")
        if not isinstance(target, (IntType, FixedType)):
            raise TypeError(f"no sum into {target}")
        self.target = target
        self.operation = reduction_id("sum", contrib, target)
        self.total = 0
        self.count = 0

    def add(self, x: int, index: int | None = None) -> None:
        self.total += x
        self.count += 1

    def finish(self) -> int:
        lo, hi = bounds(self.target)
        total = self.total
        if lo <= total <= hi:
            return total
        exact: Exact = real(self.target, total)
        raise overflow(self.operation, self.target, [(I64, self.count)], exact, total)


class SumWrap:
    """sum_wrap(x): the total modulo 2**bits; order does not matter [IM-82]."""

    def __init__(self, t: NumType) -> None:
        self.t = t
        self.total = 0

    def add(self, x: int, index: int | None = None) -> None:
        self.total += x

    def finish(self) -> int:
        return wrap(self.t, self.total)


class SumSat:
    """sum_sat(x): acc = acc +| x from 0, left to right in ascending order; never
    reassociated [IM-84]."""

    def __init__(self, t: NumType) -> None:
        self.lo, self.hi = bounds(t)
        self.acc = 0

    def add(self, x: int, index: int | None = None) -> None:
        r = self.acc + x
        self.acc = self.lo if r < self.lo else self.hi if r > self.hi else r

    def finish(self) -> int:
        return self.acc


class Extremum:
    """min(x) or max(x); no contributions is E_EMPTY in the epilogue [R-7]."""

    def __init__(self, kind: str, t: NumType) -> None:
        if kind not in ("min", "max"):
            raise ValueError(f"not min or max: {kind!r}")
        self.is_min = kind == "min"
        self.operation = reduction_id(kind, t, t)
        self.best: int | None = None

    def add(self, x: int, index: int | None = None) -> None:
        best = self.best
        if best is None or (x < best if self.is_min else x > best):
            self.best = x

    def finish(self) -> int:
        if self.best is None:
            raise OperationFault(E_EMPTY, self.operation, [(I64, 0)], None, None)
        return self.best


class Count:
    """count(c): the number of true contributions, checked against the target."""

    def __init__(self, target: IntType) -> None:
        if not isinstance(target, IntType):
            raise TypeError(f"count needs an integer target, not {target}")
        self.target = target
        self.operation = reduction_id("count", BOOL, target)
        self.trues = 0
        self.count = 0

    def add(self, x: int, index: int | None = None) -> None:
        self.count += 1
        if x:
            self.trues += 1

    def finish(self) -> int:
        if self.trues <= bounds(self.target)[1]:
            return self.trues
        raise overflow(self.operation, self.target, [(I64, self.count)], self.trues, self.trues)


class FoldChecked:
    """fold_checked(add, init, x): acc = acc + x, checked at every contribution; the
    first overflow is a fault of that contribution's work-item [R-9, IM-83]."""

    def __init__(self, t: NumType, init: int) -> None:
        self.t = t
        self.lo, self.hi = bounds(t)
        self.operation = reduction_id("fold_checked", t, t)
        self.acc = init
        self.position = 0

    def add(self, x: int, index: int | None = None) -> None:
        acc = self.acc
        r = acc + x
        if not self.lo <= r <= self.hi:
            t = self.t
            k = self.position if index is None else index
            raise overflow(self.operation, t, [(I64, k), (t, acc), (t, x)], real(t, r), r)
        self.acc = r
        self.position += 1

    def finish(self) -> int:
        return self.acc


def make_reducer(kind: str, contrib: Type, target: Type, init: int = 0) -> Reducer:
    """The accumulator of `reduce target = kind(...)` over contributions of type
    `contrib` (Bool for count); `init` is fold_checked's initial value."""
    if kind == "sum":
        return Sum(contrib, target)  # type: ignore[arg-type]
    if kind == "count":
        if contrib != BOOL:
            raise TypeError(f"count needs Bool contributions, not {contrib}")
        return Count(target)  # type: ignore[arg-type]
    t = _same_type(kind, contrib, target)
    if kind == "sum_wrap":
        return SumWrap(t)
    if kind == "sum_sat":
        return SumSat(t)
    if kind in ("min", "max"):
        return Extremum(kind, t)
    if kind == "fold_checked":
        return FoldChecked(t, init)
    raise ValueError(f"unknown reduction {kind!r}")


def _run(reducer: Reducer, values: Iterable[int]) -> int:
    for k, x in enumerate(values):
        reducer.add(x, k)
    return reducer.finish()


def reduce_sum(contrib: NumType, target: NumType, values: Iterable[int]) -> int:
    """The exact sum of `values`, checked once against `target` [R-5]."""
    return _run(Sum(contrib, target), values)


def reduce_sum_wrap(t: NumType, values: Iterable[int]) -> int:
    return _run(SumWrap(t), values)


def reduce_sum_sat(t: NumType, values: Iterable[int]) -> int:
    return _run(SumSat(t), values)


def reduce_min(t: NumType, values: Iterable[int]) -> int:
    return _run(Extremum("min", t), values)


def reduce_max(t: NumType, values: Iterable[int]) -> int:
    return _run(Extremum("max", t), values)


def reduce_count(target: IntType, values: Iterable[bool]) -> int:
    return _run(Count(target), values)


def fold_checked_add(t: NumType, init: int, values: Iterable[int]) -> int:
    """fold_checked(add, init, x) over `values`; a fault's index is the position."""
    return _run(FoldChecked(t, init), values)
