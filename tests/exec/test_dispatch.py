"""The dispatch protocol's share of every dispatch, cint_ls.exec.dispatch (SPEC-02P.1
clause 5, 5.6): numbering [F-1], the dispatch frame [F-8], the sizes bound once and
handed to the executor's check 8; an executor supplies only its WorkItemRunner."""

from __future__ import annotations

from cint_ls.analysis.types import I64
from cint_ls.exec.arith import OperationFault
from cint_ls.exec.dispatch import WorkItemRunner, WorkPhase
from cint_ls.exec.faults import PHASE_ENTRY, PHASE_WORK_ITEM
from cint_ls.exec.interp.machine import InterpRunner, Machine
from cint_ls.ir.build import build

PROGRAM = """kernel twice[n, m](in I64[n, m] a, out I64[n, m] b) over [i: n, j: m] {
    b[i, j] = a[i, j] * 2;
}
void go(I64 big) {
    I64[2, 3] a;
    a[1, 2] = big;
    I64[2, 3] b;
    twice(a, b);
    twice(b, a);
    "{a[1, 2]}\\n";
}
go(1);
go(2305843009213693952);
"""


def machine(runner=None) -> Machine:
    built = build(PROGRAM, "t.ci")
    assert built.program is not None
    m = Machine(built.program, None, None)
    if runner is not None:
        m.runner = runner(m)
    return m


class Recording(InterpRunner):
    """The interpreter's runner, recording what the protocol hands it."""

    def __init__(self, m) -> None:
        super().__init__(m)
        self.numbers: list[int] = []
        self.limited: list[tuple[str, list[int]]] = []

    def limits(self, kernel, space):
        self.limited.append((kernel.name, list(space)))
        return None

    def run(self, plan):
        self.numbers.append(plan.number)
        assert plan.sizes == [2, 3] and plan.space == [2, 3] and plan.count == 6
        return super().run(plan)


def test_every_dispatch_takes_the_next_number_and_check_8_gets_the_bound_extents():
    m = machine(Recording)
    result = m.run()
    assert result.output == "4\n"
    fault = result.fault
    # the second dispatch of go's second call is the entry's fourth [F-1]; its work-item
    # 5 overflows
    assert (fault.code, fault.address.dispatch, fault.address.phase, fault.address.work_item) == (
        "E_OVERFLOW", 3, PHASE_WORK_ITEM, 5)
    assert m.runner.numbers == [0, 1, 2, 3] and m.dispatches == result.dispatches == 4
    assert m.runner.limited == [("twice", [2, 3])] * 4
    # the stack of a work-item fault has the dispatch as innermost entry, then the caller [F-8]
    assert [frame.function for frame in fault.stack] == ["t.twice", "t.go"]


class Refusing(InterpRunner):
    def limits(self, kernel, space):
        return OperationFault("E_UNSUPPORTED", "bind.limit", [(I64, 0)], None, None)


def test_a_refusal_at_check_8_is_an_entry_fault_that_takes_a_number():
    m = machine(Refusing)
    result = m.run()
    fault = result.fault
    assert (fault.code, fault.operation, fault.address.dispatch, fault.address.phase) == (
        "E_UNSUPPORTED", "bind.limit", 0, PHASE_ENTRY)
    assert result.dispatches == 1
    # an entry-phase fault has the stack of the code that issued the dispatch [F-8]
    assert [frame.function for frame in fault.stack] == ["t.go"]
    assert result.fuel_consumed == 1  # the call of go; check 9 (the dispatch charge) follows check 8


def test_the_default_runner_has_no_limits():
    assert WorkItemRunner().limits(None, [1 << 70]) is None  # type: ignore[arg-type]


class Idle(WorkItemRunner):
    """A runner whose work-items write nothing: no fault, no contributions."""

    def __init__(self, m) -> None:
        self.m = m

    def run(self, plan):
        return WorkPhase(None, [[] for _ in plan.kernel.reductions])


def test_an_executor_supplies_only_the_runner():
    result = machine(Idle).run()  # the staging starts as a copy of each output (7.3): a is unchanged
    assert result.output == "1\n2305843009213693952\n" and result.fault is None and result.dispatches == 4
