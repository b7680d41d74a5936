"""gpu-cuda's host in C (rt/gpu_host.c, rt/gpu_cuda.c, exec/cuda/c_host.py; issue 15):
the thread-limit check (SPEC-02P.1 10.5: a kernel is never launched in blocks larger than
its CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK), identically on the simulated device and on a
driver; storages not sent again while unchanged, and sent again after a store; the null
device; the driver's messages (no driver, a driver but no device, the JIT's log) and the
primary context released on every path, against a stand-in libcuda (fake_libcuda.c)."""

from __future__ import annotations

import shutil
from pathlib import Path

import cuda_support
import pytest
from cuda_support import outcome, program_of, run_cuda

from cint_ls.exec.cuda.ptx import emit_module
from cint_ls.exec.cuda.simulator import SimulatedDevice, parse_module, thread_limit
from cint_ls.exec.executors import ExecutorUnavailable
from cint_ls.exec.interp import run_program

CONFORMANCE = Path(__file__).parent.parent / "conformance"
HEAT_TOUR = (CONFORMANCE / "heat_tour.ci").read_text()

fake_libcuda = cuda_support.fake_libcuda  # the fixture: a stand-in libcuda (cuda_support.py)

pytestmark = pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                                reason="the C host needs a C compiler")


# ---- the thread limit [10.5]


def test_a_kernel_is_launched_in_blocks_no_larger_than_its_limit_on_both_hosts():
    program = program_of(HEAT_TOUR, "heat_tour.ci")
    reference = run_program(program, None)
    notes = {}
    for host in ("c", "python"):
        device = SimulatedDevice(thread_limit=64)
        result = run_cuda(program, None, None, {"block_size": 256, "host": host}, device=device)
        assert outcome(result) == outcome(reference)
        notes[host] = [n for n in result.notes if "threads per block" in n]
    assert notes["c"] == notes["python"] == [
        "kernel heat_tour.diffuse ran in blocks of 64, not 256: the device runs at most 64 threads per block "
        "of it (CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)"]


def test_the_simulated_device_refuses_a_block_above_the_limit_as_a_gpu_does():
    from cint_ls.exec.cuda.device import DeviceError

    device = SimulatedDevice(thread_limit=64)
    module = device.load(emit_module(program_of(HEAT_TOUR)).text)
    function = module.function("cint_diffuse")
    with pytest.raises(DeviceError, match="CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: 128 threads per block"):
        device.launch(function, 1, 128, [0] * len(function.params))


def test_the_simulators_limit_follows_its_register_model():
    entries = parse_module(emit_module(program_of(HEAT_TOUR)).text)
    for entry in entries.values():
        limit = thread_limit(entry)
        assert limit % 32 == 0 and 256 <= limit <= 1024  # 255 registers at most: 256 threads always run
    tiny = type(next(iter(entries.values())))("x", [], ["%r1"], [])
    assert thread_limit(tiny) == 1024


# ---- device copies: not sent again while unchanged


STORES = """
kernel twice[n](in I64[n] a, out I64[n] b, out I64 total) over [i: n] {
    b[i] = 2 * a[i];
    reduce total = sum(a[i]);
}

void main() {
    I64[8] a;
    I64[8] b;
    I64 t = 0;
    a[3] = 5;
    twice(a, b, t);
    twice(a, b, t);
    a[4] = 7;
    twice(a, b, t);
    twice(b, a, t);
    twice(a, b, t);
    "t={t} b3={b[3]} b4={b[4]}\\n";
    for k in 0..3 {
        I64[8] c;
        c[k] = k + 1;
        twice(c, b, t);
        "k={k} t={t}\\n";
    }
}

main();
"""


def test_an_input_is_sent_again_only_after_a_store_and_results_match_the_reference():
    program = program_of(STORES)
    reference = run_program(program, None)
    result = run_cuda(program, None, None, {"device": "sim", "report": True})
    assert outcome(result) == outcome(reference)
    sent = [row["copies"]["to_device"] for row in result.dispatch_log]
    there = [row["copies"]["already_there"] for row in result.dispatch_log]
    word = 8  # the fault word, every dispatch
    assert sent[:5] == [64 + word, word, 64 + word, word, word]  # a; a again; a after a[4] = 7; b, a published
    assert there[:5] == [0, 64, 0, 64, 64]
    assert all(s == 64 + word for s in sent[5:])  # a new c each time round: sent


