"""Facts of a run are fields of its result, set by the executor that knows, never read out
of the notes (issue 29, 'facts as fields'): where gpu-cuda ran (RunResult.device,
device_kind, simulated, null_device) and why an executor would not run a program
(RunOutcome.refusal: cpu-c17's UNTRANSLATABLE), carried through an isolated run's JSON."""

from __future__ import annotations

import shutil

import pytest

from cint_ls.exec.executors import UNTRANSLATABLE
from cint_ls.exec.runtime import RunResult
from cint_ls.running.isolated import result_from_json, result_to_json
from cint_ls.running.run import RunRequest, run

needs_cc = pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None, reason="no C compiler")

# A kernel of more than 64 parameters: beyond cpu-c17's limits (its README, "Limits").
_PARAMS = ", ".join(f"I64 p{k}" for k in range(65))
_ARGS = ", ".join(str(k) for k in range(65))
WIDE = (f"kernel wide[n]({_PARAMS}, out I64[n] o) over [i: n] {{ o[i] = p64; }}\n"
        f"I64[4] o;\nwide({_ARGS}, o);\n\"{{o[3]}}\\n\";\n")
KERNEL = "kernel k[n](out I64[n] o) over [i: n] { o[i] = i; }\nI64[4] o;\nk(o);\n\"{o[3]}\\n\";\n"


@needs_cc
@pytest.mark.parametrize("isolate", [True, False])
def test_cpu_c17_refusal_is_a_field_not_a_message_prefix(isolate):
    outcome = run(RunRequest("wide.ci", WIDE, "cpu-c17", isolate=isolate))
    assert outcome.result is None and outcome.error.startswith("cpu-c17 cannot translate this program")
    assert outcome.refusal == UNTRANSLATABLE


def test_other_errors_are_no_refusal():
    outcome = run(RunRequest("k.ci", KERNEL, "gpu-cuda", options={"gpu-cuda": {"device": "nowhere"}}))
    assert outcome.result is None and outcome.error.startswith("gpu-cuda: unknown device")
    assert outcome.refusal is None


@pytest.mark.parametrize("isolate", [True, False])
def test_the_device_is_a_field_of_the_run_result_not_a_note(isolate):
    outcome = run(RunRequest("k.ci", KERNEL, "gpu-cuda", options={"gpu-cuda": {"device": "sim"}}, isolate=isolate))
    result = outcome.result
    assert result is not None and result.output == "3\n", outcome.reason
    assert (result.device, result.device_kind) == ("the simulated device", "sim")
    assert result.simulated and not result.null_device
    notes = list(result.notes)
    result.notes.clear()  # the facts do not come from here
    assert outcome.simulated and not outcome.null_device
    assert outcome.run_report()["device"] == "the simulated device"
    assert "; ran on the simulated device;" in outcome.summary
    assert notes[0] == "gpu-cuda ran on the simulated device"  # the note a user reads is unchanged


def test_a_cpu_run_has_no_device():
    outcome = run(RunRequest("k.ci", KERNEL, "cpu-sir-interp"))
    assert outcome.result.device is None and outcome.result.device_kind is None
    assert outcome.run_report()["device"] == "cpu" and not outcome.simulated


def test_the_device_travels_in_the_isolated_reply():
    result = RunResult("", None, 0, "gpu-cuda", device="NVIDIA H200 (sm_90)", device_kind="cuda")
    back = result_from_json(result_to_json(result))
    assert (back.device, back.device_kind, back.simulated) == ("NVIDIA H200 (sm_90)", "cuda", False)
