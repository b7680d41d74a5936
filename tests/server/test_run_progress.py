"""A run's progress reports its stages (issue 12): compiling, running, and for a fault
gpu-cuda's host in Python describes, describing the fault; on the token the client gave with the request (what the
VS Code extension does, to show the run in a notification it can cancel) or on one the
server created."""

from __future__ import annotations

import pytest
from lsp_support import conformance, open_document, server_fixture, uri_of
from lsprotocol import types as lsp

from cint_ls.server.runs import implemented_executors

pytestmark = pytest.mark.asyncio(loop_scope="module")

client = server_fixture(settings={"run": {"timeLimit": 60}})


def stages(reports: list) -> list[str]:
    return [r.message for r in reports if r.kind == "report"]


async def run(client, uri: str, executor: str, token: str | None = None) -> tuple[dict, list]:
    known = set(client.progress_reports)
    if token is not None:
        client.progress_reports[token] = []  # the client's own token: no create request
    result = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="cint.run", arguments=[uri, executor], work_done_token=token))
    if token is None:
        (token,) = [t for t in client.progress_reports if t not in known]
    return result, client.progress_reports[token]


async def test_stages_on_a_server_token(client):
    uri = uri_of("progress_heat")
    await open_document(client, uri, conformance("heat_e1"))
    result, reports = await run(client, uri, "cpu-sir-interp")
    assert result["fault"]["code"] == "E_OVERFLOW"
    assert reports[0].kind == "begin" and reports[0].title == "cint: run on cpu-sir-interp"
    assert reports[0].cancellable is True
    assert stages(reports) == ["compiling", "running"]
    assert reports[-1].kind == "end"


async def test_stages_on_the_clients_token(client):
    uri = uri_of("progress_client_token")
    await open_document(client, uri, conformance("heat_e1"))
    result, reports = await run(client, uri, "cpu-sir-interp", token="vscode-run-1")
    assert result["fault"]["code"] == "E_OVERFLOW"
    assert [r.kind for r in reports] == ["begin", "report", "report", "end"]
    assert stages(reports) == ["compiling", "running"]


@pytest.mark.skipif("gpu-cuda" not in implemented_executors(), reason="gpu-cuda is not installed")
async def test_gpu_cuda_describes_its_fault(client):
    uri = uri_of("progress_gpu")
    await open_document(client, uri, conformance("heat_e1"))
    result, reports = await run(client, uri, "gpu-cuda")
    assert result["fault"]["code"] == "E_OVERFLOW"
    # the host in C (issue 15) re-runs it inside the run, in the counting code the
    # program's library already holds: nothing to compile, no stage
    assert "the fault of work-item 20 of dispatch 0 was described by cpu-c17" in result["notes"]
    assert stages(reports) == ["compiling", "running"]


async def test_compare_names_the_executor_of_each_stage(client):
    uri = uri_of("progress_compare")
    await open_document(client, uri, conformance("ops_kernel"))
    known = set(client.progress_reports)
    await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="cint.compareExecutors", arguments=[uri]))
    (token,) = [t for t in client.progress_reports if t not in known]
    seen = set(stages(client.progress_reports[token]))
    assert {"cpu-sir-interp: compiling", "cpu-sir-interp: running"} <= seen
