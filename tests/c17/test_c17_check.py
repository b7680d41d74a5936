"""`cint run --check cpu-c17` (SPEC-02P.1 8.4 example 9): the reference and cpu-c17
compared at every boundary (each published dispatch and the end of the entry)."""

from __future__ import annotations

import shutil
from dataclasses import replace

import pytest

from cint_ls.cli.main import main
from cint_ls.exec.c17.check import check_line, compare, reference_trace
from cint_ls.exec.c17.host import Boundary
from cint_ls.ir.build import build
from conftest import CONFORMANCE

pytestmark = pytest.mark.skipif(not any(shutil.which(c) for c in ("cc", "gcc", "clang")),
                                reason="cpu-c17 needs a C compiler")


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


def _traces(name: str):
    text = (CONFORMANCE / name).read_text()
    program = build(text, name).program
    return reference_trace(program, None)


def test_the_first_difference_is_precise():
    result, trace = _traces("dispatch_count.ci")
    assert [b.dispatch for b in trace] == [0, 1, 2, None][:len(trace)] or [b.dispatch for b in trace] == [0, 1, None]
    assert compare(result, trace, result, trace) == (len(trace), None)

    fuel = list(trace)
    fuel[1] = replace(fuel[1], fuel=fuel[1].fuel + 1)
    k, text = compare(result, trace, result, fuel)
    assert check_line(k, text) == (f"check: cpu-sir-interp and cpu-c17 differ at boundary 2 (after dispatch 1): "
                                   f"the fuel consumed is {trace[1].fuel} on cpu-sir-interp, {trace[1].fuel + 1} "
                                   "on cpu-c17")

    data = list(trace)
    data[0] = replace(data[0], digest=1)
    assert "boundary 1 (after dispatch 0): the published data differ" in compare(result, trace, result, data)[1]

    other = replace(result, output=result.output.replace("4", "5", 1))
    k, text = compare(result, trace, other, trace)
    assert "the output differs on line 1" in text

    record = replace(result.fault, exact=result.fault.exact + 1)
    k, text = compare(result, trace, replace(result, fault=record), trace)
    assert k == len(trace) and "at the end of the entry): the fault records differ in exact" in text

    shorter = trace[:1] + [Boundary(None, trace[-1].output_length, trace[-1].fuel, None)]
    k, text = compare(result, trace, result, shorter)
    assert text == "boundary 2: cpu-sir-interp published dispatch 1, cpu-c17 reached the end of the entry"


def test_the_singular_and_the_plural():
    assert check_line(1, None) == "check: cpu-sir-interp and cpu-c17 agree at 1 boundary"
    assert check_line(3, None) == "check: cpu-sir-interp and cpu-c17 agree at 3 boundaries"
