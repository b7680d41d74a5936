"""Hit counts, logpoints and fault filters by code (issue 30), on heat_e1: its kernel's
first statement (line 8) runs once per work-item, 0..63 in order, until work-item 20
faults (E_OVERFLOW at 13:33)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from dap_support import HEAT_E1, DapClient, session

pytestmark = pytest.mark.slow  # a debugger per test

FIRST = 8  # `I64 c = u[y, x] as I64;`


@pytest.fixture
def dap() -> Iterator[DapClient]:
    yield from session()


def start(dap: DapClient, breakpoints: list[dict[str, Any]], filters: list[str] | None = None,
          options: list[dict[str, Any]] | None = None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """initialize, launch, setBreakpoints, setExceptionBreakpoints, configurationDone: what
    the two set requests answered."""
    dap.request("initialize", {"clientID": "vscode", "adapterID": "cint"})
    dap.request("launch", {"program": str(HEAT_E1)})
    dap.event("initialized")
    answer = dap.request("setBreakpoints", {"source": {"path": str(HEAT_E1)}, "breakpoints": breakpoints})
    arguments: dict[str, Any] = {"filters": filters if filters is not None else []}
    if options is not None:
        arguments["filterOptions"] = options
    faults = dap.request("setExceptionBreakpoints", arguments)
    dap.request("configurationDone")
    return answer["body"]["breakpoints"], faults["body"].get("breakpoints", [])


def work_item(dap: DapClient) -> int:
    return int(dap.locals()["work-item"])


def stops(dap: DapClient) -> list[tuple[str, int | None]]:
    """Each stop's reason and work-item, continuing until the run ends."""
    seen = []
    while (event := dap.next_stop())["event"] == "stopped":
        seen.append((event["body"]["reason"], work_item(dap)))
        dap.request("continue", {"threadId": 1})
    return seen


@pytest.mark.parametrize("hit, expected", [
    ("3", [2]), ("== 3", [2]), (">= 18", [17, 18, 19, 20]), ("> 19", [19, 20]), ("% 10", [9, 19]),
])
def test_a_hit_count_stops_at_the_hits_it_names(dap: DapClient, hit: str, expected: list[int]) -> None:
    (answer,), _ = start(dap, [{"line": FIRST, "hitCondition": hit}])
    assert answer["verified"]
    assert stops(dap) == [("breakpoint", k) for k in expected]


def test_a_hit_counts_the_hits_where_the_condition_holds(dap: DapClient) -> None:
    start(dap, [{"line": FIRST, "condition": "y == 2", "hitCondition": "2"}])
    assert stops(dap) == [("breakpoint", 17)]  # (y=2, x=1): the second work-item of row 2


@pytest.mark.parametrize("hit", ["abc", "% 0", "<= 3", "3 4"])
def test_a_malformed_hit_count_leaves_the_breakpoint_unverified(dap: DapClient, hit: str) -> None:
    (answer,), _ = start(dap, [{"line": FIRST, "hitCondition": hit}])
    assert not answer["verified"] and "hit count" in answer["message"]


def test_a_logpoint_reads_arrays(dap: DapClient) -> None:
    message = 'row {y}: "u" = {u[3, 4] + (y as I32)}'
    (answer,), _ = start(dap, [{"line": FIRST, "condition": "x == 0", "logMessage": message}], filters=["faults"])
    assert answer["verified"], answer
    assert dap.next_stop()["body"]["reason"] == "exception"
    said = "".join(e["body"]["output"] for e in dap.seen if e["event"] == "output")
    assert 'row 0: "u" = 1000\nrow 1: "u" = 1001\nrow 2: "u" = 1002\n' in said


def test_a_condition_on_an_array(dap: DapClient) -> None:
    start(dap, [{"line": FIRST, "condition": "u[y + 1, x] != 0"}])
    assert stops(dap) == [("breakpoint", 20)]  # (y=2, x=4): u[3, 4] is the 1000


def test_a_logpoint_with_scalars(dap: DapClient) -> None:
    start(dap, [{"line": FIRST, "condition": "x == 0", "logMessage": 'row {y}: "kn" = {kn / 1000000000}'}],
          filters=["faults"])
    stop = dap.next_stop()
    assert stop["body"]["reason"] == "exception"  # the logpoint never stopped the run
    said = "".join(e["body"]["output"] for e in dap.seen if e["event"] == "output")
    assert 'row 0: "kn" = 2305843009\nrow 1: "kn" = 2305843009\nrow 2: "kn" = 2305843009\n' in said
    assert "row 3" not in said  # work-item 20 (row 2) faulted first


def test_a_logpoint_that_does_not_check_is_unverified(dap: DapClient) -> None:
    (answer,), _ = start(dap, [{"line": FIRST, "logMessage": "at {nosuch}"}])
    assert not answer["verified"] and "the log message `at {nosuch}`" in answer["message"]


@pytest.mark.parametrize("codes, stopped", [("E_OVERFLOW", True), ("E_DIV_ZERO, E_BOUNDS", False),
                                            ("", True), (" E_BOUNDS ,E_OVERFLOW", True)])
def test_the_fault_filter_stops_at_the_codes_named(dap: DapClient, codes: str, stopped: bool) -> None:
    _, (answer,) = start(dap, [], filters=[], options=[{"filterId": "faults", "condition": codes}])
    assert answer["verified"]
    event = dap.next_stop()
    assert (event["event"] == "stopped") == stopped
    if stopped:
        assert event["body"]["text"] == "E_OVERFLOW"


def test_an_unknown_fault_code_is_said(dap: DapClient) -> None:
    _, (answer,) = start(dap, [], options=[{"filterId": "faults", "condition": "E_OVERFLOW, E_NOPE"}])
    assert not answer["verified"] and "not a fault code: E_NOPE" in answer["message"]
    assert dap.next_stop()["event"] == "terminated"  # no filter took: the run is not stopped
