"""Issue 29, "a Run builds and emits once": one Run through the façade (running/run.py,
in process) builds the program once and emits each code once: gpu-cuda its PTX and its
host's C (it emitted the C once to ask whether its host in C could run the program,
again to compile it, and a third time when the driver could not be opened and the run
went to the simulated device), cpu-c17 its C. A Run in a child process (isolated.py)
builds in the parent only: the child gets the IR and imports neither the parser nor the
checker (it parsed, analysed and lowered the program's text again)."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest

import cint_ls.exec.cuda as cuda
import cint_ls.running.run as facade
from cint_ls.exec.c17 import library
from cint_ls.running import isolated

HEAT_E1 = Path(__file__).resolve().parent.parent / "conformance" / "heat_e1.ci"


@pytest.mark.needs_cc
@pytest.mark.parametrize("executor, options", [
    ("gpu-cuda", {"device": "sim"}),
    ("gpu-cuda", {"device": "auto"}),  # no GPU here: the simulated device, after the driver was asked
    ("cpu-c17", {}),
])
def test_a_run_builds_and_emits_once(monkeypatch, executor, options):
    counts: Counter[str] = Counter()

    def count(module, name: str) -> None:
        real = getattr(module, name)

        def counted(*args, **kwargs):
            counts[name] += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, counted)

    count(facade, "build")
    count(library, "emit_program")  # the C of cpu-c17 and of gpu-cuda's host (library.emit)
    count(cuda, "emit_module")  # gpu-cuda's PTX
    outcome = facade.run(facade.RunRequest(str(HEAT_E1), HEAT_E1.read_text(), executor, options={executor: options},
                                           isolate=False, learn=False))
    assert outcome.result is not None and outcome.result.fault.code == "E_OVERFLOW", outcome.error
    gpu = executor == "gpu-cuda"
    assert counts == Counter({"build": 1, "emit_program": 1, **({"emit_module": 1} if gpu else {})})


# Loaded by every Python process started with this directory on PYTHONPATH (site imports
# `sitecustomize`): at its end, the process writes its arguments and the modules it
# imported. The children of isolated runs inherit the environment; a spare killed unused
# writes nothing.
RECORDER = """
import atexit, os, sys

def _record():
    with open(os.path.join(os.environ["CINT_TEST_RECORDS"], f"{os.getpid()}.txt"), "w") as out:
        out.write("\\n".join([" ".join(sys.argv), *sorted(sys.modules)]))

atexit.register(_record)
"""
# What building a program imports: the parser (tree-sitter and its binding), the
# checker, the lowering to IR.
BUILDING = ("tree_sitter", "cint_ls.syntax.parser", "cint_ls.syntax.ast", "cint_ls.analysis.checker",
            "cint_ls.ir.lower", "cint_ls.ir.build")


@pytest.mark.needs_cc
@pytest.mark.parametrize("executor, options, spare", [
    ("cpu-sir-interp", {}, False),
    ("cpu-c17", {}, True),  # the server's Run: the second run is the spare's
    ("gpu-cuda", {"device": "sim"}, False),
])
def test_a_run_s_child_neither_parses_nor_analyses(tmp_path, monkeypatch, executor, options, spare):
    (tmp_path / "sitecustomize.py").write_text(RECORDER)
    records = tmp_path / "records"
    records.mkdir()
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv("CINT_TEST_RECORDS", str(records))
    request = facade.RunRequest(str(HEAT_E1), HEAT_E1.read_text(), executor, options={executor: options},
                                isolate=True, learn=False)
    in_process = facade.run(facade.RunRequest(str(HEAT_E1), HEAT_E1.read_text(), executor,
                                              options={executor: options}, isolate=False, learn=False))
    isolated.keep_spare(spare)
    try:
        outcomes = [facade.run(request) for _ in range(2 if spare else 1)]
    finally:
        isolated.keep_spare(False)
    for outcome in outcomes:
        assert outcome.result is not None, outcome.error
        # The fault's report from the IR the parent built is today's, to the byte and column.
        assert outcome.report == in_process.report and "heat_e1.ci:13:33" in outcome.report
        assert outcome.result.fault.to_json() == in_process.result.fault.to_json()
    children = [path.read_text().splitlines() for path in records.iterdir()]
    children = [lines for lines in children if "cint_ls/running/isolated.py" in lines[0].replace(os.sep, "/")]
    assert len(children) == len(outcomes), children
    assert any("--spare" in lines[0] for lines in children) == spare
    for argv, *modules in children:
        assert "cint_ls.ir.nodes" in modules  # it did read the program
        assert not [name for name in modules if name.startswith(BUILDING)], argv
