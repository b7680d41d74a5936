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
