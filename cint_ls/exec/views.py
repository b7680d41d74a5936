"""Storage and views (SPEC-02P.1 6.2, LANGUAGE.md "Views").

A `Storage` is a flat list of element values (ints; Bool as bool; fixed point as the
stored integer) with one element type. A `View` reaches into a storage through an
origin and, per dimension, an extent and a stride, all counted in elements: the element
at index tuple (i1, ..., ik) has offset origin + i1*s1 + ... + ik*sk [SPEC-04P.2 V-4].

Decisions where the spec is silent (each is tested in tests/exec/test_views.py):

- Every fault here is E_BOUNDS with I64 operands and the extent (or size) crossed as
  its limit, like `index.checked` (LANGUAGE.md):
  - `index.checked`: operands (index, dimension), limit the dimension's extent; the
    first dimension out of range faults (element access and integer indices of
    `select`).
  - `slice.checked`: `a[lo..hi by s]` with lo < 0, hi > extent or hi < lo; operands
    (lo, hi, dimension), limit the extent. `a[lo..]`/`a[..hi]` take 0 / the extent.
  - `reverse.checked`: `reverse(v, d)` with d not in [0, rank); operands (d,), limit
    the rank.
  - `view.checked`: a view whose bounding interval does not lie within its storage
    (only a view built directly, e.g. through the host interface, can fail it; views
    formed by `select`/`reverse`/`transpose` of a valid view always lie within);
    operands (lo, hi) of the bounding interval, limit the storage's element count.
- A view formed from another view keeps that view's generation: deriving a view from
  a stale one does not refresh it (entry check 1 still sees it stale).
- `select` with an integer for every dimension names an element, not a view: it raises
  `ValueError`; callers test `is_element(specs)` first and use `read`/`write`.
- Errors that analysis rules out before run time (wrong number of indices, `transpose`
  of a rank other than 2, a slice step below 1, writing through a read-only view) raise
  `ViewError`, a `ValueError`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from ..analysis.types import I64, BoolType, FixedType, IntType, Type
from .faults import OperationFault, ViewDescriptor

Value = int | bool


class ViewError(ValueError):
    """A misuse that translation rejects before run time (not a fault)."""


def _bounds_fault(operation: str, operands: Sequence[int], limit: int) -> OperationFault:
    return OperationFault("E_BOUNDS", operation, [(I64, v) for v in operands], None, (I64, limit))


def element_size(t: Type) -> int:
    """Bytes per element: bits / 8; Bool takes one byte."""
    if isinstance(t, BoolType):
        return 1
    if isinstance(t, (IntType, FixedType)):
        return t.bits // 8
    raise TypeError(f"{t.name} is not an element type")


class Storage:
    """The elements views reach into (SPEC-02P.1 3.14): an array, an arena, a region.

    `generation` is advanced by `release` and `reset`; a view records it when made and
    entry check 1 (E_STALE_HANDLE) compares the two (SPEC-02P.1 5.3, Table 1).
    """

    _next_id = itertools.count()

    def __init__(self, element: Type, values: list[Value]) -> None:
        self.element = element
        self.values = values
        self.id = next(Storage._next_id)
        self.generation = 0
        self.released = False

    @classmethod
    def zeros(cls, element: Type, count: int) -> Storage:
        if count < 0:
            raise ViewError(f"negative element count {count}")
        zero: Value = False if isinstance(element, BoolType) else 0
        return cls(element, [zero] * count)

    def __len__(self) -> int:
        return len(self.values)

    @property
    def element_size(self) -> int:
        return element_size(self.element)

    def release(self) -> None:
        """Give the storage up: every view made before is stale from now on."""
        self.released = True
        self.generation += 1

    def reset(self) -> None:
        """Reuse the storage (an arena reset): every element is zero again and every
        view made before is stale."""
        zero: Value = False if isinstance(self.element, BoolType) else 0
        self.values[:] = [zero] * len(self.values)
        self.generation += 1

    def __repr__(self) -> str:
        return f"Storage#{self.id}({self.element.name}[{len(self.values)}], generation {self.generation})"


@dataclass(frozen=True, slots=True)
class SliceSpec:
    """One slice index: `a[lo..hi]`, `a[lo..hi by s]`, `a[..]` (None: 0 / the extent)."""

    start: int | None = None
    end: int | None = None
    step: int = 1


ALL = SliceSpec()  # `a[..]`

IndexSpec = int | SliceSpec


def is_element(specs: Sequence[IndexSpec]) -> bool:
    """True when every index is an integer: `a[i, j]` is an element, not a view."""
    return all(not isinstance(s, SliceSpec) for s in specs)


def iter_indices(extents: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """The index tuples of `extents` in row-major order (none when an extent is 0; one,
    the empty tuple, for rank 0)."""
    return itertools.product(*(range(e) for e in extents))


def unravel(i: int, extents: Sequence[int]) -> tuple[int, ...]:
    """The index tuple of work-item `i`: the i-th tuple in row-major order (SPEC-02P.1
    3.2, 8.2)."""
    if not 0 <= i < math.prod(extents):
        raise ViewError(f"work-item {i} outside extents {tuple(extents)}")
    out = []
    for e in reversed(extents):
        i, r = divmod(i, e)
        out.append(r)
    return tuple(reversed(out))


@dataclass(frozen=True, slots=True)
class View:
    """A view of `storage` (SPEC-02P.1 6.2). Constructing one checks that its bounding
    interval lies within the storage (E_BOUNDS `view.checked`) [SPEC-04P.2 V-5]."""

    storage: Storage
    origin: int
    extents: tuple[int, ...]
    strides: tuple[int, ...]
    writable: bool = True
    generation: int | None = None  # None: the storage's generation now
    _interval: tuple[int, int] | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.generation is None:
            object.__setattr__(self, "generation", self.storage.generation)
        if len(self.extents) != len(self.strides):
            raise ViewError(f"{len(self.extents)} extents but {len(self.strides)} strides")
        if any(e < 0 for e in self.extents):
            raise ViewError(f"negative extent in {self.extents}")
        interval = None
        if all(e > 0 for e in self.extents):
            lo = hi = self.origin
            for e, s in zip(self.extents, self.strides):
                if s < 0:
                    lo += s * (e - 1)
                else:
                    hi += s * (e - 1)
            if lo < 0 or hi >= len(self.storage):
                raise _bounds_fault("view.checked", (lo, hi), len(self.storage))
            interval = (lo, hi)
        object.__setattr__(self, "_interval", interval)

    # ---- making views

    @classmethod
    def whole(cls, storage: Storage, extents: Sequence[int], *, writable: bool = True) -> View:
        """The row-major array of `extents` over the whole of `storage` from offset 0."""
        extents = tuple(extents)
        strides = []
        step = 1
        for e in reversed(extents):
            strides.append(step)
            step *= e
        return cls(storage, 0, extents, tuple(reversed(strides)), writable, storage.generation)

    @classmethod
    def array(cls, element: Type, extents: Sequence[int]) -> View:
        """A fresh zeroed array of `extents` (a local `T[e1, ...] a;`)."""
        return cls.whole(Storage.zeros(element, math.prod(extents)), extents)

    def _derive(self, origin: int, extents: tuple[int, ...], strides: tuple[int, ...]) -> View:
        return View(self.storage, origin, extents, strides, self.writable, self.generation)

    def select(self, specs: Sequence[IndexSpec]) -> View:
        """`v[s1, ..., sk]`: one index per dimension; an integer drops its dimension, a
        slice keeps it. Dimensions are checked in order; the first bad one faults."""
        if len(specs) != self.rank:
            raise ViewError(f"{len(specs)} indices for a view of rank {self.rank}")
        if is_element(specs):
            raise ViewError("every index is an integer: an element, not a view (use read/write)")
        origin = self.origin
        extents: list[int] = []
        strides: list[int] = []
        for d, (spec, e, s) in enumerate(zip(specs, self.extents, self.strides)):
            if isinstance(spec, SliceSpec):
                lo = 0 if spec.start is None else spec.start
                hi = e if spec.end is None else spec.end
                if spec.step < 1:
                    raise ViewError(f"slice step {spec.step} is not positive")
                if lo < 0 or hi > e or hi < lo:
                    raise _bounds_fault("slice.checked", (lo, hi, d), e)
                origin += lo * s
                extents.append(-(-(hi - lo) // spec.step))  # ceil((hi - lo) / step)
                strides.append(s * spec.step)
            else:
                if not 0 <= spec < e:
                    raise _bounds_fault("index.checked", (spec, d), e)
                origin += spec * s
        return self._derive(origin, tuple(extents), tuple(strides))

    def reverse(self, d: int) -> View:
        """`reverse(v, d)`: index i of dimension d reaches what index extent-1-i did."""
        if not 0 <= d < self.rank:
            raise _bounds_fault("reverse.checked", (d,), self.rank)
        e, s = self.extents[d], self.strides[d]
        origin = self.origin + s * (e - 1) if e > 0 else self.origin
        strides = self.strides[:d] + (-s,) + self.strides[d + 1:]
        return self._derive(origin, self.extents, strides)

    def transpose(self) -> View:
        """`transpose(v)` of a rank-2 view: the two dimensions swapped."""
        if self.rank != 2:
            raise ViewError(f"transpose of a view of rank {self.rank}")
        return self._derive(self.origin, self.extents[::-1], self.strides[::-1])

    # ---- shape

    @property
    def rank(self) -> int:
        return len(self.extents)

    @property
    def element(self) -> Type:
        return self.storage.element

    @property
    def element_size(self) -> int:
        return self.storage.element_size

    @property
    def size(self) -> int:
        return math.prod(self.extents)

    @property
    def is_empty(self) -> bool:
        return self._interval is None

    @property
    def is_stale(self) -> bool:
        """True when the storage was released or reset since the view was made."""
        return self.generation != self.storage.generation

    def bounding_interval(self) -> tuple[int, int] | None:
        """[lo, hi] in element offsets, or None for a view with no elements (6.2 para 2)."""
        return self._interval

    def descriptor(self) -> ViewDescriptor:
        """The view as a bind.alias record describes it; placement left out (6.3)."""
        return ViewDescriptor(self.element.name, self.origin, self.extents, self.strides, self.writable)

    # ---- elements

    def offset(self, indices: Sequence[int]) -> int:
        """The storage offset of `indices`; E_BOUNDS `index.checked` for the first
        dimension out of range."""
        if len(indices) != self.rank:
            raise ViewError(f"{len(indices)} indices for a view of rank {self.rank}")
        off = self.origin
        for d, (i, e, s) in enumerate(zip(indices, self.extents, self.strides)):
            if not 0 <= i < e:
                raise _bounds_fault("index.checked", (i, d), e)
            off += i * s
        return off

    def offsets(self) -> Iterator[int]:
        """The offsets of every index tuple, in row-major order (unchecked: in range)."""
        for idx in iter_indices(self.extents):
            yield self.origin + sum(i * s for i, s in zip(idx, self.strides))

    def read(self, indices: Sequence[int]) -> Value:
        return self.storage.values[self.offset(indices)]

    def write(self, indices: Sequence[int], value: Value) -> None:
        if not self.writable:
            raise ViewError("write through a read-only view")
        self.storage.values[self.offset(indices)] = value


# ---- copies for staging and publication (SPEC-02P.1 7.3, copy-out)


def _contiguous(view: View) -> bool:
    """Whether the view's elements are one run of storage in row-major order."""
    stride = 1
    for extent, s in zip(reversed(view.extents), reversed(view.strides)):
        if extent != 1 and s != stride:
            return False
        stride *= extent
    return True


def copy_elements(view: View) -> list[Value]:
    """The view's elements in row-major order of its index tuples."""
    values = view.storage.values
    if _contiguous(view):  # the common case: a whole array or a block of rows
        return values[view.origin:view.origin + view.size]
    return [values[o] for o in view.offsets()]


def store_elements(view: View, values: Sequence[Value]) -> None:
    """Write `values` (row-major order) into the view's elements."""
    if not view.writable:
        raise ViewError("store through a read-only view")
    if len(values) != view.size:
        raise ViewError(f"{len(values)} values for a view of {view.size} elements")
    target = view.storage.values
    if _contiguous(view):
        target[view.origin:view.origin + view.size] = values
        return
    for o, v in zip(view.offsets(), values):
        target[o] = v


def staging_for(view: View, *, copy_in: bool) -> View:
    """Fresh row-major storage of the view's shape for staging an output: a copy of
    its elements when `copy_in` (an inout, SPEC-02P.1 7.2, 7.3), zeros otherwise."""
    if copy_in:
        storage = Storage(view.element, copy_elements(view))
    else:
        storage = Storage.zeros(view.element, view.size)
    return View.whole(storage, view.extents)
