"""The alias tests of a dispatch's entry checks (SPEC-02P.1 clause 6, Table 1 checks 2,
6 and 7): pure functions over `View`s.

`modes[i]` is `'in'`, `'out'` or `'inout'` for parameter i and `views[i]` its argument's
view, or None for a scalar parameter. Parameters are numbered from 0 in declaration
order (5.3). The executor turns a failure into a fault record with the helpers at the
end (`bind.permission`, `bind.injective`, `bind.alias`).
"""

from __future__ import annotations

from collections.abc import Sequence
from math import gcd

from ..analysis.types import I64
from .faults import OperationFault
from .views import View

OUTPUT_MODES = ("out", "inout")


def write_view_passes(view: View) -> bool:
    """The write-view test of 6.4 [A-7]: sufficient for distinct offsets per index tuple.

    Discard dimensions of extent 1, sort the rest by abs(stride) (ties by dimension
    number); each stride must step past everything the smaller ones reach.
    """
    if view.is_empty:
        return True
    dims = sorted(
        (abs(s), d, e) for d, (e, s) in enumerate(zip(view.extents, view.strides)) if e != 1
    )
    reach = 0  # sum of abs(stride(di)) * (extent(di) - 1) over the dimensions so far
    for stride, _, extent in dims:
        if stride < 1 + reach:  # for d1 this is abs(stride) >= 1
            return False
        reach += stride * (extent - 1)
    return True


def _byte_range(view: View) -> tuple[int, int]:
    lo, hi = view.bounding_interval()  # type: ignore[misc]  # not empty here
    size = view.element_size
    return lo * size, (hi + 1) * size - 1


def pair_disjoint(p: View, q: View) -> bool:
    """The pairwise test of 6.3: True when one of its three tests shows p and q disjoint
    [A-5]. A False answer does not mean the views overlap (6.3 notes 2) [A-6]."""
    # Empty test.
    if p.is_empty or q.is_empty:
        return True
    # Interval test, on byte ranges in one memory; different storages share no memory.
    if p.storage is not q.storage:
        return True
    p_lo, p_hi = _byte_range(p)
    q_lo, q_hi = _byte_range(q)
    if p_hi < q_lo or q_hi < p_lo:
        return True
    # Gcd test: over every dimension of either view whose extent is above 1; sound
    # only when taken over both views together (6.3 paragraph 6, note 1).
    if p.element_size != q.element_size:
        return False
    g = 0
    for view in (p, q):
        for e, s in zip(view.extents, view.strides):
            if e > 1:
                g = gcd(g, abs(s))
    return g >= 2 and p.origin % g != q.origin % g


def first_unwritable_output(modes: Sequence[str], views: Sequence[View | None]) -> int | None:
    """Check 2: the first out or inout parameter whose view may not be written."""
    for i, (mode, view) in enumerate(zip(modes, views)):
        if mode in OUTPUT_MODES and view is not None and not view.writable:
            return i
    return None


def first_injective_failure(modes: Sequence[str], views: Sequence[View | None]) -> int | None:
    """Check 6: the first out or inout parameter whose view fails the test of 6.4 [A-7]."""
    for i, (mode, view) in enumerate(zip(modes, views)):
        if mode in OUTPUT_MODES and view is not None and not write_view_passes(view):
            return i
    return None


def first_alias_pair(modes: Sequence[str], views: Sequence[View | None]) -> tuple[int, int] | None:
    """Check 7: the first pair (p, q), in the order of 6.3 paragraph 1, that the pairwise
    test does not show disjoint [A-5]. p is an out or inout parameter and q every other
    array parameter in declaration order; a pair of two outputs is tested once, with p
    the earlier of the two."""
    for p, (mode_p, view_p) in enumerate(zip(modes, views)):
        if mode_p not in OUTPUT_MODES or view_p is None:
            continue
        for q, (mode_q, view_q) in enumerate(zip(modes, views)):
            if q == p or view_q is None:
                continue
            if mode_q in OUTPUT_MODES and q < p:
                continue  # already tested from q
            if not pair_disjoint(view_p, view_q):
                return p, q
    return None


# ---- the faults of checks 2, 6 and 7 (no exact result, no limit; position: the dispatch)


def permission_fault(param: int) -> OperationFault:
    return OperationFault("E_ALIAS", "bind.permission", [(I64, param)])


def injective_fault(param: int) -> OperationFault:
    return OperationFault("E_ALIAS", "bind.injective", [(I64, param)])


def alias_fault(p: int, q: int) -> OperationFault:
    """The record's views (`View.descriptor()` of p, then of q) are added by the
    executor, which builds the FaultRecord [A-8]."""
    return OperationFault("E_ALIAS", "bind.alias", [(I64, p), (I64, q)])
