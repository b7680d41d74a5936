"""Isolated runs: a child process per run, with a time limit, a memory limit, and one
JSON result carrying the output and the whole fault record."""

from __future__ import annotations

import pytest

from cint_ls.exec.isolated import IsolatedRunError, Request, run_isolated
from conftest import CONFORMANCE


def test_output_and_fault_cross_the_process_boundary():
    result = run_isolated(Request("cpu-sir-interp", "heat_e1.ci", (CONFORMANCE / "heat_e1.ci").read_text()))
    assert result.output == ""
    fault = result.fault
    assert fault.operation == "mul.checked.i64" and fault.exact == 2305843009213693952000
    assert (fault.address.work_item, fault.address.step) == (20, 22)
    assert (fault.span.line, fault.span.column) == (13, 33)
    assert [f.function for f in fault.stack] == ["heat_e1.diffuse", "heat_e1.step"]


def test_a_program_that_loops_forever_is_stopped_at_the_time_limit():
    with pytest.raises(IsolatedRunError, match="longer than 1 s"):
        run_isolated(Request("cpu-sir-interp", "loop.ci", "void f() { while (true) { } }\nf();\n"), time_limit=1)


def test_memory_limit():
    request = Request("cpu-sir-interp", "m.ci", "void f() { I64[100000000] a; }\nf();\n", memory_limit=1 << 28)
    with pytest.raises(IsolatedRunError, match="memory limit"):
        run_isolated(request, time_limit=20)


def test_cancellation():
    request = Request("cpu-sir-interp", "loop.ci", "void f() { while (true) { } }\nf();\n")
    with pytest.raises(IsolatedRunError, match="cancelled"):
        run_isolated(request, time_limit=20, cancel=lambda: True)


def test_unknown_executor_is_one_line():
    with pytest.raises(IsolatedRunError, match="not implemented yet"):
        run_isolated(Request("no-such-executor", "x.ci", '"a\\n";'))
