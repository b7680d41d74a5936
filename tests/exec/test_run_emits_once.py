"""Issue 29, "a Run builds and emits once": one Run through the façade (running/run.py,
in process) builds the program once and emits each code once: gpu-cuda its PTX and its
host's C (it emitted the C once to ask whether its host in C could run the program,
again to compile it, and a third time when the driver could not be opened and the run
went to the simulated device), cpu-c17 its C."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

import cint_ls.exec.cuda as cuda
import cint_ls.running.run as facade
from cint_ls.exec.c17 import library

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
