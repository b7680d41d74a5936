"""Code lenses run what they sit on (issue 12): the lens above an exported function runs
that function, a function that cannot start a run gets no lens, bad arguments are
InvalidParams answers, and gpu-cuda's lens and summary say when the run is on the
simulated device."""

from __future__ import annotations

import pytest
from lsp_support import CONFORMANCE, doc_id, open_document, server_fixture, uri_of
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcInvalidParams

from cint_ls.exec.cuda import probe
from cint_ls.server.runs import implemented_executors

pytestmark = pytest.mark.asyncio(loop_scope="module")

client = server_fixture(settings={"run": {"timeLimit": 30}})

PROGRAM = """export I64 twice() {
    "in twice\\n";
    I64 x = 4611686018427387904;
    return x * 2;
}

export void hello() {
    "hello {1 + 2}\\n";
}

export I64 add(I64 a) {
    return a;
}

I64 hidden() {
    return 1;
}

"top\\n";
"""


async def lenses_of(client, uri: str) -> list[lsp.CodeLens]:
    return await client.text_document_code_lens_async(lsp.CodeLensParams(text_document=doc_id(uri)))


async def execute(client, command: lsp.Command):
    return await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command=command.command, arguments=command.arguments))


async def test_lenses_sit_where_a_run_starts(client):
    uri = uri_of("lens_functions")
    await open_document(client, uri, PROGRAM)
    lenses = await lenses_of(client, uri)
    lines = {(lens.range.start.line, tuple(lens.command.arguments[2:3])) for lens in lenses
             if lens.command.command == "cint.run"}
    # twice (line 0), hello (line 6), the top-level statement (line 18); not add (it
    # takes a parameter) nor hidden (not exported).
    assert lines == {(0, ("twice",)), (6, ("hello",)), (18, ())}


async def test_the_function_lens_runs_the_function(client):
    uri = uri_of("lens_run_function")
    await open_document(client, uri, PROGRAM)
    lenses = await lenses_of(client, uri)
    by_line = {}
    for lens in lenses:
        if lens.command.command == "cint.run" and lens.command.arguments[1] == "cpu-sir-interp":
            by_line[lens.range.start.line] = lens.command

    twice = await execute(client, by_line[0])
    assert twice["output"] == "in twice\n"
    assert twice["fault"]["code"] == "E_OVERFLOW" and twice["fault"]["operation"] == "mul.checked.i64"
    assert twice["fuelConsumed"] == 1  # the call of twice, as the workbench's `:run twice()`

    hello = await execute(client, by_line[6])
    assert hello["output"] == "hello 3\n" and hello["fault"] is None and hello["error"] is None

    top = await execute(client, by_line[18])
    assert top["output"] == "top\n" and top["fuelConsumed"] == 0


async def test_compare_lens_of_a_function(client):
    uri = uri_of("lens_compare_function")
    await open_document(client, uri, PROGRAM)
    lenses = await lenses_of(client, uri)
    compare = [lens.command for lens in lenses
               if lens.command.command == "cint.compareExecutors" and lens.range.start.line == 6]
    assert compare and list(compare[0].arguments[1:]) == ["hello"]
    result = await execute(client, compare[0])
    assert result["agree"] is True
    assert {r["output"] for r in result["results"] if r["error"] is None} == {"hello 3\n"}


@pytest.mark.parametrize("arguments, says", [
    (["cpu-sir-interp", 7], "argument 3 must be the name of a function"),
    (["cpu-sir-interp", ["twice"]], "argument 3 must be the name of a function"),
    (["cpu-sir-interp", "nope"], "no exported function 'nope'"),
    (["cpu-sir-interp", "add"], "no exported function 'add'"),  # takes a parameter
    (["cpu-sir-interp", "hidden"], "no exported function 'hidden'"),  # not exported
    ([5, "twice"], "the second argument must be an executor name"),
])
async def test_bad_function_arguments_are_invalid_params(client, arguments, says):
    uri = uri_of("lens_bad_arguments")
    if uri not in client.diagnostics:
        await open_document(client, uri, PROGRAM)
    with pytest.raises(JsonRpcInvalidParams) as raised:
        await client.workspace_execute_command_async(
            lsp.ExecuteCommandParams(command="cint.run", arguments=[uri, *arguments]))
    assert says in str(raised.value)
    # The server is still there and still runs.
    result = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="cint.run", arguments=[uri, "cpu-sir-interp", "hello"]))
    assert result["output"] == "hello 3\n"


async def test_bad_compare_function_argument(client):
    uri = uri_of("lens_bad_compare")
    await open_document(client, uri, PROGRAM)
    with pytest.raises(JsonRpcInvalidParams):
        await client.workspace_execute_command_async(
            lsp.ExecuteCommandParams(command="cint.compareExecutors", arguments=[uri, "add"]))


@pytest.mark.skipif("gpu-cuda" not in implemented_executors(), reason="gpu-cuda is not installed")
async def test_gpu_cuda_says_when_it_is_simulated(client):
    simulated = probe.wait(60) is not None  # the forecast, as the server makes it
    uri = uri_of("lens_simulated")
    await open_document(client, uri, PROGRAM)
    lenses = await lenses_of(client, uri)
    titles = {lens.command.title for lens in lenses if list(lens.command.arguments[1:2]) == ["gpu-cuda"]}
    assert titles == {"▶ Run on gpu-cuda (simulated)" if simulated else "▶ Run on gpu-cuda"}

    command = next(lens.command for lens in lenses
                   if list(lens.command.arguments[1:]) == ["gpu-cuda", "hello"])
    result = await execute(client, command)
    assert result["output"] == "hello 3\n"
    # The run's own note is the truth; the forecast agrees with it, and so does the summary.
    assert any("ran on the simulated device" in note for note in result["notes"]) == simulated
    assert result["summary"].startswith("gpu-cuda: finished; ran on the simulated device;") == simulated
    assert any(m.message.startswith("cint run gpu-cuda: finished") and
               ("ran on the simulated device" in m.message) == simulated for m in client.log_messages)


