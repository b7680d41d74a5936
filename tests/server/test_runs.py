"""Runs from the editor (`workspace/executeCommand`): a child process per run, progress,
cancellation, the time limit and fuel settings, the run's fault as a diagnostic, and
the comparison of executors. Uses cpu-sir-interp only: no compiler or GPU needed."""

from __future__ import annotations

import asyncio
import time

import pytest
from lsp_support import (
    at,
    change_document,
    conformance,
    diagnostics_for,
    doc_id,
    edit,
    open_document,
    published_count,
    server_fixture,
    uri_of,
    wait_for,
)
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcRequestCancelled

from cint_ls.server.runs import implemented_executors

pytestmark = pytest.mark.asyncio(loop_scope="module")

TIME_LIMIT = 3.0
client = server_fixture(settings={"run": {"timeLimit": TIME_LIMIT}})

LOOP = """void spin() {
    I64 i = 0;
    while (true) {
        i = i +% 1;
    }
}
spin();
"""


def run_params(uri: str, executor: str | None = "cpu-sir-interp", command: str = "cint.run"):
    arguments = [uri] if command != "cint.run" else [uri, executor]
    return lsp.ExecuteCommandParams(command=command, arguments=arguments)


async def test_heat_e1_fault_becomes_a_diagnostic(client):
    uri = uri_of("heat_e1")
    assert await open_document(client, uri, conformance("heat_e1")) == []
    before = published_count(client, uri)
    result = await client.workspace_execute_command_async(run_params(uri))
    assert result["executor"] == "cpu-sir-interp" and result["error"] is None
    assert result["fault"]["code"] == "E_OVERFLOW"
    assert result["fuelConsumed"] == 65
    assert result["time"] > 0

    found = await diagnostics_for(client, uri, 1, before)
    fault = [d for d in found if d.code == "E_OVERFLOW"]
    assert len(fault) == 1
    d = fault[0]
    assert d.severity == lsp.DiagnosticSeverity.Error
    assert d.range.start == at(13, 33)
    assert "mul.checked.i64" in d.message
    assert "I64 2305843009213693952, I64 1000" in d.message
    assert "work-item 20" in d.message and "step 22" in d.message
    related = [(r.location.range.start, r.message) for r in d.related_information]
    assert related[0][0] == at(25, 5) and "dispatch 0" in related[0][1]   # the dispatch site
    assert related[1][0] == at(29, 1) and "heat_e1.step" in related[1][1]  # the entry's call

    # The output reaches the client: a cint/runResult notification and log messages.
    notification = await wait_for(lambda: [r for r in client.run_results if r["uri"] == uri])
    assert notification[-1]["fault"]["address"] == ["heat_e1.diffuse", 0, 1, 20, 22]
    assert notification[-1]["report"].startswith("fault[E_OVERFLOW]: the exact result is outside")
    assert "   = address: heat_e1.diffuse, dispatch 0, phase 1, work-item 20, step 22" in notification[-1]["report"]
    assert any("E_OVERFLOW at" in m.message and "work-item 20, step 22" in m.message for m in client.log_messages)
    assert any("fault[E_OVERFLOW]" in m.message for m in client.log_messages)
    # $/progress: begin with the executor's name, then end.
    reports = [r for r in client.progress_reports.values() if r and "cpu-sir-interp" in (r[0].title or "")]
    assert reports and reports[-1][0].kind == "begin" and reports[-1][-1].kind == "end"

    # The diagnostic stays while the document is unchanged, and goes with the next edit.
    found = await change_document(client, uri, 2, [edit(20, 0, 20, 0, " ")])
    assert not [d for d in found if d.code == "E_OVERFLOW"]


async def test_next_run_replaces_the_fault(client):
    uri = uri_of("heat_fixed")
    text = conformance("heat_e1")
    assert await open_document(client, uri, text) == []
    await client.workspace_execute_command_async(run_params(uri))
    assert [d.code for d in client.diagnostics[uri]] == ["E_OVERFLOW"]
    # Make kn small through an edit, then run again: no fault, no diagnostic.
    line = text.splitlines()[24].index("2305843009213693952")
    await change_document(client, uri, 2, [edit(24, line, 24, line + len("2305843009213693952"), "1")])
    before = published_count(client, uri)
    result = await client.workspace_execute_command_async(run_params(uri))
    assert result["fault"] is None and result["output"] == "1000\n"
    assert await diagnostics_for(client, uri, 2, before) == []


async def test_program_output(client):
    uri = uri_of("ops_kernel")
    await open_document(client, uri, conformance("ops_kernel"))
    result = await client.workspace_execute_command_async(run_params(uri))
    assert result["output"] == "19 35 39\n" and result["fault"] is None
    assert any("19 35 39" in m.message for m in client.log_messages)


@pytest.mark.slow
async def test_endless_loop_stops_at_time_limit_while_hover_answers(client):
    uri = uri_of("spin")
    await open_document(client, uri, LOOP)
    heat = uri_of("heat_hover")
    await open_document(client, heat, conformance("heat_e1"))
    started = time.monotonic()
    run = asyncio.ensure_future(client.workspace_execute_command_async(run_params(uri)))
    await asyncio.sleep(0.5)
    assert not run.done()
    # The server answers while the run goes on.
    for _ in range(3):
        asked = time.monotonic()
        hover = await client.text_document_hover_async(lsp.HoverParams(text_document=doc_id(heat),
                                                                       position=at(13, 33)))
        assert hover is not None and "step 22" in hover.contents.value
        assert time.monotonic() - asked < 1.0
    assert not run.done()
    result = await asyncio.wait_for(run, TIME_LIMIT + 10)
    elapsed = time.monotonic() - started
    assert result["fault"] is None and result["output"] is None
    assert "longer than 3 s" in result["error"]
    assert TIME_LIMIT <= elapsed < TIME_LIMIT + 5
    assert any("longer than 3 s" in m.message for m in client.log_messages)


