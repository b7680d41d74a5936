"""The differential fuzzer of the executors (fuzz/exec.py, issue 13): its
generator writes programs the checker accepts (and gpu-cuda admits, when they are meant
for it), and a short fixed-seed run finds no mismatch, crash, hang or reject. The long
runs are `python -m fuzz.exec --seconds N --seed S`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import fuzz.exec
import fuzz.gen
from cint_ls.ir.build import build
from cint_ls.running.entry import refusal

ROOT = Path(__file__).resolve().parents[1]


def test_generated_programs_check_clean_and_gpu_programs_are_admitted():
    gpu = 0
    for i in range(60):
        program = fuzz.gen.generate(f"check:{i}")
        built = build(program.text, fuzz.gen.PATH)
        assert built.program is not None, (f"seed check:{i} is rejected: "
                                           f"{[(d.code, d.span.line, d.message) for d in built.checked.errors]}")
        if program.gpu:
            gpu += 1
            found = refusal(built, "gpu-cuda")
            assert found is None, f"seed check:{i} was meant for gpu-cuda, which refuses it: {found.message}"
    assert 10 <= gpu <= 50


def test_the_generator_is_deterministic_and_varied():
    a, b = fuzz.gen.generate("same"), fuzz.gen.generate("same")
    assert a.text == b.text
    texts = {fuzz.gen.generate(f"vary:{i}").text for i in range(10)}
    assert len(texts) == 10
    # the names that once collided in the emitted C are among those it uses
    joined = "\n".join(fuzz.gen.generate(f"names:{i}").text for i in range(40))
    for name in ("kernel a[", "kernel a_run[", "kernel a_params[", " f(", " f_c("):
        assert name in joined, name


def test_views_footprints():
    whole = fuzz.gen.ViewShape.whole([2, 3])
    assert whole.footprint() == set(range(6))
    column = fuzz.gen.ViewShape(1, [2], [3])  # m[.., 1]
    assert column.footprint() == {1, 4}
    assert fuzz.gen.ViewShape(0, [0, 3], [3, 1]).footprint() == set()


@pytest.mark.needs_cc
def test_a_short_fixed_seed_run_agrees(tmp_path):
    stats = fuzz.exec.fuzz(seconds=60, seed="pytest", jobs=1, out_dir=tmp_path, limit=3)
    assert stats.programs == 3
    assert stats.rejects == 0, stats.findings
    assert stats.mismatches == 0 and stats.crashes == 0 and stats.hangs == 0, stats.report(0, "test")
    assert stats.runs >= 6
    assert "cpu-c17" in stats.codes and "cpu-sir-interp" in stats.codes
    assert not list(tmp_path.iterdir())


@pytest.mark.needs_cc
def test_a_written_program_replays(tmp_path, capsys):
    program = fuzz.gen.generate("pytest:replay")
    path = tmp_path / "replay_me.ci"
    path.write_text(program.text)
    assert fuzz.exec.replay(path) == 0
    out = capsys.readouterr().out
    assert "cpu-c17" in out and "agree" in out


@pytest.mark.needs_cc
def test_a_program_past_its_time_limit_is_a_hang_written_for_replay(tmp_path):
    stats = fuzz.exec.fuzz(seconds=30, seed="pytest", jobs=1, out_dir=tmp_path, limit=1, program_timeout=0.05)
    assert stats.hangs == 1 and stats.failed
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == ["hang_pytest_0.ci", "hang_pytest_0.json"]
    assert (tmp_path / "hang_pytest_0.ci").read_text() == fuzz.gen.generate("pytest:0").text


@pytest.mark.slow
@pytest.mark.needs_cc
def test_a_longer_run_agrees(tmp_path):
    stats = fuzz.exec.fuzz(seconds=240, seed="pytest-slow", jobs=1, out_dir=tmp_path, limit=60)
    assert stats.rejects == 0, stats.findings
    assert stats.mismatches == 0 and stats.crashes == 0 and stats.hangs == 0, stats.report(0, "test")
    assert stats.gpu_ran > 0 and stats.refused > 0


@pytest.mark.slow  # about 25 s: two programs in eight configurations
def test_late_fault_programs_are_generated_and_every_executor_stops():
    # Issue 28, finding 9: the `late` finale (a low work-item faults, higher ones loop
    # for ever without a budget) runs on cpu-c17's pool and gpu-cuda's interleaving
    # schedules too; each seed below is one (a fold's overflow, a division by zero, for
    # gpu-cuda), and every configuration agrees with the reference instead of hanging.
    seeds = ["late:292", "late:229"]
    for seed in seeds:
        assert fuzz.gen.generate(seed).finale == "late" and fuzz.gen.generate(seed).gpu
    # -P and append: the repository's root only for `fuzz`, `cint_ls` the installed one.
    child = ("import json, sys; sys.path.append(sys.argv[1]); import fuzz.exec; "
             "print(json.dumps([fuzz.exec.fuzz_one(s) for s in sys.argv[2:]], default=str))")
    try:
        done = subprocess.run([sys.executable, "-P", "-c", child, str(ROOT), *seeds], capture_output=True, text=True,
                              timeout=120)
    except subprocess.TimeoutExpired:
        raise AssertionError("a program with a fault found late did not finish: it hangs") from None
    assert done.returncode == 0, done.stderr
    for result in json.loads(done.stdout):
        assert result["status"] == "ok", result
        options = [run["config"]["options"] for run in result["runs"]]
        assert {"threads", "parallel_min", "chunk_min"} <= set().union(*options)
        assert any(o.get("order") == "adversarial" for o in options)
        assert all(run["status"] == "agree" for run in result["runs"]), result
