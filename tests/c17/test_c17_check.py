"""`cint run --check cpu-c17` (SPEC-02P.1 8.4 example 9): the reference and cpu-c17
compared at every boundary (each published dispatch and the end of the entry)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from conftest import CONFORMANCE

from cint_ls.cli.main import main
from cint_ls.exec.interp import Machine
from cint_ls.exec.runtime import Boundary
from cint_ls.ir.build import build
from cint_ls.running.compare import compare

pytestmark = pytest.mark.needs_cc


def run(capsys, monkeypatch, *args):
    monkeypatch.chdir(CONFORMANCE)
    code = main(["run", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_spec_example_agrees_at_one_boundary(capsys, monkeypatch):
    code, out, err = run(capsys, monkeypatch, "budget.ci", "--check", "cpu-c17")
    assert code == 1 and out == ""
    assert "= address: budget.count_up, dispatch 0, phase 1, work-item 900, step 1" in err
    assert "= fuel-consumed: 10003 (not part of the fault record)" in err
    assert err.endswith("check: cpu-sir-interp and cpu-c17 agree at 1 boundary\n")


def test_the_spec_example_with_fuel(capsys, monkeypatch):
    code, out, err = run(capsys, monkeypatch, "budget_fuel.ci", "--fuel", "6002", "--check", "cpu-c17")
    assert code == 1
    assert "fault[E_FUEL]: fuel allowance exhausted" in err and "work-item 500, step 1" in err
    assert err.endswith("check: cpu-sir-interp and cpu-c17 agree at 1 boundary\n")


def test_every_dispatch_is_a_boundary(capsys, monkeypatch):
    code, out, err = run(capsys, monkeypatch, "heat_tour.ci", "--check", "cpu-c17")
    assert code == 0 and out == "after 40 steps: total=60150 center=1042 edge=72\n"
    assert err == "check: cpu-sir-interp and cpu-c17 agree at 41 boundaries\n"


def test_executor_c17_checked_against_the_reference(capsys, monkeypatch):
    code, out, err = run(capsys, monkeypatch, "acc.ci", "--executor", "cpu-c17", "--check", "cpu-sir-interp")
    assert code == 0 and out.splitlines()[0] == "9223372036854775807"
    assert err == "check: cpu-sir-interp and cpu-c17 agree at 4 boundaries\n"


def _reference(name: str):
    text = (CONFORMANCE / name).read_text()
    return Machine(build(text, name).program, None, trace=True).run()


def _traced(result, trace, executor="cpu-c17", **changes):
    rows = [[b.dispatch, b.output_length, b.fuel, b.digest] for b in trace]
    return replace(result, executor=executor, trace=rows, **changes)


def test_the_first_difference_is_precise():
    result = _reference("dispatch_count.ci")
    trace = result.boundaries()
    assert [b.dispatch for b in trace] == [0, 1, 2, None][:len(trace)] or [b.dispatch for b in trace] == [0, 1, None]
    same = compare(result, _traced(result, trace))
    assert (same.boundaries, same.difference) == (len(trace), None)

    fuel = list(trace)
    fuel[1] = replace(fuel[1], fuel=fuel[1].fuel + 1)
    assert compare(result, _traced(result, fuel)).line == (
        f"check: cpu-sir-interp and cpu-c17 differ at boundary 2 (after dispatch 1): "
        f"the fuel consumed is {trace[1].fuel} on cpu-sir-interp, {trace[1].fuel + 1} on cpu-c17")

    data = list(trace)
    data[0] = replace(data[0], digest=1)
    assert "boundary 1 (after dispatch 0): the published data differ" in compare(result, _traced(result, data)).line

    other = _traced(result, trace, output=result.output.replace("4", "5", 1))
    assert "the output differs on line 1" in compare(result, other).difference

    record = replace(result.fault, exact=result.fault.exact + 1)
    verdict = compare(result, _traced(result, trace, fault=record))
    assert verdict.boundaries == len(trace)
    assert "at the end of the entry): the fault records differ in exact" in verdict.difference

    shorter = trace[:1] + [Boundary(None, trace[-1].output_length, trace[-1].fuel, None)]
    assert compare(result, _traced(result, shorter)).difference == (
        "boundary 2: cpu-sir-interp published dispatch 1, cpu-c17 reached the end of the entry")


def test_without_a_trace_only_the_end_is_compared():
    result = _reference("dispatch_count.ci")
    untraced = replace(result, executor="gpu-cuda", trace=None)
    verdict = compare(result, untraced)
    assert verdict.agree and verdict.line == "check: cpu-sir-interp and gpu-cuda agree at 1 boundary"
    verdict = compare(result, replace(untraced, fuel_consumed=result.fuel_consumed + 1))
    assert verdict.line.startswith("check: cpu-sir-interp and gpu-cuda differ at boundary 1 (at the end of the entry)")


def test_the_singular_and_the_plural():
    result = _reference("dispatch_count.ci")
    trace = result.boundaries()
    end = replace(result, executor="cpu-c17", trace=None)
    assert compare(result, end).line == "check: cpu-sir-interp and cpu-c17 agree at 1 boundary"
    assert compare(result, _traced(result, trace)).line == (
        f"check: cpu-sir-interp and cpu-c17 agree at {len(trace)} boundaries")
