"""The fault replay: the canonical fault is described by running work-item k again,
alone, on the host (SPEC-02P.1 10.6 para 9), with the inputs from before the dispatch,
the uniform arguments, the partial result of each fold_checked before k and the fuel
consumed before k. Its first fault is the canonical fault, with its position, operands
and step ordinal; no fault means the device and the host disagree (host.divergence,
10.6 para 11).

This is the one place that knows how the re-run is done. SPEC-02P.1 asks for the
cpu-c17 code of the same kernel, and that is what runs:

    cint_ls.exec.c17.describe_work_item(program, plan, k, folds, consumed, depth)
        -> (CintFault with its address and step, or None; fuel consumed after the run)

(the program's C, compiled and cached as cpu-c17 compiles it; the kernel's `describe`
function; the record built in C and read with FaultRecord.from_json). Only where there
is no C compiler (or cpu-c17 cannot translate the program, beyond its limits) does the
reference interpreter's compiled body of the kernel run instead: it calls the same
arithmetic routines as the C (10.4 para 2) and so gives the same record. Either way the
result says which described the fault (`Description.by`, a note of the RunResult).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...arith import FoldChecked
from ...dispatch import DispatchPlan, work_item_address
from ...interp.machine import InterpRunner, Machine
from ...runtime import CintFault, Fuel
from ..status import HOST_DIVERGENCE, HostStatus

if TYPE_CHECKING:
    from .launches import Scan


class _Replay(InterpRunner):
    """An interpreter runner for one work-item, with its folds already advanced."""

    def replay(self, plan: DispatchPlan, k: int, folds: dict[int, FoldChecked], fuel: Fuel) -> CintFault | None:
        m, kernel = self.m, plan.kernel
        body = m.body(kernel)
        frame = self.frame_template(plan)
        self.place(frame, [slot for _, slot, _ in kernel.over], plan.space, k)
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


CPU_C17 = "cpu-c17"
INTERPRETER = "the interpreter"


@dataclass
class Description:
    """The outcome of the re-run: its first fault (None: it completed), the fuel
    consumed after it, and what ran it (`cpu-c17`, or `the interpreter` with why)."""

    fault: CintFault | None
    consumed: int
    by: str
    why: str | None = None  # why not cpu-c17

    @property
    def note(self) -> str:
        return f"{self.by}{f' ({self.why})' if self.why else ''}"


def describe_work_item(machine: Machine, plan: DispatchPlan, k: int, folds: dict[int, FoldChecked], consumed: int) -> Description:
    """Run work-item `k` of `plan` again. `folds` maps the parameter of each fold_checked
    reduction to its accumulator holding the partial result before k; `consumed` is the
    entry's fuel consumed before k. Returns the first fault of the run (None when it
    completes) and the fuel consumed after it (the charges of k before its fault). The
    re-run charges nothing to the entry itself (8.4 para 7): it starts from `consumed`.

    cpu-c17 runs it; a missing C compiler (or a program beyond cpu-c17's limits) is
    the one reason for the interpreter to. Any other error of cpu-c17 (a defect)
    propagates."""
    from ...c17.build import NoCompiler
    from ...c17.describe import describe_work_item as c17
    from ...c17.library import Untranslatable

    try:
        fault, after = c17(machine.program, plan, k, folds, consumed, machine.depth)
        return Description(fault, after, CPU_C17)
    except (NoCompiler, Untranslatable) as error:
        why = str(error)
    fault, after = interpreter_describe(machine, plan, k, folds, consumed)
    return Description(fault, after, INTERPRETER, why)


def interpreter_describe(machine: Machine, plan: DispatchPlan, k: int, folds: dict[int, FoldChecked], consumed: int
                         ) -> tuple[CintFault | None, int]:
    """The interpreter's re-run alone (the fallback; tests compare it with cpu-c17's)."""
    fuel = Fuel(plan.fuel.budget)
    fuel.consumed = consumed
    fault = _Replay(machine).replay(plan, k, folds, fuel)
    return fault, fuel.consumed


def describe_canonical(machine: Machine, plan: DispatchPlan, scan: Scan) -> Description:
    """Work-item k, the least of k_b, k_f and k_r [F-11], run again from the partial of
    each fold_checked before it and the fuel consumed before it (10.6 para 9)."""
    partials = {plan.kernel.reductions[r].param: fold for r, fold in scan.folds.items()}
    return describe_work_item(machine, plan, scan.k, partials, scan.total)  # type: ignore[arg-type]


def divergence(scan: Scan, description: Description, device: str) -> HostStatus:
    """The re-run of work-item k completed: the device and the host disagree, and the
    entry ends with host.divergence, both observations beside it (10.6 para 11)."""
    k = scan.k
    seen = ", ".join(f"{name} = {value}" for name, value in (("k_b", scan.k_b), ("k_f", scan.k_f), ("k_r", scan.k_r))
                     if value is not None)
    return HostStatus(HOST_DIVERGENCE, [
        f"the device reported a fault of work-item {k} ({seen})",
        f"work-item {k} run again on the host ({description.note}) completes without a fault",
        f"on {device}",
    ])
