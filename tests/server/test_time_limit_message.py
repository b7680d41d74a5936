"""A run the time limit stops names the setting that sets it (issue 32: "the run took
longer than 10 s and was stopped", and nothing said which setting that was)."""

from __future__ import annotations

import pytest
from lsp_support import open_document, server_fixture, uri_of
from lsprotocol import types as lsp

from cint_ls.server.handlers.commands import _name_the_time_limit
from cint_ls.server.runs import run_program, run_result_json
from cint_ls.server.settings import Settings

SPIN = "I64 i = 0;\nwhile (true) {\n    i = i +% 1;\n}\n"

client = server_fixture(settings={})  # the defaults: a run stops after 10 s


def test_a_run_stopped_by_the_time_limit_names_cint_run_time_limit():
    outcome = run_program("cpu-sir-interp", "spin.ci", SPIN, Settings(time_limit=0.5))
    _name_the_time_limit(outcome, 0.5)
    result = run_result_json(outcome, "file:///spin.ci", 1)
    assert result["output"] is None and "longer than 0.5 s" in result["error"]
    assert result["error"].endswith("(the setting cint.run.timeLimit; raise it to let runs go on longer)")
    assert "cint.run.timeLimit" in result["summary"]
    _name_the_time_limit(outcome, 0.5)  # once
    assert outcome.error.count("cint.run.timeLimit") == 1


def test_another_limit_is_not_named_as_the_time_limit():
    outcome = run_program("cpu-sir-interp", "spin.ci", SPIN, Settings(time_limit=0.5))
    outcome.error = "compiling took longer than 120 s and was stopped"
    _name_the_time_limit(outcome, 0.5)
    assert "cint.run.timeLimit" not in outcome.error


@pytest.mark.slow
@pytest.mark.asyncio(loop_scope="module")
async def test_the_editor_names_cint_run_time_limit_after_the_default_10_s(client):
    uri = uri_of("spin_limit")
    await open_document(client, uri, SPIN)
    result = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="cint.run", arguments=[uri, "cpu-sir-interp"]))
    assert "longer than 10 s" in result["error"] and "cint.run.timeLimit" in result["summary"]
    assert any("cint.run.timeLimit" in m.message for m in client.log_messages)
