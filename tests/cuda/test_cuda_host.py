"""The host protocol, piece by piece (SPEC-02P.1 10.5 paras 4 to 9, 10.6): the fault
word's minimum, launches split and skipped, fuel by exact prefix sums, fold_checked by
its exact prefix, the re-run that describes the fault, host.divergence and
host.resource, check 8."""

from __future__ import annotations

import pytest
from conftest import CONFORMANCE
from cuda_support import both, outcome, program_of

from cint_ls.exec.cuda import run as run_cuda
from cint_ls.exec.cuda.device import DeviceError
from cint_ls.exec.cuda.simulator import SimulatedDevice
from cint_ls.exec.interp import run_program


def conformance(name: str) -> str:
    return (CONFORMANCE / name).read_text()


def run_on(device, text: str, fuel=None, **options):
    program = program_of(text)
    reference = run_program(program, fuel)
    result = run_cuda(program, fuel, None, options, device=device)
    return reference, result


# ---- the fault word: the least faulting work-item, whatever the order


FAULTS = """kernel f[n](in I64[n] a, out I64[n] b) over [i: n] {
    b[i] = div_round(100, a[i], floor);
}
void go() {
    I64[200] a;
    for i in 0..200 { a[i] = 1; }
    a[150] = 0; a[37] = 0; a[199] = 0; a[38] = 0;
    I64[200] b;
    f(a, b);
}
go();
"""


@pytest.mark.parametrize("order", ["ascending", "descending", "shuffled"])
@pytest.mark.parametrize("block", [1, 32, 256])
def test_fault_word_keeps_the_least_index(order, block):
    device = SimulatedDevice(order, seed=5)
    reference, result = run_on(device, FAULTS, block_size=block)
    assert outcome(result) == outcome(reference)
    assert result.fault.address.work_item == 37


def test_a_work_item_above_the_word_exits_early():
    """In descending order the high faults come first; every later work-item above the
    word exits at once, and the canonical fault is still the least."""
    device = SimulatedDevice("ascending")
    _, result = run_on(device, FAULTS, block_size=256)
    assert result.fault.address.work_item == 37


# ---- launches: split over ascending ranges, and none above a recorded fault


def test_launches_split_under_one_dispatch_number():
    text = conformance("heat_spot.ci")  # 4 dispatches of 64 work-items
    device = SimulatedDevice()
    reference, result = run_on(device, text, max_launch=8, block_size=32)
    assert outcome(result) == outcome(reference)
    assert device.launches == 4 * 8
    assert "32 launches for 4 dispatches" in result.notes[1]


def test_launch_not_a_multiple_of_the_block():
    text = conformance("heat_tour.ci")  # 16 x 16 = 256 work-items per dispatch
    device = SimulatedDevice("shuffled", seed=2)
    reference, result = run_on(device, text, max_launch=100, block_size=32)
    assert outcome(result) == outcome(reference)
    assert device.launches == 40 * 3


def test_launches_above_a_fault_are_not_started():
    text = conformance("heat_e1.ci")  # work-item 20 faults, of 64
    device = SimulatedDevice()
    reference, result = run_on(device, text, max_launch=8, block_size=32)
    assert outcome(result) == outcome(reference)
    assert device.launches == 3  # [0, 8), [8, 16), [16, 24): the fault is in the third
    assert "5 launches above a fault not started" in result.notes[1]


# ---- fuel: each work-item's total charge, the host's exact prefix sum


VARIABLE_LOOPS = """kernel spin[n](in I64[n] a, out I64[n] r) over [i: n] {
    I64 acc = 0;
    for j in 0..a[i] {
        I64 k = 0;
        while (k < j - (div_round(j, 3, trunc)) * 3) { k = k + 1; }
        acc = acc + j;
    }
    r[i] = acc;
}
void go() {
    I64[12] a = [3, 0, 5, 1, 0, 7, 2, 2, 4, 0, 6, 1];
    I64[12] r;
    spin(a, r);
    "{r[0]} {r[11]}\\n";
}
go();
"""


def test_fuel_boundaries_match_the_reference_everywhere():
    """Every budget from 0 to past the total: the same fault (the work-item and step of
    the first charge over the budget, or the dispatch's entry check) and the same fuel,
    with launches of 4 work-items so the prefix crosses launches."""
    program = program_of(VARIABLE_LOOPS)
    total = run_program(program, None).fuel_consumed
    assert total > 40
    for budget in range(0, total + 2):
        reference = run_program(program, budget)
        for order in ("ascending", "descending"):
            result = run_cuda(program, budget, None, {"device": "sim", "max_launch": 4, "block_size": 2,
                                                      "order": order})
            assert outcome(result) == outcome(reference), budget


def test_fuel_of_a_finished_dispatch_is_n_plus_every_charge():
    reference, result = both(VARIABLE_LOOPS)
    assert result.fault is None and outcome(result) == outcome(reference)


def test_budget_fuel_example():
    args = (CONFORMANCE / "budget_fuel.args").read_text().split()
    reference, result = both(conformance("budget_fuel.ci"), int(args[1]), max_launch=64)
    assert outcome(result) == outcome(reference)
    assert result.fault.code == "E_FUEL" and result.fault.address.work_item == 500


# ---- fold_checked: the first overflow from the exact prefix; ties by step ordinal


FOLD = """kernel total[n](in I32[n] x, out I32[n] y, out I32 s) over [i: n] {
    reduce s = fold_checked(add, 5, x[i]);
    y[i] = div_round(x[i], x[i] - 7, floor);
}
void go(I32 big, I64 at) {
    I32[40] x;
    for i in 0..40 { x[i] = 1; }
    x[at] = big;
    I32[40] y;
    I32 s = 0;
    total(x, y, s);
    "{s}\\n";
}
"""