async def test_fuel_setting(client):
    uri = uri_of("spin_fuel")
    await open_document(client, uri, LOOP)
    client.set_configuration({"run": {"timeLimit": TIME_LIMIT}, "fuel": 100}, section="cint")
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings=None))
    await asyncio.sleep(0.3)
    try:
        result = await client.workspace_execute_command_async(run_params(uri))
    finally:
        client.set_configuration({"run": {"timeLimit": TIME_LIMIT}}, section="cint")
        client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings=None))
        await asyncio.sleep(0.3)
    assert result["fault"]["code"] == "E_FUEL" and result["fuelConsumed"] == 100 and result["fuel"] == 100
    assert [d.code for d in client.diagnostics[uri]] == ["E_FUEL"]
    assert client.diagnostics[uri][0].range.start == at(3, 5)


async def test_cancel_request_stops_the_run(client):
    uri = uri_of("spin_cancel")
    await open_document(client, uri, LOOP)
    started = time.monotonic()
    future = asyncio.ensure_future(client.protocol.send_request_async(
        lsp.WORKSPACE_EXECUTE_COMMAND, run_params(uri), msg_id="cancel-me"))
    await asyncio.sleep(0.5)
    client.protocol.notify(lsp.CANCEL_REQUEST, lsp.CancelParams(id="cancel-me"))
    with pytest.raises(JsonRpcRequestCancelled):
        await asyncio.wait_for(future, 5)
    # The child is stopped too: its runResult says so, long before the time limit.
    note = await wait_for(lambda: [r for r in client.run_results if r["uri"] == uri], timeout=5)
    assert "cancelled" in note[-1]["error"]
    assert time.monotonic() - started < TIME_LIMIT


async def test_progress_cancel_stops_the_run(client):
    uri = uri_of("spin_progress")
    await open_document(client, uri, LOOP)
    known = set(client.progress_reports)
    run = asyncio.ensure_future(client.workspace_execute_command_async(run_params(uri)))
    token = await wait_for(lambda: [t for t, r in client.progress_reports.items() if t not in known and r])
    client.window_work_done_progress_cancel(lsp.WorkDoneProgressCancelParams(token=token[0]))
    result = await asyncio.wait_for(run, TIME_LIMIT)
    assert "cancelled" in result["error"]
    assert client.progress_reports[token[0]][-1].kind == "end"


async def test_compare_executors(client):
    uri = uri_of("compare_ops")
    await open_document(client, uri, conformance("ops_kernel"))
    result = await client.workspace_execute_command_async(run_params(uri, command="cint.compareExecutors"))
    assert result["executors"] == implemented_executors()
    assert result["agree"] is True and result["difference"] is None
    assert result["compared"][0] == "cpu-sir-interp"
    assert all(r["output"] == "19 35 39\n" for r in result["results"] if r["error"] is None)
    if "gpu-cuda" in result["executors"]:
        # gpu-cuda refuses `neg` (its capability profile): no result, not a disagreement.
        assert [s["executor"] for s in result["skipped"]] == ["gpu-cuda"]
        assert "neg" in result["skipped"][0]["reason"]
    note = await wait_for(lambda: [r for r in client.compare_results if r["uri"] == uri])
    assert note[-1]["agree"] is True
    assert any("cint compare" in m.message for m in client.log_messages)


async def test_compare_heat_e1_and_the_reference_fault(client):
    uri = uri_of("compare_heat")
    await open_document(client, uri, conformance("heat_e1"))
    result = await client.workspace_execute_command_async(run_params(uri, command="cint.compareExecutors"))
    # Every implemented executor gives the same fault record and fuel (SPEC-02P.1 11.3).
    # (An executor that cannot run here, say cpu-c17 without a C compiler, is skipped.)
    assert result["agree"] is True and result["compared"][0] == "cpu-sir-interp"
    ran = [r for r in result["results"] if r["executor"] in result["compared"]]
    assert {r["fault"]["code"] for r in ran} == {"E_OVERFLOW"}
    assert {r["fuelConsumed"] for r in ran} == {65}
    assert [d.code for d in client.diagnostics[uri]] == ["E_OVERFLOW"]


async def test_bad_command_arguments(client):
    from pygls.exceptions import JsonRpcInvalidParams

    with pytest.raises(JsonRpcInvalidParams):
        await client.workspace_execute_command_async(run_params(uri_of("not_open")))
    with pytest.raises(JsonRpcInvalidParams):
        await client.workspace_execute_command_async(lsp.ExecuteCommandParams(command="cint.run", arguments=[]))
    with pytest.raises(JsonRpcInvalidParams):
        await client.workspace_execute_command_async(lsp.ExecuteCommandParams(command="cint.nope",
                                                                              arguments=[uri_of("x")]))
    # An executor that does not exist is a run without a result, not a dead server.
    uri = uri_of("bad_executor")
    await open_document(client, uri, conformance("ops_kernel"))
    result = await client.workspace_execute_command_async(run_params(uri, executor="cpu-nonesuch"))
    assert result["error"] and "cpu-nonesuch" in result["error"]


async def test_translation_errors_are_not_run(client):
    uri = uri_of("same_c5010_run")
    await open_document(client, uri, conformance("same_c5010"))
    result = await client.workspace_execute_command_async(run_params(uri))
    assert result["fault"] is None and "C5010" in result["error"]
