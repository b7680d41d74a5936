"""The editors' commands of cint-workbench (issue 31).

VS Code: `cint: Open workbench` and `cint: Send selection to workbench` are contributed
(palette, the editor's context menu, Ctrl+Enter) and registered, and the command line of
the terminal is the language server's own choice with `cint_ls.workbench` in place of
`cint_ls.server` (src/workbench.ts, compiled to out/ by `npm run build`, run in node).

Neovim: `:CintWorkbench` opens a terminal running `workbench_cmd` with the .ci file as its
argument and `:CintWorkbenchSend` (and the Visual mode key) sends lines to it, in a real
headless Neovim; a stand-in for cint-workbench records its arguments and what it reads."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_neovim import PLUGIN, required_nvim
from vscode_support import OUT, VSCODE, built_node, node_json


def manifest() -> dict:
    return json.loads((VSCODE / "package.json").read_text())["contributes"]


# ---------------------------------------------------------------- VS Code


def test_the_workbench_commands_are_contributed() -> None:
    contributes = manifest()
    commands = {c["command"]: c for c in contributes["commands"]}
    assert commands["cint.openWorkbench"]["title"] == "Open workbench"
    assert commands["cint.sendSelectionToWorkbench"]["title"] == "Send selection to workbench"
    assert commands["cint.openWorkbench"]["category"] == commands["cint.sendSelectionToWorkbench"]["category"] == "cint"
    palette = {m["command"]: m.get("when") for m in contributes["menus"]["commandPalette"]}
    assert palette["cint.openWorkbench"] == palette["cint.sendSelectionToWorkbench"] == "editorLangId == cint"
    context = [m for m in contributes["menus"]["editor/context"] if m["command"] == "cint.sendSelectionToWorkbench"]
    assert [m["when"] for m in context] == ["editorLangId == cint && editorHasSelection"]
    (key,) = [k for k in contributes["keybindings"] if k["command"] == "cint.sendSelectionToWorkbench"]
    assert (key["key"], key["mac"]) == ("ctrl+enter", "cmd+enter")
    assert key["when"] == "editorTextFocus && editorLangId == cint"


def test_the_workbench_commands_are_registered() -> None:
    workbench = (VSCODE / "src" / "workbench.ts").read_text()
    extension = (VSCODE / "src" / "extension.ts").read_text()
    assert 'const OPEN_WORKBENCH = "cint.openWorkbench"' in workbench
    assert 'const SEND_TO_WORKBENCH = "cint.sendSelectionToWorkbench"' in workbench
    assert "registerCommand(OPEN_WORKBENCH," in extension and "registerCommand(SEND_TO_WORKBENCH," in extension
    # An integrated terminal named cint-workbench, found again while it runs; text typed with Enter.
    assert re.search(r"createTerminal\(\{\s*name: WORKBENCH_TERMINAL, shellPath: command\.command, "
                     r"shellArgs: command\.args, env: command\.env, cwd", extension)
    assert 'WORKBENCH_TERMINAL = "cint-workbench"' in workbench
    assert "sendText(text, true)" in extension and "onDidCloseTerminal" in extension
    assert "workbenchOf(lastChoice, file)" in extension  # the language server's Python and bundle


@pytest.fixture(scope="module")
def node() -> str:
    return built_node([OUT / "workbench.js"], "node and out/workbench.js")


def in_node(node: str, script: str, data: object = None) -> object:
    """Runs `script` (which reads `input` and prints one JSON value) with out/workbench.js as `w`."""
    return node_json(node, f"const w = require({json.dumps(str(OUT / 'workbench.js'))});", script, data)


def test_the_workbench_runs_under_the_servers_python_and_bundle(node: str) -> None:
    bundled = {"command": "/opt/python3", "args": ["-P", "-m", "cint_ls.server"],
               "env": {"PYTHONPATH": "/ext/bundled/libs", "PYTHONNOUSERSITE": "1"}, "source": "python3 on PATH",
               "serverVersion": "0.1.0"}
    seen = in_node(node, "console.log(JSON.stringify([w.workbenchOf(input, '/w/heat_e1.ci'), w.workbenchOf(input)]))",
                   bundled)
    assert seen == [
        {"command": "/opt/python3", "args": ["-P", "-m", "cint_ls.workbench", "/w/heat_e1.ci"], "env": bundled["env"]},
        {"command": "/opt/python3", "args": ["-P", "-m", "cint_ls.workbench"], "env": bundled["env"]},
    ]


def test_the_workbench_beside_a_cint_ls_executable(node: str, tmp_path: Path) -> None:
    for name in ("cint-ls", "cint-workbench"):
        (tmp_path / name).write_text("#!/bin/sh\n")
        (tmp_path / name).chmod(0o755)
    lone = tmp_path / "lone"
    lone.mkdir()
    (lone / "cint-ls").write_text("#!/bin/sh\n")
    choices = [{"command": str(tmp_path / "cint-ls"), "args": [], "env": {}, "source": "cint.server.path",
                "serverVersion": "0.1.0"},
               {"command": str(lone / "cint-ls"), "args": [], "env": {}, "source": "cint.server.path",
                "serverVersion": "0.1.0"}]
    script = ("const [beside, lone, dir] = input;"
              "const a = w.workbenchOf(beside, '/w/a.ci'), b = w.workbenchOf(lone);"
              "console.log(JSON.stringify([a, b, w.workbenchMissing(a, ''), w.workbenchMissing(b, ''),"
              " w.workbenchMissing(b, dir)]));")
    beside, alone, found, missing, on_path = in_node(node, script, [*choices, str(tmp_path)])
    assert beside == {"command": str(tmp_path / "cint-workbench"), "args": ["/w/a.ci"], "env": {}}
    assert alone == {"command": "cint-workbench", "args": [], "env": {}}  # on PATH, then
    assert found is None and on_path is None
    assert "`cint-workbench` is not on PATH" in missing


def test_the_text_sent_is_the_selection_or_the_line(node: str) -> None:
    cases = [["", "I64 x = 1;"], ["I64 f() {\n  return 1;\n}\n", "ignored"], ["a {\r\n}\r\n", ""],
             ["twice(4)", "I64 y = twice(4);"], ["a;\n\n", ""]]
    seen = in_node(node, "console.log(JSON.stringify(input.map(([s, l]) => w.textToSend(s, l))))", cases)
    assert seen == ["I64 x = 1;", "I64 f() {\n  return 1;\n}", "a {\n}", "twice(4)", "a;\n"]


# ---------------------------------------------------------------- Neovim

STAND_IN = """
import json, os, sys
out = os.environ["CINT_TEST_WB"]
with open(out + ".args.json", "w") as f:
    json.dump({"argv": sys.argv[1:], "cwd": os.getcwd(), "tty": sys.stdin.isatty()}, f)
