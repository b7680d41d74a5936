"""The setting cint.cluster (docs/server.md, docs/cluster.md): a Run from the editor on
cpu-c17 sends the work-items of its large dispatches to a Dask cluster (`local:2`, worker
processes started by the run's child), and its result says so: the note and each
dispatch's `cluster` entry in `runReport` (tiles, tiles per worker, bytes, seconds per
tile). A malformed value is a warning and the previous value stays."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsp_support import open_document, server_fixture, uri_of, wait_for
from lsprotocol import types as lsp

from cint_ls.running.run import RunRequest, run
from cint_ls.server.settings import Settings, parse_settings

# 256 × 256 = 65,536 work-items per dispatch: cpu-c17's least dispatch for a cluster (cluster.CLUSTER_MIN)
HEAT = (Path(__file__).resolve().parents[1] / "cluster" / "big_heat.ci").read_text()
GRID_BYTES = 256 * 256 * 4

client = server_fixture(settings={"cluster": "local:2", "run": {"timeLimit": 120}})


async def configure(client, settings: dict, barrier: str) -> str:
    """Send `settings` (the whole section) with `trace.arrayLimit` malformed as `barrier`:
    the server's warning about it says the settings were applied. The warnings of that
    pull. (The key the server checks last: its warning comes after the pull's others,
    which are all sent by then; a barrier checked before `cluster` let the wait end before
    the cluster's warning had arrived, now and then under load.)"""
    seen = len(client.log_messages)
    client.set_configuration({**settings, "trace": {"arrayLimit": barrier}}, section="cint")
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings=None))

    def applied():
        found = [m.message for m in client.log_messages[seen:] if m.type == lsp.MessageType.Warning]
        return found if any(repr(barrier) in w for w in found) else None

    return await wait_for(applied, timeout=60, what="the server to apply the settings")


async def cluster_run(client, uri: str) -> dict:
    result = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="cint.run", arguments=[uri, "cpu-c17"]))
    assert result["error"] is None and result["executor"] == "cpu-c17", result
    return result


def check_tiles(result: dict, single) -> None:
    """Both dispatches went to `local:2`, the first in 4 tiles per worker, the second in
    as many as the first's times chose (1 to 4 a worker), all came back; the outcome is
    cpu-c17's on one thread."""
    assert (result["output"], result["fuelConsumed"], result["fault"]) == (single.output, single.fuel_consumed, None)
    rows = result["runReport"]["dispatches"]
    assert [row["number"] for row in rows] == [0, 1]
    for row in rows:
        entry = row["cluster"]
        assert entry["cluster"] == "local:2" and entry["scheduler"].startswith("tcp://127.0.0.1:"), entry
        assert entry["tiles"] == entry["tiles_back"] and entry["tiles"] in ((8,) if row is rows[0] else (2, 4, 6, 8))
        assert sum(entry["per_worker"].values()) == entry["tiles"] and 1 <= len(entry["per_worker"]) <= 2, entry
        assert all(worker.startswith("tcp://127.0.0.1:") for worker in entry["per_worker"]), entry
        assert entry["bytes_back"] > 0 and all(s > 0 for s in entry["tile_seconds"]), entry
    # the first dispatch sends each tile the rows of the input grid it reads; the second
    # reads what the first wrote, held where it was written, and a row of halo a tile
    assert rows[0]["cluster"]["footprint_bytes"] >= GRID_BYTES, rows[0]
    assert rows[1]["cluster"]["footprint_bytes"] == 0 and rows[1]["cluster"]["resident_bytes"] > 0, rows[1]
    # the library travels once, with the first dispatch
    assert rows[0]["cluster"]["bytes_sent"] > rows[1]["cluster"]["bytes_sent"]
    (note,) = [n for n in result["notes"] if "on the cluster" in n]
    tiles = sum(row["cluster"]["tiles"] for row in rows)
    assert "ran the work-items of 2 of 2 dispatches" in note and f"{tiles} of {tiles} tiles came back" in note, note


