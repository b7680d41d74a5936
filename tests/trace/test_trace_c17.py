"""cpu-c17's pictures of arrays for the trace (exec/c17/pictures.py: the run-time's
observer, rt/dispatch.c) against the interpreter's, on one thread, on the pool, in an
isolated child; and its fault map on the pool (docs/trace.md)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cint_ls.running.run import RunRequest, run
from cint_ls.running.trace import ArraySelection, fault_map, records

pytestmark = pytest.mark.skipif(not any(shutil.which(c) for c in ("cc", "gcc", "clang")), reason="no C compiler")

CONFORMANCE = Path(__file__).resolve().parent.parent / "conformance"
HEAT_TOUR = CONFORMANCE / "heat_tour.ci"
HEAT_E1 = CONFORMANCE / "heat_e1.ci"
POOL = {"threads": 4, "parallel_min": 2, "chunk_min": 1}  # every dispatch on the pool, in small chunks

# Every element layout of the run-time (8 to 64 bits signed and unsigned, fixed point,
# Bool, a wide I256 beyond 2^53 and 2^64), out, inout and views that are not dense
# (transposed, reversed, strided), two dispatches that publish and a third that faults.
MIXED = """\
kernel fill[h, w](in I64 base, out I8[h, w] a, out U16[h, w] b, inout I64[h, w] c,
                  out Q16.16[h, w] q, out Bool[h, w] f, out I256[h, w] g, out U64[h, w] u) over [y: h, x: w] {
    I64 k = y * w + x + base;
    a[y, x] = (k - 7) as I8;
    b[y, x] = (k * 1000) as U16;
    c[y, x] = c[y, x] * 3 - k;
    q[y, x] = (k as Q16.16) * 0.5 - 1.25;
    f[y, x] = k % 3 == 0;
    I256 big = k as I256;
    g[y, x] = (big << 200) - big;
    u[y, x] = U64.max - (k as U64);
    assert(k < 40);
}