with open(out + ".lines", "a") as f:
    for line in sys.stdin:
        f.write(line)
        f.flush()
"""

SCENARIO = r"""
local out, errors = {}, {}
local function section(name, fn)
  local ok, err = xpcall(fn, debug.traceback)
  if not ok then errors[name] = err end
end
local received = os.getenv('CINT_TEST_WB') .. '.lines'
local function read(path)
  local f = io.open(path, 'r')
  if not f then return nil end
  local text = f:read('*a')
  f:close()
  return text
end
local function wait_for(text)
  vim.wait(10000, function() return (read(received) or ''):find(text, 1, true) ~= nil end, 20)
end
section('all', function()
  local cint = require('cint')
  out.default = cint.defaults.workbench_cmd
  cint.setup({ workbench_cmd = { os.getenv('CINT_TEST_PYTHON'), os.getenv('CINT_TEST_STANDIN') },
               cmd = { os.getenv('CINT_TEST_PYTHON'), '-c', '' }, highlight = false })
  if vim.lsp.enable then
    vim.lsp.enable('cint_ls', false) -- only the workbench here, no language server
  end
  vim.cmd.edit(vim.fn.fnameescape(os.getenv('CINT_TEST_FILE')))
  local source = vim.api.nvim_get_current_buf()
  out.filetype = vim.bo[source].filetype
  out.commands = vim.fn.exists(':CintWorkbench') == 2 and vim.fn.exists(':CintWorkbenchSend') == 2
  vim.cmd('CintWorkbench')
  vim.cmd.stopinsert()
  local job, buf = cint.workbench_job()
  out.job = job ~= nil
  out.buftype = buf and vim.bo[buf].buftype
  out.in_terminal = vim.api.nvim_get_current_buf() == buf
  out.argv = job and vim.api.nvim_get_chan_info(job).argv
  vim.wait(10000, function() return read(os.getenv('CINT_TEST_WB') .. '.args.json') ~= nil end, 20)
  vim.cmd.wincmd('p')
  out.back = vim.api.nvim_get_current_buf() == source
  vim.cmd('2,4CintWorkbenchSend')
  wait_for('}\n')
  vim.cmd('CintWorkbench')
  out.reused = select(1, cint.workbench_job()) == job and #vim.tbl_filter(function(b)
    return vim.bo[b].buftype == 'terminal'
  end, vim.api.nvim_list_bufs()) == 1
  vim.cmd.stopinsert()
  vim.cmd.wincmd('p')
  -- the buffer's key in Visual mode: characterwise, the selection only
  vim.api.nvim_win_set_cursor(0, { 5, 8 })
  vim.api.nvim_feedkeys('vt;\\w', 'mx', false) -- <LocalLeader> is \\ by default
  wait_for('twice(4)\n')
  out.mode = vim.api.nvim_get_mode().mode
  out.still_source = vim.api.nvim_get_current_buf() == source
  out.received = read(received)
  -- the workbench ended: the next :CintWorkbench starts another
  vim.fn.jobstop(job)
  vim.fn.jobwait({ job }, 5000)
  out.after_exit = cint.workbench_job() == nil
