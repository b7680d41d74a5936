"""The replay through cpu-c17 (`stopOnFault`, `runToWorkItem`; debug/replay.py and
exec/c17/capture.py): what the reference shows of the one work-item it runs is what it
shows in a run of the whole program, arrays of every layout included; where there can
be no replay, the run says why and goes on on the reference (issue 30)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dap_support import DapClient, session

pytestmark = pytest.mark.slow  # a debugger or two per test; heat_e1 through the replay: test_adapter.py

MIX = Path(__file__).resolve().parent / "programs" / "replay_mix.ci"
MIX_FIRST_LINE = 7  # `I64 x = xs[i];`, the kernel's first statement


@pytest.fixture
def dap() -> Iterator[DapClient]:
    yield from session()


def console(dap: DapClient) -> str:
    return "".join(e["body"]["output"] for e in dap.seen if e["event"] == "output"
                   and e["body"].get("category") == "console")


def expanded(dap: DapClient, reference: int, depth: int = 0) -> dict[str, Any]:
    """A scope's variables, each array's first page of rows expanded."""
    found: dict[str, Any] = {}
    answer = dap.request("variables", {"variablesReference": reference, "start": 0, "count": 40})
    for v in answer["body"]["variables"]:
        found[v["name"]] = v["value"]
        if v.get("variablesReference") and depth < 2:
            found[v["name"] + "[]"] = expanded(dap, v["variablesReference"], depth + 1)
    return found


def state(dap: DapClient) -> tuple[Any, ...]:
    """Where the run stopped: the stack's names and positions, the innermost frame's
    scopes with arrays expanded, and the fault record (None: no fault)."""
    frames = dap.request("stackTrace", {"threadId": 1})["body"]["stackFrames"]
    scopes = dap.request("scopes", {"frameId": frames[0]["id"]})["body"]["scopes"]
    variables = {s["name"]: expanded(dap, s["variablesReference"]) for s in scopes}
    info = dap.request("exceptionInfo", {"threadId": 1}, ok=False)
    record = info["body"]["details"]["message"] if info["success"] else None
    return [(f["name"], f["line"], f["column"]) for f in frames], variables, record


def stopped_state(program: Path, **launch: Any) -> tuple[tuple[Any, ...], str]:
    client = DapClient()
    try:
        breakpoints = launch.pop("breakpoints", None)
        stop = client.start(program, breakpoints=breakpoints, **launch)
        assert stop["event"] == "stopped", (stop, console(client))
        return state(client), console(client)
    finally:
        client.close()


def test_a_fold_fault_after_922_work_items_of_the_second_dispatch() -> None:
    """The fault is a fold_checked's, so the partial sum of work-items 0..921 (cpu-c17's
    tile) decides it; the arrays are I128, Q16.16, Bool and a strided view of what the
    first dispatch wrote and the host then changed."""
    reference, _ = stopped_state(MIX)
    replayed, said = stopped_state(MIX, stopOnFault=True)
    assert "work-item 922 of dispatch 1 runs on the reference" in said, said
    assert replayed == reference
    frames, variables, record = replayed
    assert frames[0][0] == "mix work-item 922 (i=922)" and [f[0] for f in frames[1:]] == ["run", "go", "entry"]
    assert variables["Work-item"]["dispatch"] == "1" and variables["Locals"]["x"] == "10000000000001844"
    assert "in xs[]" in variables["Locals"] and "fold_checked.add.i64" in record
    # What work-items 0..921 staged (cpu-c17's tile wrote them), beside what is published.
    staged, published = variables["Locals"]["out seen (staged)[]"], variables["Locals"]["out seen[]"]
    assert (staged["[0]"], staged["[1]"], staged["[3]"]) == ("10000000000000001", "10000000000000002",
                                                             "10000000000000007")
    assert published["[0]"] == "0"


def test_run_to_a_work_item_shows_what_a_breakpoint_there_shows() -> None:
    """`runToWorkItem` stops at the work-item's first statement with the fuel consumed,
    the arrays and the indices a reference run has there (a conditional breakpoint)."""
    client = DapClient()
    try:
        stop = client.start(MIX, [{"line": MIX_FIRST_LINE, "condition": "i == 500"}], faults=False)
        assert stop["body"]["reason"] == "breakpoint"
        expected = state(client)
    finally:
        client.close()
    replayed, said = stopped_state(MIX, runToWorkItem={"dispatch": 1, "workItem": 500})
    assert "work-item 500 of dispatch 1 runs on the reference" in said
    assert replayed[1] == expected[1] and replayed[0][0] == expected[0][0] == ("mix work-item 500 (i=500)", 7, 5)
    assert replayed[0] == expected[0]  # the dispatch faults later: cpu-c17's record has the host's calls
    (frames, _, _), _ = stopped_state(MIX, runToWorkItem={"dispatch": 0, "workItem": 5})
    # No fault in that dispatch: its one dispatch site is known, the host's calls are not.
    assert [f[0] for f in frames] == ["prepare work-item 5 (i=5)", "entry"] and frames[1][1:] == (31, 5)


def test_without_a_fault_the_program_runs_to_its_end_on_cpu_c17(dap: DapClient, tmp_path: Path) -> None:
    program = tmp_path / "fine.ci"
    program.write_text('kernel twice[n](in I64[n] a, out I64[n] b) over [i: n] {\n    b[i] = a[i] * 2;\n}\n'
                       'void go() {\n    I64[3] a = [1, 2, 3];\n    I64[3] b;\n    twice(a, b);\n'
                       '    "{b[2]}\\n";\n}\ngo();\n')
    end = dap.start(program, stopOnFault=True)
    assert end["event"] == "terminated"
    assert dap.output() == "6\n" and "ran to its end on cpu-c17 without a fault" in console(dap)


@pytest.mark.parametrize("body, why", [
    ("I64[2] a;\n    a[5] = 1;", "the fault is not in a work-item"),
    ("I64[1] a = [9223372036854775807];\n    I64[1] b;\n    twice(a, b);", "never reached its work-items"),
])
def test_where_there_is_no_replay_the_reference_runs_it_and_says_why(dap: DapClient, tmp_path: Path, body: str,
                                                                     why: str) -> None:
    program = tmp_path / "fault.ci"
    program.write_text('kernel twice[n](in I64[n] a, out I64[n] b) over [i: n] {\n    b[i] = a[i] * 2;\n}\n'
                       f'void go() {{\n    {body}\n}}\ngo();\n')
    stop = dap.start(program, stopOnFault=True)
    assert stop["event"] == "stopped" and stop["body"]["reason"] == "exception"
    assert why in console(dap) and "running the program on the reference from its start" in console(dap)


@pytest.mark.parametrize("value", ["yes", {"dispatch": -1, "workItem": 0}, {"dispatch": 0}, [0, 1]])
def test_a_malformed_fast_launch_is_refused_with_a_message(dap: DapClient, value: Any) -> None:
    dap.request("initialize", {"clientID": "vscode", "adapterID": "cint"})
    key = "stopOnFault" if value == "yes" else "runToWorkItem"
    answer = dap.request("launch", {"program": str(MIX), key: value}, ok=False)
    assert not answer["success"] and f"`{key}`" in answer["message"]


def test_no_debug_is_a_plain_run_on_the_configured_executor(dap: DapClient) -> None:
    """Ctrl+F5: the run a Run lens makes (here cpu-c17, to the fault), breakpoints and
    the fault filter ignored, its output and report in the Debug Console."""
    end = dap.start(MIX, breakpoints=[MIX_FIRST_LINE], noDebug=True, executor="cpu-c17")
    assert end["event"] == "terminated"
    assert dap.output() == "before\n" and "ran on cpu-c17" in console(dap)
    errors = "".join(e["body"]["output"] for e in dap.seen if e["event"] == "output"
                     and e["body"].get("category") == "stderr")
    assert "address: replay_mix.mix, dispatch 1, phase 1, work-item 922" in errors
    assert [e["body"]["exitCode"] for e in dap.seen if e["event"] == "exited"] == [1]


def test_a_launch_on_an_unknown_executor_is_refused(dap: DapClient) -> None:
    dap.request("initialize", {"clientID": "vscode", "adapterID": "cint"})
    answer = dap.request("launch", {"program": str(MIX), "noDebug": True, "executor": "cpu-c99"}, ok=False)
    assert "`executor`" in answer["message"] and "cpu-c17" in answer["message"]
