"""cint-debug end to end over its pipes (issue 30): the spec's heat_e1.ci stopped at its
fault, breakpoints in a function and in a kernel, stepping, variables, bad input."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from dap_support import HEAT_E1, DapClient, session


@pytest.fixture
def dap() -> Iterator[DapClient]:
    yield from session()


def test_heat_e1_stops_at_its_fault_with_the_record(dap: DapClient) -> None:
    """SPEC-02P.1's heat_e1: E_OVERFLOW at 13:33 (mul.checked.i64), work-item 20 of
    dispatch 0, step 22 [F-5]; the Variables view shows c, lap, y and x."""
    stop = dap.start(HEAT_E1)
    assert stop["event"] == "stopped" and stop["body"]["reason"] == "exception"
    assert stop["body"]["text"] == "E_OVERFLOW"
    top = dap.top()
    assert (top["line"], top["column"]) == (13, 33)
    assert top["name"] == "diffuse work-item 20 (y=2, x=4)"
    names = [f["name"] for f in dap.request("stackTrace", {"threadId": 1})["body"]["stackFrames"]]
    assert names == ["diffuse work-item 20 (y=2, x=4)", "step", "entry"]
    seen = dap.locals()
    assert seen["c"] == "0" and seen["lap"] == "1000" and seen["y"] == "2" and seen["x"] == "4"  # lap: the operand
    assert seen["step"] == "22" and seen["work-item"] == "20" and seen["dispatch"] == "0"
    info = dap.request("exceptionInfo", {"threadId": 1})["body"]
    assert info["exceptionId"] == "E_OVERFLOW"
    assert "heat_e1.ci:13:33" in info["details"]["message"]
    assert "address: heat_e1.diffuse, dispatch 0, phase 1, work-item 20, step 22" in info["details"]["message"]
    dap.request("continue", {"threadId": 1})
    assert dap.event("exited")["body"]["exitCode"] == 1
    dap.event("terminated")
    # the record where it stopped is the one the run ends with
    ended = "".join(e["body"]["output"] for e in dap.seen if e["event"] == "output"
                    and e["body"].get("category") == "stderr")
    assert ended == info["details"]["message"]


def test_a_breakpoint_in_a_kernel_stops_at_each_work_item(dap: DapClient) -> None:
    stop = dap.start(HEAT_E1, breakpoints=[16])
    assert stop["body"]["reason"] == "breakpoint"
    assert dap.top()["name"] == "diffuse work-item 0 (y=0, x=0)" and dap.top()["line"] == 16
    dap.request("continue", {"threadId": 1})
    assert dap.next_stop()["body"]["reason"] == "breakpoint"
    assert dap.top()["name"] == "diffuse work-item 1 (y=0, x=1)"


def test_breakpoints_are_moved_to_a_statement_and_refused_past_the_end(dap: DapClient) -> None:
    dap.request("initialize", {"adapterID": "cint"})
    dap.request("launch", {"program": str(HEAT_E1)})
    answer = dap.request("setBreakpoints", {"source": {"path": str(HEAT_E1)},
                                            "breakpoints": [{"line": 12}, {"line": 19}, {"line": 500}]})
    marks = answer["body"]["breakpoints"]
    assert [(b["verified"], b.get("line")) for b in marks] == [(True, 13), (True, 21), (False, 500)]
    assert "no statement" in marks[2]["message"]


def test_stepping_over_into_and_out(dap: DapClient) -> None:
    stop = dap.start(HEAT_E1, stopOnEntry=True)
    assert stop["body"]["reason"] == "entry"
    assert (dap.top()["name"], dap.top()["line"]) == ("entry", 29)
    dap.request("stepIn", {"threadId": 1})
    assert dap.next_stop()["body"]["reason"] == "step"
    assert (dap.top()["name"], dap.top()["line"]) == ("step", 21)
    dap.request("next", {"threadId": 1})
    dap.next_stop()
    assert dap.top()["line"] == 22
    dap.request("stepOut", {"threadId": 1})
    stop = dap.next_stop()
    # stepping out of `step` runs the dispatch, which faults: the fault stops it first
    assert stop["body"]["reason"] == "exception"


def test_the_program_output_and_the_end_without_a_fault(dap: DapClient, tmp_path: Path) -> None:
    program = tmp_path / "hello.ci"
    program.write_text('I64 a = 2;\n"{a + 1}\\n";\n', encoding="utf-8")
    stop = dap.start(program)
    assert stop["event"] == "terminated"
    assert dap.output() == "3\n"
    assert any(e["event"] == "exited" and e["body"]["exitCode"] == 0 for e in dap.seen)


def test_bad_input_is_a_message_and_the_adapter_reads_on(dap: DapClient, tmp_path: Path) -> None:
    dap.request("initialize", {"adapterID": "cint"})
    broken = tmp_path / "broken.ci"
    broken.write_text("I64 a = ;\n", encoding="utf-8")
    answer = dap.request("launch", {"program": str(broken)}, ok=False)
    assert "has errors" in answer["message"] and "broken.ci:1:7" in answer["message"]
    answer = dap.request("launch", {"program": str(tmp_path / "missing.ci")}, ok=False)
    assert "cannot read" in answer["message"]
    answer = dap.request("stackTrace", {"threadId": 1}, ok=False)
    assert "launch" in answer["message"]
    answer = dap.request("readMemory", {"memoryReference": "0", "count": 1}, ok=False)
    assert "does not support" in answer["message"]
    answer = dap.request("launch", {"program": 42}, ok=False)
    assert "program" in answer["message"]
    assert dap.request("threads")["body"]["threads"] == [{"id": 1, "name": "main"}]


def test_deep_recursion_is_seen_frame_by_frame(dap: DapClient, tmp_path: Path) -> None:
    """Beyond the interpreter's first 48 nested calls a call runs on its own frame stack
    (exec/interp/resumable.py): the debugger sees those frames and statements too."""
    program = tmp_path / "deep.ci"
    program.write_text("I64 down(I64 n) {\n    if (n == 0) {\n        return 0;\n    }\n"
                       "    return down(n - 1) + 1;\n}\n\n\"{down(300)}\\n\";\n", encoding="utf-8")
    stop = dap.start(program, breakpoints=[3])
    assert stop["body"]["reason"] == "breakpoint"
    frames = dap.request("stackTrace", {"threadId": 1})["body"]["stackFrames"]
    assert len(frames) == 302 and frames[0]["name"] == "down" and frames[-1]["name"] == "entry"
    assert [f["line"] for f in frames[:3]] == [3, 5, 5]  # the statement, then each call's place
    assert dap.locals()["n"] == "0"
    assert dap.locals(frames[300]["id"])["n"] == "300"
    page = dap.request("stackTrace", {"threadId": 1, "startFrame": 100, "levels": 20})["body"]
    assert page["totalFrames"] == 302 and [f["id"] for f in page["stackFrames"]] == [f["id"] for f in frames[100:120]]
    tail = dap.request("stackTrace", {"threadId": 1, "startFrame": 300, "levels": 20})["body"]["stackFrames"]
    assert [f["name"] for f in tail] == ["down", "entry"]
    dap.request("continue", {"threadId": 1})
    assert dap.next_stop()["event"] == "terminated" and dap.output() == "300\n"


def test_the_requests_nvim_dap_sends(dap: DapClient) -> None:
    """nvim-dap (lua/dap/session.lua, which cannot be installed here): its initialize
    arguments; `launch` with the whole configuration as soon as initialize is answered;
    at `initialized`, the breakpoints of each buffer and the filters that default to on;
    then configurationDone; at a stop, threads, stackTrace with startFrame and levels,
    scopes and variables."""
    init = dap.request("initialize", {
        "clientID": "neovim", "clientName": "neovim", "adapterID": "cint", "pathFormat": "path",
        "columnsStartAt1": True, "linesStartAt1": True, "supportsRunInTerminalRequest": True,
        "supportsVariableType": True, "supportsProgressReporting": True, "supportsStartDebuggingRequest": True,
        "locale": "en_US.UTF-8"})["body"]
    defaults = [f["filter"] for f in init["exceptionBreakpointFilters"] if f.get("default")]
    assert defaults == ["faults"] and init["supportsConfigurationDoneRequest"]
    dap.request("launch", {"type": "cint", "request": "launch", "name": "Debug the file",
                           "program": str(HEAT_E1), "stopOnEntry": False})
    dap.event("initialized")
    dap.request("setBreakpoints", {"source": {"path": str(HEAT_E1), "name": "heat_e1.ci"},
                                   "sourceModified": False, "breakpoints": [{"line": 16}], "lines": [16]})
    dap.request("setExceptionBreakpoints", {"filters": defaults})
    dap.request("configurationDone", {})
    assert dap.next_stop()["body"]["reason"] == "breakpoint"
    assert dap.request("threads")["body"]["threads"][0]["id"] == 1
    frames = dap.request("stackTrace", {"threadId": 1, "startFrame": 0, "levels": 20})["body"]["stackFrames"]
    assert frames[0]["line"] == 16 and frames[0]["source"]["path"] == str(HEAT_E1.resolve())
    assert dap.locals(frames[0]["id"])["x"] == "0"


def test_a_conditional_breakpoint_stops_once(dap: DapClient) -> None:
    """The issue's own: `y == 2 && x == 4` on the kernel's first statement stops at
    work-item 20 only; going on, the run stops at that work-item's fault."""
    dap.request("initialize", {"adapterID": "cint"})
    dap.request("launch", {"program": str(HEAT_E1)})
    dap.event("initialized")
    marks = dap.request("setBreakpoints", {"source": {"path": str(HEAT_E1)}, "breakpoints": [
        {"line": 8, "condition": "y == 2 && x == 4"}, {"line": 9, "condition": "y +"},
        {"line": 16, "condition": "z == 1"}]})["body"]["breakpoints"]
    assert marks[0]["verified"] and not marks[1]["verified"] and not marks[2]["verified"]
    assert "`y +`" in marks[1]["message"] and "column" in marks[1]["message"]
    assert "unknown name `z`" in marks[2]["message"]
    dap.request("setExceptionBreakpoints", {"filters": ["faults"]})
    dap.request("configurationDone")
    stop = dap.next_stop()
    assert stop["body"]["reason"] == "breakpoint" and dap.top()["name"] == "diffuse work-item 20 (y=2, x=4)"
    dap.request("continue", {"threadId": 1})
    stop = dap.next_stop()
    assert stop["body"]["reason"] == "exception" and dap.top()["name"] == "diffuse work-item 20 (y=2, x=4)"


