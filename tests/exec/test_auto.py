"""`--executor auto` (running/auto.py): what it chooses on a machine with and without a C
compiler or a GPU, what it learns from measured runs and keeps (the thresholds file),
that an explicit executor is never overridden, and that the choice never changes a
result (the conformance programs under auto give the reference's output)."""

from __future__ import annotations

import json
import os
import stat

import pytest
from conftest import CONFORMANCE, conformance_case, conformance_programs, matches_expected

from cint_ls.cli.main import main
from cint_ls.running import auto
from cint_ls.running.run import RunRequest, run

HEAT = CONFORMANCE / "heat_tour.ci"
HEAT_OUTPUT = "after 40 steps: total=60150 center=1042 edge=72\n"
COMPILER = (True, "cc 12")
NO_COMPILER = (False, "no C compiler found: install gcc or clang, or set CC")
GPU = (True, "a CUDA device")
NO_GPU = (False, "no CUDA driver (the NVIDIA driver library libcuda is not installed)")


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    """Every test keeps its measurements in a cache of its own (the C cache stays shared:
    XDG_CACHE_HOME moves both, so only the thresholds file is redirected)."""
    path = tmp_path / "auto" / auto.STORE_FILE
    monkeypatch.setattr(auto, "store_path", lambda: path)
    return path


def rows(kernel: str, n: int, seconds: float, count: int) -> list[dict]:
    return [{"number": k, "kernel": kernel, "work_items": n, "seconds": seconds, "fuel": n, "threads": 1}
            for k in range(count)]


# ---- the choice by what the machine has


def test_no_kernels_runs_on_the_cpu():
    assert auto.decide(False, None, None, compiler=COMPILER).executor == "cpu-c17"
    decision = auto.decide(False, None, None, compiler=NO_COMPILER)
    assert decision.executor == "cpu-sir-interp"
    assert decision.line == f"auto chose cpu-sir-interp: {NO_COMPILER[1]}; no kernels for a GPU"


def test_without_a_gpu_cpu_c17_where_there_is_a_compiler():
    decision = auto.decide(True, None, "ptx", compiler=COMPILER, gpu=NO_GPU, store={})
    assert decision.executor == "cpu-c17" and decision.key is None
    assert decision.why == f"a C compiler (cc 12); no GPU: {NO_GPU[1]}"
    assert auto.decide(True, None, "ptx", compiler=NO_COMPILER, gpu=NO_GPU, store={}).executor == "cpu-sir-interp"


def test_a_program_gpu_cuda_refuses_stays_on_the_cpu():
    decision = auto.decide(False, "neg.checked.i64 is not supported", "", compiler=COMPILER, gpu=GPU, store={})
    assert decision.executor == "cpu-c17"
    assert "gpu-cuda does not build this program: neg.checked.i64 is not supported" in decision.why


# ---- measurement (xc's "Which device"), with a GPU present


def test_measuring_then_deciding_without_measuring():
    store: dict = {}
    first = auto.decide(True, None, "ptx A", compiler=COMPILER, gpu=GPU, store=store)
    assert first.executor == "cpu-c17" and "not measured here yet" in first.why
    # 40 ms a dispatch on the CPU at a million work-items (the first dispatch, a warm-up, not counted).
    said = auto.learn(first, [{"kernel": "m.k", "work_items": 10**6, "seconds": 9.0}] + rows("m.k", 10**6, 0.04, 4),
                      faulted=False, store=store, save=False)
    assert said == "measured the CPU: 40 ms a dispatch at 1,000,000 work-items; the next run measures the GPU"
    second = auto.decide(True, None, "ptx A", compiler=COMPILER, gpu=GPU, store=store)
    assert second.executor == "gpu-cuda" and second.options == {"device": "cuda", "report": True}
    said = auto.learn(second, rows("m.k", 10**6, 0.008, 5), faulted=False, store=store, save=False)
    assert said.startswith("learned: the GPU wins at 1,000,000 work-items")
    third = auto.decide(True, None, "ptx A", compiler=COMPILER, gpu=GPU, store=store)
    assert third.executor == "gpu-cuda" and "the GPU won at 1,000,000 work-items" in third.why
    record = store[third.key]
    assert record["gpu_min"] == 10**6 and record.get("cpu_max") is None and record["measuring"] is None
    # Another program (other kernels) starts from nothing.
    assert "not measured here yet" in auto.decide(True, None, "ptx B", compiler=COMPILER, gpu=GPU, store=store).why


