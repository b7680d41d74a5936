"""The VS Code extension prints the server's texts for a run, never a record of its own
making: its `runResultLines` (editors/vscode/src/runResult.ts, compiled by `npm run
build`) run by node on real `cint/runResult`s of a fault with a stack, an entry-phase
fault and a host status."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from conftest import CONFORMANCE
from test_neovim import server_run_results
from vscode_support import built_node

from cint_ls.server.runs import run_program, run_result_json
from cint_ls.server.settings import Settings

COMPILED = Path(__file__).resolve().parents[2] / "editors" / "vscode" / "out" / "runResult.js"


@pytest.fixture(scope="module")
def node() -> str:
    return built_node([COMPILED], "node and out/runResult.js")


def lines_in_vscode(node: str, result: dict) -> list[str]:
    script = ("const {runResultLines} = require(process.argv[1]);"
              "const r = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
              "console.log(JSON.stringify(runResultLines(r.output ?? '', r.report, r.error, r.notes ?? [])));")
    done = subprocess.run([node, "-e", script, str(COMPILED)], input=json.dumps(result),
                          capture_output=True, text=True, timeout=60, check=True)
    return json.loads(done.stdout)


def test_the_output_channel_shows_the_report_with_its_stack(node):
    heat = (CONFORMANCE / "heat_e1.ci").read_text()
    result = run_result_json(run_program("cpu-sir-interp", "heat_e1.ci", heat, Settings()), "file:///heat_e1.ci", 1)
    results = [result, *server_run_results()]
    for result in results:
        lines = lines_in_vscode(node, result)
        report = result["report"].splitlines()
        at = lines.index(report[0])
        assert lines[at:at + len(report)] == report  # the whole report, in order, unchanged
        assert not [x for x in lines if re.search(r"\b(nil|None|undefined|null)\b", x)], lines
    first = lines_in_vscode(node, results[0])
    assert any(line.strip() == "= stack: heat_e1.diffuse at heat_e1.ci:25:5" for line in first), first
