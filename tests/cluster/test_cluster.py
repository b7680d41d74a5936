"""cpu-c17's tiles on a Dask cluster (cint_ls/exec/c17/cluster.py, docs/cluster.md):
a real `dask scheduler` and two `dask worker` processes on loopback, started and
stopped here; every case's output, fault record and fuel compared byte for byte with
cpu-c17 on one machine; a worker killed in the middle of a dispatch."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed", reason="Dask is not installed: pip install 'cint-ls[cluster]'")

from cint_ls.running.run import RunRequest, run

pytestmark = pytest.mark.needs_cc

ROOT = Path(__file__).resolve().parents[2]
CONFORMANCE = ROOT / "tests" / "conformance"
CINT = shutil.which("cint", path=os.path.dirname(sys.executable)) or "cint"
DASK = shutil.which("dask", path=os.path.dirname(sys.executable)) or shutil.which("dask")
# The dispatch-heavy cases: a run that finishes, faults in the work-items (overflow,
# division by zero), reductions and checked folds that overflow, a fuel budget.
CASES = [("heat_tour", None), ("heat_e1", None), ("heat_e9", None), ("heat_fold32", None), ("heat_sum32", None),
         ("heat_spot", None), ("fixed_reduce", None), ("budget_fuel", 6002), ("budget_fuel", 5000),
         ("budget_fuel", 1500)]
SPIN = """kernel spin[n](in I64[n] a, out I64[n] r) over [i: n] {
    I64 acc = a[i];
    for j in 0..LOOP {
        acc = acc + j;
    }
    r[i] = acc;
}

export I64 go() {
    I64[8192] a;
    I64[8192] r;
    a[7] = 5;
    a[FAULT] = 9223372036854775000;
    spin(a, r);
    return r[7] + r[8191];
}

go();
"""


class Cluster:
    def __init__(self, directory: Path, workers: int, tls: tuple[Path, Path] | None = None):
        """A scheduler and `workers` workers on loopback; with `tls` (a certificate and
        its key, the certificate its own authority) over tls://."""
        if DASK is None:
            pytest.skip("the dask command is not installed")
        self.directory = directory
        self.file = directory / "scheduler.json"
        self.processes: list[subprocess.Popen] = []
        self.log = log = open(directory / "dask.log", "wb")  # noqa: SIM115 - closed in stop()
        secure, security = [], None
        if tls is not None:
            cert, key = (str(p) for p in tls)
            secure = ["--tls-ca-file", cert, "--tls-cert", cert, "--tls-key", key]
            security = distributed.Security(tls_ca_file=cert, tls_client_cert=cert, tls_client_key=key,
                                            require_encryption=True)
        self.processes.append(subprocess.Popen(
            [DASK, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
             "--scheduler-file", str(self.file), *(["--protocol", "tls", *secure] if tls else [])],
            stdout=log, stderr=log, start_new_session=True))
        self.workers = [subprocess.Popen(
            [DASK, "worker", "--scheduler-file", str(self.file), "--nthreads", "1", "--no-nanny",
             "--no-dashboard", "--host", "127.0.0.1", "--death-timeout", "60", *secure],
            stdout=log, stderr=log, start_new_session=True) for _ in range(workers)]
        self.processes += self.workers
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.file.exists():
                try:
                    self.address = json.loads(self.file.read_text())["address"]
                    client = distributed.Client(self.address, timeout=20, security=security)
                    client.wait_for_workers(workers, timeout=max(1.0, deadline - time.monotonic()))
                    self.pids = client.run(os.getpid)  # worker address -> pid
                    client.close()
                    return
                except (ValueError, KeyError, OSError, TimeoutError):
                    pass
            time.sleep(0.2)
        self.stop()
        pytest.fail("the Dask scheduler and workers did not start within 60 s: " +
                    (directory / "dask.log").read_text(errors="replace")[-2000:])

    def stop(self) -> None:
        for process in reversed(self.processes):
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.log.close()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    started = Cluster(tmp_path_factory.mktemp("dask"), 2)
    yield started
    started.stop()


