"""A cluster that pays (issue 33): each tile is sent the windows its work-items read
(cint_ls/exec/c17/windows.py, ir/footprint.py), the workers keep what they were sent and
what they wrote, and the host checks answers. Every outcome here is cpu-c17's on one
machine, byte for byte: after the host writes an input, around a dispatch that ran here,
with views, strided views, an inout written only in part, a gather whose reads cannot
be bounded, and a worker that gives wrong answers."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed", reason="Dask is not installed: pip install 'cint-ls[cluster]'")

from test_cluster import CINT, Cluster, _in_process, _on_workers, _run, _same  # noqa: E402 - after the skip

from cint_ls.exec.c17 import cluster as cluster_module  # noqa: E402
from cint_ls.exec.c17 import worker_store  # noqa: E402
from cint_ls.running.run import RunRequest, run  # noqa: E402

pytestmark = pytest.mark.needs_cc

HERE = Path(__file__).resolve().parent
PROGRAM = HERE / "residency.ci"
HEAT = HERE / "big_heat.ci"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    started = Cluster(tmp_path_factory.mktemp("dask"), 2)
    yield started
    started.stop()


def _rows(path: Path, options: dict) -> tuple[object, list[dict]]:
    outcome = run(RunRequest(str(path), path.read_text(), "cpu-c17", None, {"cpu-c17": options}, report=True))
    assert outcome.result is not None, outcome.error
    return outcome.result, outcome.run_report()["dispatches"]


def test_windows_and_residency_give_cpu_c17_s_outcome(cluster):
    text = PROGRAM.read_text()
    single = _run(PROGRAM, text, None, {"threads": 1})
    tiled, rows = _rows(PROGRAM, {"cluster": cluster.address, "cluster_min": 2, "cluster_tiles": 3,
                                  "cluster_check": "none"})
    _same(tiled, single)
    assert all(row["cluster"] is not None for row in rows), "a dispatch stayed on the host"
    kernels = [row["kernel"].split(".")[-1] for row in rows]
    assert kernels == ["blur", "blur", "blur", "bump", "blur", "blur", "blur", "some", "some", "some", "gather",
                       "gather"]
    entries = [row["cluster"] for row in rows]
    # the second blur reads what the first wrote: held by the workers, a row of halo each
    assert entries[1]["footprint_bytes"] == 0 and entries[1]["resident_bytes"] > 0 and entries[1]["halo_bytes"] > 0
    # after the host wrote `a` (a[5, 5], a[60, 1]) the third blur reads it from here again
    assert entries[2]["footprint_bytes"] >= 64 * 32 * 4 - entries[2]["resident_bytes"]
    assert entries[2]["footprint_bytes"] > 0
    # the gather's reads of `src` cannot be bounded: each tile reads all of it (sent once to
    # each worker, then held)
    read = entries[10]["footprint_bytes"] + entries[10]["resident_bytes"] + entries[10]["halo_bytes"]
    assert read >= 6 * 2048 * 8 and entries[10]["footprint_bytes"] >= 2 * 2048 * 8, entries[10]


def test_every_tile_checked_finds_nothing_wrong(cluster):
    single = _run(PROGRAM, PROGRAM.read_text(), None, {"threads": 1})
    tiled, rows = _rows(PROGRAM, {"cluster": cluster.address, "cluster_min": 2, "cluster_tiles": 2,
                                  "cluster_check": "all"})
    _same(tiled, single)
    assert all(row["cluster"]["checked"] == row["cluster"]["tiles_back"] and row["cluster"]["wrong"] == 0
               for row in rows)


def test_a_worker_that_answers_wrongly_is_caught_and_left_out(tmp_path):
    """One worker flips a byte of every result: the host's check of its first tile finds
    it, the host's answer stands, its later tiles go to the other worker, and the run's
    outcome is still cpu-c17's."""
    started = Cluster(tmp_path, 2)
    try:
        client = distributed.Client(started.address, timeout=20)
        wrong = sorted(started.pids)[0]
        client.run(cluster_module._answer_wrongly, True, workers=[wrong])
        client.close()
        text = HEAT.read_text()
        single = _run(HEAT, text, None, {"threads": 1})
        tiled, rows = _rows(HEAT, {"cluster": started.address, "cluster_min": 2, "cluster_tiles": 3})
        _same(tiled, single)
        entries = [row["cluster"] for row in rows]
        # its first tile is checked and found wrong; its other tiles of that dispatch are run
        # here too, and it gets none of the next
        assert entries[0]["wrong"] == entries[0]["per_worker"][wrong] >= 1, entries
        assert all(e["wrong"] == 0 and wrong not in e["per_worker"] for e in entries[1:]), entries
        note = next(n for n in tiled.notes if "on the cluster" in n)
        assert f"the host's check found {entries[0]['wrong']} wrong tile" in note and f"from {wrong}" in note, note
        assert json.loads(json.dumps(entries)) == entries
    finally:
        started.stop()


