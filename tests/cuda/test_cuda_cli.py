"""`cint run --executor gpu-cuda`, `cint emit-ptx`, `cint run --check gpu-cuda`, and the
isolated run the editor's lens uses."""

from __future__ import annotations

import pytest
from conftest import CONFORMANCE
from cuda_support import program_of

from cint_ls.cli.main import main
from cint_ls.exec.cuda.ptx import emit_module
from cint_ls.running.isolated import Request, run_isolated
from cint_ls.running.report import render
from cint_ls.syntax import SourceText


def cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_emit_ptx_prints_the_module(capsys):
    path = CONFORMANCE / "heat_e1.ci"
    code, out, err = cli(capsys, "emit-ptx", str(path))
    assert code == 0 and err == ""
    assert out == emit_module(program_of(path.read_text(), str(path))).text
    assert out == cli(capsys, "emit-ptx", str(path))[1]  # deterministic


def test_emit_ptx_without_kernels(capsys, tmp_path):
    path = tmp_path / "plain.ci"
    path.write_text('"hello\\n";\n')
    code, out, err = cli(capsys, "emit-ptx", str(path))
    assert code == 0 and out == "" and "defines no kernel" in err


@pytest.mark.parametrize("name,capability,position", [
    ("ops_kernel.ci", "neg", "3:13"),
    ("narrow_out.ci", "div", "2:17"),
    ("wide_kernel.ci", "wide", None),
])
@pytest.mark.parametrize("command", [("run", "--executor", "gpu-cuda"), ("emit-ptx",)])
def test_refusals_name_the_capability(capsys, monkeypatch, name, capability, position, command):
    monkeypatch.chdir(CONFORMANCE)
    code, out, err = cli(capsys, *command, name)
    assert code == 2 and out == ""
    first = err.splitlines()[0]
    assert first.startswith("error[E_UNSUPPORTED]: gpu-cuda refuses kernel `")
    assert f"capability `{capability}`" in first
    if position is not None:
        assert first.endswith(f"at {name}:{position}") and f"  --> {name}:{position}" in err


def test_a_u8_copy_is_refused_at_its_store(capsys, tmp_path):
    path = tmp_path / "copy8.ci"
    path.write_text("kernel copy[n](in U8[n] a, out U8[n] b) over [i: n] {\n    b[i] = a[i];\n}\n\n"
                    "void go() { U8[2] a = [1, 2]; U8[2] b; copy(a, b); \"{b[1]}\\n\"; }\ngo();\n")
    code, out, err = cli(capsys, "run", "--executor", "gpu-cuda", str(path))
    assert code == 2
    assert "capability `store.narrow`" in err and f"{path}:2:6" in err.splitlines()[0]
    assert cli(capsys, "run", str(path))[1] == "2\n"  # the interpreter runs it


def test_run_with_options_and_verbose_notes(capsys, monkeypatch):
    monkeypatch.chdir(CONFORMANCE)
    code, out, err = cli(capsys, "run", "--executor", "gpu-cuda", "--device", "sim", "--block-size", "32",
                         "--order", "shuffled", "--seed", "4", "--verbose", "heat_tour.ci")
    assert code == 0 and out == "after 40 steps: total=60150 center=1042 edge=72\n"
    assert err.splitlines() == ["note: gpu-cuda ran on the simulated device, shuffled order (seed 4)",
                                "note: block size 32; 40 launches for 40 dispatches"]
    code, out, err = cli(capsys, "run", "--executor", "gpu-cuda", "--device", "sim", "heat_tour.ci")
    assert code == 0 and err == ""  # the simulated device was asked for: no note


def test_bad_block_size_is_one_line(capsys, monkeypatch):
    monkeypatch.chdir(CONFORMANCE)
    code, out, err = cli(capsys, "run", "--executor", "gpu-cuda", "--device", "sim", "--block-size", "0",
                         "scale.ci")
    assert code == 2 and err == "cint: error: --block-size takes 1 to 1024 work-items\n"


