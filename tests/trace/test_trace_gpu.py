"""gpu-cuda in the trace (docs/trace.md): its pictures of arrays (the C run-time's
observer, exec/cuda/c_host.py), in process and isolated, are the interpreter's; its fault map says nothing of the other work-items; its
copies between host and device, as the host in C records them, in the trace's dispatch
lines and the run report, and `null` where nothing recorded them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cint_ls.running.report import render_run_report
from cint_ls.running.run import RunRequest, run
from cint_ls.running.trace import ArraySelection, records

CONFORMANCE = Path(__file__).resolve().parent.parent / "conformance"
HEAT_TOUR = CONFORMANCE / "heat_tour.ci"
HEAT_E1 = CONFORMANCE / "heat_e1.ci"
HAS_CC = any(shutil.which(c) for c in ("cc", "gcc", "clang"))
needs_cc = pytest.mark.skipif(not HAS_CC, reason="no C compiler: gpu-cuda's host is C")
FAULT_WORD = 8  # bytes, sent before every dispatch's launches (rt/gpu_host.c)
GRID = 16 * 16 * 4  # heat_tour's I32[16, 16]: the bytes each dispatch reads


def traced(path: Path, executor: str, options: dict | None = None, arrays: str | None = "all",
           isolate: bool | None = False):
    selection = None if arrays is None else ArraySelection.parse(arrays).to_json()
    outcome = run(RunRequest(str(path), path.read_text(), executor, report=True, learn=False, isolate=isolate,
                             options={executor: options or {}}, trace_arrays=selection))
    assert outcome.result is not None, outcome.error
    return outcome, records(outcome, str(path), arrays_asked=arrays is not None)


def of_type(lines: list[dict], kind: str) -> list[dict]:
    return [line for line in lines if line["type"] == kind]


@needs_cc
@pytest.mark.parametrize("how", ["in process", "isolated"])
def test_heat_tour_pictures_are_the_interpreters(how):
    _, reference = traced(HEAT_TOUR, "cpu-sir-interp")
    outcome, lines = traced(HEAT_TOUR, "gpu-cuda", {"device": "sim"}, isolate=how == "isolated")
    assert outcome.result.notes[0] == "gpu-cuda ran on the simulated device"
    assert lines[0]["executor"] == "gpu-cuda" and lines[0]["arrays_note"] is None
    assert len(of_type(lines, "array")) == 40 and of_type(lines, "array") == of_type(reference, "array")
    assert of_type(lines, "array")[-1]["values"][8 * 16 + 8] == 1042  # what the program prints


@needs_cc
def test_named_arrays_and_none_on_the_c_host():
    outcome, lines = traced(HEAT_TOUR, "gpu-cuda", {"device": "sim"}, arrays="nothing_like_it")
    assert not of_type(lines, "array") and outcome.result.dispatch_log[0]["arrays"]["candidates"] == ["v"]
    outcome, lines = traced(HEAT_TOUR, "gpu-cuda", {"device": "sim"}, arrays=None)
    assert not of_type(lines, "array") and not any("arrays" in row for row in outcome.result.dispatch_log)


@needs_cc
@pytest.mark.parametrize("block", [32, 256])
def test_heat_e1_fault_map_on_the_c_host_knows_only_the_canonical_work_item(block):
    outcome, lines = traced(HEAT_E1, "gpu-cuda", {"device": "sim", "block_size": block})
    assert outcome.result.dispatch_log[0]["order"] is None
    (faulted,) = of_type(lines, "fault_map")
    assert faulted["order"] is None and faulted["work_item"] == 20
    assert faulted["runs"] == [["unknown", 20], ["canonical", 1], ["unknown", 43]]


@needs_cc
def test_copies_of_the_c_host_in_the_trace_and_the_report():
    outcome, lines = traced(HEAT_TOUR, "gpu-cuda", {"device": "sim"}, arrays=None)
    dispatches = of_type(lines, "dispatch")
    copies = [d["copies"] for d in dispatches]
    assert len(copies) == 40 and all(set(c) == {"to_device", "from_device", "already_there"} for c in copies)
    # the first dispatch sends the grid it reads; the next read the grid the previous one
    # published from a staging that covered it whole: already there, only the fault word goes
    assert copies[0]["to_device"] == GRID + FAULT_WORD and copies[0]["already_there"] == 0
    assert all(c["to_device"] == FAULT_WORD and c["already_there"] == GRID for c in copies[1:])
    assert all(c["from_device"] >= GRID + FAULT_WORD for c in copies)  # the staging and the fault word came back
    report = outcome.run_report()
    assert [row["copies"] for row in report["dispatches"]] == copies
    text = render_run_report(report)
    assert "to device  from device  already there" in text
    assert "   8 B       " in text.splitlines()[4] and "1.0 KB" in text.splitlines()[4]


@pytest.mark.parametrize("executor, options", [
    ("cpu-sir-interp", {}),
    pytest.param("cpu-c17", {}, marks=needs_cc),
])
def test_no_copies_recorded_is_null_not_zero(executor, options):
    outcome, lines = traced(HEAT_TOUR, executor, options, arrays=None)
    assert all(d["copies"] is None for d in of_type(lines, "dispatch"))
    report = outcome.run_report()
    assert all(row["copies"] is None for row in report["dispatches"])
    assert "to device" not in render_run_report(report)


def test_report_text_marks_a_row_without_copies_beside_rows_with_them():
    rows = [{"number": 0, "kernel": "m.k", "work_items": 4, "launches": 1, "seconds": 1e-6, "fuel": 4,
             "copies": {"to_device": 2_500_000, "from_device": 999, "already_there": 0}},
            {"number": 1, "kernel": "m.k", "work_items": 4, "launches": 1, "seconds": 1e-6, "fuel": 4, "copies": None}]
    text = render_run_report({"decision": "d", "executor": "gpu-cuda", "device": "the simulated device",
                              "outcome": "finished", "seconds": 0.1, "fuel": 8, "dispatch_count": 2,
                              "dispatches": rows, "recorded": 2})
    first, second = text.splitlines()[3:5]
    assert first.split()[-6:] == ["2.5", "MB", "999", "B", "0", "B"]
    assert second.split()[-3:] == ["-", "-", "-"]


@pytest.mark.skipif(shutil.which("node") is None, reason="no node to run the page's script")
def test_the_pages_hover_shows_the_copies():
    import json
    import re
    import subprocess

    from cint_ls.running.trace_page import render_page

    page = render_page([{"type": "run", "format": "cint-trace", "version": 1, "executor": "gpu-cuda", "outcome": "x"}])
    functions = "".join(re.search(r"^function " + name + r"\(.*?^}$", page, flags=re.S | re.M).group(0) + "\n"
                        for name in ("fmtBytes", "fmtCopies"))
    copies = {"to_device": 1032, "from_device": 872_000_123, "already_there": 0}
    done = subprocess.run(["node", "-e", functions + f"console.log(fmtCopies({json.dumps(copies)}));"],
                          capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "copied: to device 1.0 KB, from device 872.0 MB, already there 0 B"
    assert "d.copies ? \"\\n\" + fmtCopies(d.copies)" in page  # the dispatch's hover, when it has copies
