"""Issue 28, finding 3: every wait on a cluster has a deadline that the run's time limit
bounds (cint_ls/exec/c17/cluster.py, docs/cluster.md "Deadlines"). Only loopback
addresses: a plain TCP listener that accepts and never answers, and a real Dask
scheduler without workers. Each run ends with one line, within the time limit + 2 s,
that says what it waited for and names the setting that bounds it."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed", reason="Dask is not installed: pip install 'cint-ls[cluster]'")

from cint_ls.running.isolated import Request, run_isolated
from cint_ls.running.run import RunRequest, run

pytestmark = pytest.mark.needs_cc

CINT = shutil.which("cint", path=os.path.dirname(sys.executable)) or "cint"
PROGRAM = '"before the cluster\\n";\n'
LIMIT = 3.0


@pytest.fixture(scope="module")
def warm():
    """cpu-c17's library for PROGRAM is built: compiling is not the run's time."""
    assert run_isolated(Request.of_text("cpu-c17", "warm.ci", PROGRAM), time_limit=60).output == "before the cluster\n"


@pytest.fixture
def silent_listener():
    """tcp://127.0.0.1:PORT of a listener that accepts every connection and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                return
            held.append(conn)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    stop.set()
    server.close()
    for conn in held:
        conn.close()


@pytest.fixture
def no_workers():
    """A real Dask scheduler on loopback without a worker."""
    cluster = distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp", host="127.0.0.1", dashboard_address=None)
    try:
        yield cluster.scheduler_address
    finally:
        cluster.close()


def _cli(tmp_path: Path, address: str, limit: float | None) -> tuple[subprocess.CompletedProcess, float]:
    """`cint run --cluster ADDRESS`, and the seconds it took beyond those of the same run
    without a cluster (the CLI's and the child's start, the cached build), measured
    just before: the time the cluster added, which the limits bound."""
    path = tmp_path / "p.ci"
    path.write_text(PROGRAM)
    started = time.monotonic()
    plain = subprocess.run([CINT, "run", "--executor", "cpu-c17", str(path)], capture_output=True, text=True,
                           timeout=120, check=False)
    assert plain.stdout == "before the cluster\n", plain.stderr
    baseline = time.monotonic() - started
    started = time.monotonic()
    done = subprocess.run([CINT, "run", "--cluster", address, str(path),
                           *(["--time-limit", str(limit)] if limit is not None else [])],
                          capture_output=True, text=True, timeout=120, check=False)
    return done, time.monotonic() - started - baseline


def _one_line(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 3, done.stderr
    assert done.stdout == ""
    assert done.stderr.startswith("cint: error: ") and done.stderr.count("\n") == 1, done.stderr
    return done.stderr


def test_cluster_listener_that_never_answers_ends_within_the_time_limit(warm, silent_listener, tmp_path):
    done, seconds = _cli(tmp_path, silent_listener, LIMIT)
    line = _one_line(done)
    assert f"cannot reach the Dask scheduler at {silent_listener}: no answer within" in line
    assert "--time-limit" in line and "cint.run.timeLimit" in line
    assert seconds < LIMIT + 2, (seconds, line)


def test_cluster_listener_that_never_answers_ends_within_the_time_limit_in_the_server_s_path(warm, silent_listener):
    """The editors' runs: run() with a time limit in a child (server/runs.py's request)."""
    started = time.monotonic()
    outcome = run(RunRequest("p.ci", PROGRAM, "cpu-c17", options={"cpu-c17": {"cluster": silent_listener}},
                             time_limit=LIMIT, isolate=True))
    seconds = time.monotonic() - started
    assert outcome.result is None and "\n" not in outcome.error
    assert outcome.error.startswith(f"cannot reach the Dask scheduler at {silent_listener}: no answer within")
    assert "cint.run.timeLimit" in outcome.error
    assert seconds < LIMIT + 2, (seconds, outcome.error)


@pytest.mark.slow
def test_cluster_listener_that_never_answers_ends_after_10_s_without_a_time_limit(warm, silent_listener, tmp_path):
    """docs/cluster.md: an unreachable scheduler is one line after 10 s."""
    done, seconds = _cli(tmp_path, silent_listener, None)
    line = _one_line(done)
    assert "no answer within 10 s" in line and "--time-limit" not in line, line
    assert seconds < 10 + 2, (seconds, line)


def test_cluster_scheduler_without_workers_ends_within_the_time_limit(warm, no_workers, tmp_path):
    done, seconds = _cli(tmp_path, no_workers, LIMIT)
    line = _one_line(done)
    assert f"the Dask scheduler at {no_workers} has no workers: none joined within" in line, line
    assert "--time-limit" in line, line
    assert seconds < LIMIT + 2, (seconds, line)


ENDLESS = """kernel spin[n](in I64[n] a, out I64[n] r) over [i: n] {
    I64 acc = a[i];
    for j in 0..9000000000000000000 {
        acc = acc +% j;
    }
    r[i] = acc;
}

void go() {
    I64[64] a;
    I64[64] r;
    spin(a, r);
}

"before the dispatch\\n";
go();
"""


@pytest.mark.slow
def test_cluster_tiles_that_never_come_back_end_at_the_time_limit_and_say_so(tmp_path):
    """A worker that runs a tile for good: the run is stopped at its time limit, keeps
    what it printed, and says it was waiting for the tiles."""
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address=None)
    try:
        address = cluster.scheduler_address
        run_isolated(Request.of_text("cpu-c17", "warm.ci", ENDLESS.replace("go();", "")), time_limit=60)  # built
        started = time.monotonic()
        outcome = run(RunRequest("p.ci", ENDLESS, "cpu-c17", time_limit=LIMIT, isolate=True,
                                 options={"cpu-c17": {"cluster": address, "cluster_min": 2, "threads": 1}}))
        seconds = time.monotonic() - started
    finally:
        cluster.close()
    assert outcome.result is None and outcome.cut_output == "before the dispatch\n"
    assert outcome.error.startswith(f"the run took longer than {LIMIT:g} s and was stopped while waiting for the "
                                    f"tiles of dispatch 0 on the Dask cluster at {address}"), outcome.error
    assert seconds < LIMIT + 2 + 1, seconds  # + the child's start