def test_evaluate_in_a_frame(dap: DapClient) -> None:
    """Any cint expression without effects, in the stopped frame's scope, written as
    `cint run` prints it, with its type; an error is a message (issue 30)."""
    dap.start(HEAT_E1)  # stopped at the fault, in work-item 20
    frame = dap.top()["id"]

    def evaluate(expression: str, ok: bool = True) -> dict:
        return dap.request("evaluate", {"expression": expression, "frameId": frame, "context": "watch"}, ok=ok)

    assert evaluate("lap")["body"]["result"] == "1000" and evaluate("lap")["body"]["type"] == "I64"
    assert evaluate("c + lap * 2")["body"]["result"] == "2000"
    answer = evaluate("y == 2 && x == 4")["body"]
    assert (answer["result"], answer["type"]) == ("true", "Bool")
    assert "E_OVERFLOW" in evaluate("kn * lap", ok=False)["message"]
    assert "unknown name `nope`" in evaluate("nope + 1", ok=False)["message"]
    assert evaluate("x = 1", ok=False)["message"]  # an assignment is no expression
    assert "no value" in evaluate("flux", ok=False)["message"]  # not yet assigned at the fault
    caller = dap.request("stackTrace", {"threadId": 1})["body"]["stackFrames"][1]["id"]
    assert dap.request("evaluate", {"expression": "total", "frameId": caller})["body"]["result"] == "0"
    # Arrays: the kernel's views (an out parameter's elements as before the dispatch), the
    # caller's local arrays; an index out of range is a message.
    assert evaluate("u[y + 1, x] + v[0, 0]")["body"]["result"] == "1000"
    assert dap.request("evaluate", {"expression": "a[3, 4] * 2", "frameId": caller})["body"]["result"] == "2000"
    assert "E_BOUNDS" in evaluate("u[y + 9, x]", ok=False)["message"]