KEPT = HERE / "kept.ci"


def test_outputs_stay_on_the_workers_until_the_host_reads_them(cluster):
    """Each smooth's output stays on the workers (kept bytes, a few bytes back); the host
    has it back before it reads it: a dispatch too small for the cluster, a store, a
    cluster's output into half of a kept array (the other half comes back first), the
    loops at the end. The outcome is cpu-c17's."""
    single = _run(KEPT, KEPT.read_text(), None, {"threads": 1})
    tiled, rows = _rows(KEPT, {"cluster": cluster.address, "cluster_min": 1000, "cluster_tiles": 3,
                               "cluster_check": "none"})
    _same(tiled, single)
    entries = [row.get("cluster") for row in rows]
    assert [e is not None for e in entries] == [True, True, False, True, True, True], entries
    for e in (entries[0], entries[1], entries[3], entries[5]):
        assert e["kept_bytes"] == 4096 * 8 and e["bytes_back"] < 4096, e
    assert entries[4]["kept_bytes"] == 2048 * 8, entries[4]
    note = next(n for n in tiled.notes if "on the cluster" in n)
    assert "kept on the workers" in note, note
    # the run's end emptied the workers' stores (a cluster at an address outlives the run)
    held = _on_workers(cluster, lambda: (len(worker_store._store), len(worker_store._spare)))
    assert held and all(h == (0, 0) for h in held.values()), held


def _in_place_results(cluster) -> int:
    return sum(_on_workers(cluster, lambda: cluster_module.in_place_results).values())


def test_kept_outputs_checked_every_tile(cluster):
    """Every tile checked on the host (cint_tile_run) against the worker's result: also
    those the run-time wrote in place in a buffer of the worker's store (cint_tile_run_into,
    of the size cint_tile_result_bytes says), byte for byte."""
    single = _run(KEPT, KEPT.read_text(), None, {"threads": 1})
    in_place = _in_place_results(cluster)
    tiled, rows = _rows(KEPT, {"cluster": cluster.address, "cluster_min": 1000, "cluster_tiles": 2,
                               "cluster_check": "all"})
    _same(tiled, single)
    entries = [row["cluster"] for row in rows if row.get("cluster")]
    assert all(e["checked"] == e["tiles_back"] and e["wrong"] == 0 and e["kept_bytes"] > 0 for e in entries)
    # a checked tile's worker sends its result's digest: the result itself stays there
    assert all(e["bytes_back"] < 4096 for e in entries), entries
    assert _in_place_results(cluster) > in_place, "no kept result was written in place"


