"""The setting cint.trace.arrays (and cint.trace.arrayLimit): which 2-D out/inout
arrays a run from the editor pictures in its trace (docs/trace.md, docs/server.md),
read from workspace/configuration and changed while the server runs; on the
interpreter, and on cpu-c17 (in the isolated child every run of the server has) where
there is a C compiler."""

from __future__ import annotations

import asyncio

import pytest
from lsp_support import conformance, open_document, server_fixture, uri_of
from lsprotocol import types as lsp

from cint_ls.server.settings import Settings, parse_settings

client = server_fixture(settings={"trace": {"server": "off", "arrays": ["diffuse.v"], "arrayLimit": 1000}})


def executors() -> list[str]:
    from conftest import c_compiler

    return ["cpu-sir-interp"] + (["cpu-c17"] if c_compiler() is not None else [])


async def traced_run(client, uri: str, executor: str) -> list[dict]:
    result = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="cint.run", arguments=[uri, executor]))
    assert result["error"] is None and result["executor"] == executor, result
    return result["trace"]


async def settings_changed(client, settings: dict) -> None:
    client.set_configuration(settings, section="cint")
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings=None))
    await asyncio.sleep(0.3)  # the server pulls workspace/configuration


@pytest.mark.asyncio(loop_scope="module")
async def test_the_setting_picks_the_arrays_and_a_change_applies_to_the_next_run(client):
    uri = uri_of("trace_arrays_heat_tour")
    await open_document(client, uri, conformance("heat_tour"))
    for executor in executors():
        trace = await traced_run(client, uri, executor)
        arrays = [line for line in trace if line["type"] == "array"]
        assert len(arrays) == 40 and {a["param"] for a in arrays} == {"v"}, executor
        assert arrays[-1]["values"][8 * 16 + 8] == 1042 and trace[0]["arrays_note"] is None
    await settings_changed(client, {"trace": {"arrays": "other.v"}})
    for executor in executors():
        assert not [line for line in await traced_run(client, uri, executor) if line["type"] == "array"]
    await settings_changed(client, {"trace": {"arrays": "all", "arrayLimit": 255}})  # 16 × 16 is over it
    assert not [line for line in await traced_run(client, uri, "cpu-sir-interp") if line["type"] == "array"]
    await settings_changed(client, {"trace": {"arrays": "all", "arrayLimit": 256}})
    assert len([line for line in await traced_run(client, uri, executors()[-1]) if line["type"] == "array"]) == 40
    await settings_changed(client, {"trace": {"arrays": "none"}})
    trace = await traced_run(client, uri, executors()[-1])
    assert [line["type"] for line in trace].count("dispatch") == 40 and "array" not in [line["type"] for line in trace]


def test_parse_the_setting():
    keep = Settings(trace_arrays=("w",))
    cases = {
        "all": (None, []), None: (None, []), "none": ((), []), "": ((), []), (): ((), []),
        "v, diffuse.v": (("diffuse.v", "v"), []), ("heat.diffuse.v", "v"): (("heat.diffuse.v", "v"), []),
        "1v": (("w",), ["cint.trace.arrays"]), 3: (("w",), ["cint.trace.arrays"]),
        ("v w",): (("w",), ["cint.trace.arrays"]), (1,): (("w",), ["cint.trace.arrays"]),
    }
    for value, (names, warnings) in cases.items():
        settings, found = parse_settings({"cint": {"trace": {"arrays": list(value) if isinstance(value, tuple)
                                                            else value}}}, keep)
        assert settings.trace_arrays == names and [w.split(":")[0] for w in found] == warnings, value
    assert Settings().array_selection() == {"names": None, "limit": 65536, "total": 1 << 20}
    assert Settings(trace_arrays=()).array_selection() is None
    big, found = parse_settings({"trace.arrayLimit": 2048 * 2048})
    assert not found and big.array_selection() == {"names": None, "limit": 2048 * 2048, "total": 2048 * 2048}
    for bad in (0, 2048 * 2048 + 1, 1.5, True, "10"):
        settings, found = parse_settings({"trace": {"arrayLimit": bad}}, big)
        assert settings.trace_array_limit == 2048 * 2048 and found[0].startswith("cint.trace.arrayLimit"), bad


def test_vscode_contributes_the_settings_as_the_server_reads_them():
    import json
    import re
    from pathlib import Path

    from cint_ls.exec.selection import ARRAY_LIMIT, ArraySelection
    from cint_ls.server.settings import TRACE_ARRAY_LIMIT

    manifest = Path(__file__).resolve().parents[2] / "editors" / "vscode" / "package.json"
    properties = json.loads(manifest.read_text())["contributes"]["configuration"]["properties"]
    arrays, limit = properties["cint.trace.arrays"], properties["cint.trace.arrayLimit"]
    assert parse_settings({"trace": {"arrays": arrays["default"]}})[0] == Settings()
    assert (limit["default"], limit["minimum"], limit["maximum"]) == (TRACE_ARRAY_LIMIT, 1, ARRAY_LIMIT)
    assert set(arrays["anyOf"][0]["enum"]) == {"all", "none"}
    pattern = re.compile(arrays["anyOf"][1]["items"]["pattern"])
    for name in ("v", "diffuse.v", "heat_tour.diffuse.v", "_x1", "1v", "v w", "a..b", "v.", ""):
        try:
            accepted = ArraySelection.parse(name).names == frozenset([name])
        except ValueError:
            accepted = False
        assert bool(pattern.fullmatch(name)) == accepted, name