def _run(path: Path, text: str, fuel, options: dict):
    outcome = run(RunRequest(str(path), text, "cpu-c17", fuel, {"cpu-c17": options}))
    assert outcome.result is not None, outcome.error
    return outcome.result


def _on_workers(cluster, function) -> dict:
    """`function()` run in each worker process of the cluster: worker -> its value."""
    client = distributed.Client(cluster.address, timeout=20)
    try:
        return client.run(function)
    finally:
        client.close()


def _in_process(cluster, path: Path, text: str, check: str, calls: bool = True, direct: bool = True):
    """The run of `text` with its tiles on the cluster, in this process (as
    benchmarks/cluster.py runs it, so that a test can change the host's side), in 3
    tiles a worker from 1,000 work-items; whether it reaches the workers `direct`ly is
    asserted. Its result and its TileRunner, finished (the workers' stores emptied)."""
    from cint_ls.exec.c17 import cluster as cluster_module
    from cint_ls.exec.c17.build import build_library
    from cint_ls.exec.c17.library import emit_for_cluster, run_library
    from cint_ls.exec.c17.tiles import TileRunner
    from cint_ls.ir.build import build

    program = build(text, str(path)).program
    assert program is not None
    library = build_library(emit_for_cluster(program))
    opened = cluster_module.open_cluster(cluster.address)
    try:
        assert opened.direct == direct
        tiles = TileRunner(opened, str(library), program, check)
        tiles.minimum, tiles.per_worker_tiles, tiles.calls = 1000, 3, calls
        result, _ = run_library(library, None, threads=1, report=True, tiles=tiles)
        tiles.attach(result.dispatch_log)
        tiles.finish()
    finally:
        opened.close()
    return result, tiles


def _same(tiled, single) -> None:
    assert tiled.output == single.output
    assert tiled.fuel_consumed == single.fuel_consumed
    assert json.dumps(tiled.fault.to_json() if tiled.fault else None, sort_keys=True) == \
        json.dumps(single.fault.to_json() if single.fault else None, sort_keys=True)


def _tiles_note(result) -> str:
    notes = [n for n in result.notes if "on the cluster" in n]
    assert notes, result.notes
    return notes[0]


@pytest.mark.parametrize("name,fuel", CASES, ids=[f"{n}-{f}" for n, f in CASES])
def test_conformance_cases_match_cpu_c17(cluster, name, fuel):
    path = CONFORMANCE / f"{name}.ci"
    text = path.read_text()
    tiled = _run(path, text, fuel, {"cluster": cluster.address, "cluster_min": 2, "cluster_tiles": 3})
    single = _run(path, text, fuel, {"threads": 1})
    _same(tiled, single)
    note = _tiles_note(tiled)
    # Tiles ran on the workers and came back, none lost; a faulting dispatch does not
    # wait for the tiles above its faulting tile, one that completes waits for all.
    tiles = note.split(": ", 1)[1].split(" tiles came back")[0]
    back, of = (int(t) for t in tiles.split(" of "))
    assert 0 < back <= of and (back == of or single.fault is not None), note
    assert "run again here" not in note


def _reported(path: Path, text: str, options: dict):
    outcome = run(RunRequest(str(path), text, "cpu-c17", None, {"cpu-c17": options}, report=True))
    assert outcome.result is not None, outcome.error
    return outcome


def _validates_as_the_run_result_s_report(data: dict) -> None:
    """`cint/runResult`'s `runReport` (server/schema/run-result.schema.json) describes
    the `cluster` entries too."""
    from importlib import resources

    import jsonschema

    schema = json.loads(resources.files("cint_ls.server").joinpath("schema/run-result.schema.json").read_text())
    jsonschema.validate(data, {**schema["$defs"]["runReport"], "$defs": schema["$defs"]})
    broken = json.loads(json.dumps(data))
    del broken["dispatches"][0]["cluster"]["tiles_back"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, {**schema["$defs"]["runReport"], "$defs": schema["$defs"]})