def test_heat_tiles_written_in_place_with_a_reduction_are_right(cluster):
    """The heat kernel's tiles (an output and a reduction's state before it in the
    result) written in place from their first dispatch on (cint_tile_result_bytes), each
    checked on the host."""
    single = _run(HEAT, HEAT.read_text(), None, {"threads": 1})
    in_place = _in_place_results(cluster)
    tiled, rows = _rows(HEAT, {"cluster": cluster.address, "cluster_min": 2, "cluster_tiles": 2,
                               "cluster_check": "all"})
    _same(tiled, single)
    entries = [row["cluster"] for row in rows]
    assert all(e["checked"] == e["tiles_back"] and e["wrong"] == 0 and e["kept_bytes"] > 0 for e in entries)
    assert _in_place_results(cluster) - in_place == sum(e["tiles_back"] for e in entries), \
        "heat's tiles were not all written in place"


def test_a_stored_result_is_read_while_its_worker_runs_a_tile(cluster):
    """The host reads what a worker keeps through the worker's handler (store_reads.py),
    not a task, which would wait for the tile the worker is running (a check, or a read
    of a kept output, waited for every tile queued before it)."""
    from cint_ls.exec.c17 import store_reads

    opened = cluster_module.open_cluster(cluster.address)
    try:
        assert opened.direct
        client = opened.client
        worker = sorted(client.scheduler_info()["workers"])[0]

        def keep(key: str, value: bytes) -> None:
            worker_store._store[key] = bytearray(value)

        client.run(keep, "cint-test-kept", b"0123456789", workers=[worker])
        busy = client.submit(time.sleep, 20, workers=[worker], pure=False)
        while client.processing(workers=[worker])[worker] == ():
            time.sleep(0.01)
        begun = time.perf_counter()
        assert store_reads.read(client, [("cint-test-kept", worker, 2, 3), ("cint-test-kept", worker, 7, -1)],
                                10) == [b"234", b"789"]
        assert time.perf_counter() - begun < 10 and not busy.done()
        with pytest.raises(LookupError, match="no longer holds cint-test-missing"):
            store_reads.read(client, [("cint-test-missing", worker, 0, -1)], 10)
        client.cancel(busy)
        client.run(worker_store.forget, ["cint-test-kept"], True, workers=[worker])
    finally:
        opened.close()


def test_the_tiles_a_worker_gets_follow_its_quickest_tile():
    """In a fresh worker a tile's time also holds its fresh memory's page faults: the
    next dispatches' tiles are judged by the quickest one, and go up only when two
    dispatches in a row ask for more (`_choose_tiles`)."""
    from cint_ls.exec.c17.tiles import TileRunner

    class Lib:
        def cint_ctx_set_kernel_tiles(self, context: object, kernel: int, tiles: int) -> None:
            chosen.append(tiles)

    chosen: list[int] = []
    runner = TileRunner(cluster=None, library_path="", adapt=True, context=object())  # type: ignore[arg-type]
    runner._choose_tiles(Lib(), 0, {"tile_seconds": [0.3, 0.01, 0.012, 0.011, 0.25, 0.01, 0.013, 0.01]}, 2)
    runner._choose_tiles(Lib(), 0, {"tile_seconds": [0.45, 0.43]}, 2)  # a larger window faulted in: 4 asked
    runner._choose_tiles(Lib(), 0, {"tile_seconds": [0.025, 0.03]}, 2)
    runner._choose_tiles(Lib(), 0, {"tile_seconds": [0.3, 0.29]}, 2)
    runner._choose_tiles(Lib(), 0, {"tile_seconds": [0.29, 0.3]}, 2)  # asked twice in a row
    runner._choose_tiles(Lib(), 0, {"tile_seconds": [0.012, 0.01, 0.011, 0.01, 0.01, 0.012, 0.01, 0.01]}, 2)
    runner._choose_tiles(Lib(), 1, {"tile_seconds": [0.29, 0.28, 0.3, 0.31, 0.28, 0.29, 0.3, 0.3]}, 2)
    assert chosen == [2, 2, 2, 2, 8, 2, 8]


