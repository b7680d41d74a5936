"""A run that starts from an exported function (`RunRequest.function`, running/run.py
`with_entry`): the same outcome on every executor, in and out of a child process, and a
one-line error for a function no run can start from."""

from __future__ import annotations

import pytest

from cint_ls.running.executors import available
from cint_ls.running.run import RunRequest, run

PROGRAM = """kernel bump[n](inout I64[n] a) over [i: n] {
    a[i] = a[i] + 1;
}

export I64 twice() {
    I64[3] a = [1, 2, 9223372036854775807];
    bump(a);
    return 0;
}

export void hello() {
    "hello {1 + 2}\\n";
}

export I64 add(I64 a) {
    return a;
}

"top\\n";
"""

EXECUTORS = [name for name in ("cpu-sir-interp", "cpu-c17", "gpu-cuda") if name in available()]


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_function_is_the_entry(executor):
    hello = run(RunRequest("/tmp/f.ci", PROGRAM, executor, function="hello", isolate=True))
    assert hello.result is not None and hello.result.output == "hello 3\n", hello.summary
    assert hello.result.fuel_consumed == 1  # the call (SPEC-02P.1 8.4 example 1)
    twice = run(RunRequest("/tmp/f.ci", PROGRAM, executor, function="twice", isolate=True))
    fault = twice.result.fault
    assert fault.code == "E_OVERFLOW" and fault.to_json()["address"][:4] == ["f.bump", 0, 1, 2]  # dispatch 0 of this entry
    assert twice.result.fuel_consumed == 1 + 3  # the call, then the dispatch of 3 work-items
    top = run(RunRequest("/tmp/f.ci", PROGRAM, executor, isolate=True))
    assert top.result.output == "top\n"


def test_in_process_run_of_a_function():
    outcome = run(RunRequest("/tmp/f.ci", PROGRAM, "cpu-sir-interp", function="hello", isolate=False))
    assert outcome.result.output == "hello 3\n"


@pytest.mark.parametrize("function, says", [
    ("nope", "no function 'nope' to run (exported functions without parameters: twice, hello)"),
    ("add", "add takes parameters"),
    ("bump", "no function 'bump'"),
])
def test_no_such_entry(function, says):
    outcome = run(RunRequest("/tmp/f.ci", PROGRAM, "cpu-sir-interp", function=function, isolate=True))
    assert outcome.result is None and outcome.error.startswith(says)
