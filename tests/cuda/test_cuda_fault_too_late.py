"""Issue 28, finding 9 on gpu-cuda's simulated device (the same PTX a GPU runs, on
its C host and on the Python oracle): a work-item that loops for ever above a fault must stop, as the
reference stops at the fault. The emitted code reads the fault word again every
ptx.POLL_CHARGES charges; a looping body watches its fold_checked from the launch's
first work-item, past completed ones, so a fold's first overflow below the loop is
published in the fault word; the run-to-completion schedules set aside a thread that
keeps polling (a GPU runs the threads side by side). Every order, blocks of 32 and
256, launches of 7 work-items, finishes with the reference's record."""

from __future__ import annotations

import pytest
from fault_too_late import (
    DIV_ZERO_THEN_LOOP,
    FOLD_THEN_LOOP,
    LOOP_THEN_FOLD,
    ORACLE,
    outcomes_in_child,
    reference_outcome,
)

from cint_ls.exec.cuda.ptx import emit_module
from cint_ls.ir.build import build

# Every order of the simulated device, two seeds of the seeded ones.
ORDERS = [("ascending", 0), ("descending", 0), ("shuffled", 1), ("shuffled", 5), ("interleaved", 1),
          ("interleaved", 5), ("adversarial", 0)]
SETTINGS = [{"block_size": 256}, {"block_size": 32}, {"block_size": 32, "max_launch": 7}]


def _options(order, seed, settings):
    return {"device": "sim", "order": order, "seed": seed, **settings}


@pytest.mark.parametrize("host", [pytest.param("gpu-cuda", marks=pytest.mark.needs_cc), ORACLE])
@pytest.mark.parametrize("order, seed", ORDERS)
@pytest.mark.parametrize("template", [FOLD_THEN_LOOP, LOOP_THEN_FOLD], ids=["reduce-then-loop", "loop-then-reduce"])
def test_fold_fault_low_with_endless_loop_high_finishes(template, order, seed, host):
    text = template.format(n=64, loop=40)
    expected = reference_outcome(text)
    options = [_options(order, seed, settings) for settings in SETTINGS]
    assert outcomes_in_child(text, host, options) == [expected] * len(options)


@pytest.mark.parametrize("host", [pytest.param("gpu-cuda", marks=pytest.mark.needs_cc), ORACLE])
@pytest.mark.parametrize("order, seed", ORDERS)
def test_division_by_zero_at_0_with_endless_loop_at_33_finishes(order, seed, host):
    text = DIV_ZERO_THEN_LOOP.format(n=64)
    expected = reference_outcome(text)
    options = [_options(order, seed, settings) for settings in SETTINGS]
    assert outcomes_in_child(text, host, options) == [expected] * len(options)


def test_only_a_looping_body_watches_its_fold():
    # The heat step (no loop) is unchanged: no poll, no watched fold, no new parameter.
    looping = emit_module(build(FOLD_THEN_LOOP.format(n=64, loop=40), "w.ci").program)
    assert "p_fold_0" in looping.text and "membar.gl" in looping.text
    straight = emit_module(build("""
kernel k[n](in I64[n] a, out I64 s) over [i: n] { reduce s = fold_checked(add, 0, a[i]); }
void run() { I64[4] a; I64 s = 0; k(a, s); }
run();
""", "s.ci").program)
    assert "p_fold" not in straight.text and "membar" not in straight.text and "ld.volatile" in straight.text


TWO_FOLDS = """
kernel k[n](in I64[n] a, in U8[n] u, out I64 s, out U8 t) over [i: n] {
    reduce s = fold_checked(add, 0, a[i]);
    if (i == 50) { while (a[i] >= 0) { } }
    if (u[i] > 0) { reduce t = fold_checked(add, 200, u[i]); }
}
void run() { I64[64] a; U8[64] u; u[0] = 50; u[4] = 6; I64 s = 0; U8 t = 0; k(a, u, s, t); "{s} {t}\\n"; }
run();
"""


@pytest.mark.parametrize("order, seed", [("ascending", 0), ("descending", 0), ("interleaved", 3), ("adversarial", 0)])
def test_the_second_of_two_folds_overflowing_below_an_endless_loop_finishes(order, seed):
    # The U8 fold (from 200, on work-items whose u is not 0) overflows at work-item 4; work-item
    # 50 loops for ever after the I64 fold's reduce and before its own U8 reduce.
    expected = reference_outcome(TWO_FOLDS)
    assert "work-item 4" in expected[1]
    options = [_options(order, seed, settings) for settings in SETTINGS]
    assert outcomes_in_child(TWO_FOLDS, "gpu-cuda", options) == [expected] * len(options)
