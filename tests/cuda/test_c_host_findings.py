"""Programs on which the differential fuzzer (fuzz/exec.py) found gpu-cuda's
host in C (rt/gpu_host.c) to differ from the reference, kept as they were generated.

seed 307:3113 (2026-12-01): the tenth dispatch (`memcpy`, dispatch 9) faults on the
reference (E_OVERFLOW in work-item 5, `buf[row] + a_d[0]` with I32.max) and on the
Python host, but the C host published it, on the simulated device, at every block size
and order. The table of device copies kept for later dispatches was full, and keeping
one more released a buffer that the same dispatch was about to read; a later buffer of
that dispatch then took its memory. Now a full table gives up a copy the dispatch does
not use (rt/gpu_host.c, keep_resident)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cint_ls.running.run import RunRequest, run

pytestmark = pytest.mark.needs_cc

SEED_307_3113 = Path(__file__).parent / "findings" / "seed_307_3113.ci"


def test_seed_307_3113_agrees_on_the_python_oracle():
    from cuda_support import outcome, program_of, run_cuda

    from cint_ls.exec.interp import run_program

    program = program_of(SEED_307_3113.read_text(), "fuzz.ci")
    assert outcome(run_cuda(program, None, None, {"device": "sim", "host": "python"})) == \
        outcome(run_program(program, None))


def test_seed_307_3113_agrees_on_the_c_host():
    outcome = run(RunRequest("fuzz.ci", SEED_307_3113.read_text(), "gpu-cuda", None,
                             {"gpu-cuda": {"device": "sim"}}, check="cpu-sir-interp"))
    assert outcome.error is None and outcome.comparison is not None, outcome.error
    assert outcome.comparison.agree, outcome.comparison.line
