"""Every conformance case that faults, debugged with the fault breakpoint on (issue 30):
the run stops where the `.out` file says the fault is, and the record it stopped with
(exceptionInfo) is the `.out` file's, under the conformance files' `...` rule; going on
ends the run with the same record."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import conformance_case, matches_expected
from dap_support import CONFORMANCE, DapClient, session

pytestmark = pytest.mark.slow  # a debugger per case (heat_e1's: test_adapter.py, in the quick run)


@pytest.fixture
def dap() -> Iterator[DapClient]:
    yield from session()


CASES = sorted(p.with_suffix(".ci") for p in CONFORMANCE.glob("*.out") if "fault[" in p.read_text())


def test_the_cases_are_there() -> None:
    assert len(CASES) >= 19 and CONFORMANCE / "heat_e1.ci" in CASES


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.stem)
def test_a_faulting_case_stops_at_its_fault_with_its_record(dap: DapClient, case: Path) -> None:
    args, expected = conformance_case(case)
    launch = {"fuel": int(args[args.index("--fuel") + 1])} if "--fuel" in args else {}
    report = expected[expected.index("fault["):]
    line, column = map(int, re.search(r"--> [^:]+:(\d+):(\d+)", report).groups())  # type: ignore[union-attr]
    stop = dap.start(case, **launch)
    assert stop["event"] == "stopped" and stop["body"]["reason"] == "exception", stop
    top = dap.top()
    assert (top["line"], top["column"]) == (line, column)
    info = dap.request("exceptionInfo", {"threadId": 1})["body"]
    shown = info["details"]["message"].replace(f"{case.parent}/", "")
    assert matches_expected(report, shown), shown
    dap.request("continue", {"threadId": 1})
    assert dap.event("exited")["body"]["exitCode"] == 1


WORK_ITEM_FAULTS = [case for case in CASES if ", phase 1, work-item " in conformance_case(case)[1]]


def test_some_cases_fault_in_a_work_item() -> None:
    assert len(WORK_ITEM_FAULTS) >= 8 and CONFORMANCE / "heat_e1.ci" in WORK_ITEM_FAULTS


def _stopped_state(dap: DapClient) -> tuple[dict, dict[str, str], str]:
    """The innermost frame, its variables and the fault record, where the run stopped."""
    top = dap.top()
    shown = dap.locals(top["id"])
    record = dap.request("exceptionInfo", {"threadId": 1})["body"]["details"]["message"]
    return top, shown, record


@pytest.mark.parametrize("case", WORK_ITEM_FAULTS, ids=lambda p: p.stem)
def test_the_cpu_c17_replay_stops_as_the_reference_does(case: Path) -> None:
    """`stopOnFault`: cpu-c17 runs the program, then hands the faulting dispatch to the
    reference, which runs only the faulting work-item; the stop, the work-item's
    variables (fuel consumed included) and the record are a whole reference run's."""
    args, _ = conformance_case(case)
    launch = {"fuel": int(args[args.index("--fuel") + 1])} if "--fuel" in args else {}
    states = []
    for fast in (False, True):
        client = DapClient()
        try:
            stop = client.start(case, stopOnFault=fast, **launch)
            assert stop["event"] == "stopped" and stop["body"]["reason"] == "exception", stop
            states.append(_stopped_state(client))
            console = "".join(e["body"]["output"] for e in client.seen
                              if e["event"] == "output" and e["body"].get("category") == "console")
            assert ("runs on the reference" in console) == fast, console
            client.request("continue", {"threadId": 1})
            assert client.event("exited")["body"]["exitCode"] == 1
        finally:
            client.close()
    (reference_top, reference_locals, reference_record), (top, shown, record) = states
    assert (top["name"], top["line"], top["column"]) == \
        (reference_top["name"], reference_top["line"], reference_top["column"])
    assert shown == reference_locals
    assert record == reference_record
