"""Tests of storage and views, cint_ls.exec.views (SPEC-02P.1 6.2, LANGUAGE.md "Views")."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cint_ls.analysis.types import BOOL, I32, I64, I1024, U8, FixedType
from cint_ls.exec.faults import OperationFault, ViewDescriptor
from cint_ls.exec.views import (
    ALL,
    SliceSpec,
    Storage,
    View,
    ViewError,
    copy_elements,
    element_size,
    is_element,
    iter_indices,
    staging_for,
    store_elements,
    unravel,
)


def bounds_fault(excinfo: pytest.ExceptionInfo[OperationFault]) -> tuple:
    f = excinfo.value
    assert f.code == "E_BOUNDS" and f.exact is None
    return f.operation, [v for _, v in f.operands], f.limit[1]


def iota(element, extents) -> View:
    v = View.array(element, extents)
    store_elements(v, list(range(v.size)))
    return v


# ---- the table of SPEC-02P.1 6.2, example 1


def test_spec_6_2_table():
    m = View.array(I32, (8, 16))
    a = View.array(I32, (8,))
    table = [
        (m.select([ALL, SliceSpec(0, 8)]), 0, (8, 8), (16, 1), (0, 119)),
        (m.select([ALL, SliceSpec(8, 16)]), 8, (8, 8), (16, 1), (8, 127)),
        (m.select([ALL, SliceSpec(0, 16, 2)]), 0, (8, 8), (16, 2), (0, 126)),
        (m.select([ALL, SliceSpec(1, 16, 2)]), 1, (8, 8), (16, 2), (1, 127)),
        (a, 0, (8,), (1,), (0, 7)),
        (a.reverse(0), 7, (8,), (-1,), (0, 7)),
    ]
    for view, origin, extents, strides, interval in table:
        assert (view.origin, view.extents, view.strides) == (origin, extents, strides)
        assert view.bounding_interval() == interval
        lo, hi = interval
        offsets = set(view.offsets())
        assert min(offsets) == lo and max(offsets) == hi  # lo and hi are addressed (6.2)


def test_planes_of_a_rank_3_array():
    p = View.array(I32, (2, 8, 8))
    p0, p1 = p.select([0, ALL, ALL]), p.select([1, ALL, ALL])
    assert (p0.origin, p0.extents, p0.strides, p0.bounding_interval()) == (0, (8, 8), (8, 1), (0, 63))
    assert (p1.origin, p1.bounding_interval()) == (64, (64, 127))


# ---- storage


def test_storage_zeros_and_element_sizes():
    s = Storage.zeros(I32, 4)
    assert s.values == [0, 0, 0, 0] and len(s) == 4 and s.element_size == 4
    assert Storage.zeros(BOOL, 2).values == [False, False]
    assert [element_size(t) for t in (BOOL, U8, I64, I1024, FixedType(16, 16))] == [1, 1, 8, 128, 4]
    assert Storage.zeros(I32, 1).id != Storage.zeros(I32, 1).id
    with pytest.raises(ViewError):
        Storage.zeros(I32, -1)


def test_generation_release_and_reset():
    v = iota(I64, (3,))
    assert v.generation == 0 and not v.is_stale
    v.storage.reset()
    assert v.storage.generation == 1 and v.is_stale and v.storage.values == [0, 0, 0]
    fresh = View.whole(v.storage, (3,))
    assert fresh.generation == 1 and not fresh.is_stale
    assert v.reverse(0).is_stale  # a view derived from a stale view stays stale
    v.storage.release()
    assert v.storage.released and fresh.is_stale and v.storage.generation == 2
    assert View(v.storage, 0, (1,), (1,)).generation == 2  # default: the generation now


# ---- views and elements


def test_whole_is_row_major():
    v = iota(I64, (2, 3, 4))
    assert v.strides == (12, 4, 1) and v.size == 24 and v.rank == 3 and v.element == I64
    assert v.read((1, 2, 3)) == 23 and v.offset((1, 0, 2)) == 14
    assert copy_elements(v) == list(range(24))


def test_read_write_and_bounds_fault():
    v = View.array(I64, (3, 4))
    v.write((2, 1), 7)
    assert v.storage.values[9] == 7 and v.read((2, 1)) == 7
    with pytest.raises(OperationFault) as e:
        v.read((1, 4))
    assert bounds_fault(e) == ("index.checked", [4, 1], 4)
    assert all(t == I64 for t, _ in e.value.operands) and e.value.limit[0] == I64
    with pytest.raises(OperationFault) as e:
        v.write((-1, 9), 0)  # the first dimension out of range faults
    assert bounds_fault(e) == ("index.checked", [-1, 0], 3)
    with pytest.raises(ViewError):
        v.read((1,))


def test_read_only_view_refuses_writes():
    v = dataclasses.replace(View.array(I32, (2,)), writable=False)
    with pytest.raises(ViewError):
        v.write((0,), 1)
    with pytest.raises(ViewError):
        store_elements(v, [1, 2])


def test_select_slices_and_indices():
    m = iota(I64, (4, 6))
    row = m.select([2, ALL])
    assert (row.origin, row.extents, row.strides) == (12, (6,), (1,))
    col = m.select([ALL, 5])
    assert copy_elements(col) == [5, 11, 17, 23]
    odd = m.select([SliceSpec(1, 4), SliceSpec(1, None, 2)])
    assert odd.extents == (3, 3) and copy_elements(odd) == [7, 9, 11, 13, 15, 17, 19, 21, 23]
    head = m.select([SliceSpec(None, 2), SliceSpec(0, 5, 3)])
    assert head.extents == (2, 2) and copy_elements(head) == [0, 3, 6, 9]
    empty = m.select([SliceSpec(2, 2), ALL])
    assert empty.is_empty and empty.size == 0 and empty.bounding_interval() is None
    assert copy_elements(empty) == [] and empty.extents == (0, 6)


def test_select_faults():
    m = View.array(I64, (4, 6))
    for spec, expected in [
        ([ALL, SliceSpec(0, 7)], ("slice.checked", [0, 7, 1], 6)),
        ([SliceSpec(-1, 2), ALL], ("slice.checked", [-1, 2, 0], 4)),
        ([SliceSpec(3, 2), SliceSpec(0, 9)], ("slice.checked", [3, 2, 0], 4)),
        ([4, ALL], ("index.checked", [4, 0], 4)),
        ([ALL, -1], ("index.checked", [-1, 1], 6)),
    ]:
        with pytest.raises(OperationFault) as e:
            m.select(spec)
        assert bounds_fault(e) == expected
    with pytest.raises(ViewError):
        m.select([1, 2])  # an element, not a view
    with pytest.raises(ViewError):
        m.select([ALL])
    with pytest.raises(ViewError):
        m.select([ALL, SliceSpec(0, 6, 0)])
    assert is_element([1, 2]) and not is_element([1, ALL])


def test_reverse_and_transpose():
    m = iota(I64, (2, 3))
    r = m.reverse(1)
    assert (r.origin, r.strides) == (2, (3, -1)) and copy_elements(r) == [2, 1, 0, 5, 4, 3]
    rr = m.reverse(0).reverse(1)
    assert copy_elements(rr) == [5, 4, 3, 2, 1, 0] and rr.bounding_interval() == (0, 5)
    t = m.transpose()
    assert t.extents == (3, 2) and t.strides == (1, 3) and copy_elements(t) == [0, 3, 1, 4, 2, 5]
    assert m.select([SliceSpec(1, 1), ALL]).reverse(0).origin == 3  # empty: origin kept
    with pytest.raises(OperationFault) as e:
        m.reverse(2)
    assert bounds_fault(e) == ("reverse.checked", [2], 2)
    with pytest.raises(ViewError):
        View.array(I64, (4,)).transpose()


def test_view_outside_storage_is_not_formed():
    s = Storage.zeros(I64, 10)
    with pytest.raises(OperationFault) as e:
        View(s, 5, (3,), (3,))  # [5, 11]
    assert bounds_fault(e) == ("view.checked", [5, 11], 10)
    with pytest.raises(OperationFault) as e:
        View(s, 1, (3,), (-1,))  # [-1, 1]
    assert bounds_fault(e) == ("view.checked", [-1, 1], 10)
    assert View(s, 99, (0,), (1,)).is_empty  # no elements: nothing to lie within
    with pytest.raises(ViewError):
        View(s, 0, (1, 2), (1,))


def test_descriptor():
    m = View.array(I32, (8, 16)).select([ALL, SliceSpec(8, 16)])
    assert m.descriptor() == ViewDescriptor("I32", 8, (8, 8), (16, 1), True)


def test_store_elements_and_staging():
    m = View.array(I64, (3, 3))
    t = m.transpose().select([SliceSpec(0, 2), ALL])
    store_elements(t, [1, 2, 3, 4, 5, 6])
    assert m.storage.values == [1, 4, 0, 2, 5, 0, 3, 6, 0]
    with pytest.raises(ViewError):
        store_elements(t, [1])
    staged = staging_for(t, copy_in=True)
    assert staged.storage is not m.storage and staged.strides == (3, 1)
    assert copy_elements(staged) == [1, 2, 3, 4, 5, 6]
    assert copy_elements(staging_for(t, copy_in=False)) == [0] * 6


def test_iter_indices_and_unravel():
    assert list(iter_indices((2, 3))) == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
    assert list(iter_indices(())) == [()]
    assert list(iter_indices((3, 0))) == []
    assert unravel(20, (8, 8)) == (2, 4)  # heat_e1: work-item 20 is (y, x) = (2, 4)
    assert unravel(0, ()) == ()
    with pytest.raises(ViewError):
        unravel(64, (8, 8))


@given(st.lists(st.integers(0, 4), min_size=0, max_size=4))
def test_unravel_matches_row_major_order(extents):
    assert [unravel(i, extents) for i, _ in enumerate(iter_indices(extents))] == list(iter_indices(extents))


def test_copies_of_contiguous_and_strided_views_agree_with_offsets():
    # copy_elements/store_elements take a slice for contiguous views; both paths must
    # agree with the offsets of the index tuples.
    from cint_ls.analysis.types import I64
    from cint_ls.exec.views import SliceSpec, Storage, View, copy_elements, store_elements

    storage = Storage(I64, list(range(48)))
    whole = View.whole(storage, (4, 12))
    views = [whole, whole.select([SliceSpec(1, 3, 1), SliceSpec()]), whole.select([1, SliceSpec()]), whole.select([SliceSpec(), SliceSpec(0, 12, 2)]),
             whole.transpose(), whole.reverse(0), whole.select([SliceSpec(2, 2, 1), SliceSpec()])]
    for view in views:
        expected = [storage.values[o] for o in view.offsets()]
        assert copy_elements(view) == expected
        store_elements(view, [v + 1000 for v in expected])
        assert [storage.values[o] for o in view.offsets()] == [v + 1000 for v in expected]
        store_elements(view, expected)
