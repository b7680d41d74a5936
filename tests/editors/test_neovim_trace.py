"""Neovim: `:CintRun` defaults to `auto` and prints auto's decision (issue 14), `:CintTrace`
writes the page of the last run's trace and opens it with vim.ui.open (issue 18), and the
plugin runs `cint.setTargets`, the quick fix of a gpu-cuda refusal (issue 12): the
client's cint.targets changes and the server's refusals go away. A real headless Neovim
and the real server; `nvim_trace_scenario.lua` records it (vim.ui.open is stubbed there
only: no browser in a test)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_neovim import CONFORMANCE, PLUGIN, required_nvim

pytestmark = pytest.mark.slow  # Neovim and the server end to end

HERE = Path(__file__).parent


@pytest.fixture(scope="module")
def seen(tmp_path_factory) -> dict:
    nvim = required_nvim()
    tmp = tmp_path_factory.mktemp("nvim-trace")
    work = tmp / "work"
    work.mkdir()
    for name in ("heat_e1.ci", "ops_kernel.ci"):
        shutil.copyfile(CONFORMANCE / name, work / name)
    out = tmp / "seen.json"
    bindir = Path(sys.executable).parent
    env = {
        **os.environ,
        "PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}",
        "CINT_TEST_DIR": str(work),
        "CINT_TEST_OUT": str(out),
        "TMPDIR": str(tmp),
        "XDG_CONFIG_HOME": str(tmp / "config"),
        "XDG_DATA_HOME": str(tmp / "data"),
        "XDG_STATE_HOME": str(tmp / "state"),
        "XDG_CACHE_HOME": str(tmp / "cache"),
    }
    command = [nvim, "--headless", "--clean", "--cmd", f"set rtp^={PLUGIN}",
               "-c", f"luafile {HERE / 'nvim_trace_scenario.lua'}"]
    proc = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, timeout=180)
    assert out.exists(), f"no results; nvim stderr:\n{proc.stderr}"
    seen = json.loads(out.read_text())
    assert not seen["errors"], seen
    return seen


def test_cint_run_defaults_to_auto_and_prints_its_decision(seen):
    run = seen["run"]
    assert run["chosen"] == "auto" and run["decision"].startswith(f"auto chose {run['executor']}: ")
    assert run["decision"] in seen["output_lines"], seen["output_lines"]
    assert run["has_trace"]


def test_cint_trace_writes_the_page_and_opens_it(seen):
    assert seen["before_run"]["opened"] == 0
    assert "no run yet" in seen["before_run"]["note"]["msg"] and seen["before_run"]["note"]["level"] == 4
    path = Path(seen["opened"])
    # (written under tempname(): Neovim removes its folder when it exits, so the scenario read it)
    assert seen["last_trace_page"] == seen["opened"] and path.name.endswith("-heat_e1-trace.html")
    page = seen["page"]
    assert page.startswith("<!DOCTYPE html>") and '<script id="trace-data" type="application/json">' in page
    assert "cint trace: heat_e1.ci" in page and "fault_map" in page  # heat_e1 faults: its fault map is there
    assert seen["bad_trace"]["opened"] == 1 and "has no trace" in seen["bad_trace"]["err"]
    assert seen["no_uri"] == "the run result has no document URI"


def test_set_targets_quick_fix_changes_the_clients_setting(seen):
    assert seen["capability"] is True
    assert seen["refusals_before"] > 0
    assert seen["fix"]["title"].startswith("Remove gpu-cuda from `cint.targets`")
    assert seen["fix"]["arguments"][1] == ["cpu-c17"]
    assert seen["settings_targets"] == ["cpu-c17"] and seen["refusals_cleared"] is True
    bad = seen["bad_targets"]
    assert all(b.get("set") is None and b["why"].startswith("cint.setTargets: ") for b in bad), bad
    assert "expected [uri, targets]" in bad[0]["why"] and "expected [uri, targets]" in bad[1]["why"]
    assert "non-empty list" in bad[2]["why"] and 'unknown executor "tpu"' in bad[3]["why"]
    assert "document URI" in bad[4]["why"] and "non-empty list" in bad[5]["why"]
    assert seen["settings_after_bad"] == ["cpu-c17"]  # unchanged by the refused calls