# ---- the plain Run (issue 14): the executor auto chooses, as `cint run` without flags


async def test_the_plain_run_lens_runs_where_auto_chooses(client):
    from cint_ls.running.auto import compiler_status

    uri = uri_of("lens_plain_run")
    await open_document(client, uri, PROGRAM)
    lenses = await lenses_of(client, uri)
    runs = [lens for lens in lenses if lens.command.command == "cint.run"]
    plain = [lens.command for lens in runs if lens.command.title == "▶ Run"]
    # Each place a run starts gets one plain Run, first, with the executor `auto`.
    assert sorted(list(c.arguments[1:]) for c in plain) == [["auto"], ["auto", "hello"], ["auto", "twice"]]
    firsts = {}
    for lens in runs:
        firsts.setdefault(lens.range.start.line, lens.command.title)
    assert set(firsts.values()) == {"▶ Run"}

    expected = "cpu-c17" if compiler_status()[0] else "cpu-sir-interp"
    hello = await execute(client, next(c for c in plain if list(c.arguments[2:]) == ["hello"]))
    assert hello["executor"] == expected and hello["output"] == "hello 3\n" and hello["error"] is None
    # cint.run without an executor is the plain Run too.
    result = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="cint.run", arguments=[uri, None, "hello"]))
    assert result["executor"] == expected and result["output"] == "hello 3\n"


WIDE = """kernel fill[n](out I64[n] v) over [i: n] {
    v[i] = i;
}

I64[8192] v;
fill(v);
"{v[8191]}\\n";
"""


async def _configure(client, settings: dict) -> None:
    import asyncio

    client.set_configuration(settings, section="cint")
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings=None))
    await asyncio.sleep(0.3)


@pytest.mark.needs_cc
async def test_the_c17_threads_setting_reaches_cpu_c17_runs(client):
    uri = uri_of("lens_threads")
    await open_document(client, uri, WIDE)
    notes = {}
    try:
        for threads in (2, 1):
            await _configure(client, {"c17": {"threads": threads}})
            result = await client.workspace_execute_command_async(
                lsp.ExecuteCommandParams(command="cint.run", arguments=[uri, "cpu-c17"]))
            assert result["output"] == "8191\n", result
            notes[threads] = result["notes"]
    finally:
        await _configure(client, {})
    assert notes[2] == ["cpu-c17 ran the work-items of 1 of 1 dispatches on 2 threads"]
    assert notes[1] == []


async def test_the_c17_threads_setting_is_parsed():
    from cint_ls.server.settings import parse_settings

    settings, warnings = parse_settings({"c17": {"threads": 3}})
    assert settings.c17_threads == 3 and warnings == []
    assert settings.run_options("cpu-c17") == {"threads": 3} and settings.run_options("gpu-cuda") == {}
    assert parse_settings({"c17.threads": None}, settings)[0].c17_threads is None
    for bad in (0, 1025, 2.5, True, "4", float("inf"), float("nan")):
        kept, warnings = parse_settings({"c17": {"threads": bad}}, settings)
        assert kept.c17_threads == 3
        assert warnings == [f"cint.c17.threads: expected a whole number of threads from 1 to 1024 or null, "
                            f"got {bad!r}"]


@pytest.mark.skipif("gpu-cuda" not in implemented_executors(), reason="gpu-cuda is not installed")
async def test_gpu_cuda_lens_on_a_refused_program_shows_the_refusal(client):
    """Issue 32: the Run on gpu-cuda lens of ops_kernel.ci only answered E_UNSUPPORTED.
    Its lens says what gpu-cuda refuses, and clicked, shows the first refused construct."""
    uri = uri_of("lens_refused")
    await open_document(client, uri, (CONFORMANCE / "ops_kernel.ci").read_text())
    lenses = await lenses_of(client, uri)
    assert not [lens for lens in lenses if list(lens.command.arguments[1:2]) == ["gpu-cuda"]]
    (refused,) = [lens for lens in lenses if lens.command.command == "cint.showRefusal"]
    assert refused.command.title == ("gpu-cuda refuses: `neg` (unary minus), `bits` (&, |, ^ or ~), "
                                     "`builtin` (the built-in `max`), 6 more")
    assert list(refused.command.arguments) == [uri]
    assert any(lens.command.command == "cint.run" and list(lens.command.arguments[1:2]) in (["cpu-c17"], ["cpu-sir-interp"])
               for lens in lenses)  # the CPU still runs it
    shown = len(client.shown_documents)
    answer = await execute(client, refused.command)
    assert answer["shown"] is True and answer["message"].startswith(
        "gpu-cuda refuses kernel `ops`: capability `neg` (unary minus) at 3:13, and 10 more")
    (params,) = client.shown_documents[shown:]
    assert params.uri == uri and params.take_focus
    assert (params.selection.start.line, params.selection.start.character) == (2, 12)
    assert not client.run_results or all(r["uri"] != uri for r in client.run_results)  # nothing ran


async def test_show_refusal_of_a_program_gpu_cuda_runs_is_none(client):
    uri = uri_of("lens_not_refused")
    await open_document(client, uri, PROGRAM)
    assert await execute(client, lsp.Command(title="", command="cint.showRefusal", arguments=[uri])) is None
