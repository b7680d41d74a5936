"""The Neovim plugin registers cint-debug with nvim-dap (issue 30). nvim-dap cannot be
installed here (it is on no package index), so a `dap` module with nvim-dap's two tables
(`dap.adapters`, `dap.configurations`) stands in for it on 'runtimepath', and the
adapter's own behaviour under nvim-dap's requests is tests/debug's. Here: what setup()
puts there, that a configuration of the user's is kept, and that `register_dap()`
without nvim-dap says so."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from test_neovim import PLUGIN, required_nvim

SCENARIO = """
local out = {}
local with_dap = os.getenv('CINT_TEST_WITH_DAP') == '1'
if with_dap then
  package.loaded['dap'] = { adapters = {}, configurations = { } }
  if os.getenv('CINT_TEST_OWN') == '1' then
    package.loaded['dap'].configurations.cint = { { type = 'cint', request = 'launch', name = 'mine', program = 'x.ci' } }
  end
end
local cint = require('cint')
cint.setup({ debug_cmd = { 'python3', '-m', 'cint_ls.debug' } })
out.registered = cint.register_dap()
out.lens = cint.capabilities.experimental.cint.debug == true
if with_dap then
  local dap = require('dap')
  out.adapter = dap.adapters.cint
  out.configurations = dap.configurations.cint
end
local f = assert(io.open(os.getenv('CINT_TEST_OUT'), 'w'))
f:write(vim.json.encode(out))
f:close()
vim.cmd('qall!')
"""


def run(tmp_path: Path, with_dap: bool, own: bool = False) -> dict:
    nvim = required_nvim()
    scenario = tmp_path / "scenario.lua"
    scenario.write_text(SCENARIO)
    out = tmp_path / "out.json"
    env = {**os.environ, "CINT_TEST_OUT": str(out), "CINT_TEST_WITH_DAP": "1" if with_dap else "0",
           "CINT_TEST_OWN": "1" if own else "0", "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_STATE_HOME": str(tmp_path / "state")}
    proc = subprocess.run([nvim, "--headless", "--clean", "--cmd", f"set rtp^={PLUGIN}", "-c", f"luafile {scenario}"],
                          env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert out.exists(), proc.stderr
    return json.loads(out.read_text())


def test_setup_registers_the_adapter_and_a_configuration(tmp_path: Path) -> None:
    seen = run(tmp_path, with_dap=True)
    assert seen["registered"] is True and seen["lens"] is True  # the server then offers a Debug lens
    assert seen["adapter"]["type"] == "executable"
    assert [seen["adapter"]["command"], *seen["adapter"]["args"]] == ["python3", "-m", "cint_ls.debug"]
    names = [c["name"] for c in seen["configurations"]]
    assert names == ["Debug the file", "Debug the file, stopping on entry",
                     "Debug the file to its first fault (through cpu-c17)"]
    assert seen["configurations"][2]["stopOnFault"] is True
    assert all(c["type"] == "cint" and c["request"] == "launch" and c["program"] == "${file}"
               for c in seen["configurations"])


def test_a_configuration_of_the_users_is_kept(tmp_path: Path) -> None:
    seen = run(tmp_path, with_dap=True, own=True)
    assert [c["name"] for c in seen["configurations"]] == ["mine"]


def test_without_nvim_dap_nothing_is_registered(tmp_path: Path) -> None:
    seen = run(tmp_path, with_dap=False)
    assert seen["registered"] is False and seen["lens"] is False
