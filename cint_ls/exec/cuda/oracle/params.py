"""The parameter table of a dispatch: the value of every `.u64` parameter of the
kernel's entry, by kind (`ptx.Param`; README.md "The device code"), from the plan and
the placement; only `first`, `end` and each watched fold's accumulator (`fold`) change
from one launch to the next.

When the parameters do not fit the entry's parameter space (`KernelCode.block`), the
entry takes `first`, `end` and `args`, the address of an argument block in device
memory holding the others, in the same order.
"""

from __future__ import annotations

from ....analysis.types import U64
from ...dispatch import DispatchPlan
from ...runtime import Fuel
from ..device import Device
from ..ptx import M64, KernelCode, Param, ParamKey, canonical
from .placement import Placement, pack


def allowance(fuel: Fuel) -> int:
    """F, the fuel left after the dispatch charge (10.5 para 6); all ones: no budget."""
    return M64 if fuel.budget is None else fuel.budget - fuel.consumed


class ParameterTable:
    def __init__(self, values: dict[ParamKey, int], entry: list[Param]) -> None:
        self.values = values  # (kind, *index) -> value
        self.entry = entry  # the entry's parameters, in order

    def launch(self, first: int, end: int) -> list[int]:
        """The entry's parameters for a launch over the work-items [first, end)."""
        self.values[("first",)], self.values[("end",)] = first, end
        return [self.values[(p.kind, *p.index)] for p in self.entry]

    def set_folds(self, device: Device, code: KernelCode, folds: dict[int, int]) -> None:
        """Each watched fold_checked's accumulator before the next launch (`fold` r,
        ptx.KernelEmitter.watched); in the argument block too when there is one."""
        wanted = {p.index[0] for p in code.params if p.kind == "fold"}
        if not wanted:
            return
        for r in wanted:
            self.values[("fold", r)] = folds[r]
        if code.block:
            device.upload(self.values[("args",)],
                          pack(U64, [self.values[(p.kind, *p.index)] for p in code.params[2:]]))

    def set_slots(self, device: Device, code: KernelCode, address: int) -> None:
        """The address of the block slots (allocated once the block size is known); in
        the argument block too when there is one."""
        self.values[("slots",)] = address
        if code.block:
            device.upload(self.values[("args",)],
                          pack(U64, [self.values[(p.kind, *p.index)] for p in code.params[2:]]))


def parameter_table(code: KernelCode, plan: DispatchPlan, placement: Placement) -> ParameterTable:
    kernel = plan.kernel
    values: dict[ParamKey, int] = {("fault",): placement.fault_word, ("fuel_left",): allowance(plan.fuel),
                                ("fuel",): placement.fuel, ("slots",): 0}
    for s, size in enumerate(plan.sizes):
        values[("size", s)] = size
    for d, extent in enumerate(plan.space):
        values[("over", d)] = extent
    for p, param in enumerate(kernel.params):
        if param.extents is None:
            if param.mode == "in":
                value = plan.scalars[p]
                assert value is not None, "a scalar in parameter is given a value"
                values[("scalar", p)] = canonical(param.type, value)
            continue
        read, write = plan.reads[p], plan.writes[p]
        assert read is not None, "an array parameter is read"
        for d, extent in enumerate(read.extents):
            values[("extent", p, d)] = extent
            values[("stride", p, d)] = read.strides[d] & M64
        if read.storage.id in placement.inputs:
            address, lo = placement.inputs[read.storage.id]
            values[("read", p)] = address
            values[("origin", p)] = read.origin - lo
        else:
            values[("read", p)] = values[("origin", p)] = 0
        if write is not None:
            values[("write", p)] = placement.staged.get(p, 0)
            for d, stride in enumerate(write.strides):
                values[("wstride", p, d)] = stride & M64
    for r, reduction in enumerate(kernel.reductions):
        values[("contrib", r)] = placement.contrib[r]
        values[("mark", r)] = placement.marks[r]
        if reduction.kind == "fold_checked":
            values[("fold", r)] = canonical(reduction.target, reduction.init)

    if not code.block:
        return ParameterTable(values, code.params)
    # The parameters that do not change between launches, in device memory.
    values[("args",)] = placement.upload(pack(U64, [values[(p.kind, *p.index)] for p in code.params[2:]]))
    return ParameterTable(values, code.params[:2] + [Param("p_args", "args")])