@pytest.mark.parametrize("name,code,boundaries", [
    ("heat_e2.ci", 1, "1 boundary"),      # faults in dispatch 0: only the end
    ("heat_spot.ci", 0, "5 boundaries"),  # 4 published dispatches and the end
    ("budget.ci", 1, "1 boundary"),
])
def test_check_gpu_cuda_agrees(capsys, monkeypatch, name, code, boundaries):
    """gpu-cuda's host traces like the reference: compared at every published dispatch."""
    monkeypatch.chdir(CONFORMANCE)
    got, out, err = cli(capsys, "run", "--executor", "cpu-sir-interp", "--check", "gpu-cuda", "--device", "sim", name)
    assert got == code
    assert err.endswith(f"check: cpu-sir-interp and gpu-cuda agree at {boundaries}\n")
    reference = cli(capsys, "run", name)
    assert out == reference[1] and err.startswith(reference[2])


def test_check_gpu_cuda_on_a_refused_program(capsys, monkeypatch):
    monkeypatch.chdir(CONFORMANCE)
    code, out, err = cli(capsys, "run", "--check", "gpu-cuda", "ops_kernel.ci")
    assert code == 0 and out == "19 35 39\n"
    assert err.startswith("check: gpu-cuda does not build this program: ")


def test_host_status_report():
    from cint_ls.exec.faults import Address, FaultRecord

    text = (CONFORMANCE / "heat_spot.ci").read_text()
    source = SourceText(text, "heat_spot.ci")
    line = text[:text.index("diffuse(a")].count("\n") + 1
    span = source.span(text.index("diffuse(a"), text.index("diffuse(a") + 7)
    record = FaultRecord("CINT_RESOURCE", "host.resource", (), None, None, span, (),
                         Address("heat_spot.diffuse", 1, 1), (), 64,
                         ("CUDA_ERROR_LAUNCH_TIMEOUT: the launch timed out and was terminated (cuCtxSynchronize)",))
    report = render(source, record)
    assert report.startswith("host[CINT_RESOURCE]: the device failed; the entry ended (not a cint fault)\n")
    assert f"  --> heat_spot.ci:{line}:" in report
    assert "= operation: host.resource" in report
    assert "= detail: CUDA_ERROR_LAUNCH_TIMEOUT" in report
    assert "= address: heat_spot.diffuse, dispatch 1, phase 1, work-item none, step none" in report


def test_isolated_run_on_the_simulated_device():
    """What the editor's `▶ Run on gpu-cuda` lens does."""
    text = (CONFORMANCE / "heat_e9.ci").read_text()
    result = run_isolated(Request.of_text("gpu-cuda", "heat_e9.ci", text, options={"device": "sim"}), time_limit=60)
    assert result.executor == "gpu-cuda"
    assert result.notes[0] == "gpu-cuda ran on the simulated device"
    assert result.fault.code == "E_DIV_ZERO" and result.fault.address.work_item == 9


