"""The description of the canonical fault in the cpu-c17 code of the kernel (SPEC-02P.1
10.6 para 9): every work-item-phase fault of the conformance suite that gpu-cuda admits
is described by cpu-c17 with the reference's record and fuel; cpu-c17's description
agrees with the interpreter's on every re-run; a re-run that completes is
host.divergence; without a C compiler the interpreter describes, and the note says so."""

from __future__ import annotations

import copy

import pytest
from conftest import CONFORMANCE, conformance_programs
from cuda_support import outcome, program_of, run_cuda

from cint_ls.analysis.capabilities import gpu_refusals
from cint_ls.exec.c17 import describe_work_item as c17_describe
from cint_ls.exec.cuda.oracle import fault_replay
from cint_ls.exec.cuda.simulator import SimulatedDevice
from cint_ls.exec.faults import PHASE_WORK_ITEM
from cint_ls.exec.interp import run_program
from cint_ls.ir.build import build

pytestmark = pytest.mark.needs_cc


def _fuel(path) -> int | None:
    args_file = path.with_suffix(".args")
    args = args_file.read_text().split() if args_file.exists() else []
    return int(args[args.index("--fuel") + 1]) if "--fuel" in args else None


def _work_item_faults():
    """The admitted conformance cases whose reference fault is in the work-item phase."""
    cases = []
    for path in conformance_programs():
        built = build(path.read_text(), path.name)
        if built.program is None or gpu_refusals(built.checked):
            continue
        reference = run_program(built.program, _fuel(path))
        fault = reference.fault
        if fault is not None and fault.address is not None and fault.address.phase == PHASE_WORK_ITEM:
            cases.append(path)
    return cases


WORK_ITEM_FAULTS = _work_item_faults()


def test_the_suite_has_work_item_faults():
    names = {p.stem for p in WORK_ITEM_FAULTS}
    assert len(names) >= 5 and "budget_fuel" in names  # a fuel fault among them


def cpu_c17_note(result) -> str:
    notes = [n for n in result.notes if "was described by" in n]
    assert len(notes) == 1, result.notes
    return notes[0]


@pytest.fixture
def compare_with_interpreter(monkeypatch):
    """Every re-run is described by cpu-c17 and, from the same state, by the
    interpreter; the two must agree (record, step, fuel)."""
    seen = []
    real = fault_replay.describe_work_item

    def both(machine, plan, k, folds, consumed):
        interpreted = fault_replay.interpreter_describe(machine, plan, k, copy.deepcopy(folds), consumed)
        description = real(machine, plan, k, folds, consumed)
        assert description.by == fault_replay.CPU_C17
        fault, after = interpreted
        assert description.consumed == after
        assert (fault is None) == (description.fault is None)
        if fault is not None:
            assert description.fault.record(after) == fault.record(after)
            assert description.fault.step == fault.step
        seen.append((plan.number, k))
        return description

    monkeypatch.setattr(fault_replay, "describe_work_item", both)
    return seen


@pytest.mark.parametrize("order,block", [("ascending", 256), ("shuffled", 32)])
@pytest.mark.parametrize("path", WORK_ITEM_FAULTS, ids=lambda p: p.stem)
def test_work_item_faults_are_described_by_cpu_c17(compare_with_interpreter, path, order, block):
    program = program_of(path.read_text(), path.name)
    fuel = _fuel(path)
    reference = run_program(program, fuel)
    result = run_cuda(program, fuel, None, {"device": "sim", "order": order, "seed": 3, "block_size": block,
                                            "host": "python"})  # the Python host's re-run, beside the interpreter's
    assert outcome(result) == outcome(reference)
    address = reference.fault.address
    assert compare_with_interpreter == [(address.dispatch, address.work_item)]
    assert cpu_c17_note(result) == (f"the fault of work-item {address.work_item} of dispatch {address.dispatch} "
                                    "was described by cpu-c17")


# ---- a re-run that completes: host.divergence


class LyingDevice(SimulatedDevice):
    """A defective device: after every launch it lowers the fault word to `k`."""

    def __init__(self, k: int) -> None:
        super().__init__()
        self.k = k

    def launch(self, function, grid, block, params):
        super().launch(function, grid, block, params)
        word = params[function.params.index("p_fault")]
        self.upload(word, self.k.to_bytes(8, "little"))


@pytest.mark.parametrize("name,k", [("heat_spot.ci", 3), ("budget.ci", 0), ("heat_tour.ci", 17)])
def test_divergence_when_cpu_c17_completes_the_work_item(name, k):
    program = program_of((CONFORMANCE / name).read_text())
    result = run_cuda(program, None, None, {}, device=LyingDevice(k))
    assert result.fault.code == "CINT_RESOURCE" and result.fault.operation == "host.divergence"
    assert result.fault.address.dispatch == 0
    assert any(f"work-item {k} run again on the host (cpu-c17) completes without a fault" in d
               for d in result.fault.details), result.fault.details
    assert cpu_c17_note(result).endswith(f"work-item {k} of dispatch 0 was described by cpu-c17")