@pytest.mark.slow
@pytest.mark.needs_cc
@pytest.mark.asyncio(loop_scope="module")
async def test_a_run_with_cint_cluster_reports_its_tiles_and_a_malformed_value_keeps_it(client):
    pytest.importorskip("distributed", reason="Dask is not installed: pip install 'cint-ls[cluster]'")
    uri = uri_of("cluster_heat")
    await open_document(client, uri, HEAT)
    single = (await asyncio.to_thread(run, RunRequest("cluster_heat.ci", HEAT, "cpu-c17", None,
                                                      {"cpu-c17": {"threads": 1}}))).result
    assert single is not None and single.output.startswith("total=")
    assert not [w for w in await configure(client, {"cluster": "local:2", "run": {"timeLimit": 120}}, "sync-1")
                if "cint.cluster" in w]
    check_tiles(await cluster_run(client, uri), single)

    warnings = await configure(client, {"cluster": "local:zero", "run": {"timeLimit": 120}}, "sync-2")
    (warning,) = [w for w in warnings if "cint.cluster" in w]
    assert "'local:zero'" in warning and "local:N" in warning, warning
    check_tiles(await cluster_run(client, uri), single)  # the previous value, local:2, stays

    await configure(client, {"run": {"timeLimit": 120}}, "sync-3")  # left out: none
    plain = await cluster_run(client, uri)
    assert plain["output"] == single.output and all(row.get("cluster") is None
                                                    for row in plain["runReport"]["dispatches"])
    assert not [n for n in plain["notes"] if "on the cluster" in n]


def test_parse_the_setting():
    keep = Settings(cluster="tcp://10.0.0.1:8786")
    good = {"local:2": "local:2", " local:64 ": "local:64", "tcp://sched.example:8786": "tcp://sched.example:8786",
            "tls://[::1]:8786": "tls://[::1]:8786", "": None, "  ": None, None: None}
    for value, expected in good.items():
        settings, warnings = parse_settings({"cint": {"cluster": value}}, keep)
        assert (settings.cluster, warnings) == (expected, []), value
    for bad in ("local:0", "local:65", "local:two", "http://h:8786", "tcp://h", "tcp://h:0", "tcp://h:99999",
                "ssh://h:22", 2, True, ["local:2"]):
        settings, warnings = parse_settings({"cluster": bad}, keep)
        assert settings.cluster == "tcp://10.0.0.1:8786", bad
        assert len(warnings) == 1 and warnings[0].startswith("cint.cluster: expected"), bad
        # the server parses each pull from the defaults: the settings in force keep their cluster
        settings, warnings = parse_settings({"cluster": bad}, previous=Settings(cluster="local:3"))
        assert settings.cluster == "local:3" and len(warnings) == 1, bad
        assert parse_settings({"cluster": bad})[0].cluster is None
    # cpu-c17's runs get it, beside its threads; no other executor does
    assert Settings(cluster="local:2", c17_threads=3).run_options("cpu-c17") == {"threads": 3, "cluster": "local:2"}
    assert Settings(cluster="local:2").run_options("gpu-cuda") == {}
    assert Settings().run_options("cpu-c17") == {}


def test_vscode_contributes_the_setting_as_the_server_reads_it():
    import json
    import re
    from pathlib import Path

    manifest = json.loads((Path(__file__).resolve().parents[2] / "editors" / "vscode" / "package.json").read_text())
    setting = manifest["contributes"]["configuration"]["properties"]["cint.cluster"]
    assert setting["default"] == "" and setting["scope"] == "machine"
    assert "cint.cluster" in manifest["capabilities"]["untrustedWorkspaces"]["restrictedConfigurations"]
    assert parse_settings({"cluster": setting["default"]})[0] == Settings()
    pattern = re.compile(setting["pattern"])
    for value in ("", "local:2", " local:2", "tcp://h:8786", "tls://[::1]:8786", "tls://a-b.c_d:1", "local:",
                  "tcp://h", "http://h:1", "tcp://h:8786/x", "local:12345", "tcp://h:123456"):
        accepted = not parse_settings({"cluster": value}, Settings())[1]
        assert bool(pattern.fullmatch(value)) == accepted, value
