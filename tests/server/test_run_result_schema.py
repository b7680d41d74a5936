"""One report module, one schema: the `cint/runResult` of real runs validates against
`cint_ls/server/schema/run-result.schema.json`, and a fault, an entry-phase fault and a
host status print the same text in the CLI and in the server's result (issue "One path
through the house"), never with a `None`."""

from __future__ import annotations

import dataclasses
import json
from importlib import resources

import jsonschema
import pytest
from conftest import CONFORMANCE

from cint_ls.cli.main import main
from cint_ls.running import run as facade
from cint_ls.running.run import RunRequest
from cint_ls.server.runs import run_program, run_result_json
from cint_ls.server.settings import Settings

SCHEMA = json.loads(resources.files("cint_ls.server").joinpath("schema/run-result.schema.json").read_text())


def validate(result: dict) -> dict:
    jsonschema.validate(result, SCHEMA)
    return result


def result_of(name: str, executor: str = "cpu-sir-interp", **settings) -> dict:
    text = (CONFORMANCE / name).read_text()
    outcome = run_program(executor, name, text, Settings(**settings))
    return validate(run_result_json(outcome, f"file:///{name}", 3))


def cli_stderr(capsys, monkeypatch, name: str) -> str:
    monkeypatch.chdir(CONFORMANCE)
    main(["run", name])
    return capsys.readouterr().err


@pytest.mark.parametrize("name,code,where", [
    ("heat_e1.ci", "E_OVERFLOW", "(work-item 20, step 22)"),
    ("shape_rt.ci", "E_SHAPE", "(entry phase)"),
])
def test_a_fault_prints_the_same_everywhere(capsys, monkeypatch, name, code, where):
    result = result_of(name)
    assert result["fault"]["code"] == code and result["error"] is None
    assert result["report"] == cli_stderr(capsys, monkeypatch, name)  # the CLI's text, byte for byte
    assert result["summary"].startswith(f"cpu-sir-interp: {code} at {name}:") and where in result["summary"]
    for text in (result["report"], result["summary"]):
        assert "None" not in text and "nil" not in text


def test_a_finished_run_and_one_without_a_result():
    done = result_of("heat_tour.ci")
    assert done["fault"] is None and done["report"] is None and done["output"].startswith("after 40 steps")
    assert done["summary"].startswith("cpu-sir-interp: finished; fuel ")
    spin = validate(run_result_json(run_program("cpu-sir-interp", "spin.ci", "while (true) { }\n",
                                                Settings(time_limit=0.5)), "file:///spin.ci", 1))
    assert spin["output"] is None and "longer than 0.5 s" in spin["error"] and spin["summary"].endswith(spin["error"])


def test_a_translation_error_and_a_refusal_are_results_without_output():
    broken = validate(run_result_json(run_program("cpu-sir-interp", "b.ci", "I64 x = ;\n", Settings()),
                                      "file:///b.ci", 1))
    assert broken["output"] is None and broken["error"].startswith("C1")
    refused = result_of("ops_kernel.ci", "gpu-cuda")
    assert refused["output"] is None and "capability `neg`" in refused["error"]


def test_a_host_status_prints_the_same_everywhere(capsys, monkeypatch):
    """A device that fails its second launch: `host[CINT_RESOURCE]` in the CLI, the same
    report in the result, and a summary with the detail instead of `work-item None`."""
    import cint_ls.cli.commands as commands
    import cint_ls.exec.cuda as cuda
    from cint_ls.exec.cuda.simulator import SimulatedDevice

    monkeypatch.setattr(cuda, "SimulatedDevice", lambda order, seed: SimulatedDevice(fail_launch=1))
    in_process = lambda request: facade.run(dataclasses.replace(request, isolate=False))  # noqa: E731
    monkeypatch.setattr(commands, "run_request", in_process)
    monkeypatch.chdir(CONFORMANCE)
    assert main(["run", "--executor", "gpu-cuda", "--device", "sim", "heat_spot.ci"]) == 3
    err = capsys.readouterr().err

    text = (CONFORMANCE / "heat_spot.ci").read_text()
    outcome = in_process(RunRequest("heat_spot.ci", text, "gpu-cuda", options={"gpu-cuda": {"device": "sim"}}))
    result = validate(run_result_json(outcome, "file:///heat_spot.ci", 1))
    assert result["fault"]["code"] == "CINT_RESOURCE"
    assert result["report"] == err
    assert result["summary"].startswith("gpu-cuda: CINT_RESOURCE at heat_spot.ci:")
    assert "host.resource (dispatch 1): CUDA_ERROR_LAUNCH_TIMEOUT" in result["summary"]
    for text in (result["report"], result["summary"]):
        assert "None" not in text


def test_a_run_that_prints_without_bound_sends_back_a_bounded_output():
    """Issue 13 item 5: the output a run sends to the editor is capped, with a note."""
    from cint_ls.server.runs import OUTPUT_LIMIT

    text = 'void go() { I64 i = 0; while (i < 300000) { "0123456789\\n"; i = i + 1; } }\ngo();\n'
    outcome = run_program("cpu-sir-interp", "loud.ci", text, Settings(time_limit=120))
    result = validate(run_result_json(outcome, "file:///loud.ci", 1))
    assert len(result["output"].encode()) == OUTPUT_LIMIT
    assert result["notes"][-1] == f"output truncated after {OUTPUT_LIMIT} bytes (the program printed 3300000)"


def test_the_run_result_carries_the_run_report():
    """Issue 14: `runReport` is `cint run --report=json`'s object (the same keys, a row per
    dispatch) and its `decision` says what auto did; a named executor says it was named."""
    named = result_of("heat_tour.ci")
    report = named["runReport"]
    assert report["executor"] == "cpu-sir-interp" and report["chosen"] == "named" and report["auto"] is None
    assert report["decision"] == "cpu-sir-interp was named: auto did not choose"
    assert report["outcome"] == "finished" and report["fuel"] == named["fuelConsumed"]
    assert report["dispatch_count"] == 40 and len(report["dispatches"]) == 40 == report["recorded"]
    assert [row["number"] for row in report["dispatches"]] == list(range(40))
    assert {row["kernel"] for row in report["dispatches"]} == {"heat_tour.diffuse"}
    assert sum(row["fuel"] for row in report["dispatches"]) <= report["fuel"]

    chosen = result_of("heat_e1.ci", "auto")
    report = chosen["runReport"]
    assert report["chosen"] == "auto" and report["decision"].startswith(f"auto chose {chosen['executor']}: ")
    assert report["auto"]["executor"] == chosen["executor"] and report["outcome"] == "E_OVERFLOW"

    broken = validate(run_result_json(run_program("cpu-sir-interp", "b.ci", "I64 x = ;\n", Settings()),
                                      "file:///b.ci", 1))
    assert broken["runReport"]["outcome"] == "no result" and broken["runReport"]["dispatches"] == []
    assert broken["runReport"]["error"] == broken["error"]