SLOW = """kernel slow[n](in I64[n] u, out I64[n] v) over [i: n] {
    I64 r = u[i];
    for j in 0..3000 { r = (r * 31 + j) % 1000003; }
    if (i > 0) { r = r + u[i - 1] % 7; }
    v[i] = r;
}

void main() {
    I64[65536] a;
    I64[65536] b;
    for i in 0..65536 { a[i] = i * 7; }
    for t in 0..5 {
        slow(a, b);
        slow(b, a);
        "t={t}\\n";
    }
    I64 s = 0;
    for i in 0..65536 { s = s + a[i] * (i % 11); }
    "s={s}\\n";
}

main();
"""


def _killed_after_dispatch(tmp_path: Path, keep: str, cli: bool = False) -> tuple[object, object]:
    """The run of SLOW's ten dispatches on two workers, one of them killed while it runs a
    tile of the fifth; and cpu-c17's outcome on one machine (with `cli`, those of `cint
    run`: its isolated run streams the output as it is printed)."""
    started = Cluster(tmp_path, 2)
    try:
        path = tmp_path / "slow.ci"
        path.write_text(SLOW)
        outcome: list = []
        options = {"cluster": started.address, "cluster_min": 2, "cluster_tiles": 2, "cluster_keep": keep}
        command = [CINT, "run", "--cluster", started.address, "--cluster-keep", keep, "--report", str(path)]
        runner = threading.Thread(target=lambda: outcome.append(
            subprocess.run(command, capture_output=True, text=True, timeout=300, check=False) if cli else
            run(RunRequest(str(path), SLOW, "cpu-c17", None, {"cpu-c17": options}))))
        runner.start()
        watcher = distributed.Client(started.address, timeout=20)
        killed = None
        deadline = time.monotonic() + 120
        while killed is None and time.monotonic() < deadline and runner.is_alive():
            # keys: cint-tile-PID-RUN-DISPATCH-TILE, the scheduler's tasks and the tiles
            # sent as calls (tile_calls.py) that a worker runs now
            running = {worker: list(tasks) for worker, tasks in watcher.processing().items()}
            for worker, tile in watcher.run(lambda: worker_store.running, on_error="ignore").items():
                running.setdefault(worker, []).append(tile)
            for worker, tasks in running.items():
                if any(str(t).startswith("cint-tile-") and int(str(t).split("-")[4]) >= 4 for t in tasks):
                    os.kill(started.pids[worker], signal.SIGKILL)
                    killed = worker
                    break
            time.sleep(0.01)
        assert killed is not None, "no tile of the fifth dispatch was seen running"
        runner.join(timeout=300)
        watcher.close()
        assert outcome, "the run did not finish"
        if cli:
            return outcome[0], subprocess.run([CINT, "run", "--executor", "cpu-c17", str(path)], capture_output=True,
                                              text=True, timeout=300, check=False)
        return outcome[0], _run(path, SLOW, None, {"threads": 1})
    finally:
        started.stop()


def test_a_worker_killed_with_outputs_coming_back_costs_a_resend(tmp_path):
    tiled, single = _killed_after_dispatch(tmp_path, "none")
    assert tiled.result is not None, tiled.error
    _same(tiled.result, single)


def test_a_worker_killed_with_the_outputs_it_kept_starts_the_run_again(tmp_path):
    """What a killed worker kept is lost (nothing else holds it): the run starts again
    with every output coming back at once, and its outcome is still cpu-c17's; the note
    says so."""
    tiled, single = _killed_after_dispatch(tmp_path, "outputs")
    assert tiled.result is not None, tiled.error
    _same(tiled.result, single)
    (note,) = [n for n in tiled.result.notes if "started again" in n]
    assert "died with outputs it kept" in note and "--cluster-keep none" in note, note