end)
out.errors = errors
local f = assert(io.open(os.getenv('CINT_TEST_OUT'), 'w'))
f:write(vim.json.encode(out))
f:close()
vim.cmd('qall!')
"""

PROGRAM = """// a module
I64 twice(I64 a) {
    return a * 2;
}
I64 y = twice(4);
"""


def test_neovim_workbench_terminal_and_send(tmp_path: Path) -> None:
    nvim = required_nvim((0, 10), "the plugin")
    work = tmp_path / "work"
    work.mkdir()
    program = work / "twice.ci"
    program.write_text(PROGRAM)
    stand_in = tmp_path / "stand_in.py"
    stand_in.write_text(STAND_IN)
    scenario = tmp_path / "scenario.lua"
    scenario.write_text(SCENARIO)
    out = tmp_path / "out.json"
    record = tmp_path / "workbench"
    env = {**os.environ, "CINT_TEST_OUT": str(out), "CINT_TEST_WB": str(record), "CINT_TEST_PYTHON": sys.executable,
           "CINT_TEST_STANDIN": str(stand_in), "CINT_TEST_FILE": str(program),
           "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data"),
           "XDG_STATE_HOME": str(tmp_path / "state"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    proc = subprocess.run([nvim, "--headless", "--clean", "--cmd", f"set rtp^={PLUGIN}", "-c", f"luafile {scenario}"],
                          env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert out.exists(), proc.stderr
    seen = json.loads(out.read_text())
    assert not seen["errors"], seen["errors"]
    assert seen["default"] == ["cint-workbench"]
    assert seen["filetype"] == "cint" and seen["commands"] is True
    assert seen["job"] is True and seen["buftype"] == "terminal" and seen["in_terminal"] is True
    assert seen["argv"] == [sys.executable, str(stand_in), str(program)]
    started = json.loads((tmp_path / "workbench.args.json").read_text())
    assert started == {"argv": [str(program)], "cwd": str(work), "tty": True}
    assert seen["back"] is True and seen["reused"] is True
    # :2,4CintWorkbenchSend, then `vt;` and the key from `twice` on line 5
    assert seen["received"] == "I64 twice(I64 a) {\n    return a * 2;\n}\ntwice(4)\n"
    assert seen["mode"] == "n" and seen["still_source"] is True
    assert seen["after_exit"] is True
