"""The run report's text for dispatches that went to a cluster (running/report.py), from
rows as tiles.py's TileRunner.attach leaves them: no Dask needed."""

from __future__ import annotations

from cint_ls.running.report import render_run_report

A, B = "tcp://10.0.0.2:40000", "tcp://10.0.0.1:40000"  # B sorts first: w1


def _data(rows: list[dict]) -> dict:
    return {"decision": "cpu-c17 was named: auto did not choose", "executor": "cpu-c17", "device": "cpu",
            "outcome": "finished", "error": None, "seconds": 1.5, "fuel": 300, "dispatch_count": len(rows),
            "recorded": len(rows), "checked": None,
            "dispatches": [{"number": k, "kernel": "m.k", "work_items": 100, "threads": 1, "launches": None,
                            "copies": None, "seconds": 0.25, "fuel": 100, **row} for k, row in enumerate(rows)]}


def test_a_dispatch_that_stayed_here_has_dashes_and_the_workers_are_named_in_order():
    tiled = {"cluster": "local:2", "scheduler": "tcp://127.0.0.1:8786", "tiles": 4, "tiles_back": 3,
             "per_worker": {A: 1, B: 2}, "bytes_sent": 2_500_000, "bytes_back": 1200,
             "tile_seconds": [0.002, 0.004, None, 0.003], "plan_bytes": 4000, "footprint_bytes": 2_000_000,
             "halo_bytes": 496_000, "resident_bytes": 8_000_000, "checked": 2, "wrong": 0}
    lines = render_run_report(_data([{"cluster": tiled}, {}, {"cluster": None}])).splitlines()
    assert lines[2] == ("report: cluster local:2 (scheduler tcp://127.0.0.1:8786): the work-items of 1 recorded "
                        f"dispatch in 4 tiles, 3 came back; workers: w1 {B} (2 tiles), w2 {A} (1 tile); "
                        "2.5 MB sent, 1.2 KB back; 3.00 ms per tile on its worker; of what the tiles read, 2.0 MB "
                        "went from here (their footprints), 496.0 KB between workers (halos) and 8.0 MB was "
                        "already on the worker; 2 tiles checked here, 0 wrong")
    assert lines[3].split()[-10:] == ["tiles", "sent", "halo", "held", "back", "tile", "time", "tiles", "per",
                                      "worker"]
    assert lines[4].endswith("        3/4      2.5 MB    496.0 KB      8.0 MB      1.2 KB     3.00 ms  w1 2, w2 1"), \
        lines[4]
    for line in lines[5:7]:
        assert line.endswith("          -           -           -           -           -           -  -"), line
    assert len(lines) == 7


def test_tiles_sent_as_calls_are_counted():
    """The tiles that went straight to their worker's handler (tile_calls.py, a row's
    `called`) are said after the rest; a run with none says nothing of them."""
    row = {"cluster": "local:2", "tiles": 2, "tiles_back": 2, "per_worker": {A: 1, B: 1}, "bytes_sent": 10,
           "bytes_back": 10, "tile_seconds": [0.001, 0.001]}
    lines = render_run_report(_data([{"cluster": {**row, "called": 0}}, {"cluster": {**row, "called": 2}}]))
    assert lines.splitlines()[2].endswith("; 2 tiles sent straight to their worker, not as Dask tasks"), lines
    lines = render_run_report(_data([{"cluster": {**row, "called": 0}}]))
    assert "straight to their worker" not in lines


def test_rows_without_a_cluster_keep_the_columns_they_had():
    lines = render_run_report(_data([{}, {"cluster": None}])).splitlines()
    assert not any(line.startswith("report: cluster") for line in lines)
    assert lines[2].split()[1:] == ["dispatch", "kernel", "work-items", "threads", "time", "fuel"]
