"""The trace of a run (running/trace.py, docs/trace.md): its lines on every executor, the
CLI's --trace / --trace-html / --trace-arrays and `cint trace`, and bad input."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cint_ls.running.run import RunRequest, run
from cint_ls.running.trace import ArraySelection, TraceError, read_trace, records
from cint_ls.running.trace_page import render_page

CONFORMANCE = Path(__file__).resolve().parent.parent / "conformance"
HEAT_TOUR = CONFORMANCE / "heat_tour.ci"
HEAT_E1 = CONFORMANCE / "heat_e1.ci"


def traced(path: Path, executor: str, arrays: str | None = "all") -> list[dict]:
    selection = None if arrays is None else ArraySelection.parse(arrays).to_json()
    outcome = run(RunRequest(str(path), path.read_text(), executor, report=True, trace_arrays=selection, learn=False))
    assert outcome.result is not None, outcome.error
    return records(outcome, str(path), arrays_asked=arrays is not None)


def cint(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    # -P: not the checkout's cint_ls (no built binding) before the installed one.
    return subprocess.run([sys.executable, "-P", "-m", "cint_ls.cli.main", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=120, check=False)


def test_heat_tour_on_the_reference_has_a_line_per_dispatch_and_pictures():
    lines = traced(HEAT_TOUR, "cpu-sir-interp")
    assert lines[0]["type"] == "run" and lines[0]["format"] == "cint-trace" and lines[0]["dispatch_count"] == 40
    dispatches = [line for line in lines if line["type"] == "dispatch"]
    assert [d["number"] for d in dispatches] == list(range(40))
    for before, after in itertools.pairwise(dispatches):
        assert before["start"] <= before["end"] <= after["start"]
    assert all(d["space"] == [16, 16] and d["work_items"] == 256 and d["fuel"] == 256 and d["threads"] == 1
               for d in dispatches)
    arrays = [line for line in lines if line["type"] == "array"]
    assert len(arrays) == 40 and {a["param"] for a in arrays} == {"v"}
    last = arrays[-1]
    assert last["shape"] == [16, 16] and last["element"] == "I32"
    assert last["values"][8 * 16 + 8] == 1042 and last["values"][1 * 16 + 8] == 72  # what the program prints
    assert not [line for line in lines if line["type"] == "fault_map"]


@pytest.mark.parametrize("executor", ["cpu-sir-interp", "cpu-c17", "gpu-cuda"])
def test_heat_e1_fault_map_marks_work_item_20_on_every_executor(executor):
    if executor == "cpu-c17" and not any(shutil.which(c) for c in ("cc", "gcc", "clang")):
        pytest.skip("no C compiler")
    lines = traced(HEAT_E1, executor, arrays=None)
    run_line, dispatch, fault_map = lines
    assert run_line["outcome"] == "E_OVERFLOW" and run_line["fault"]["work_item"] == 20
    assert dispatch["fault"] == {"code": "E_OVERFLOW", "phase": 1, "work_item": 20, "index": [2, 4]}
    assert fault_map["type"] == "fault_map" and fault_map["work_item"] == 20 and fault_map["index"] == [2, 4]
    assert fault_map["space"] == [8, 8]
    assert sum(n for _, n in fault_map["runs"]) == 64
    if executor == "gpu-cuda":  # its runner does not say which other work-items ran
        assert fault_map["runs"] == [["unknown", 20], ["canonical", 1], ["unknown", 43]]
    else:  # ascending order, stopping at the first fault
        assert fault_map["runs"] == [["ran", 20], ["canonical", 1], ["not run", 43]]


def test_cpu_c17_records_array_values_and_the_cli_default_executor_pictures_them(tmp_path):
    # `cint run` picks an executor by itself (auto: cpu-c17 with a C compiler); the
    # pictures come whatever it picks (tests/trace/test_trace_c17.py: against the interpreter)
    if not any(shutil.which(c) for c in ("cc", "gcc", "clang")):
        pytest.skip("no C compiler")
    lines = traced(HEAT_TOUR, "cpu-c17")
    assert lines[0]["arrays_note"] is None
    dispatches = [line for line in lines if line["type"] == "dispatch"]
    assert len(dispatches) == 40 and all(d["space"] == [16, 16] for d in dispatches)
    assert all(a["start"] <= a["end"] <= b["start"] for a, b in itertools.pairwise(dispatches))
    assert [line["dispatch"] for line in lines if line["type"] == "array"] == list(range(40))
    trace = tmp_path / "t.jsonl"
    done = cint("run", "--trace", str(trace), "--trace-arrays", "v", str(HEAT_TOUR))
    assert done.returncode == 0, done.stderr
    lines = read_trace(trace.read_text())
    arrays = [line for line in lines if line["type"] == "array"]
    assert lines[0]["executor"] in ("cpu-c17", "gpu-cuda") and lines[0]["chosen"] == "auto" and len(arrays) == 40
    assert arrays[-1]["values"][8 * 16 + 8] == 1042


def test_named_arrays_only_and_the_limit():
    selection = ArraySelection.parse("diffuse.v")
    assert selection.wants("heat_tour.diffuse", "v") and not selection.wants("heat_tour.diffuse", "u")
    assert ArraySelection.parse("heat_tour.diffuse.v").wants("heat_tour.diffuse", "v")
    assert not ArraySelection.parse("other.v").wants("heat_tour.diffuse", "v")
    small = ArraySelection(None, limit=100)
    outcome = run(RunRequest(str(HEAT_TOUR), HEAT_TOUR.read_text(), "cpu-sir-interp", report=True,
                             trace_arrays=small.to_json(), learn=False))
    row = outcome.result.dispatch_log[0]
    assert row["arrays"]["arrays"] == [] and row["arrays"]["skipped"][0]["elements"] == 256


@pytest.mark.parametrize("text", ["", ",", "v,", "1v", "v w", "a..b"])
def test_bad_array_names_are_refused(text):
    with pytest.raises(ValueError, match="--trace-arrays"):
        ArraySelection.parse(text)


def test_read_trace_round_trip_and_bad_input():
    lines = traced(HEAT_E1, "cpu-sir-interp", arrays=None)
    text = "".join(json.dumps(line) + "\n" for line in lines)
    assert read_trace(text) == lines
    bad = {
        "": "empty",
        "{": "not JSON",
        "[1]\n": "not a trace line",
        '{"type": "dispatch", "number": 0, "kernel": "k", "executor": "e"}\n': "first line",
        '{"type": "run", "format": "other", "version": 1, "executor": "e", "outcome": "finished"}\n': "format",
        '{"type": "run", "format": "cint-trace", "version": 99, "executor": "e", "outcome": "finished"}\n': "version",
        text + '{"type": "array", "dispatch": 0, "param": "v", "shape": [2, 2], "values": [1]}\n': "rows × columns",
        '{"type": "run", "format": "cint-trace", "version": "1", "executor": "e", "outcome": "x"}\n': "`version`",
    }
    for content, message in bad.items():
        with pytest.raises(TraceError, match=message):
            read_trace(content, "t.jsonl")


def test_page_is_self_contained_and_carries_the_data():
    page = render_page(traced(HEAT_TOUR, "cpu-sir-interp"))
    assert page.startswith("<!DOCTYPE html>") and "default-src 'none'" in page
    assert "https://" not in page and "http://" not in page and "<link" not in page and " src=" not in page
    # a value beyond 2**53 travels as text too, so that the hover is exact
    big = [{"type": "run", "format": "cint-trace", "version": 1, "executor": "e", "outcome": "finished"},
           {"type": "array", "dispatch": 0, "kernel": "k", "param": "v", "element": "I64", "shape": [1, 2],
            "values": [2 ** 62 + 1, -3]}]
    assert '"exact":["4611686018427387905","-3"]' in render_page(big)
    assert "</script><script>" not in render_page([dict(big[0], executor="</script><script>")])


def test_cli_writes_trace_and_page_and_cint_trace_rebuilds_it(tmp_path):
    trace, page = tmp_path / "t.jsonl", tmp_path / "t.html"
    done = cint("run", "--executor", "cpu-sir-interp", "--trace", str(trace), "--trace-html", str(page),
                "--trace-arrays", "v", str(HEAT_TOUR))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "after 40 steps: total=60150 center=1042 edge=72\n"
    lines = read_trace(trace.read_text())
    assert sum(line["type"] == "dispatch" for line in lines) == 40
    assert sum(line["type"] == "array" for line in lines) == 40
    assert page.read_text().startswith("<!DOCTYPE html>")
    again = tmp_path / "again.html"
    done = cint("trace", str(trace), "-o", str(again))
    assert done.returncode == 0 and again.read_text() == render_page(lines, "cint trace: t.jsonl")
    # a fault: exit 1 as without the trace, and the trace still written
    done = cint("run", "--executor", "cpu-sir-interp", "--trace", str(trace), str(HEAT_E1))
    assert done.returncode == 1 and "work-item 20" in done.stderr
    assert [line["type"] for line in read_trace(trace.read_text())] == ["run", "dispatch", "fault_map"]


def test_cli_bad_input_is_one_line_exit_2(tmp_path):
    cases = [
        (("run", "--trace-arrays", "v", str(HEAT_E1)), "give --trace FILE or --trace-html FILE"),
        (("run", "--trace", str(tmp_path / "no" / "t.jsonl"), str(HEAT_E1)), "no directory"),
        (("run", "--trace-html", str(tmp_path), str(HEAT_E1)), "is a directory"),
        (("run", "--trace", str(tmp_path / "t"), "--trace-arrays", "1x", str(HEAT_E1)), "--trace-arrays"),
        (("trace", str(tmp_path / "missing.jsonl")), "does not exist"),
    ]
    (tmp_path / "bad.jsonl").write_text("not json\n")
    cases.append((("trace", str(tmp_path / "bad.jsonl")), "bad.jsonl:1: not JSON"))
    for args, message in cases:
        done = cint(*args)
        assert done.returncode == 2, (args, done.stderr)
        assert done.stderr.startswith("cint: error: ") and message in done.stderr, done.stderr
        assert done.stdout == ""
    done = cint("run", "--executor", "cpu-sir-interp", "--trace", str(tmp_path / "t.jsonl"),
                "--trace-arrays", "w", str(HEAT_TOUR))
    assert done.returncode == 0 and "no 2-D out or inout array w" in done.stderr and "diffuse.v" in done.stderr
