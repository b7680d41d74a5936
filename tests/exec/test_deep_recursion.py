"""Issue 13 item 11: recursion is bounded by fuel and the executors' limit, not by a
1,000-call cap (E_UNSUPPORTED call.depth before). Every executor runs calls nested up to
MAX_CALL_DEPTH (100,000) deep and ends the entry with the host status host.stack
(CINT_RESOURCE, the limit in the record) at the call beyond, with the same record and
fuel (docs/semantics.md, "Calls"). The interpreter runs deep calls on its own frame
stack (exec/interp/resumable.py), cpu-c17 on a thread with a large stack, guarded
(rt/stack.c); gpu-cuda's sequential code runs on its host, the interpreter's machine."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from cint_ls.exec.executors import ExecutorUnavailable
from cint_ls.exec.faults import CINT_RESOURCE, HOST_STACK, MAX_CALL_DEPTH
from cint_ls.exec.interp.machine import Machine
from cint_ls.ir.build import build
from cint_ls.running.executors import get
from cint_ls.running.report import render
from cint_ls.syntax.source import SourceText

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from conftest import conformance_case, conformance_programs

HAS_CC = any(shutil.which(c) for c in ("cc", "gcc", "clang"))

DOWN = """
I64 down(I64 n) {
    if (n == 0) { return 0; }
    return down(n - 1) + 1;
}
"depth: {down(N)}\\n";
"""

EXECUTORS = [
    pytest.param("cpu-sir-interp", {}, id="interp"),
    pytest.param("cpu-c17", {"threads": 1}, id="c17", marks=pytest.mark.needs_cc),
    pytest.param("gpu-cuda", {"device": "sim"}, id="gpu-cuda"),
]


def program(text: str, name: str = "deep.ci"):
    built = build(text, name)
    assert built.program is not None, built.checked.diagnostics
    return built.program


def run(executor: str, options: dict, text: str, fuel=None):
    try:
        return get(executor).run(program(text), fuel, None, dict(options))
    except ExecutorUnavailable as error:  # no C compiler
        pytest.skip(str(error))


def outcome(result):
    return result.output, result.fault, result.fuel_consumed


@pytest.mark.parametrize("executor,options", EXECUTORS)
def test_recursion_1501_deep_with_exact_fuel_runs(executor, options):
    """1,501 nested calls (down(1500) .. down(0)) with exactly 1,501 units of fuel: the
    output, and with one unit less E_FUEL at the innermost call, as the reference."""
    text = DOWN.replace("N", "1500")
    result = run(executor, options, text, fuel=1501)
    assert (result.output, result.fault, result.fuel_consumed) == ("depth: 1500\n", None, 1501)
    short = run(executor, options, text, fuel=1500)
    assert short.fault is not None and (short.fault.code, short.fault.operation) == ("E_FUEL", "fuel.charge")
    assert len(short.fault.stack) == 1500 and short.fuel_consumed == 1500
    assert outcome(short) == outcome(run("cpu-sir-interp", {}, text, fuel=1500))


@pytest.mark.slow
def test_recursion_to_the_limit_and_beyond_gives_one_outcome_on_every_executor():
    """MAX_CALL_DEPTH nested calls run everywhere; one more ends the entry with the same
    host.stack record (position, limit, the 100,000 frames) and fuel everywhere."""
    executors = [("cpu-sir-interp", {}), ("gpu-cuda", {"device": "sim"})] + ([("cpu-c17", {})] if HAS_CC else [])
    at_limit = DOWN.replace("N", str(MAX_CALL_DEPTH - 1))
    beyond = DOWN.replace("N", str(MAX_CALL_DEPTH))
    reference = None
    for executor, options in executors:
        ok = run(executor, options, at_limit)
        assert (ok.output, ok.fault, ok.fuel_consumed) == (f"depth: {MAX_CALL_DEPTH - 1}\n", None, MAX_CALL_DEPTH)
        result = run(executor, options, beyond)
        fault = result.fault
        assert fault is not None and (fault.code, fault.operation) == (CINT_RESOURCE, HOST_STACK), executor
        assert fault.limit[1] == MAX_CALL_DEPTH and fault.operands[0][1] == MAX_CALL_DEPTH + 1
        assert len(fault.stack) == MAX_CALL_DEPTH and result.fuel_consumed == MAX_CALL_DEPTH + 1
        if reference is None:
            reference = outcome(result)
        assert outcome(result) == reference, executor
    report = render(SourceText(beyond, "deep.ci"), reference[1])
    assert report.startswith("host[CINT_RESOURCE]: the calls nest deeper than the executors' limit of "
                             "100000 calls; the entry ended (not a cint fault)\n")
    assert "^ host.stack" in report and "= stack:" not in report


WIDE = """
I1024 grow(I64 n, I1024 a) {
    if (n == 0) { return a * a * a; }
    I1024 b = a * 3 + (n as I1024);
    return grow(n - 1, b % 1000000007) + 1;
}
I64 down(I64 n) {
    if (n == 0) { return 9223372036854775807 + n - 1 + 2; }
    return down(n - 1);
}
"{grow(20000, 5)}\\n";
"{down(5000)}\\n";
"""


@pytest.mark.parametrize("executor,options", EXECUTORS)
def test_a_fault_in_deep_recursion_has_every_frame(executor, options):
    """I1024 frames 20,000 deep, then E_OVERFLOW 5,001 calls deep: the same output,
    record (5,001 frames) and fuel as the reference."""
    result = run(executor, options, WIDE)
    assert result.fault is not None and result.fault.code == "E_OVERFLOW" and len(result.fault.stack) == 5001
    assert outcome(result) == outcome(run("cpu-sir-interp", {}, WIDE))


KERNEL_CALLS = f"""
I64 down(I64 n) {{
    if (n == 0) {{ return 0; }}
    return down(n - 1) + 1;
}}
kernel k[n](out I64[n] a) over [i: n] {{ a[i] = down(i * 2); }}
I64 deep(I64 n) {{
    if (n == 0) {{
        I64[8] a;
        k(a[0..8]);
        "never\\n";
        return a[7];
    }}
    return deep(n - 1);
}}
"{{deep({MAX_CALL_DEPTH - 7})}}\\n";
"""


@pytest.mark.parametrize("options", [{"threads": 1}, {"threads": 2, "parallel_min": 1, "chunk_min": 1}],
                         ids=["one-thread", "pool"])
@pytest.mark.needs_cc
def test_the_limit_inside_a_work_item_is_the_first_in_ascending_order(options):
    """A dispatch issued 99,994 calls deep whose work-item i nests 2i + 1 more calls:
    work-item 3 is the first to cross the limit; cpu-c17 (one thread, or its pool where
    higher work-items cross it too) reports it as the interpreter does."""
    reference = run("cpu-sir-interp", {}, KERNEL_CALLS)
    fault = reference.fault
    assert (fault.code, fault.operation) == (CINT_RESOURCE, HOST_STACK)
    assert fault.address is not None and fault.address.work_item == 3
    assert outcome(run("cpu-c17", options, KERNEL_CALLS)) == outcome(reference)


@pytest.mark.needs_cc
def test_cpu_c17_reports_a_used_up_stack_rather_than_crashing():
    """Frames a thread's stack cannot hold below the limit (here: a 1 MiB stack) end
    the entry with host.stack without a limit, the depth reached as its operand: a
    resource of the machine, not a crash."""
    result = run("cpu-c17", {"threads": 1, "stack_size": 1 << 20}, DOWN.replace("N", "90000"))
    fault = result.fault
    assert fault is not None and (fault.code, fault.operation, fault.limit) == (CINT_RESOURCE, HOST_STACK, None)
    assert 1000 < fault.operands[0][1] < MAX_CALL_DEPTH and len(fault.stack) == fault.operands[0][1] - 1
    assert fault.message == "the executor's call stack is used up"


def test_the_resumable_form_runs_every_conformance_case_as_the_native_form():
    """The interpreter with every call on its own frame stack (native_calls 0) gives
    each conformance case's output, record and fuel exactly as its fast form."""
    checked = 0
    for path in conformance_programs():
        built = build(path.read_text(), path.name)
        if built.program is None:
            continue
        args, _ = conformance_case(path)
        fuel = int(args[args.index("--fuel") + 1]) if "--fuel" in args else None
        results = []
        for native in (Machine(built.program, fuel).native_calls, 0):
            machine = Machine(built.program, fuel)
            machine.native_calls = native
            results.append(outcome(machine.run()))
        assert results[0] == results[1], path.name
        checked += 1
    assert checked > 100