def test_a_quick_cpu_run_is_a_cpu_win_without_trying_the_gpu():
    store: dict = {}
    decision = auto.decide(True, None, "ptx", compiler=COMPILER, gpu=GPU, store=store)
    said = auto.learn(decision, rows("m.k", 256, 3e-6, 40), faulted=False, store=store, save=False)
    assert said.startswith("learned: the CPU wins at 256 work-items")
    again = auto.decide(True, None, "ptx", compiler=COMPILER, gpu=GPU, store=store)
    assert again.executor == "cpu-c17" and again.why.startswith("the CPU won at 256 work-items")


def test_a_slower_gpu_makes_a_cpu_win_and_a_contradiction_drops_the_other_number():
    store: dict = {}
    key = auto.program_key("ptx")
    store[key] = {"seen": 5000, "gpu_min": 4000, "measuring": None}
    decision = auto.decide(True, None, "ptx", compiler=COMPILER, gpu=GPU, store=store)
    assert decision.executor == "gpu-cuda"
    # The GPU run measures nothing (it was decided), but a CPU measurement at 5000 that
    # the GPU then loses to moves the numbers.
    store[key]["gpu_min"], store[key]["measuring"] = None, {"n": 5000, "cpu": 0.002}
    decision = auto.decide(True, None, "ptx", compiler=COMPILER, gpu=GPU, store=store)
    assert decision.executor == "gpu-cuda" and decision.why.startswith("measuring: the CPU took 2 ms")
    said = auto.learn(decision, rows("m.k", 5000, 0.01, 3), faulted=False, store=store, save=False)
    assert said.startswith("learned: the CPU wins at 5,000 work-items")
    assert store[key]["cpu_max"] == 5000 and store[key]["measuring"] is None


def test_a_size_far_from_the_one_measured_is_measured_again():
    store = {auto.program_key("ptx"): {"seen": 100_000, "measuring": {"n": 10_000, "cpu": 0.5}}}
    decision = auto.decide(True, None, "ptx", compiler=COMPILER, gpu=GPU, store=store)
    assert decision.executor == "cpu-c17" and decision.why.startswith("measuring: the CPU at 100,000")


def test_nothing_is_learned_from_a_fault_a_lone_dispatch_or_without_a_gpu():
    store: dict = {}
    decision = auto.decide(True, None, "ptx", compiler=COMPILER, gpu=GPU, store=store)
    assert auto.learn(decision, rows("m.k", 64, 1.0, 3), faulted=True, store=store, save=False) is None
    said = auto.learn(decision, rows("m.k", 64, 1.0, 1), faulted=False, store=store, save=False)
    assert said.startswith("not measured: each kernel was dispatched once")
    plain = auto.decide(True, None, "ptx", compiler=COMPILER, gpu=NO_GPU, store=store)
    assert auto.learn(plain, rows("m.k", 64, 1.0, 3), faulted=False, store=store, save=False) is None
    # A run whose dispatches went to a cluster (issue 19) measured the cluster.
    tiled = rows("m.k", 5000, 1.0, 3)
    tiled[-1]["cluster"] = {"tiles": 4}
    before = json.dumps(store, sort_keys=True)
    said = auto.learn(decision, tiled, faulted=False, store=store, save=False)
    assert said == "not measured: the dispatches ran on a cluster" and json.dumps(store, sort_keys=True) == before


def test_the_key_changes_with_the_hardware(monkeypatch):
    before = auto.program_key("ptx")
    monkeypatch.setattr(auto, "_gpu_models", lambda: ["NVIDIA H200"])
    assert auto.program_key("ptx") != before
    assert auto.program_key("ptx").split("-")[1] == before.split("-")[1]  # the kernels' half


def test_warm_up_dispatches_are_not_counted():
    log = [{"kernel": "a", "work_items": 10, "seconds": 5.0}, {"kernel": "b", "work_items": 30, "seconds": 7.0},
           {"kernel": "a", "work_items": 10, "seconds": 1.0}, {"kernel": "b", "work_items": 30, "seconds": 3.0}]
    assert auto.measure(log) == (30, 2.0, 2)
    assert auto.measure(log[:2]) == (30, None, 0)


# ---- the thresholds file


def test_the_store_is_kept_private_and_a_damaged_one_is_ignored(private_cache):
    auto.save_store({"k": {"seen": 5, "used": 1.0}})
    assert auto.load_store() == {"k": {"seen": 5, "used": 1.0}}
    assert stat.S_IMODE(os.stat(private_cache.parent).st_mode) == 0o700
    for damaged in ("{not json", json.dumps([1, 2]), json.dumps({"version": 99, "programs": {}}), "\xff"):
        private_cache.write_text(damaged)
        assert auto.load_store() == {}
    private_cache.unlink()
    assert auto.load_store() == {}