def test_the_null_device_runs_the_host_alone():
    program = program_of(HEAT_TOUR, "heat_tour.ci")
    result = run_cuda(program, None, None, {"device": "null", "report": True})
    assert result.notes[0] == "gpu-cuda ran on the null device (launches do nothing)"
    assert len(result.dispatch_log) == 40 and all(row["launches"] == 1 for row in result.dispatch_log)
    with pytest.raises(ExecutorUnavailable, match="the null device is the C host's"):
        run_cuda(program, None, None, {"device": "null", "host": "python"})  # the oracle


# ---- the driver (rt/gpu_cuda.c) against a stand-in libcuda


def test_no_driver_is_one_line(monkeypatch, tmp_path):
    monkeypatch.setenv("CINT_LIBCUDA", str(tmp_path / "libcuda.so.1"))
    with pytest.raises(ExecutorUnavailable) as caught:
        run_cuda(program_of(HEAT_TOUR), None, None, {"device": "cuda"})
    message = str(caught.value)
    assert message.startswith("gpu-cuda: no CUDA driver (the NVIDIA driver library ") and "\n" not in message
    assert message.endswith("(the simulated device needs none: --device sim)")


def test_a_driver_without_a_device_says_so_and_auto_falls_back(monkeypatch, fake_libcuda):
    library, fake = fake_libcuda
    monkeypatch.setenv("CINT_LIBCUDA", str(library))
    monkeypatch.setenv("FAKE_CUDA_MODE", "nodevice")
    program = program_of(HEAT_TOUR)
    with pytest.raises(ExecutorUnavailable, match="^gpu-cuda: a CUDA driver but no CUDA device"):
        run_cuda(program, None, None, {"device": "cuda"})
    result = run_cuda(program, None, None, {"device": "auto"})
    assert outcome(result) == outcome(run_program(program, None))
    assert result.notes[0].startswith("gpu-cuda ran on the simulated device, not a GPU: a CUDA driver but no CUDA")


def test_a_module_the_jit_refuses_gives_its_log_and_releases_the_context(monkeypatch, fake_libcuda):
    library, fake = fake_libcuda
    monkeypatch.setenv("CINT_LIBCUDA", str(library))
    monkeypatch.setenv("FAKE_CUDA_MODE", "badptx")
    before = fake.fake_retained(), fake.fake_released()
    with pytest.raises(ExecutorUnavailable) as caught:
        run_cuda(program_of(HEAT_TOUR), None, None, {"device": "cuda"})
    assert str(caught.value) == (
        "gpu-cuda: Fake GPU (sm_90) could not load the PTX module: CUDA_ERROR_INVALID_PTX: a PTX JIT compilation "
        "failed (cuModuleLoadDataEx); JIT: ptxas fatal   : Unresolved extern function 'x' ")
    assert (fake.fake_retained() - before[0], fake.fake_released() - before[1]) == (1, 1)


def test_the_driver_path_checks_the_thread_limit_before_a_launch(monkeypatch, fake_libcuda):
    library, fake = fake_libcuda
    monkeypatch.setenv("CINT_LIBCUDA", str(library))
    monkeypatch.delenv("FAKE_CUDA_MODE", raising=False)
    before = fake.fake_retained(), fake.fake_released(), fake.fake_launched()
    result = run_cuda(program_of(HEAT_TOUR, "heat_tour.ci"), None, None, {"device": "cuda", "block_size": 1024})
    assert result.notes[0] == "gpu-cuda ran on Fake GPU (sm_90)"
    assert ("kernel heat_tour.diffuse ran in blocks of 64, not 1024: the device runs at most 64 threads per block "
            "of it (CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)") in result.notes
    assert fake.fake_launched() - before[2] == 40 and fake.fake_widest() == 64  # no launch above the limit
    assert (fake.fake_retained() - before[0], fake.fake_released() - before[1]) == (1, 1)