def test_the_benchmark_says_it_needs_a_gpu_and_runs_on_the_simulated_device():
    import subprocess
    import sys
    from pathlib import Path

    from cint_ls.exec.cuda.device import DeviceUnavailable
    from cint_ls.exec.cuda.oracle.driver import CudaDevice

    script = str(Path(__file__).resolve().parents[2] / "benchmarks" / "heat_gpu.py")
    done = subprocess.run([sys.executable, script, "--device", "sim", "--size", "16", "--repeat", "1"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "on the simulated device" in done.stdout and "gpu-cuda, kernel with its whole reduction" in done.stdout
    assert "gpu-cuda, whole dispatch (C host" in done.stdout or "gpu-cuda, whole dispatch: skipped" in done.stdout
    assert "results: identical to the reference interpreter's" in done.stdout
    try:
        CudaDevice().close()
    except DeviceUnavailable:
        done = subprocess.run([sys.executable, script], capture_output=True, text=True, timeout=120)
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.startswith("heat_gpu: this benchmark needs an NVIDIA GPU")
        assert done.stderr.count("\n") == 1, done.stderr  # one line


def test_a_driver_error_ends_the_run_with_exit_3(capsys, monkeypatch):
    """A host status is a result: the CLI prints it as `host[CINT_RESOURCE]` and exits 3.
    gpu-cuda runs in a child process, so the failing device is injected into an
    in-process run of the façade, whose outcome the CLI then prints."""
    import cint_ls.cli.commands as commands
    import cint_ls.exec.cuda as cuda
    from cint_ls.exec.cuda.simulator import SimulatedDevice
    from cint_ls.running import run as facade

    monkeypatch.setattr(cuda, "SimulatedDevice", lambda order, seed: SimulatedDevice(fail_launch=1))
    monkeypatch.setattr(commands, "run_request",
                        lambda request: facade.run(__import__("dataclasses").replace(request, isolate=False)))
    monkeypatch.chdir(CONFORMANCE)
    code, out, err = cli(capsys, "run", "--executor", "gpu-cuda", "--device", "sim", "heat_spot.ci")
    assert code == 3
    assert out == "center 32768, neighbors 8192 8192 8192 8192, total 65536\n"  # dispatch 0 published
    assert err.startswith("host[CINT_RESOURCE]: the device failed; the entry ended (not a cint fault)\n")
    assert "= operation: host.resource" in err and "LAUNCH_TIMEOUT" in err
    assert "= address: heat_spot.diffuse, dispatch 1, phase 1, work-item none, step none" in err
    assert "None" not in err


def test_gpu_cuda_runs_in_a_child_process(monkeypatch):
    """[ARCHITECTURE "Isolated runs"] a native executor never runs in the CLI's process."""
    import cint_ls.exec.cuda as cuda
    from cint_ls.running.run import RunRequest, run

    def boom(*args, **kwargs):
        raise AssertionError("gpu-cuda ran in the calling process")

    monkeypatch.setattr(cuda, "run", boom)
    text = (CONFORMANCE / "scale.ci").read_text()
    outcome = run(RunRequest("scale.ci", text, "gpu-cuda", options={"gpu-cuda": {"device": "sim"}}))
    assert outcome.result is not None and outcome.error is None


@pytest.mark.needs_cc
def test_check_names_the_executors_it_compared(capsys, monkeypatch):
    """`--executor cpu-c17 --check gpu-cuda` compares those two, not the reference."""
    monkeypatch.chdir(CONFORMANCE)
    code, out, err = cli(capsys, "run", "--executor", "cpu-c17", "--check", "gpu-cuda", "--device", "sim",
                         "heat_spot.ci")
    assert code == 0
    assert err.endswith("check: cpu-c17 and gpu-cuda agree at 5 boundaries\n")


def test_the_cli_offers_every_order_of_the_simulated_device(capsys, monkeypatch):
    """`--order` lists exec/cuda/device.py's ORDERS (the interleaving ones of issue 16
    too), and an interleaving order gives the reference's outcome."""
    from cint_ls.cli.main import build_parser
    from cint_ls.exec.cuda.device import ORDERS

    run = build_parser()._subparsers._group_actions[0].choices["run"]
    (order,) = [a for a in run._actions if a.dest == "order"]
    assert tuple(order.choices) == ORDERS
    monkeypatch.chdir(CONFORMANCE)
    reference = cli(capsys, "run", "--executor", "cpu-sir-interp", "heat_e1.ci")
    assert reference[0] == 1 and "work-item 20, step 22" in reference[2]
    for name in ("interleaved", "adversarial"):
        assert cli(capsys, "run", "--executor", "gpu-cuda", "--device", "sim", "--order", name, "--seed", "3",
                   "heat_e1.ci") == reference


def test_one_launch_is_not_1_launches(capsys, tmp_path):
    """Issue 32: a run of one dispatch said "1 launches for 1 dispatches" (the notes) and
    "1 dispatches" (the report)."""
    path = tmp_path / "once.ci"
    path.write_text("kernel twice[n](in I64[n] a, out I64[n] b) over [i: n] {\n    b[i] = a[i] * 2;\n}\n\n"
                    "void go() { I64[3] a = [1, 2, 3]; I64[3] b; twice(a, b); \"{b[2]}\\n\"; }\ngo();\n")
    code, out, err = cli(capsys, "run", "--executor", "gpu-cuda", "--device", "sim", "--block-size", "32",
                         "--verbose", "--report", str(path))
    assert code == 0 and out == "6\n"
    assert "note: block size 32; 1 launch for 1 dispatch" in err.splitlines()
    assert any(line.endswith(", 1 dispatch") for line in err.splitlines() if line.startswith("report: gpu-cuda"))