def test_the_store_keeps_the_most_recently_used(monkeypatch):
    monkeypatch.setattr(auto, "STORE_ENTRIES", 3)
    auto.save_store({f"k{n}": {"used": float(n)} for n in range(6)})
    assert sorted(auto.load_store()) == ["k3", "k4", "k5"]


# ---- through the façade and the CLI


@pytest.mark.needs_cc
def test_cint_run_without_flags_runs_on_cpu_c17_here_and_says_so(capsys, monkeypatch):
    monkeypatch.chdir(CONFORMANCE)
    assert main(["run", "--report", "heat_tour.ci"]) == 0
    out, err = capsys.readouterr()
    assert out == HEAT_OUTPUT
    lines = err.splitlines()
    assert lines[0].startswith("report: auto chose cpu-c17: a C compiler (")
    assert lines[1].startswith("report: cpu-c17 on cpu, finished in ") and lines[1].endswith(", fuel 10261, 40 dispatches")
    assert lines[2].split() == ["report:", "dispatch", "kernel", "work-items", "threads", "time", "fuel"]
    assert len(lines) == 3 + 40 and lines[3].split()[1:4] == ["0", "heat_tour.diffuse", "256"]


def test_without_a_compiler_auto_runs_the_reference_and_says_why(capsys, monkeypatch):
    monkeypatch.chdir(CONFORMANCE)
    monkeypatch.setenv("CC", "/nonexistent/cc")
    assert main(["run", "--report=json", "heat_tour.ci"]) == 0
    out, err = capsys.readouterr()
    assert out == HEAT_OUTPUT
    report = json.loads(err.splitlines()[-1])
    assert report["executor"] == "cpu-sir-interp" and report["chosen"] == "auto"
    assert report["auto"]["reason"].startswith("no C compiler found: CC=/nonexistent/cc does not name a program")
    assert report["decision"].startswith("auto chose cpu-sir-interp: no C compiler found")
    assert len(report["dispatches"]) == report["dispatch_count"] == report["recorded"] == 40
    first = report["dispatches"][0]
    assert {k: first[k] for k in ("number", "kernel", "executor", "device", "work_items", "threads", "fuel")} == {
        "number": 0, "kernel": "heat_tour.diffuse", "executor": "cpu-sir-interp", "device": "cpu",
        "work_items": 256, "threads": 1, "fuel": 256}
    assert first["seconds"] > 0


def test_an_explicit_executor_is_never_overridden(capsys, monkeypatch):
    monkeypatch.chdir(CONFORMANCE)
    assert main(["run", "--executor", "cpu-sir-interp", "--report=json", "heat_e1.ci"]) == 1
    out, err = capsys.readouterr()
    report = json.loads(err.splitlines()[-1])
    assert report["executor"] == "cpu-sir-interp" and report["auto"] is None and report["chosen"] == "named"
    assert report["outcome"] == "E_OVERFLOW" and report["fuel"] == 65
    assert err.startswith("fault[E_OVERFLOW]")  # the fault report comes first, the run report last


def test_the_report_leaves_stdout_alone(capsys, monkeypatch):
    monkeypatch.chdir(CONFORMANCE)
    main(["run", "--executor", "cpu-sir-interp", "heat_spot.ci"])
    plain = capsys.readouterr()
    main(["run", "--executor", "cpu-sir-interp", "--report", "heat_spot.ci"])
    reported = capsys.readouterr()
    assert reported.out == plain.out and reported.err.startswith(plain.err) and "report: " in reported.err


def test_an_entry_phase_fault_has_no_work_item_count():
    text = (CONFORMANCE / "shape_rt.ci").read_text()
    outcome = run(RunRequest("shape_rt.ci", text, "cpu-sir-interp", report=True))
    row = outcome.run_report()["dispatches"][-1]
    assert row["work_items"] is None and outcome.result.fault.code == "E_SHAPE"


def test_a_bad_report_form_is_one_line(capsys):
    assert main(["run", "--report=yaml", str(HEAT)]) == 2
    assert capsys.readouterr().err == "cint: error: --report=yaml: the report is text (--report) or JSON (--report=json)\n"


def test_check_under_auto_compares_with_the_reference(capsys, monkeypatch):
    monkeypatch.chdir(CONFORMANCE)
    assert main(["run", "--check", "gpu-cuda", "--device", "sim", "--report", "heat_spot.ci"]) == 0
    err = capsys.readouterr().err
    assert "check: cpu-sir-interp and gpu-cuda agree at 5 boundaries" in err
    assert "report: auto chose cpu-sir-interp: the check compares gpu-cuda with the reference" in err
    assert "report: check: gpu-cuda on the simulated device" in err


