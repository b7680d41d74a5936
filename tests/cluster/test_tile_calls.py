"""Tiles sent straight to their worker's handler (cint_ls/exec/c17/tile_calls.py) instead
of as Dask tasks: from a kernel's second dispatch on where a tile needs nothing Dask must
bring. The outcome is cpu-c17's byte for byte, as tasks, through a fault, and when a call
fails (the tile is then sent again as a task)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed", reason="Dask is not installed: pip install 'cint-ls[cluster]'")

from test_cluster import Cluster, _in_process, _on_workers, _run, _same  # noqa: E402 - after the skip

from cint_ls.exec.c17 import tile_calls, worker_store  # noqa: E402

pytestmark = pytest.mark.needs_cc

HEAT = Path(__file__).resolve().parent / "big_heat.ci"
# Six dispatches; the last divides by zero from work-item 40,000 (its 4th tile of 6).
FAULT = """kernel bump[n](in I64[n] u, I64 d, out I64[n] v) over [i: n] {
    I64 r = u[i] + 1;
    if (i >= 40000) {
        r = r + 7 / (d - 3);
    }
    v[i] = r;
}

void main() {
    I64[65536] a;
    I64[65536] b;
    for i in 0..65536 { a[i] = i; }
    for t in 0..3 {
        bump(a, t, b);
        bump(b, t + 1, a);
        "t={t} a9={a[9]}\\n";
    }
}

main();
"""

# Two dispatches of tiles of about 0.3 s; the second divides by zero at work-item 5, in
# its first tile: every other tile of it is still queued or running on its worker.
EARLY_FAULT = """kernel churn[n](in I64[n] u, I64 d, out I64[n] v) over [i: n] {
    I64 r = u[i];
    for j in 0..3000 {
        r = (r * 31 + j) % 1000003;
    }
    if (i == 5) {
        r = r + 7 / (d - 1);
    }
    v[i] = r;
}

void main() {
    I64[65536] a;
    I64[65536] b;
    for i in 0..65536 { a[i] = i; }
    churn(a, 0, b);
    churn(b, 1, a);
    "{a[9]}\\n";
}

main();
"""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    started = Cluster(tmp_path_factory.mktemp("dask"), 2)
    yield started
    started.stop()


def _entries(result) -> list[dict]:
    entries = [row.get("cluster") for row in result.dispatch_log]
    assert entries and all(entries), "a dispatch stayed on the host"
    return entries


def _assert_stores_empty(cluster) -> None:
    """The workers keep nothing of the runs that ended, once they run no tile."""
    deadline = time.monotonic() + 30
    while any(_on_workers(cluster, lambda: worker_store.running).values()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert set(_on_workers(cluster, lambda: len(worker_store._store)).values()) == {0}


def _faulting(cluster, tmp_path: Path, text: str):
    """`text`'s run on the cluster, whose fault is cpu-c17's E_DIV_ZERO: its result."""
    path = tmp_path / "fault.ci"
    path.write_text(text)
    single = _run(path, text, None, {"threads": 1})
    assert single.fault is not None and single.fault.code == "E_DIV_ZERO"
    tiled, _ = _in_process(cluster, path, text, "first16")
    _same(tiled, single)
    return tiled


def test_heat_s_second_dispatch_goes_as_calls_and_gives_cpu_c17_s_outcome(cluster):
    single = _run(HEAT, HEAT.read_text(), None, {"threads": 1})
    tiled, tiles = _in_process(cluster, HEAT, HEAT.read_text(), "all")
    _same(tiled, single)
    assert not tiles.errors and not tiles.resent, (tiles.errors, tiles.resent)
    first, second = _entries(tiled)
    # the first dispatch's windows are scattered from here and its workers load the
    # library: tasks; the second reads what the workers kept, with halos from here
    assert first["called"] == 0 and second["called"] == second["tiles"] == 6, (first, second)
    assert all(e["checked"] == e["tiles_back"] and e["wrong"] == 0 for e in (first, second))
    tasks, _ = _in_process(cluster, HEAT, HEAT.read_text(), "all", calls=False)
    _same(tasks, single)
    assert all(e["called"] == 0 for e in _entries(tasks))
    # (the results of the first dispatch, which no piece needs after the second, were
    # left in the stores by a run's end before)
    _assert_stores_empty(cluster)


def test_a_fault_in_a_called_tile_is_cpu_c17_s_fault(cluster, tmp_path):
    """The canonical fault (least work-item, then step) from a dispatch whose tiles went
    as calls: the tiles above the faulting one are not waited for (a call cannot be
    cancelled: after the run's end they do not run, or do not keep their results)."""
    entries = _entries(_faulting(cluster, tmp_path, FAULT))
    assert len(entries) == 6 and all(e["called"] == e["tiles"] for e in entries[1:]), entries
    # the calls above the fault, not waited for, are not run or not kept after the run's end
    _assert_stores_empty(cluster)


def test_calls_the_host_no_longer_waits_for_are_not_run_or_not_kept(cluster, tmp_path):
    """A fault in a dispatch's first tile: the host takes the fault and ends the run while
    the other tiles' calls are queued or running on their workers (a call cannot be
    cancelled). The run's end tells each worker the keys of its results (worker_store's
    `forget` at the end): a call that starts after it does not run, one that was running
    does not keep its result."""
    second = _entries(_faulting(cluster, tmp_path, EARLY_FAULT))[1]
    assert second["called"] == 6 and second["tiles_back"] < 6, second
    _assert_stores_empty(cluster)


def test_a_call_that_fails_is_sent_again_as_a_task(cluster, monkeypatch):
    """A worker that cannot run a call (here: asked for a library it never loaded, as a
    worker restarted since would be) answers why; the host sends that tile again whole
    as a task, and the outcome is cpu-c17's."""
    real = tile_calls.call
    monkeypatch.setattr(tile_calls, "call", lambda client, worker, args: real(client, worker, ("0" * 64, *args[1:])))
    single = _run(HEAT, HEAT.read_text(), None, {"threads": 1})
    tiled, tiles = _in_process(cluster, HEAT, HEAT.read_text(), "all")
    _same(tiled, single)
    assert _entries(tiled)[1]["called"] == 6
    assert len(tiles.resent) == 6 and all("has not loaded the run's library" in why for why in tiles.resent), \
        tiles.resent
    assert not tiles.errors, tiles.errors