def test_the_report_names_the_cluster_tiles_per_worker_bytes_and_times(cluster):
    """Each dispatch that went to the cluster has its `cluster` entry in the run report
    (--report=json) and its columns in the text (--report)."""
    path = CONFORMANCE / "heat_tour.ci"
    outcome = _reported(path, path.read_text(), {"cluster": cluster.address, "cluster_min": 2, "cluster_tiles": 3})
    data = outcome.run_report()
    rows = data["dispatches"]
    assert len(rows) == data["dispatch_count"] == 40
    workers = set(cluster.pids)
    for row in rows:
        entry = row["cluster"]
        assert entry["cluster"] == entry["scheduler"] == cluster.address, entry
        assert entry["tiles"] == entry["tiles_back"] == 6, entry  # 2 workers × 3
        assert set(entry["per_worker"]) <= workers and sum(entry["per_worker"].values()) == 6, entry
        assert len(entry["tile_seconds"]) == 6 and all(s > 0 for s in entry["tile_seconds"]), entry
        parts = entry["plan_bytes"] + entry["footprint_bytes"] + entry["halo_bytes"]
        # the library goes once per run, counted in the first dispatch's row
        assert entry["bytes_sent"] > parts if row is rows[0] else entry["bytes_sent"] == parts, entry
        assert entry["bytes_back"] > 0 and entry["checked"] >= 0 and entry["wrong"] == 0, entry
    # the first dispatch sends its tiles the rows of the 16 × 16 I32 input they read (the
    # tiles' footprints overlap by a row); the output is not sent (every element is written)
    first = rows[0]["cluster"]
    assert 16 * 16 * 4 <= first["footprint_bytes"] <= 16 * 16 * 4 + 2 * 5 * 16 * 4, first
    # later ones nothing from memory: each worker holds its rows of both arrays, and gets
    # only the rows other workers wrote beside its own (the halo)
    for row in rows[2:]:
        entry = row["cluster"]
        assert entry["footprint_bytes"] == 0 and 0 < entry["halo_bytes"] <= 2 * 5 * 16 * 4, entry
        assert entry["resident_bytes"] >= 16 * 16 * 4 - entry["halo_bytes"], entry
    assert rows[0]["cluster"]["bytes_sent"] > max(row["cluster"]["bytes_sent"] for row in rows[1:])
    names = {w: f"w{k + 1}" for k, w in enumerate(sorted({w for row in rows for w in row["cluster"]["per_worker"]}))}
    total = sum(row["cluster"]["bytes_sent"] for row in rows)
    assert json.loads(json.dumps(data)) == data
    _validates_as_the_run_result_s_report(data)

    from cint_ls.running.report import _bytes, render_run_report

    lines = render_run_report(data).splitlines()
    (head,) = [line for line in lines if line.startswith("report: cluster ")]
    assert head.startswith(f"report: cluster {cluster.address}: the work-items of 40 recorded dispatches in "
                           f"240 tiles, 240 came back; workers: "), head
    assert f"; {_bytes(total)} sent, " in head and " per tile on its worker; of what the tiles read, " in head, head
    checked = sum(row["cluster"]["checked"] for row in rows)
    kept = sum(row["cluster"]["kept_bytes"] for row in rows)
    # every dispatch's output (16 x 16 I32) stays on the workers until the host reads it
    assert kept == 40 * 16 * 16 * 4, kept
    # from the second dispatch on, tiles go to their worker's handler (tile_calls.py) where
    # their windows need nothing from Dask (these tiles of 43 work-items read rows two
    # tiles away, some on the other worker: those go as tasks)
    called = sum(row["cluster"]["called"] for row in rows)
    assert rows[0]["cluster"]["called"] == 0 and called > 0, [row["cluster"]["called"] for row in rows]
    assert checked >= 2 and head.endswith(f"; {checked} tiles checked here, 0 wrong; {_bytes(kept)} of what they "
                                          f"wrote stayed on the workers; {called} tiles sent straight to their "
                                          "worker, not as Dask tasks"), head
    for worker, name in names.items():
        assert f"{name} {worker} (" in head, head
    columns = next(line for line in lines if "dispatch" in line and "kernel" in line)
    assert columns.split()[-10:] == ["tiles", "sent", "halo", "held", "back", "tile", "time", "tiles", "per",
                                     "worker"], columns
    body = [line for line in lines if line.startswith("report:   ") and "heat_tour.diffuse" in line]
    for line, row in zip(body, rows, strict=True):
        spread = ", ".join(f"{names[w]} {n}" for w, n in sorted(row["cluster"]["per_worker"].items(),
                                                                 key=lambda item: names[item[0]]))
        assert "  6/6  " in line and line.endswith(f"  {spread}"), (line, spread)
        assert f" {_bytes(row['cluster']['bytes_sent'])} " in line, line