@pytest.mark.parametrize("call,where", [
    ("go(2147483620, 20);", ("fold_checked.add.i32", 23)),  # the fold's overflow, in a later launch
    ("go(7, 3);", ("div_round.checked.i32.floor", 3)),  # the division by zero at work-item 3
    ("go(2147483647, 0);", ("fold_checked.add.i32", 0)),  # 5 + MAX, at the first contribution
    ("go(1, 0);", None),  # no fault
])
def test_fold_checked_prefix(call, where):
    for max_launch in (3, 1000):
        reference, result = both(FOLD + call, max_launch=max_launch, block_size=2)
        assert outcome(result) == outcome(reference), (call, max_launch)
        if where is None:
            assert result.fault is None
        else:
            assert (result.fault.operation, result.fault.address.work_item) == where


@pytest.mark.parametrize("name", ["tie_a.ci", "tie_b.ci", "heat_fold32.ci", "mix.ci", "mix1.ci"])
def test_ties_decided_by_the_re_run(name):
    reference, result = both(conformance(name), order="descending")
    assert outcome(result) == outcome(reference)


def test_sum_sat_is_the_left_fold():
    reference, result = both(conformance("sat.ci"), order="shuffled", seed=9, block_size=1)
    assert outcome(result) == outcome(reference) and result.output == "7\n120\n"


# ---- the re-run: inputs from before the dispatch; divergence


INOUT = """kernel bump[n](inout I64[n] t) over [i: n] {
    t[i] = t[i] + 1;
    t[i] = t[i] * 4611686018427387904;
}
void go() {
    I64[3] t = [0, 1, 2];
    bump(t);
    "{t[0]}\\n";
}
go();
"""


def test_re_run_reads_the_inputs_from_before_the_dispatch():
    reference, result = both(INOUT)
    assert outcome(result) == outcome(reference)
    # Work-item 2 overflows: its second statement reads t[2] from before the dispatch
    # (2), not the 3 its first statement staged.
    assert result.fault.address.work_item == 2 and result.fault.operands[0][1] == 2


class LyingDevice(SimulatedDevice):
    """A defective device: after every launch it lowers the fault word to `k`."""

    def __init__(self, k: int) -> None:
        super().__init__()
        self.k = k

    def launch(self, function, grid, block, params):
        super().launch(function, grid, block, params)
        word = params[function.params.index("p_fault")]
        self.upload(word, self.k.to_bytes(8, "little"))


def test_divergence_when_the_re_run_completes():
    text = conformance("heat_spot.ci")
    reference, result = run_on(LyingDevice(3), text)
    assert result.fault is not None and result.fault.code == "CINT_RESOURCE"
    assert result.fault.operation == "host.divergence"
    assert result.fault.address.kernel == "t.diffuse" and result.fault.address.dispatch == 0
    assert any("work-item 3" in d for d in result.fault.details)
    assert result.output == ""  # the entry ended at the first dispatch


# ---- a driver error: host.resource


def test_driver_error_ends_the_entry_with_host_resource():
    text = conformance("heat_spot.ci")
    reference, result = run_on(SimulatedDevice(fail_launch=1), text)
    assert result.fault.code == "CINT_RESOURCE" and result.fault.operation == "host.resource"
    assert "LAUNCH_TIMEOUT" in result.fault.details[0]
    assert result.fault.address.dispatch == 1
    assert result.output == reference.output.splitlines(keepends=True)[0]  # dispatch 0 published
    assert result.exit_code == 1


def test_allocation_failure_is_host_resource():
    reference, result = run_on(SimulatedDevice(memory_limit=256), conformance("heat_tour.ci"))
    assert result.fault.operation == "host.resource" and "OUT_OF_MEMORY" in result.fault.details[0]


def test_device_memory_is_given_back():
    device = SimulatedDevice()
    run_on(device, conformance("heat_tour.ci"))
    assert device.memory.in_use == 0
    device = SimulatedDevice()
    run_on(device, conformance("heat_e1.ci"))
    assert device.memory.in_use == 0


# ---- check 8: the executor's limits


def test_more_than_max_i64_work_items_is_refused_at_check_8():
    text = """kernel k[n](in I64[n] a, out I64 s) over [i: n, j: n, l: n] { reduce s = sum(a[i]); }
void go() { I64[2097153] a; I64 s = 0; k(a, s); }
go();
"""
    program = program_of(text)
    result = run_cuda(program, None, None, {"device": "sim"})
    fault = result.fault
    assert (fault.code, fault.operation, fault.address.phase) == ("E_UNSUPPORTED", "bind.limit", 0)
    assert result.fuel_consumed == 1  # the call of go; the dispatch is not charged (check 9 follows 8)


def test_empty_dispatch_launches_nothing():
    text = """kernel k[n](in I64[n] a, out I64 s) over [i: n] { reduce s = sum(a[i]); }
void go() { I64[0] a; I64 s = 7; k(a, s); "{s}\\n"; }
go();
"""
    device = SimulatedDevice()
    reference, result = run_on(device, text)
    assert outcome(result) == outcome(reference) and result.output == "0\n"
    assert device.launches == 0


def test_device_error_type_is_one_line():
    error = DeviceError("CUDA_ERROR_LAUNCH_TIMEOUT: the launch timed out")
    assert "\n" not in str(error)


# ---- parameters beyond the entry's parameter space: the argument block


@pytest.mark.parametrize("name", ["heat_e1.ci", "heat_tour.ci", "budget.ci", "tie_a.ci"])
def test_argument_block(name):
    reference, result = both(conformance(name), param_space=0, max_launch=50, block_size=32)
    assert outcome(result) == outcome(reference)
