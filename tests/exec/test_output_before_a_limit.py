"""Issue 28, finding 5: a run cut short by its time limit keeps the output it printed
before, capped while it runs (the first 1 MiB and the last lines: running/isolated.py
_Kept), and says it was cut, in the CLI, in the façade's outcome and in the server's
run result. The output reaches the parent as it is printed: cpu-sir-interp through the
executor's `write`, cpu-c17 and gpu-cuda's host from their run-time (rt/text.c,
cint_ctx_stream_output; c17/library.py OutputStream). gpu-cuda runs on the
simulated device where there is no GPU."""

from __future__ import annotations

import json
import re
from importlib import resources

import jsonschema
import pytest

from cint_ls.cli.main import main
from cint_ls.running.run import RunRequest, run
from cint_ls.server.runs import OUTPUT_LIMIT, run_program, run_result_json
from cint_ls.server.settings import Settings

EXECUTORS = ["cpu-sir-interp", pytest.param("cpu-c17", marks=pytest.mark.needs_cc),
             pytest.param("gpu-cuda", marks=pytest.mark.needs_cc)]
PRINT_THEN_LOOP = '"one\\n";\n"two\\n";\nvoid f() { while (true) { } }\nf();\n'
FLOOD = 'I64 i = 0;\nwhile (true) { "line {i}\\n"; i = i +% 1; }\n'
SCHEMA = json.loads(resources.files("cint_ls.server").joinpath("schema/run-result.schema.json").read_text())


@pytest.mark.parametrize("executor", EXECUTORS)
def test_output_before_a_time_limit_is_kept(executor):
    outcome = run(RunRequest("p.ci", PRINT_THEN_LOOP, executor, time_limit=2, isolate=True))
    assert outcome.result is None
    assert outcome.cut_output == "one\ntwo\n"
    assert outcome.error == "the run took longer than 2 s and was stopped; the 2 lines it printed before are kept"


@pytest.mark.parametrize("executor", EXECUTORS)
def test_output_before_a_time_limit_is_kept_in_the_server_s_result(executor):
    outcome = run_program(executor, "p.ci", PRINT_THEN_LOOP, Settings(time_limit=2))
    result = run_result_json(outcome, "file:///p.ci", 1)
    jsonschema.validate(result, SCHEMA)
    assert result["output"] == "one\ntwo\n"
    assert "the 2 lines it printed before are kept" in result["error"]


@pytest.mark.parametrize("executor", EXECUTORS)
def test_output_before_a_time_limit_is_kept_by_cint_run(executor, tmp_path, monkeypatch, capsys):
    (tmp_path / "p.ci").write_text(PRINT_THEN_LOOP)
    monkeypatch.chdir(tmp_path)
    assert main(["run", "p.ci", "--executor", executor, "--time-limit", "2"]) == 3
    out, err = capsys.readouterr()
    assert out == "one\ntwo\n"
    assert err == "cint: error: the run took longer than 2 s and was stopped; the 2 lines it printed before are kept\n"


def _check_flood(text: str, error: str) -> None:
    """The first OUTPUT_LIMIT bytes, a line that says how much was cut, then the last
    lines, consecutive; the run was stopped by its time limit, not its memory."""
    assert error.startswith("the run took longer than 2 s and was stopped; of the "), error
    printed = int(re.search(r"of the (\d+) bytes it printed before", error).group(1))
    assert f"the first {OUTPUT_LIMIT} and the last " in error
    head, marker, tail = re.split(r"\n(\[\.\.\. \d+ bytes cut \.\.\.\])\n", text)
    assert len(head.encode()) == OUTPUT_LIMIT
    assert head.startswith("line 0\nline 1\nline 2\n")
    lines = [line for line in tail.split("\n") if line]
    numbers = [int(line.split()[1]) for line in lines[:-1]]  # the last may be a line cut by the stop
    assert len(lines) <= 100 and numbers == list(range(numbers[0], numbers[0] + len(numbers)))
    assert int(marker.split()[1]) == printed - OUTPUT_LIMIT - len(tail.encode())
    assert numbers[0] * 6 > OUTPUT_LIMIT // 2  # the tail is from the end, far past the head


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_flood_keeps_the_first_mib_and_the_last_lines(executor):
    """The server's runs (output_limit 1 MiB): the child keeps no more than that either
    (cpu-c17's run-time sends the rest without keeping it), so no memory limit."""
    outcome = run_program(executor, "flood.ci", FLOOD, Settings(time_limit=2))
    result = run_result_json(outcome, "file:///flood.ci", 1)
    jsonschema.validate(result, SCHEMA)
    _check_flood(result["output"], result["error"])


@pytest.mark.needs_cc
def test_a_flood_through_cint_run_keeps_the_first_mib_and_the_last_lines(tmp_path, monkeypatch, capsys):
    (tmp_path / "flood.ci").write_text(FLOOD)
    monkeypatch.chdir(tmp_path)
    assert main(["run", "flood.ci", "--executor", "cpu-c17", "--time-limit", "2"]) == 3
    out, err = capsys.readouterr()
    assert err.startswith("cint: error: ") and err.count("\n") == 1
    _check_flood(out, err[len("cint: error: "):-1])


@pytest.mark.slow
@pytest.mark.needs_cc
def test_output_before_a_memory_limit_is_kept():
    """`cint run`'s runs keep all of cpu-c17's output in the child (no output limit): a
    flood ends at the memory limit, with the first 1 MiB and the last lines kept."""
    from cint_ls.running.isolated import IsolatedRunError, Request, run_isolated

    with pytest.raises(IsolatedRunError) as raised:
        run_isolated(Request.of_text("cpu-c17", "flood.ci", FLOOD, memory_limit=768 << 20), time_limit=60)
    message = str(raised.value)
    assert message.startswith("the cpu-c17 run exceeded its memory limit; of the "), message
    assert raised.value.output.startswith("line 0\nline 1\n") and "bytes cut ...]\n" in raised.value.output