def test_cint_run_started_again_does_not_print_twice(tmp_path):
    """Through `cint run`, whose run streams its output to the parent as it is printed:
    the attempt after the death sends only what the first did not."""
    tiled, single = _killed_after_dispatch(tmp_path, "outputs", cli=True)
    assert single.returncode == 0 and single.stdout.count("t=") == 5, single
    assert (tiled.returncode, tiled.stdout) == (0, single.stdout), tiled.stderr


def test_a_kernel_s_tiles_follow_its_times(cluster):
    """Without cluster_tiles, a kernel's first dispatch goes in 4 tiles a worker and the
    next ones in as many as keep a tile's work near 50 ms (tiles.TILE_SECONDS): the heat
    tour's 16 x 16 grid, microseconds a tile, in one a worker; given cluster_tiles, every
    dispatch in that many."""
    path = Path(__file__).resolve().parents[1] / "conformance" / "heat_tour.ci"
    single = _run(path, path.read_text(), None, {"threads": 1})
    tiled, rows = _rows(path, {"cluster": cluster.address, "cluster_min": 2})
    _same(tiled, single)
    assert [row["cluster"]["tiles"] for row in rows] == [8] + [2] * (len(rows) - 1)
    tiled, rows = _rows(path, {"cluster": cluster.address, "cluster_min": 2, "cluster_tiles": 3})
    _same(tiled, single)
    assert {row["cluster"]["tiles"] for row in rows} == {6}


def test_a_local_cluster_sends_its_messages_at_once():
    """Dask batches messages (10 ms in a client, 5 in a scheduler, 2 in a worker); this
    process's client, and the scheduler and workers of the `local:N` it starts, send at
    once (cluster._send_at_once): a Dask that renamed what this sets fails here, not
    only slower."""
    opened = cluster_module.open_cluster("local:1")
    try:
        client = opened.client
        assert client.scheduler_comm.interval == cluster_module.SEND_INTERVAL
        workers = client.run(lambda dask_worker: dask_worker.batched_stream.interval)
        assert set(workers.values()) == {cluster_module.SEND_INTERVAL}, workers
        streams = client.run_on_scheduler(lambda dask_scheduler: sorted(
            {s.interval for s in [*dask_scheduler.stream_comms.values(), *dask_scheduler.client_comms.values()]}))
        assert streams == [cluster_module.SEND_INTERVAL], streams
    finally:
        opened.close()


def test_two_runs_never_share_a_tile_s_key():
    """The scheduler takes a task whose key it still holds as computed: a run's tile with
    the key of an earlier run's tile (whose release Dask sends later, batched) got that
    tile's old result, naming a stored result the earlier run's end had dropped (seen in
    benchmarks/cluster.py's second round). Each run's keys are its own."""
    from cint_ls.exec.c17.tiles import TileRunner

    first, second = (TileRunner(cluster=None, library_path="") for _ in range(2))  # type: ignore[arg-type]
    assert first._run != second._run and str(os.getpid()) in first._run


def test_a_cluster_this_process_cannot_reach_directly_goes_through_its_scheduler(cluster, monkeypatch):
    """Workers that only their scheduler reaches (store_reads.reachable false): windows
    and results go through the scheduler, reads of kept outputs are tasks, and the
    outcome is still cpu-c17's (the tiles run in this process, as benchmarks/cluster.py
    runs them)."""
    from cint_ls.exec.c17 import store_reads

    monkeypatch.setattr(store_reads, "reachable", lambda client, seconds: False)
    monkeypatch.setattr(store_reads, "read", None)  # (not called: reads are tasks)
    tiled, tiles = _in_process(cluster, KEPT, KEPT.read_text(), "all", direct=False)
    _same(tiled, _run(KEPT, KEPT.read_text(), None, {"threads": 1}))
    assert not tiles.errors, tiles.errors
    entries = [row["cluster"] for row in tiled.dispatch_log if row.get("cluster")]
    assert entries and all(e["kept_bytes"] > 0 and e["checked"] == e["tiles_back"] for e in entries), entries
