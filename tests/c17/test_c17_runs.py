"""cpu-c17 runs: through run_isolated (the language server's and the CLI's way), the
compile cache, and every way a run can fail without an outcome: no compiler, a compiler
error, a crash of the child, a time-out -- each one line that names the cause."""

from __future__ import annotations

import stat

import pytest
from conftest import CONFORMANCE

from cint_ls.cli.main import main
from cint_ls.exec.c17.build import build_library, cache_root, find_compiler
from cint_ls.exec.executors import ExecutorUnavailable
from cint_ls.exec.interp import run_program
from cint_ls.ir.build import build
from cint_ls.running.executors import get
from cint_ls.running.isolated import IsolatedRunError, Request, run_isolated

pytestmark = pytest.mark.needs_cc


def test_the_executor_is_registered_as_native():
    executor = get("cpu-c17")
    assert executor.native


def test_run_isolated_returns_the_whole_record():
    result = run_isolated(Request.of_text("cpu-c17", "heat_e1.ci", (CONFORMANCE / "heat_e1.ci").read_text()))
    assert result.executor == "cpu-c17"
    fault = result.fault
    assert fault.operation == "mul.checked.i64" and fault.exact == 2305843009213693952000
    assert (fault.address.work_item, fault.address.step) == (20, 22)
    assert (fault.span.line, fault.span.column) == (13, 33)
    assert [f.function for f in fault.stack] == ["heat_e1.diffuse", "heat_e1.step"]
    assert result.fuel_consumed == 65


def test_the_record_equals_the_references_field_by_field():
    for name in ("heat_e2", "heat_sum32", "tie_a", "alias_cols", "shape_rt", "budget"):
        text = (CONFORMANCE / f"{name}.ci").read_text()
        program = build(text, f"{name}.ci").program
        reference = run_program(program)
        result = run_isolated(Request.of_text("cpu-c17", f"{name}.ci", text))
        assert result.fault == reference.fault, name
        assert (result.output, result.fuel_consumed, result.dispatches) == (
            reference.output, reference.fuel_consumed, reference.dispatches)


