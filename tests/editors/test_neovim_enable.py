"""Neovim 0.11+ with no `setup()` call: only editors/neovim on 'runtimepath' and
`vim.lsp.enable('cint_ls')`, which finds `lsp/cint_ls.lua`. A cint buffer gets the
server's C5010 diagnostic and its hover, and tree-sitter highlighting (ftplugin/cint.lua
loads the parser the Python package built). `nvim_enable_scenario.lua` records it."""

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
    nvim = required_nvim((0, 11), "vim.lsp.enable")
    tmp = tmp_path_factory.mktemp("nvim-enable")
    work = tmp / "work"
    work.mkdir()
    for name in ("same_c5010.ci", "heat_e1.ci"):
        shutil.copyfile(CONFORMANCE / name, work / name)
    out = tmp / "seen.json"
    # `cint-ls` of this environment on PATH: lsp/cint_ls.lua's default command.
    bindir = Path(sys.executable).parent
    assert (bindir / "cint-ls").exists(), "cint-ls is not installed beside this Python"
    env = {
        **os.environ,
        "PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}",
        "CINT_TEST_DIR": str(work),
        "CINT_TEST_OUT": str(out),
        "XDG_CONFIG_HOME": str(tmp / "config"),
        "XDG_DATA_HOME": str(tmp / "data"),
        "XDG_STATE_HOME": str(tmp / "state"),
        "XDG_CACHE_HOME": str(tmp / "cache"),
    }
    command = [nvim, "--headless", "--clean", "--cmd", f"set rtp^={PLUGIN}",
               "-c", f"luafile {HERE / 'nvim_enable_scenario.lua'}"]
    proc = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, timeout=120)
    assert out.exists(), f"no results; nvim stderr:\n{proc.stderr}"
    seen = json.loads(out.read_text())
    assert not seen["errors"], seen
    return seen


def test_the_scenario_never_calls_setup():
    text = (HERE / "nvim_enable_scenario.lua").read_text()
    assert "setup(" not in text and "setup{" not in text and "vim.lsp.enable('cint_ls')" in text
    assert "vim.lsp.config(" not in text


def test_diagnostics_from_vim_lsp_enable(seen):
    assert seen["filetype"] == "cint"
    assert seen["clients"] == ["cint_ls"]
    assert seen["cmd"] == ["cint-ls"]  # lsp/cint_ls.lua's
    assert seen["c5010"] == {"lnum": 6, "col": 13, "severity": 1, "source": seen["c5010"]["source"]}, seen


def test_tree_sitter_highlighting_without_setup(seen):
    assert seen["highlighter"] is True, seen
    assert "operator" in seen["star"], seen["star"]
    assert "type.builtin" in seen["i64"], seen["i64"]


def test_hover_without_setup(seen):
    assert "step 22" in seen.get("hover", "") and "mul.checked.i64" in seen["hover"], seen
