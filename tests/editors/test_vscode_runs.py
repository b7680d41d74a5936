"""VS Code: cancellable runs (issue 12). The extension contributes `cint: Cancel run`, its
`cint.run.timeLimit` schema accepts exactly what the server accepts, and its run
machinery (editors/vscode/src/runs.ts, built by `npm run build`) cancels a run of an
endless loop within 1 s with no child left: `npm test` (test/unit/runs.test.js), the
real vscode-jsonrpc against the real cint-ls."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from vscode_support import built_node

from cint_ls.server.settings import parse_settings

VSCODE = Path(__file__).resolve().parents[2] / "editors" / "vscode"
COMPILED = VSCODE / "out" / "runs.js"


def manifest() -> dict:
    return json.loads((VSCODE / "package.json").read_text())


def test_cancel_run_is_contributed_and_registered():
    contributes = manifest()["contributes"]
    commands = {c["command"]: c for c in contributes["commands"]}
    assert commands["cint.cancelRun"]["title"] == "Cancel run" and commands["cint.cancelRun"]["category"] == "cint"
    palette = {m["command"]: m.get("when") for m in contributes["menus"]["commandPalette"]}
    assert palette["cint.cancelRun"] == "cint.running"  # shown while a run is in flight
    source = (VSCODE / "src" / "extension.ts").read_text()
    assert 'const CANCEL = "cint.cancelRun"' in source and "registerCommand(CANCEL, cancelRuns)" in source
    assert '"setContext", "cint.running"' in source
    assert "ProgressLocation.Notification" in source and "cancellable: true" in source


@pytest.mark.parametrize("value", [0, -1, -0.5, 0.001, 1, 10, 3600.5, "5", True, [], None])
def test_time_limit_schema_matches_the_server(value):
    schema = manifest()["contributes"]["configuration"]["properties"]["cint.run.timeLimit"]
    schema = {k: v for k, v in schema.items() if k not in ("default", "markdownDescription")}
    in_schema = jsonschema.Draft7Validator(schema).is_valid(value)
    settings, warnings = parse_settings({"run": {"timeLimit": value}})
    # null resets the server's default; VS Code's answer for an unset value is the default.
    accepted = not warnings and (value is None or settings.time_limit == value)
    assert in_schema == (accepted and value is not None), (value, in_schema, warnings)


@pytest.fixture(scope="module")
def node() -> str:
    return built_node([COMPILED, VSCODE / "node_modules" / "vscode-jsonrpc"], "node, node_modules and out/runs.js")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads child processes from /proc (Linux)")
def test_npm_test_cancels_an_endless_run_within_a_second(node):
    env = {**os.environ, "CINT_LS_CMD": json.dumps([sys.executable, "-P", "-m", "cint_ls.server"])}
    done = subprocess.run([node, "test/unit/runs.test.js"], cwd=VSCODE, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    measured = json.loads(done.stdout.strip().splitlines()[-1])
    for how in ("byCommand", "byButton"):
        assert measured[how]["cancelled"] and measured[how]["gone"] < 1000, measured