def test_the_cache_follows_xdg_cache_home_and_is_reused(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_root() == tmp_path / "cint-ls" / "c17"
    text = '#include "cint_rt.h"\nconst cint_program *cint_program_info(void) { return 0; }\n'
    first = build_library(text)
    assert first.is_relative_to(tmp_path / "cint-ls" / "c17")
    stamp = first.stat().st_mtime_ns
    assert build_library(text) == first and first.stat().st_mtime_ns == stamp
    assert build_library(text + "\n") != first  # another text, another entry


def test_no_compiler_on_path(tmp_path, monkeypatch):
    monkeypatch.delenv("CC", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ExecutorUnavailable, match="^no C compiler found: install gcc or clang, or set CC$"):
        find_compiler()


def test_no_compiler_is_one_line_through_the_child(monkeypatch):
    monkeypatch.setenv("CC", "/nonexistent/cc")
    with pytest.raises(IsolatedRunError, match="^no C compiler found: CC=/nonexistent/cc"):
        run_isolated(Request.of_text("cpu-c17", "x.ci", '"a\\n";'))


def test_no_compiler_through_the_cli(capsys, monkeypatch):
    monkeypatch.chdir(CONFORMANCE)
    monkeypatch.setenv("CC", "/nonexistent/cc")
    assert main(["run", "scale.ci", "--executor", "cpu-c17"]) == 3
    err = capsys.readouterr().err
    assert err.startswith("cint: error: no C compiler found") and err.count("\n") == 1


def test_a_compiler_error_names_the_compiler_and_the_first_error(tmp_path, monkeypatch):
    fake = tmp_path / "fakecc"
    fake.write_text('#!/bin/sh\nif [ "$1" = "--version" ]; then echo "fakecc 1.0"; exit 0; fi\n'
                    'echo "x.c:1:1: warning: something" >&2\necho "x.c:3:7: error: boom" >&2\nexit 1\n')
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("CC", str(fake))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    # It fails on the run-time, which GCC and Clang compile cleanly: not a working compiler.
    with pytest.raises(IsolatedRunError, match=r"^the C compiler fakecc failed on the run-time file .* \(exit 1\): "
                                               r"x\.c:3:7: error: boom; .* is it a working C17 compiler\?"):
        run_isolated(Request.of_text("cpu-c17", "x.ci", '"a\\n";'))


DEEP = """
I1024 f(I1024 n) {
    I1024 a = n * 3;
    I1024 b = a + n;
    I1024 c = b - a;
    if (n == 0) { return c; }
    return f(n - 1) + c;
}
"{f(900)}\\n";
"""


def test_a_stack_too_small_is_a_host_status_not_a_crash():
    """A stack far too small for 900 nested calls (64 KiB) no longer kills the child with
    SIGSEGV (issue 13 item 11): each call tests its frame against the thread's stack
    (rt/stack.c), and the entry ends with host.stack, without the executors' limit."""
    result = run_isolated(Request.of_text("cpu-c17", "deep.ci", DEEP, options={"stack_size": 64 * 1024}), time_limit=60)
    fault = result.fault
    assert fault is not None and (fault.code, fault.operation, fault.limit) == ("CINT_RESOURCE", "host.stack", None)
    assert 1 < fault.operands[0][1] < 900
    assert run_isolated(Request.of_text("cpu-c17", "deep.ci", DEEP)).output == f"{sum(range(901))}\n"


def _isolated_children() -> list[int]:
    """The pids of this process's isolated-run children."""
    import os

    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                command = f.read()
        except (OSError, ValueError, IndexError):
            continue
        if ppid == os.getpid() and b"cint_ls.running.isolated" in command:
            found.append(int(entry))
    return found


def test_a_crash_of_the_child_is_one_line():
    """A child that dies of a signal (SIGSEGV sent to it while it runs an endless loop)
    gives one line naming the executor and the signal."""
    import os
    import signal
    import sys
    import threading
    import time

    if not sys.platform.startswith("linux"):
        pytest.skip("finds the child through /proc")
    stop = threading.Event()

    def crash() -> None:
        while not stop.is_set():
            children = _isolated_children()
            if children:
                time.sleep(0.5)  # let it reach the loop
                for pid in children:
                    os.kill(pid, signal.SIGSEGV)
                return
            time.sleep(0.05)

    killer = threading.Thread(target=crash)
    killer.start()
    try:
        with pytest.raises(IsolatedRunError, match=r"^the cpu-c17 run crashed \(SIGSEGV\)"):
            run_isolated(Request.of_text("cpu-c17", "loop.ci", "I64 i = 0;\nwhile (true) { i = i +% 1; }\n"),
                         time_limit=120)
    finally:
        stop.set()
        killer.join()


@pytest.mark.slow
def test_a_time_out_is_one_line(capsys, tmp_path, monkeypatch):
    source = tmp_path / "loop.ci"
    source.write_text("void f() { while (true) { } }\nf();\n")
    build_library_warm = run_isolated(Request.of_text("cpu-c17", "warm.ci", '"warm\\n";'))  # the run-time is built
    assert build_library_warm.output == "warm\n"
    monkeypatch.chdir(tmp_path)
    assert main(["run", "loop.ci", "--executor", "cpu-c17", "--time-limit", "3"]) == 3
    err = capsys.readouterr().err
    assert err == "cint: error: the run took longer than 3 s and was stopped\n"


def test_the_fuel_budget_reaches_the_child():
    text = (CONFORMANCE / "budget_fuel.ci").read_text()
    result = run_isolated(Request.of_text("cpu-c17", "budget_fuel.ci", text, fuel=6002))
    assert result.fault.code == "E_FUEL" and result.fuel_consumed == 6002
    assert (result.fault.address.work_item, result.fault.address.step) == (500, 1)


def test_output_before_a_fault_is_kept():
    text = '"before\\n";\nI64 x = 0;\nI64 y = 1 / x;\n'
    result = run_isolated(Request.of_text("cpu-c17", "f.ci", text))
    assert result.output == "before\n" and result.fault.code == "E_DIV_ZERO"


def test_the_memory_limit_is_one_line():
    request = Request.of_text("cpu-c17", "m.ci", "void f() { I64[200000000] a; }\nf();\n", memory_limit=1 << 28)
    with pytest.raises(IsolatedRunError, match="^the cpu-c17 run exceeded its memory limit$"):
        run_isolated(request, time_limit=60)
