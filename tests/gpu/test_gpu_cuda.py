"""gpu-cuda against the real CUDA driver: the conformance suite (block sizes 32 and 256),
the operations of Table 3 on edge values, and the host protocol's launch splitting.
Skipped, as a whole, on a machine where no CUDA device can be opened (no cuda-python,
no driver, no GPU); run `pytest tests/gpu -rs` to see why."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import CONFORMANCE, conformance_case, conformance_programs, matches_expected

from cint_ls.analysis.capabilities import gpu_refusals
from cint_ls.cli.main import main
from cint_ls.exec.cuda import run as run_cuda
from cint_ls.exec.cuda.device import DeviceUnavailable
from cint_ls.exec.cuda.oracle.driver import CudaDevice
from cint_ls.exec.interp import run_program
from cint_ls.ir.build import build


def _open() -> str | None:
    try:
        device = CudaDevice()
    except DeviceUnavailable as error:
        return str(error)
    device.close()
    return None


_WHY = _open()
pytestmark = pytest.mark.skipif(_WHY is not None, reason=f"no CUDA GPU here: {_WHY}")


def _admitted() -> list[Path]:
    out = []
    for path in conformance_programs():
        built = build(path.read_text(), path.name)
        if built.program is None or not gpu_refusals(built.checked):
            out.append(path)
    return out


@pytest.mark.parametrize("block", [32, 256])
@pytest.mark.parametrize("path", _admitted(), ids=lambda p: p.stem)
def test_conformance_on_the_gpu(capsys, monkeypatch, path, block):
    monkeypatch.chdir(path.parent)
    args, expected = conformance_case(path)
    code = main(["run", path.name, "--executor", "gpu-cuda", "--device", "cuda", "--block-size", str(block),
                 *args])
    out, err = capsys.readouterr()
    actual = out + err
    assert matches_expected(expected, actual), f"--- expected\n{expected}\n--- actual\n{actual}"
    assert code == (0 if "fault[" not in expected and "error[" not in expected else
                    2 if expected.startswith("error[") else 1)


def test_operations_on_edge_values(monkeypatch):
    monkeypatch.syspath_prepend(str(Path(__file__).parent.parent / "cuda"))
    import test_cuda_ops as ops  # the same cases as on the simulated device
    from cuda_support import DispatchHarness

    class GpuHarness(DispatchHarness):
        def __init__(self, text, kernel, **runner):
            super().__init__(text, kernel, **runner)
            from cint_ls.exec.cuda.oracle.machine import CudaMachine
            from cint_ls.exec.cuda.ptx import emit_module

            self.cuda = CudaMachine(self.program, None, None, CudaDevice(), emit_module(self.program))

    monkeypatch.setattr(ops, "DispatchHarness", GpuHarness)
    for t in ops.NATIVE:
        for op in ("+", "-", "*", "+%", "-%", "*%"):
            ops.test_arithmetic(op, t)
        for mode in ("floor", "half_even", "away"):
            ops.test_div_round(mode, t)
        ops.test_checked_conversions(t)


def test_launch_splitting_and_the_fault_word():
    for name, max_launch in (("heat_tour.ci", 100), ("heat_e1.ci", 8), ("heat_fold32.ci", 16)):
        built = build((CONFORMANCE / name).read_text(), name)
        reference = run_program(built.program)
        result = run_cuda(built.program, None, None, {"device": "cuda", "block_size": 32, "max_launch": max_launch})
        assert (result.output, result.fault, result.fuel_consumed) == \
            (reference.output, reference.fault, reference.fuel_consumed), name


def test_reductions_per_block_and_the_32_bit_paths(monkeypatch):
    """Issue 16 on the real driver: every reduction combined per block (sums of 64-bit
    and narrower contributions, count, min, max) beside fold_checked and sum_sat, with
    launches that end inside a block; the 32-bit division paths of the index tuple and of
    div_round each side of 2**32 (tests/cuda/test_cuda_index32.py's cases)."""
    monkeypatch.syspath_prepend(str(Path(__file__).parent.parent / "cuda"))
    import test_cuda_block_reduce as blocks
    import test_cuda_index32 as index32
    from cuda_support import program_of

    programs = [blocks.every(700, "9223372036854775807"), blocks.every(700, "12345"), blocks.EMPTY,
                blocks.FOLD.replace("AT", "77").replace("DZ", "599"), blocks.FOLD.replace("AT", "300").replace(
                    "DZ", "60")]
    for text in programs:
        program = program_of(text)
        reference = run_program(program)
        for block, max_launch in ((32, None), (256, 300)):
            options = {"device": "cuda", "block_size": block}
            if max_launch is not None:
                options["max_launch"] = max_launch
            result = run_cuda(program, None, None, options)
            assert (result.output, result.fault, result.fuel_consumed) == \
                (reference.output, reference.fault, reference.fuel_consumed), (text[:40], block)
    from cuda_support import DispatchHarness

    class GpuHarness(DispatchHarness):  # the reference beside the real driver (Python host)
        def __init__(self, text, kernel, **runner):
            super().__init__(text, kernel, **runner)
            from cint_ls.exec.cuda.oracle.machine import CudaMachine
            from cint_ls.exec.cuda.ptx import emit_module

            self.cuda = CudaMachine(self.program, None, None, CudaDevice(), emit_module(self.program))

    monkeypatch.setattr(index32, "DispatchHarness", GpuHarness)
    for t in (index32.I64, index32.U64, index32.I32, index32.U32):
        for mode in ("floor", "half_even"):
            index32.test_div_round_32_bit_path(t, mode)