@pytest.mark.needs_cc
def test_the_measured_loop_with_a_gpu_gives_the_same_result(monkeypatch, private_cache):
    """With a device (here the simulated one standing in for a GPU) auto measures the CPU,
    then the GPU, keeps the winner, and every run prints the same."""
    monkeypatch.setattr(auto, "gpu_status", lambda timeout=None: (True, "a test device"))
    monkeypatch.setattr(auto, "GPU_DEVICE", "sim")
    monkeypatch.setattr(auto, "CPU_WIN_SECONDS", 0.0)  # never a CPU win without trying the GPU
    text = HEAT.read_text()
    chosen = []
    for _ in range(3):
        outcome = run(RunRequest("heat_tour.ci", text, "auto"))
        assert outcome.result is not None and outcome.result.output == HEAT_OUTPUT
        assert outcome.result.fault is None and outcome.result.fuel_consumed == 10261
        chosen.append((outcome.executor, outcome.auto.learned))
    assert chosen[0][0] == "cpu-c17" and chosen[0][1].startswith("measured the CPU: ")
    assert chosen[1][0] == "gpu-cuda" and chosen[1][1].startswith("learned: the ")
    winner = "cpu-c17" if "the CPU wins" in chosen[1][1] else "gpu-cuda"
    assert chosen[2][0] == winner
    kept = json.loads(private_cache.read_text())["programs"]
    assert len(kept) == 1 and next(iter(kept.values()))["seen"] == 256


def test_a_program_beyond_cpu_c17_runs_on_the_reference(monkeypatch):
    """cpu-c17 refuses a kernel of more than 64 parameters (its README, "Limits"): auto
    runs the reference instead and says why."""
    params = ", ".join(f"I64 p{k}" for k in range(65))
    args = ", ".join(str(k) for k in range(65))
    text = (f"kernel wide[n]({params}, out I64[n] o) over [i: n] {{ o[i] = p64; }}\n"
            f"I64[4] o;\nwide({args}, o);\n\"{{o[3]}}\\n\";\n")
    monkeypatch.setattr(auto, "compiler_status", lambda: COMPILER)
    outcome = run(RunRequest("wide.ci", text, "auto"))
    assert outcome.diagnostics == [], outcome.diagnostics
    assert outcome.executor == "cpu-sir-interp" and outcome.result.output == "64\n"
    assert outcome.auto.why.startswith("cpu-c17 cannot translate this program")


def test_a_program_beyond_gpu_cudas_host_runs_on_the_reference(monkeypatch):
    """gpu-cuda's host is the program's C: where auto chose gpu-cuda (a GPU measured
    faster) for a program whose host code cpu-c17 cannot translate (a rank-9 array), the
    reference runs it, as for cpu-c17, and auto says why."""
    import cint_ls.running.run as running

    monkeypatch.setattr(running, "choose", lambda built: auto.Decision(auto.GPU, "a GPU is here (test)"))
    text = 'I64[1,1,1,1,1,1,1,1,2] a;\na[0,0,0,0,0,0,0,0,1] = 5;\n"{a[0,0,0,0,0,0,0,0,1]}\\n";\n'
    outcome = run(RunRequest("rank9.ci", text, "auto"))
    assert outcome.executor == "cpu-sir-interp" and outcome.result.output == "5\n"
    assert outcome.auto.why.startswith("gpu-cuda's host is the program's C, and cpu-c17 cannot translate")


def _conformance_under_auto(capsys, monkeypatch, path):
    monkeypatch.chdir(path.parent)
    args, expected = conformance_case(path)
    code = main(["run", path.name, *args])
    out, err = capsys.readouterr()
    assert matches_expected(expected, out + err), f"--- expected\n{expected}\n--- actual\n{out + err}"
    if expected.startswith(("fault[", "error[")) or "\nfault[" in expected:
        assert code == (2 if "error[" in expected else 1)
    else:
        assert code == 0


SAMPLE = ("heat_tour", "heat_e1", "shape_rt", "budget", "acc")


@pytest.mark.parametrize("path", [p for p in conformance_programs() if p.stem in SAMPLE], ids=lambda p: p.stem)
def test_conformance_sample_under_auto(capsys, monkeypatch, path):
    _conformance_under_auto(capsys, monkeypatch, path)


@pytest.mark.slow
@pytest.mark.parametrize("path", conformance_programs(), ids=lambda p: p.stem)
def test_conformance_under_auto(capsys, monkeypatch, path):
    """The choice never changes a result: every case under `cint run` without flags."""
    _conformance_under_auto(capsys, monkeypatch, path)