def test_arrays_by_rows_and_pages(dap: DapClient) -> None:
    """`out v` of heat_e1's kernel: I32[8, 8], its rows, a row's elements; a page of them
    as a client asks with `start` and `count` (indexedVariables)."""
    dap.start(HEAT_E1)
    scopes = dap.request("scopes", {"frameId": dap.top()["id"]})["body"]["scopes"]
    local = dap.request("variables", {"variablesReference": scopes[0]["variablesReference"]})["body"]["variables"]
    (u,) = [v for v in local if v["name"] == "in u"]
    assert u["value"] == "I32[8, 8]" and u["indexedVariables"] == 8
    rows = dap.request("variables", {"variablesReference": u["variablesReference"]})["body"]["variables"]
    assert [r["name"] for r in rows] == [f"[{i}]" for i in range(8)] and rows[3]["value"] == "I32[8]"
    page = dap.request("variables", {"variablesReference": rows[3]["variablesReference"], "start": 2, "count": 4})
    assert [(v["name"], v["value"]) for v in page["body"]["variables"]] == [("[2]", "0"), ("[3]", "0"), ("[4]", "1000"),
                                                                        ("[5]", "0")]


def test_heat_e1_through_the_cpu_c17_replay(dap: DapClient) -> None:
    """`stopOnFault`: cpu-c17 runs heat_e1 to its fault, the reference runs work-item 20
    alone; the stop is the reference's (debug/replay.py; every conformance case:
    test_conformance_faults.py, arrays of every layout: test_replay.py)."""
    stop = dap.start(HEAT_E1, stopOnFault=True)
    assert stop["event"] == "stopped" and stop["body"]["text"] == "E_OVERFLOW"
    top = dap.top()
    assert (top["name"], top["line"], top["column"]) == ("diffuse work-item 20 (y=2, x=4)", 13, 33)
    seen = dap.locals()
    assert (seen["lap"], seen["step"], seen["fuel consumed"]) == ("1000", "22", "65")
    said = "".join(e["body"]["output"] for e in dap.seen if e["event"] == "output")
    assert "work-items 0 to 19 of dispatch 0 ran on cpu-c17" in said


