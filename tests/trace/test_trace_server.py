"""The trace in the server's run result (`trace`, schema/run-result.schema.json) and
the command cint.tracePage that turns it into the page."""

from __future__ import annotations

from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from cint_ls.server.handlers.commands import trace_page
from cint_ls.server.runs import run_program, run_result_json
from cint_ls.server.settings import Settings

HEAT_E1 = Path(__file__).resolve().parent.parent / "conformance" / "heat_e1.ci"


def test_run_result_carries_the_trace_and_the_command_draws_it():
    outcome = run_program("cpu-sir-interp", str(HEAT_E1), HEAT_E1.read_text(), Settings())
    result = run_result_json(outcome, HEAT_E1.as_uri(), 1)
    types = [line["type"] for line in result["trace"]]
    assert types == ["run", "dispatch", "fault_map"]
    assert result["trace"][2]["work_item"] == 20
    page = trace_page(result["trace"])["html"]
    assert page.startswith("<!DOCTYPE html>") and "heat_e1.ci" in page


@pytest.mark.parametrize("bad", [None, "x", [1], [{"type": "dispatch", "number": 0, "kernel": "k", "executor": "e"}]])
def test_trace_page_refuses_what_is_not_a_trace(bad):
    with pytest.raises(JsonRpcInvalidParams, match="cint.tracePage"):
        trace_page(bad)
