"""Tests of the alias tests, cint_ls.exec.alias (SPEC-02P.1 6.3, 6.4, Table 1 checks 2, 6, 7),
with the spec's examples (alias_planes, alias_even_odd, alias_cols, rev_alias) and two
soundness properties checked by brute force."""

from __future__ import annotations

import dataclasses

from hypothesis import assume, given
from hypothesis import strategies as st

from cint_ls.analysis.types import I8, I32, I64
from cint_ls.exec.alias import (
    alias_fault,
    first_alias_pair,
    first_injective_failure,
    first_unwritable_output,
    injective_fault,
    pair_disjoint,
    permission_fault,
    write_view_passes,
)
from cint_ls.exec.faults import OperationFault
from cint_ls.exec.views import ALL, SliceSpec, Storage, View


def raw(extents, strides, origin=0, size=64) -> View:
    return View(Storage.zeros(I32, size), origin, tuple(extents), tuple(strides))


# ---- 6.4, the write-view test


def test_write_view_spec_examples():
    assert not write_view_passes(raw((2, 2), (1, 1)))  # reaches offset 1 twice
    v = raw((3, 2), (2, 3))
    assert sorted(v.offsets()) == [0, 2, 3, 4, 5, 7]  # distinct, yet 3 < 1 + 2 * 2
    assert not write_view_passes(v)


def test_write_view_passes_for_views_made_in_source():
    m = View.array(I32, (8, 16))
    column_major = View(m.storage, 0, (16, 8), (8, 1)).transpose()
    for view in [
        m,
        column_major,
        m.transpose(),
        m.reverse(0),
        m.reverse(1).transpose(),
        m.select([ALL, SliceSpec(1, 16, 2)]),
        m.select([SliceSpec(0, 8, 3), SliceSpec(2, 9, 2)]).reverse(1),
        m.select([3, ALL]),
    ]:
        assert write_view_passes(view)


def test_write_view_edge_cases():
    assert write_view_passes(raw((0, 5), (0, 0)))  # empty
    assert write_view_passes(raw((1, 1, 4), (0, 0, 1)))  # extent-1 dimensions discarded
    assert not write_view_passes(raw((2,), (0,)))  # first stride must be >= 1
    assert write_view_passes(raw((4, 2), (1, 4)))  # 4 >= 1 + 1*3
    assert not write_view_passes(raw((4, 2), (1, 3)))
    assert write_view_passes(raw((2, 4), (-4, 1), origin=4))  # abs(stride)


# ---- 6.3, the pairwise test


def test_pairwise_spec_examples():
    p = View.array(I32, (2, 8, 8))
    assert pair_disjoint(p.select([0, ALL, ALL]), p.select([1, ALL, ALL]))  # interval test
    m = View.array(I32, (8, 16))
    even, odd = m.select([ALL, SliceSpec(0, 16, 2)]), m.select([ALL, SliceSpec(1, 16, 2)])
    assert pair_disjoint(even, odd)  # gcd test, g = 2
    left, right = m.select([ALL, SliceSpec(0, 8)]), m.select([ALL, SliceSpec(8, 16)])
    assert not pair_disjoint(left, right)  # disjoint, but no test shows it
    a = View.array(I32, (8,))
    assert not pair_disjoint(a, a.reverse(0))


def test_pairwise_tests_in_order():
    a = View.array(I32, (8,))
    empty = a.select([SliceSpec(3, 3)])
    assert pair_disjoint(a, empty) and pair_disjoint(empty, a)
    assert pair_disjoint(a, View.array(I32, (8,)))  # different storages
    assert pair_disjoint(a.select([SliceSpec(0, 4)]), a.select([SliceSpec(4, 8)]))
    assert not pair_disjoint(a.select([SliceSpec(0, 5)]), a.select([SliceSpec(4, 8)]))
    assert not pair_disjoint(a.select([SliceSpec(2, 3)]), a.select([SliceSpec(2, 3)]))  # one element, g = 0


def test_gcd_over_both_views_spec_note_1():
    s = Storage.zeros(I32, 16)
    p = View(s, 0, (2, 2), (1, 4))
    q = View(s, 1, (1, 2), (1, 4))
    assert set(p.offsets()) & set(q.offsets()) == {1, 5}
    assert not pair_disjoint(p, q)


def test_gcd_ignores_extent_1_dimensions():
    s = Storage.zeros(I32, 16)
    p = View(s, 0, (4, 1), (2, 1))
    q = View(s, 1, (4, 1), (2, 3))
    assert pair_disjoint(p, q)