LOOPS = """kernel spin[n](in I64[n] a, out I64[n] r, out I64 s) over [i: n] {
    I64 acc = 0;
    for j in 0..a[i] { acc = acc + j; }
    r[i] = div_round(100, acc - 3, floor);
    reduce s = fold_checked(add, 9223372036854775000, acc);
}
void go() {
    I64[6] a = [3, 4, 1, 5, 3, 2];
    I64[6] r;
    I64 s = 0;
    spin(a, r, s);
}
go();
"""


def test_describing_a_work_item_that_completes(monkeypatch):
    """cpu-c17's describe_work_item itself, on every work-item of a dispatch, from the
    state before each: those that complete give None and their charges; the others
    their record; always as the interpreter."""
    plans = []
    real = fault_replay.describe_work_item

    def capture(machine, plan, k, folds, consumed):
        plans.append((machine, plan, copy.deepcopy(folds), consumed))
        return real(machine, plan, k, folds, consumed)

    monkeypatch.setattr(fault_replay, "describe_work_item", capture)
    program = program_of(LOOPS)
    reference = run_program(program, None)
    result = run_cuda(program, None, None, {"device": "sim", "host": "python"})  # fault_replay's plan
    assert outcome(result) == outcome(reference)
    assert result.fault.address.work_item == 0 and result.fault.code == "E_DIV_ZERO"  # 0 + 1 + 2 - 3
    (machine, plan, folds, consumed), = plans
    outcomes = []
    for k in range(plan.count):
        fault, after = c17_describe(program, plan, k, folds, consumed)
        ref_fault, ref_after = fault_replay.interpreter_describe(machine, plan, k, copy.deepcopy(folds), consumed)
        assert after == ref_after == consumed + [3, 4, 1, 5, 3, 2][k]
        assert (fault is None) == (ref_fault is None)
        if fault is not None:
            assert fault.record(after) == ref_fault.record(after)
        outcomes.append(None if fault is None else (fault.fault.operation, fault.address.step))
    # acc is 3, 6, 0, 10, 3, 1: work-items 0 and 4 divide by 0 after their loops
    division = "div_round.checked.i64.floor"
    assert [o and o[0] for o in outcomes] == [division, None, None, None, division, None]
    assert outcomes[0][1] == outcomes[4][1]


def test_fold_partials_before_k_reach_the_c_run():
    """A fold_checked whose partial before k is near its limit: the overflow at k is
    found by the exact prefix (k_r) and cpu-c17's record holds the partial."""
    text = LOOPS.replace("acc - 3", "acc + 1").replace("9223372036854775000", "9223372036854775790")
    reference, result = run_program(program_of(text), None), run_cuda(program_of(text), None, None,
                                                                      {"device": "sim", "block_size": 2})
    assert outcome(result) == outcome(reference)
    assert result.fault.operation.startswith("fold_checked") and result.fault.address.work_item == 3
    assert result.fault.operands[1][1] == 9223372036854775790 + 3 + 6 + 0
    assert cpu_c17_note(result).endswith("was described by cpu-c17")


# ---- no C compiler: the interpreter describes, and says why


def test_without_a_c_compiler_the_oracle_describes_with_the_interpreter(monkeypatch):
    # gpu-cuda itself does not run without a C compiler (test_probe_c_host.py); its Python
    # oracle does, describing a fault with the interpreter's body of the kernel.
    monkeypatch.setenv("CC", "no-such-cc-for-cint-tests")
    path = CONFORMANCE / "budget_fuel.ci"
    program = program_of(path.read_text(), path.name)
    reference = run_program(program, _fuel(path))
    result = run_cuda(program, _fuel(path), None, {"device": "sim", "host": "python"})
    assert outcome(result) == outcome(reference)
    note = cpu_c17_note(result)
    assert note.startswith("the fault of work-item 500 of dispatch 0 was described by the interpreter (no C compiler")
    assert "CC=no-such-cc-for-cint-tests" in note


def test_fuel_budget_everywhere_through_cpu_c17(compare_with_interpreter):
    """Every budget of a kernel with loops: the fuel fault's work-item and step, and the
    fuel consumed, from cpu-c17's re-run starting at the fuel before k."""
    program = program_of(LOOPS.replace("acc - 3", "acc + 1"))
    total = run_program(program, None).fuel_consumed
    for budget in range(0, total + 1):
        reference = run_program(program, budget)
        for host in ("c", "python"):  # the C host's scans; the Python host's re-run beside the interpreter's
            result = run_cuda(program, budget, None, {"device": "sim", "max_launch": 2, "block_size": 2,
                                                      "host": host})
            assert outcome(result) == outcome(reference), (budget, host)
    assert compare_with_interpreter  # some budgets fault inside a work-item