void go() {
    I8[3, 4] a;
    U16[4, 3] b;
    I64[3, 4] c = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]];
    Q16.16[3, 4] q;
    Bool[3, 4] f;
    I256[3, 4] g;
    U64[3, 8] u;
    fill(0, a, transpose(b), c, q, f, g, u[.., 0..8 by 2]);
    fill(5, reverse(a, 1), transpose(reverse(b, 0)), c, q, f, g, u[.., 1..8 by 2]);
    fill(30, a, transpose(b), c, q, f, g, u[.., 0..4]);
}
go();
"""


def traced(path: Path, executor: str, arrays: str | None = "all", options: dict | None = None,
           isolate: bool | None = False, selection: ArraySelection | None = None):
    if selection is None and arrays is not None:
        selection = ArraySelection.parse(arrays)
    outcome = run(RunRequest(str(path), path.read_text(), executor, report=True, learn=False, isolate=isolate,
                             options={executor: options or {}},
                             trace_arrays=None if selection is None else selection.to_json()))
    assert outcome.result is not None, outcome.error
    return outcome, records(outcome, str(path), arrays_asked=selection is not None)


def pictures(lines: list[dict]) -> list[dict]:
    return [line for line in lines if line["type"] in ("array", "fault_map")]


@pytest.fixture(scope="module")
def mixed(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("c17") / "mixed.ci"
    path.write_text(MIXED)
    return path


@pytest.mark.parametrize("how", ["one thread", "pool", "isolated", "isolated pool"])
def test_heat_tour_pictures_are_the_interpreters(how):
    _, reference = traced(HEAT_TOUR, "cpu-sir-interp")
    _, lines = traced(HEAT_TOUR, "cpu-c17", options=POOL if "pool" in how else {"threads": 1},
                            isolate="isolated" in how)
    assert lines[0]["executor"] == "cpu-c17" and lines[0]["arrays_note"] is None
    assert len(pictures(lines)) == 40 and pictures(lines) == pictures(reference)
    dispatches = [line for line in lines if line["type"] == "dispatch"]
    assert [d["threads"] > 1 for d in dispatches] == [how.endswith("pool")] * 40
    assert pictures(lines)[-1]["values"][8 * 16 + 8] == 1042  # what the program prints


@pytest.mark.parametrize("how", ["one thread", "pool", "isolated"])
def test_every_layout_and_view_and_a_fault_after_two_dispatches(mixed, how):
    _, reference = traced(mixed, "cpu-sir-interp")
    _, lines = traced(mixed, "cpu-c17", options=POOL if how == "pool" else {"threads": 1}, isolate=how == "isolated")
    assert lines[0]["outcome"] == "E_ASSERT" and lines[0]["fault"]["dispatch"] == 2
    arrays = [line for line in lines if line["type"] == "array"]
    assert [(a["dispatch"], a["param"]) for a in arrays] == [(d, p) for d in (0, 1) for p in "abcqfgu"]
    assert arrays == [line for line in reference if line["type"] == "array"]
    by_name = {(a["dispatch"], a["param"]): a for a in arrays}
    assert by_name[0, "b"]["shape"] == [3, 4] and by_name[0, "b"]["values"][:3] == [0, 1000, 2000]
    assert by_name[1, "a"]["values"][:4] == [-2, -1, 0, 1]  # the argument's view, reverse(a, 1), in its own order
    assert by_name[0, "g"]["values"][1] == (1 << 200) - 1 and by_name[0, "u"]["values"][0] == 2 ** 64 - 1
    assert by_name[0, "q"]["element"] == "Q16.16" and by_name[0, "q"]["values"][0] == -81920  # -1.25 stored
    assert by_name[1, "c"]["values"][0] == (1 * 3 - 0) * 3 - 5  # inout, after both dispatches
    (faulted,) = [line for line in lines if line["type"] == "fault_map"]
    if how == "pool":  # below the canonical work-item all ran; above, chunks may have
        assert faulted["order"] == "chunks" and faulted["runs"] == [["ran", 10], ["canonical", 1], ["unknown", 1]]
    else:
        assert faulted == next(line for line in reference if line["type"] == "fault_map")


def test_selection_and_limits_are_the_interpreters(mixed):
    for selection in (ArraySelection.parse("fill.g,u"), ArraySelection(None, limit=11), ArraySelection(None, total=40)):
        reference, _ = traced(mixed, "cpu-sir-interp", selection=selection)
        outcome, _ = traced(mixed, "cpu-c17", selection=ArraySelection.from_json(selection.to_json()))
        rows = [row.get("arrays") for row in outcome.result.dispatch_log]
        assert rows == [row.get("arrays") for row in reference.result.dispatch_log]
    assert rows[0]["skipped"] and rows[2] is None  # over the run's total; the faulting dispatch published nothing


def test_no_selection_no_pictures(mixed):
    outcome, lines = traced(mixed, "cpu-c17", arrays=None)
    assert not any("arrays" in row for row in outcome.result.dispatch_log)
    assert lines[0]["arrays_note"] is None and not [line for line in lines if line["type"] == "array"]


def test_heat_e1_on_the_pool_ran_below_the_canonical_work_item_and_the_rest_unknown():
    for options in ({"threads": 1}, POOL):
        _, lines = traced(HEAT_E1, "cpu-c17", arrays=None, options=options)
        run_line, dispatch, faulted = lines
        assert run_line["fault"]["work_item"] == 20 and faulted["work_item"] == 20
        if options is POOL:
            assert dispatch["threads"] == 4 and faulted["order"] == "chunks"
            assert faulted["runs"] == [["ran", 20], ["canonical", 1], ["unknown", 43]]
        else:
            assert dispatch["threads"] == 1 and faulted["order"] == "ascending"
            assert faulted["runs"] == [["ran", 20], ["canonical", 1], ["not run", 43]]


def test_fault_map_by_order():
    row = {"number": 3, "kernel": "k", "work_items": 10, "space": [2, 5]}
    assert fault_map(dict(row, order="ascending"), 0)["runs"] == [["canonical", 1], ["not run", 9]]
    assert fault_map(dict(row, order="chunks"), 9)["runs"] == [["ran", 9], ["canonical", 1]]
    assert fault_map(dict(row, order=None), 4)["runs"] == [["unknown", 4], ["canonical", 1], ["unknown", 5]]
    assert fault_map(dict(row, order="chunks"), 7)["index"] == [1, 2]


def test_cli_on_cpu_c17_warns_of_a_name_no_dispatch_has(tmp_path):
    import subprocess
    import sys

    trace = tmp_path / "t.jsonl"
    done = subprocess.run([sys.executable, "-P", "-m", "cint_ls.cli.main", "run", "--executor", "cpu-c17", "--trace",
                           str(trace), "--trace-arrays", "v,nosuch", str(HEAT_TOUR)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "--trace-arrays: no 2-D out or inout array nosuch in the dispatches (they have: diffuse.v)" in done.stderr
    assert sum('"type":"array"' in line for line in trace.read_text().splitlines()) == 40
