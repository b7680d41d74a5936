"""`auto`'s thresholds file (running/auto.py, docs/cli.md "auto") as data from outside
(issue 28, finding 8): every value read is validated and anything absurd is ignored as if
never learned; nothing absurd is written back; concurrent runs lose no update (a lock);
a stuck lock or a directory in the file's place costs a run nothing and leaves nothing
behind."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
import threading
import time

import pytest

from cint_ls.running import auto

COMPILER = (True, "cc 12")
GPU = (True, "a CUDA device")


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    path = tmp_path / "auto" / auto.STORE_FILE
    monkeypatch.setattr(auto, "store_path", lambda: path)
    return path


def rows(n: int, seconds: float, count: int = 3) -> list[dict]:
    return [{"number": k, "kernel": "m.k", "work_items": n, "seconds": seconds} for k in range(count)]


def decide():
    return auto.decide(True, None, "ptx", compiler=COMPILER, gpu=GPU)


def write_record(path, record_text: str) -> None:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    key = auto.program_key("ptx")
    path.write_text(f'{{"version": 1, "programs": {{"{key}": {record_text}}}}}')


def strict_json(text: str):
    def refuse(name):
        raise AssertionError(f"{name} in the thresholds file")
    return json.loads(text, parse_constant=refuse)


ABSURD = ["NaN", "-Infinity", "Infinity", "-5000", "0", "1e400", "123456789012345678901234567890",
          '"5000"', "null", "true", "5000.5", "[5000]", "{}"]


@pytest.mark.parametrize("value", ABSURD)
def test_absurd_threshold_values_are_ignored_as_if_unlearned_and_never_written_back(private_cache, value):
    unlearned = {}
    # The GPU's smallest win: "the GPU won at -inf work-items" must not be acted on.
    for field, alone in (("gpu_min", '"seen": 5000'), ("cpu_max", '"seen": 5000'), ("seen", '"gpu_min": 4000')):
        write_record(private_cache, f'{{{alone}}}')
        unlearned[field] = decide()
        write_record(private_cache, f'{{{alone}, "{field}": {value}}}')
        decision = decide()
        assert (decision.executor, decision.why) == (unlearned[field].executor, unlearned[field].why), field
        assert "inf" not in decision.line and "nan" not in decision.line
    # A CPU measurement in progress with an absurd time or size is no measurement.
    absurd_seconds = [] if value == "5000.5" else [f'{{"n": 5000, "cpu": {value}}}']  # 5000.5 s is sane
    for measuring in (*absurd_seconds, f'{{"n": {value}, "cpu": 0.002}}', value):
        write_record(private_cache, f'{{"seen": 5000, "measuring": {measuring}}}')
        decision = decide()
        assert decision.executor == "cpu-c17" and decision.why.startswith("measuring: the CPU at 5,000"), measuring
    # Learning from the damaged record writes back only what is valid.
    write_record(private_cache, f'{{"seen": {value}, "cpu_max": {value}, "gpu_min": {value}, '
                                f'"measuring": {{"n": {value}, "cpu": {value}}}, "used": {value}}}')
    decision = decide()
    said = auto.learn(decision, rows(5000, 0.004), faulted=False)
    assert said == "measured the CPU: 4 ms a dispatch at 5,000 work-items; the next run measures the GPU"
    kept = strict_json(private_cache.read_text())["programs"][decision.key]
    assert kept["seen"] == 5000 and kept["measuring"] == {"n": 5000, "cpu": 0.004}
    assert "cpu_max" not in kept and "gpu_min" not in kept and 0 < kept["used"] <= time.time()


def test_contradicting_thresholds_in_the_file_are_both_ignored(private_cache):
    write_record(private_cache, '{"seen": 5000}')
    unlearned = decide()
    write_record(private_cache, '{"seen": 5000, "cpu_max": 6000, "gpu_min": 4000}')
    assert decide().why == unlearned.why


DAMAGED = {
    "not JSON": b"{not json",
    "a list": b"[1, 2]",
    "a string": b'"thresholds"',
    "another version": b'{"version": 99, "programs": {}}',
    "a true version": b'{"version": true, "programs": {}}',
    "programs a list": b'{"version": 1, "programs": []}',
    "binary": bytes(range(256)) * 4,
    "deeply nested": b"[" * 100_000 + b"]" * 100_000,
    "an integer of 5,000 digits": b'{"version": 1, "programs": {}, "x": ' + b"9" * 5000 + b"}",
    "over the size limit": b'{"version": 1, "programs": {}, "x": "' + b" " * (9 << 20) + b'"}',
}


@pytest.mark.parametrize("content", DAMAGED.values(), ids=DAMAGED.keys())
def test_a_damaged_thresholds_file_is_treated_as_empty(private_cache, content):
    private_cache.parent.mkdir(mode=0o700, parents=True)
    private_cache.write_bytes(content)
    assert auto.load_store() == {}
    decision = decide()
    assert decision.why.startswith("a CUDA device present, but this program was not measured here yet")
    auto.learn(decision, rows(64, 1e-6), faulted=False)  # rewritten, valid
    assert list(strict_json(private_cache.read_text())["programs"]) == [decision.key]


def test_a_fifo_in_the_files_place_does_not_hang_a_run(private_cache):
    private_cache.parent.mkdir(mode=0o700, parents=True)
    os.mkfifo(private_cache)
    found = []
    reader = threading.Thread(target=lambda: found.append(auto.load_store()), daemon=True)
    reader.start()
    reader.join(5.0)
    if reader.is_alive():  # let the stuck open go before failing
        os.close(os.open(private_cache, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("reading a FIFO at the thresholds file's place hung")
    assert found == [{}]


def _learn_many(worker: int, count: int) -> None:
    for k in range(count):
        decision = auto.Decision("cpu-c17", "test", key=f"w{worker}-{k}", cpu="cpu-c17")
        said = auto.learn(decision, rows(64, 1e-6), faulted=False)
        assert said is not None and "not kept" not in said, said


@pytest.mark.parametrize("count", [50, pytest.param(200, marks=pytest.mark.slow)])
def test_concurrent_runs_lose_no_learned_threshold(private_cache, monkeypatch, count):
    """4 processes x `count` learns, each of a program of its own: all are kept (the
    read-modify-write is under the lock; before it, 336 of 4 x 200 were)."""
    monkeypatch.setattr(auto, "LOCK_WAIT", 60.0, raising=False)  # this test counts updates, not deadlines
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_learn_many, args=(w, count)) for w in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
    assert [w.exitcode for w in workers] == [0, 0, 0, 0]
    kept = strict_json(private_cache.read_text())["programs"]
    assert sorted(kept) == sorted(f"w{w}-{k}" for w in range(4) for k in range(count))
    assert [p.name for p in private_cache.parent.iterdir() if p.name.startswith(".thresholds-")] == []


def test_a_held_lock_does_not_hang_a_run_and_nothing_is_kept(private_cache):
    private_cache.parent.mkdir(mode=0o700, parents=True)
    lock = private_cache.parent / "thresholds.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, os, sys, time\n"
         f"fd = os.open({str(lock)!r}, os.O_RDWR | os.O_CREAT, 0o600)\n"
         "fcntl.flock(fd, fcntl.LOCK_EX)\nprint('held', flush=True)\ntime.sleep(60)\n"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        decision = decide()
        started = time.monotonic()
        said = auto.learn(decision, rows(64, 1e-6), faulted=False)
        assert time.monotonic() - started < auto.LOCK_WAIT + 2.0
        assert said == ("learned: the CPU wins at 64 work-items (2 dispatches in 0.002 ms); not kept: another "
                        f"run held the thresholds file's lock for over {auto.LOCK_WAIT:g} s")
        assert not private_cache.exists()  # the holder's update is not overwritten
    finally:
        holder.kill()
        holder.wait()
    assert auto.learn(decide(), rows(64, 1e-6), faulted=False).startswith("learned: the CPU wins at 64")
    assert private_cache.exists()


def test_a_directory_in_the_files_place_leaves_no_temporary_file(private_cache):
    private_cache.mkdir(parents=True)
    for _ in range(5):
        decision = decide()
        said = auto.learn(decision, rows(64, 1e-6), faulted=False)
        assert said.endswith("; not kept: a directory stands in the thresholds file's place")
    assert sorted(p.name for p in private_cache.parent.iterdir()) == ["thresholds.json", "thresholds.lock"]
    assert private_cache.is_dir() and list(private_cache.iterdir()) == []


def test_temporary_files_left_by_an_earlier_run_are_removed(private_cache):
    private_cache.parent.mkdir(mode=0o700, parents=True)
    (private_cache.parent / ".thresholds-abc123").write_text("{")
    auto.learn(decide(), rows(64, 1e-6), faulted=False)
    assert sorted(p.name for p in private_cache.parent.iterdir()) == ["thresholds.json", "thresholds.lock"]