def test_set_variable_changes_the_run(dap: DapClient) -> None:
    """setVariable: `lap` of work-item 20 set to 0 and the 1000 of `u` to 0: the
    multiplication that faulted does not, and the run ends without a fault."""
    assert dap.start(HEAT_E1, [{"line": 13, "condition": "y == 2 && x == 4"}])["body"]["reason"] == "breakpoint"
    scopes = dap.request("scopes", {"frameId": dap.top()["id"]})["body"]["scopes"]
    local = scopes[0]["variablesReference"]
    wrong = dap.request("setVariable", {"variablesReference": local, "name": "lap", "value": "5 as I32"}, ok=False)
    assert "the value is I32, the variable I64" in wrong["message"]
    answer = dap.request("setVariable", {"variablesReference": local, "name": "lap", "value": "c * 0"})["body"]
    assert (answer["value"], answer["type"]) == ("0", "I64")
    (u,) = [v for v in dap.request("variables", {"variablesReference": local})["body"]["variables"]
            if v["name"] == "in u"]
    row = dap.request("variables", {"variablesReference": u["variablesReference"]})["body"]["variables"][3]
    assert dap.request("setVariable", {"variablesReference": row["variablesReference"], "name": "[4]",
                                       "value": "0 as I32"})["body"]["value"] == "0"
    assert dap.request("evaluate", {"expression": "u[3, 4] + lap as I32", "frameId": dap.top()["id"]}
                       )["body"]["result"] == "0"
    dap.request("continue", {"threadId": 1})
    assert dap.event("exited")["body"]["exitCode"] == 0  # no fault any more