def test_a_faulting_dispatch_reports_the_tiles_that_came_back(cluster):
    """heat_e1 faults in its one dispatch: the tiles above the faulting one are not
    waited for, their seconds are None; the text counts what came back."""
    path = CONFORMANCE / "heat_e1.ci"
    outcome = _reported(path, path.read_text(), {"cluster": cluster.address, "cluster_min": 2, "cluster_tiles": 4})
    assert outcome.result.fault is not None
    (row,) = outcome.run_report()["dispatches"]
    entry = row["cluster"]
    assert entry["tiles"] == 8 and 1 <= entry["tiles_back"] <= 8
    back = [s for s in entry["tile_seconds"] if s is not None]
    assert len(back) == sum(entry["per_worker"].values()) >= entry["tiles_back"]

    from cint_ls.running.report import render_run_report

    text = render_run_report(outcome.run_report())
    assert f"in 8 tiles, {entry['tiles_back']} came back;" in text
    assert f"  {entry['tiles_back']}/8  " in text


@pytest.mark.parametrize("fault", [8191, 4100, 0])
def test_generated_faulting_dispatches(cluster, tmp_path, fault):
    """A fault at the last, a middle and the first work-item of a large dispatch, in
    tiles of various sizes; a budget that runs out in a later tile."""
    text = SPIN.replace("LOOP", "50").replace("FAULT", str(fault))
    path = tmp_path / "spin.ci"
    path.write_text(text)
    single = _run(path, text, None, {"threads": 1})
    assert single.fault is not None and single.fault.code == "E_OVERFLOW"
    for tiles in (1, 3, 7):
        _same(_run(path, text, None, {"cluster": cluster.address, "cluster_min": 2, "cluster_tiles": tiles}),
              single)
    budget = 300000
    single = _run(path, text, budget, {"threads": 1})
    _same(_run(path, text, budget, {"cluster": cluster.address, "cluster_min": 2, "cluster_tiles": 4}), single)


def test_local_cluster_through_the_cli():
    """`cint run --cluster local:2`: the fault's report, exit status and stdout are
    cpu-c17's, byte for byte."""
    path = str(CONFORMANCE / "heat_e1.ci")
    env = dict(os.environ)
    tiled = subprocess.run([CINT, "run", "--cluster", "local:2", path],
                           capture_output=True, text=True, timeout=300, env=env, cwd=ROOT, check=False)
    single = subprocess.run([CINT, "run", "--executor", "cpu-c17", path],
                            capture_output=True, text=True, timeout=300, env=env, cwd=ROOT, check=False)
    assert tiled.returncode == single.returncode == 1, tiled.stderr
    assert (tiled.stdout, tiled.stderr) == (single.stdout, single.stderr)


@pytest.mark.parametrize("address", ["nonsense", "tcp://127.0.0.1", "http://127.0.0.1:8786", "local:0",
                                     "tcp://127.0.0.1:1"])
def test_bad_cluster_address_is_one_line_exit_3(address):
    done = subprocess.run([CINT, "run", "--cluster", address,
                           str(CONFORMANCE / "heat_tour.ci")], capture_output=True, text=True, timeout=120, cwd=ROOT, check=False)
    assert done.returncode == 3, done.stderr
    assert done.stdout == ""
    assert done.stderr.startswith("cint: error: ") and done.stderr.count("\n") == 1, done.stderr