# ---- checks 2, 6 and 7 over a dispatch's arguments


def test_first_alias_pair_spec_examples():
    m = View.array(I32, (8, 16))
    cols = [m.select([ALL, SliceSpec(0, 8)]), m.select([ALL, SliceSpec(8, 16)])]
    assert first_alias_pair(["in", "out"], cols) == (1, 0)  # alias_cols
    a = View.array(I32, (8,))
    assert first_alias_pair(["in", "out"], [a, a.reverse(0)]) == (1, 0)  # rev_alias
    p = View.array(I32, (2, 8, 8))
    assert first_alias_pair(["in", "out"], [p.select([0, ALL, ALL]), p.select([1, ALL, ALL])]) is None
    eo = [m.select([ALL, SliceSpec(0, 16, 2)]), m.select([ALL, SliceSpec(1, 16, 2)])]
    assert first_alias_pair(["in", "out"], eo) is None  # alias_even_odd


def test_first_alias_pair_order():
    a = View.array(I32, (8,))
    b = View.array(I32, (8,))
    # heat-like signature: in u, scalars, out v, out total (None: scalars)
    assert first_alias_pair(["in", "in", "in", "out", "out"], [a, None, None, b, None]) is None
    # two outputs sharing storage: tested once, from the earlier
    assert first_alias_pair(["in", "out", "inout"], [b, a, a]) == (1, 2)
    # p's loop is outer: the out at 1 is tested against 0 and 3 before the out at 2
    assert first_alias_pair(["in", "out", "out", "in"], [b, a, b, a]) == (1, 3)
    # in parameters are never p; two ins may overlap
    assert first_alias_pair(["in", "in", "out"], [a, a, b]) is None


def test_first_injective_and_unwritable():
    good = View.array(I32, (4,))
    bad = raw((2, 2), (1, 1))
    assert first_injective_failure(["in", "out", "inout"], [bad, good, bad]) == 2
    assert first_injective_failure(["in", "out"], [bad, good]) is None
    ro = dataclasses.replace(good, writable=False)
    assert first_unwritable_output(["in", "out", "inout"], [ro, good, ro]) == 2
    assert first_unwritable_output(["in", "out", "out"], [ro, good, None]) is None


def test_fault_helpers():
    def fields(f: OperationFault):
        return f.code, f.operation, [(t, v) for t, v in f.operands], f.exact, f.limit

    assert fields(alias_fault(1, 0)) == ("E_ALIAS", "bind.alias", [(I64, 1), (I64, 0)], None, None)
    assert fields(injective_fault(2)) == ("E_ALIAS", "bind.injective", [(I64, 2)], None, None)
    assert fields(permission_fault(3)) == ("E_ALIAS", "bind.permission", [(I64, 3)], None, None)


# ---- soundness, by brute force on small random views of one storage

STORAGE = 40


@st.composite
def views_of(draw, storage: Storage, unit: int = 1) -> View:
    """A view whose strides are multiples of `unit`."""
    rank = draw(st.integers(1, 3))
    extents = tuple(draw(st.integers(0, 4)) for _ in range(rank))
    strides = tuple(unit * draw(st.integers(-6 // unit, 6 // unit)) for _ in range(rank))
    origin = draw(st.integers(0, STORAGE - 1))
    try:
        return View(storage, origin, extents, strides)
    except OperationFault:
        assume(False)
        raise


SHARED = Storage.zeros(I32, STORAGE)


@given(views_of(SHARED), views_of(SHARED))
def test_pair_disjoint_is_sound(p, q):
    if pair_disjoint(p, q):
        assert not set(p.offsets()) & set(q.offsets())


@given(st.integers(2, 3).flatmap(lambda g: st.tuples(views_of(SHARED, g), views_of(SHARED, g))))
def test_gcd_test_is_sound(pair):
    p, q = pair  # strides share a factor: the gcd test decides most overlapping pairs
    if pair_disjoint(p, q):
        assert not set(p.offsets()) & set(q.offsets())


@given(views_of(SHARED))
def test_write_view_test_is_sound(v):
    if write_view_passes(v):
        offsets = list(v.offsets())
        assert len(set(offsets)) == len(offsets)


@given(views_of(SHARED))
def test_bounding_interval_is_tight(v):
    offsets = list(v.offsets())
    if offsets:
        assert v.bounding_interval() == (min(offsets), max(offsets))
    else:
        assert v.bounding_interval() is None


@given(views_of(SHARED), views_of(Storage.zeros(I8, STORAGE)))
def test_views_of_different_storages_are_disjoint(p, q):
    assert pair_disjoint(p, q)
