"""Issue 28, finding 9 on cpu-c17's pool (rt/pool.c): a fold_checked that overflows at
a low work-item, or a division by zero at one, beside a higher work-item that loops
forever (no fuel budget). One thread stops at the fault; the pool, on 2 and 7
threads, must stop as early: the completed chunks are combined in order as they
finish and the chunk above them tests its own contributions at each fuel slice, so
the fold's fault raises the stop that loops poll. The record, output and fuel are
the reference's."""

from __future__ import annotations

import pytest
from fault_too_late import DIV_ZERO_THEN_LOOP, FOLD_THEN_LOOP, LOOP_THEN_FOLD, outcomes_in_child, reference_outcome

pytestmark = pytest.mark.needs_cc

# (n, the looping work-item, chunk_min): the loop in another chunk than the fault, in
# the fault's own chunk (chunk 0 of 4,096 by default), and in a chunk several above.
SHAPES = [(64, 63, 1), (4096, 33, None), (5000, 4999, None), (256, 200, 16)]


def _options(threads: int, chunk_min: int | None) -> dict:
    options = {"threads": threads}
    if chunk_min is not None:
        options.update(parallel_min=1, chunk_min=chunk_min)
    return options


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"n{s[0]}-loop{s[1]}-chunk{s[2]}")
@pytest.mark.parametrize("template", [FOLD_THEN_LOOP, LOOP_THEN_FOLD], ids=["reduce-then-loop", "loop-then-reduce"])
def test_fold_fault_low_with_endless_loop_high_finishes(template, shape):
    n, loop, chunk_min = shape
    text = template.format(n=n, loop=loop)
    options = [_options(threads, chunk_min) for threads in (1, 2, 7)]
    assert outcomes_in_child(text, "cpu-c17", options) == [reference_outcome(text)] * 3


@pytest.mark.parametrize("n, chunk_min", [(64, 1), (64, 8), (4096, None)])
def test_division_by_zero_at_0_with_endless_loop_at_33_finishes(n, chunk_min):
    text = DIV_ZERO_THEN_LOOP.format(n=n)
    options = [_options(threads, chunk_min) for threads in (1, 2, 7)]
    assert outcomes_in_child(text, "cpu-c17", options) == [reference_outcome(text)] * 3
