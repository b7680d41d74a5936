"""Spans cross to a run's child process pickled inside the IR (running/isolated.py): a
span pickles as where the version being read has it, so the copy needs no `Placement`
(none exists in the child) and reports the same line and column; the file's start stays
the one `ROOT`."""

from __future__ import annotations

import pickle

from cint_ls.syntax.source import ROOT, Anchor, Placement, Span, placed


def test_a_span_pickles_as_where_the_version_read_has_it():
    anchor = Anchor(100, 5, 3)
    span = Span.relative(anchor, 2, 6, 0, 4, 1, 9)  # from 5:7 to 6:9 where the item was lowered
    placement = Placement()
    placement.anchors[anchor] = (200, 9, 1)  # a later version moved the item
    with placed(placement):
        moved = span.absolute()
        copy = pickle.loads(pickle.dumps(span))
    assert moved == (202, 206, 9, 5, 10, 9)
    assert copy.absolute() == moved  # outside any placement, as the child reads it
    assert pickle.loads(pickle.dumps(span)).absolute() == (102, 106, 5, 7, 6, 9)


def test_spans_of_one_item_share_their_anchor_and_the_file_start_stays_root():
    anchor = Anchor(10, 2, 1)
    spans = [Span.relative(anchor, 0, 3, 0, 0, 0, 3), Span.relative(anchor, 4, 5, 0, 4, 0, 5),
             Span(0, 1, 1, 1, 1, 2)]
    first, second, at_start = pickle.loads(pickle.dumps(spans))
    assert first.anchor is second.anchor and first.anchor is not anchor
    assert at_start.anchor is ROOT
    assert [s.absolute() for s in (first, second, at_start)] == [s.absolute() for s in spans]