def test_a_worker_killed_mid_dispatch(tmp_path):
    """One of two workers is killed while it runs a tile: Dask runs its tiles again on
    the other, and the outcome is cpu-c17's."""
    started = Cluster(tmp_path, 2)
    try:
        text = SPIN.replace("LOOP", "400000").replace("FAULT", "8000")
        path = tmp_path / "spin.ci"
        path.write_text(text)
        outcome: list = []
        runner = threading.Thread(target=lambda: outcome.append(
            _run(path, text, None, {"cluster": started.address, "cluster_min": 2, "cluster_tiles": 4})))
        runner.start()
        watcher = distributed.Client(started.address, timeout=20)
        killed = None
        deadline = time.monotonic() + 120
        while killed is None and time.monotonic() < deadline and runner.is_alive():
            for worker, tasks in watcher.processing().items():
                if any(str(t).startswith("cint-tile-") for t in tasks):
                    os.kill(started.pids[worker], signal.SIGKILL)
                    killed = worker
                    break
            time.sleep(0.02)
        assert killed is not None, "no tile was seen running"
        assert runner.is_alive(), "the run ended before the worker was killed"
        runner.join(timeout=300)
        watcher.close()
        assert outcome, "the run did not finish"
        tiled = outcome[0]
        single = _run(path, text, None, {"threads": 1})
        _same(tiled, single)
        assert single.fault is not None and single.fault.code == "E_OVERFLOW"
        note = _tiles_note(tiled)
        assert "run again here" not in note, note  # Dask re-ran the lost tiles: none fell back to the host
    finally:
        started.stop()


# 256 × 256 = 65,536 work-items: the least dispatch `cint run --cluster` sends (cluster.CLUSTER_MIN)
BIG_HEAT = (Path(__file__).parent / "big_heat.ci").read_text()


@pytest.mark.slow
def test_tls_takes_the_certificates_from_dask_s_settings(tmp_path):
    """A scheduler and a worker that speak only TLS (their certificate signed by itself,
    made here with openssl): `cint run --cluster tls://...` with Dask's TLS settings in
    the environment runs its tiles there, with cpu-c17's output; without them it is one
    line, exit 3, that names the settings."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is not installed: no certificate to test TLS with")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
                   capture_output=True, timeout=60, check=True)
    path = tmp_path / "heat256.ci"
    path.write_text(BIG_HEAT)
    started = Cluster(tmp_path, 1, tls=(cert, key))
    try:
        assert started.address.startswith("tls://127.0.0.1:")
        bare = {k: v for k, v in os.environ.items() if not k.startswith("DASK_")}
        env = dict(bare, DASK_DISTRIBUTED__COMM__TLS__CA_FILE=str(cert),
                   DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT=str(cert),
                   DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY=str(key))
        tiled = subprocess.run([CINT, "run", "--cluster", started.address, "--report=json", str(path)],
                               capture_output=True, text=True, timeout=300, env=env, cwd=ROOT, check=False)
        single = subprocess.run([CINT, "run", "--executor", "cpu-c17", str(path)],
                                capture_output=True, text=True, timeout=300, env=bare, cwd=ROOT, check=False)
        assert tiled.returncode == single.returncode == 0, tiled.stderr
        assert tiled.stdout == single.stdout and tiled.stdout.startswith("total=")
        rows = json.loads(tiled.stderr.splitlines()[-1])["dispatches"]
        assert len(rows) == 2
        for row in rows:
            assert row["cluster"]["cluster"] == started.address
            # 1 worker × 4, then as many as the first dispatch's times chose (at most 4)
            assert row["cluster"]["tiles"] == row["cluster"]["tiles_back"], row
            assert row["cluster"]["tiles"] == 4 if row is rows[0] else 1 <= row["cluster"]["tiles"] <= 4, row
            assert list(row["cluster"]["per_worker"]) == [next(iter(started.pids))], row
        refused = subprocess.run([CINT, "run", "--cluster", started.address, str(path)],
                                 capture_output=True, text=True, timeout=120, env=bare, cwd=ROOT, check=False)
        assert refused.returncode == 3 and refused.stdout == "", refused.stderr
        assert refused.stderr.count("\n") == 1 and refused.stderr.startswith(
            f"cint: error: cannot reach the Dask scheduler at {started.address}: "), refused.stderr
        assert "DASK_DISTRIBUTED__COMM__TLS__CA_FILE" in refused.stderr
    finally:
        started.stop()
