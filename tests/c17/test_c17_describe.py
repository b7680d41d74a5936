"""cpu-c17's description of one work-item for gpu-cuda (`describe_work_item`, SPEC-02P.1
10.6 para 9; README.md "Describing a fault for gpu-cuda"): on every program of the
conformance suite and of test_c17_programs.py whose reference faults in a work-item, each
work-item of the faulting dispatch described in C from the state at the start of the
dispatch gives the interpreter's outcome (record, step, fuel), whatever the types (wide,
fixed, Bool), views (strided, reversed, transposed) and calls; and the emitter's `also`."""

from __future__ import annotations

import copy
import dataclasses

import pytest
from conftest import conformance_programs
from test_c17_programs import PROGRAMS

from cint_ls.exec.c17 import describe_work_item
from cint_ls.exec.c17.build import build_library
from cint_ls.exec.c17.emit import emit_program
from cint_ls.exec.c17.library import run_library
from cint_ls.exec.cuda.oracle.fault_replay import interpreter_describe
from cint_ls.exec.faults import PHASE_WORK_ITEM
from cint_ls.exec.interp import run_program
from cint_ls.exec.interp.compiler import new_fold
from cint_ls.exec.interp.machine import InterpRunner, Machine
from cint_ls.ir.build import build

pytestmark = pytest.mark.needs_cc

MAX_ITEMS = 2000  # the faulting work-item of a case is at most this


def _cases():
    """The programs whose reference faults in the work-item phase."""
    programs = []
    for path in conformance_programs():
        args_file = path.with_suffix(".args")
        args = args_file.read_text().split() if args_file.exists() else []
        fuel = int(args[args.index("--fuel") + 1]) if "--fuel" in args else None
        programs.append((path.read_text(), path.name, fuel, path.stem))
    programs += [(text, "t.ci", None, name) for name, text in PROGRAMS.items()]
    cases = []
    for text, path, fuel, name in programs:
        built = build(text, path)
        if built.program is None:
            continue
        fault = run_program(built.program, fuel).fault
        if fault is not None and fault.address is not None and fault.address.phase == PHASE_WORK_ITEM:
            cases.append(pytest.param(text, path, fuel, id=name))
    return cases


CASES = _cases()


def test_the_cases_cover_the_kinds_of_fault():
    assert len(CASES) >= 40


class Capture(InterpRunner):
    """The interpreter's runner, keeping each dispatch's plan and the state at its start."""

    def __init__(self, machine: Machine) -> None:
        super().__init__(machine)
        self.started: list = []

    def run(self, plan):
        self.started.append((plan, plan.fuel.consumed, self.m.depth))
        return super().run(plan)


@pytest.mark.parametrize("text,path,fuel", CASES)
def test_each_work_item_described_as_the_interpreter(text, path, fuel):
    """The faulting dispatch replayed work-item by work-item from its start, each one
    described by cpu-c17 and by the interpreter from the same state (the fuel consumed
    and the fold partials before it, carried from one work-item to the next): the same
    outcome for each, and at the canonical one the reference's record and fuel."""
    program = build(text, path).program
    machine = Machine(program, fuel, None)
    machine.runner = runner = Capture(machine)
    result = machine.run()
    fault = result.fault
    plan, consumed, depth = runner.started[-1]
    k = fault.address.work_item
    assert plan.number == fault.address.dispatch and k < MAX_ITEMS
    folds = {r.param: new_fold(r) for r in plan.kernel.reductions if r.kind == "fold_checked"}
    for i in range(k + 1):
        got, after = describe_work_item(program, plan, i, copy.deepcopy(folds), consumed, depth)
        # the interpreter's re-run advances `folds` by work-item i's contributions
        want, want_after = interpreter_describe(machine, plan, i, folds, consumed)
        assert after == want_after, i
        assert (got is None) == (want is None), i
        if want is not None:
            assert got.record(after) == want.record(after), i
            assert got.step == want.step == want.address.step, i
        if i < k:
            assert got is None, i
        consumed = after
    assert got.address == fault.address and after == result.fuel_consumed
    # the record is the reference's, less the dispatch's frame and those outside it,
    # which the host's dispatch and calls add
    assert got.record(after) == dataclasses.replace(fault, stack=fault.stack[:len(got.frames)])
    assert fault.stack[len(got.frames)].function == plan.kernel.qualified


def test_also_changes_nothing_for_a_dispatched_kernel():
    for path in conformance_programs():
        built = build(path.read_text(), path.name)
        if built.program is None or not built.program.kernels:
            continue
        for name in built.program.kernels:
            text = emit_program(built.program)
            if f"ck{len(name)}_{name} = " in text:
                assert emit_program(built.program, (name,)) == text


HOST_ONLY = """kernel f[n](in I64[n] a, out I64[n] b) over [i: n] { b[i] = a[i] * 3; }
"""


def test_a_kernel_only_a_host_dispatches():
    """Not in cpu-c17's own C (the entry does not dispatch it); emitted with `also`, in
    the kernel table; the program's empty entry compiles and runs."""
    program = build(HOST_ONLY, "t.ci").program
    plain = emit_program(program)
    assert "ck1_f" not in plain and "cint_entry, 0, NULL}" in plain
    result, _ = run_library(build_library(plain), None)
    assert result.fault is None and result.output == ""
    text = emit_program(program, ("f",))
    assert "static const cint_kernel *const cint_kernels[] = {&ck1_f};" in text
    assert "cint_entry, 1, cint_kernels}" in text
    build_library(text)
