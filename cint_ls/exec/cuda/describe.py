"""Describing the canonical fault: work-item k runs again, alone, on the host
(SPEC-02P.1 10.6 para 9), with the inputs from before the dispatch, the uniform
arguments, the partial result of each fold_checked before k and the fuel consumed
before k. Its first fault is the canonical fault, with its position, operands and step
ordinal; no fault means the device and the host disagree (host.divergence).

This is the one place that knows how the re-run is done. SPEC-02P.1 asks for the
cpu-c17 code of the same kernel. When the cpu-c17 package offers a work-item entry
point with this function's signature,

    cint_ls.exec.c17.describe_work_item(program, plan, k, folds, consumed)
        -> (CintFault with its address and step, or None; fuel consumed after the run)

the re-run uses it; until then (and on a machine without a C compiler) it runs the
reference interpreter's compiled body of the kernel, which calls the same arithmetic
routines as the C (10.4 para 2) and so gives the same record.
"""

from __future__ import annotations

from ..dispatch import DispatchPlan, work_item_address
from ..executors import ExecutorUnavailable
from ..interp.compiler import ArrayBinding
from ..interp.machine import InterpRunner, Machine
from ..runtime import CintFault, Fuel


class _Replay(InterpRunner):
    """An interpreter runner for one work-item, with its folds already advanced."""

    def replay(self, plan: DispatchPlan, k: int, folds: dict, fuel: Fuel) -> CintFault | None:
        m, kernel = self.m, plan.kernel
        body = m.body(kernel)
        frame: list = [None] * kernel.slot_count
        for slot, value in zip(kernel.size_slots, plan.sizes):
            frame[slot] = value
        for param, read, write, scalar in zip(kernel.params, plan.reads, plan.writes, plan.scalars):
            frame[param.slot] = ArrayBinding(read, write) if read is not None else scalar
        rest = k
        for (_, slot, _), extent in zip(reversed(kernel.over), reversed(plan.space)):
            rest, frame[slot] = divmod(rest, extent)
        self.lists = {r.param: [] for r in kernel.reductions}
        self.folds = dict(folds)
        self.work_item = k
        saved = (m.fuel, m.step, m.runner)
        m.fuel, m.step, m.runner = fuel, 0, self
        try:
            body(frame)
        except CintFault as error:
            error.address = work_item_address(kernel, plan.number, k, error.step)
            return error
        finally:
            m.fuel, m.step, m.runner = saved
        return None


def _c17_describer():
    try:
        from ..c17 import describe_work_item as c17  # type: ignore[attr-defined]
    except ImportError:
        return None
    return c17


def describe_work_item(machine: Machine, plan: DispatchPlan, k: int, folds: dict, consumed: int
                       ) -> tuple[CintFault | None, int]:
    """Run work-item `k` of `plan` again. `folds` maps the parameter of each fold_checked
    reduction to its accumulator holding the partial result before k; `consumed` is the
    entry's fuel consumed before k. Returns the first fault of the run (None when it
    completes) and the fuel consumed after it (the charges of k before its fault). The
    re-run charges nothing to the entry itself (8.4 para 7): it starts from `consumed`."""
    c17 = _c17_describer()
    if c17 is not None:
        try:
            return c17(machine.program, plan, k, folds, consumed)
        except ExecutorUnavailable:
            pass  # no C compiler here: the interpreter describes the same fault
    fuel = Fuel(plan.fuel.budget)
    fuel.consumed = consumed
    fault = _Replay(machine).replay(plan, k, folds, fuel)
    return fault, fuel.consumed
