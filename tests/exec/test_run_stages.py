"""The stages of an isolated run (exec/stages.py) and its two clocks: the time limit
counts running only, compilation (and a fault's description) has a limit of its own."""

from __future__ import annotations

import os
import time

import pytest
from conftest import CONFORMANCE

from cint_ls.running.isolated import IsolatedRunError, Request, run_isolated

LOOP = "void f() { while (true) { } }\nf();\n"
HEAT = (CONFORMANCE / "heat_e1.ci").read_text()


def stages_of(executor: str, text: str, options: dict | None = None, **limits) -> tuple[list[str], object]:
    seen: list[str] = []
    result = run_isolated(Request.of_text(executor, "s.ci", text, options=options), stage=seen.append, **limits)
    return seen, result


def test_the_reference_compiles_nothing_and_runs():
    seen, result = stages_of("cpu-sir-interp", HEAT, time_limit=20)
    assert seen == ["compiling", "running"] and result.fault.code == "E_OVERFLOW"


@pytest.mark.needs_cc
def test_cpu_c17_reports_running_after_its_compiler():
    seen, _ = stages_of("cpu-c17", HEAT, time_limit=20)
    assert seen == ["compiling", "running"]


@pytest.mark.needs_cc
def test_gpu_cudas_host_in_c_describes_its_fault_within_the_run():
    # The host in C (issue 15) re-runs the work-item in the counting code its library
    # already holds: nothing to compile, no stage.
    seen, result = stages_of("gpu-cuda", HEAT, {"device": "sim"}, time_limit=20)
    assert seen == ["compiling", "running"] and result.fault.code == "E_OVERFLOW"
    assert "the fault of work-item 20 of dispatch 0 was described by cpu-c17" in result.notes


@pytest.mark.needs_cc
@pytest.mark.slow
def test_a_cold_compile_does_not_count_against_the_time_limit(tmp_path, monkeypatch):
    """A compiler slower than the time limit (here 1.5 s of sleep before cc), then a run
    far shorter than it: a result, not a time-out."""
    compiler = tmp_path / "slow-cc"
    real = os.environ.get("CC") or "cc"
    compiler.write_text(f"#!/bin/sh\nsleep 1.5\nexec {real} \"$@\"\n")
    compiler.chmod(0o755)
    monkeypatch.setenv("CC", str(compiler))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # a cold cache
    started = time.monotonic()
    seen, result = stages_of("cpu-c17", HEAT, time_limit=1.0)
    assert time.monotonic() - started > 1.5  # the compiler did run
    assert seen == ["compiling", "running"] and result.fault.code == "E_OVERFLOW"
    # And compilation has its own limit.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache2"))
    with pytest.raises(IsolatedRunError, match="compiling took longer than 0.5 s and was stopped"):
        run_isolated(Request.of_text("cpu-c17", "s.ci", HEAT), time_limit=10, compile_limit=0.5)


@pytest.mark.needs_cc
def test_running_is_still_limited():
    started = time.monotonic()
    with pytest.raises(IsolatedRunError, match="the run took longer than 1 s"):
        run_isolated(Request.of_text("cpu-c17", "loop.ci", LOOP), time_limit=1)
    assert time.monotonic() - started < 1 + 30  # compilation (cached or not), then 1 s of running


def test_no_time_limit_means_no_compile_limit_either():
    seen, result = stages_of("cpu-sir-interp", HEAT, time_limit=None, compile_limit=0.0)
    assert result.fault.code == "E_OVERFLOW"
