"""The host protocol of gpu-cuda (SPEC-02P.1 10.5 paragraphs 4 to 9, 10.6), written in
Python: the tests' oracle against the C host (oracle/__init__.py says why it is kept).

The host runs the program's sequential code: here the reference interpreter's machine,
whose dispatches go through the shared protocol (`exec/dispatch.py`: the numbering, the
entry checks of Table 1, the epilogue, publication and the dispatch frame, written once
for every executor). gpu-cuda supplies the
`WorkItemRunner`, `CudaRunner`, which runs the work-item phase on a device, one module
for each part:

1. the PTX module of the program is loaded at the first dispatch of one of its kernels;
2. the inputs are placed in device memory (each storage's bounding interval of the
   views read, in its own layout), and each output is staged in device memory, starting
   as a copy of the output (copy-in of an inout) [B-16d] (`placement.py`);
3. the fault word, a U64 in device memory, is set to all ones [F-9] (`placement.py`),
   and the entry's parameters are filled by kind (`params.py`);
4. the work-items run in launches over ascending ranges of at most `max_launch`
   indices, one after another, under the dispatch's one number; after each launch the
   host reads the fault word k_b and, for the work-items of the launch below it, their
   fuel totals C(i) and their reduction contributions and marks, and it scans them in
   ascending order: the exact prefix sum of the C(i) finds k_f, the first work-item
   whose charges take the entry past its budget [B-16c], and the fold of each
   fold_checked, by the reduction's own routine, finds k_r, its first overflow
   [R-9, BACK-08]. A launch wholly above a fault already found is not started [B-16a]
   (`launches.py`);
5. k is the least of k_b, k_f and k_r. If it exists, work-item k runs again on the
   host in the cpu-c17 code of the kernel (`fault_replay.py`), and its first fault, with
   the fuel consumed before it, is the dispatch's fault; if that run completes, the
   entry ends with host.divergence [F-11]. Otherwise the staging comes back to the
   host, the fuel consumed becomes the entry's total, and `run_dispatch` completes the
   reductions (sum exact, sum_sat as the left fold, ...) and publishes by copy-out;
6. a driver error anywhere ends the entry with CINT_RESOURCE and host.resource [B-16e].

A host status is reported at the dispatch: its kernel, number and position.
"""

from __future__ import annotations

from ....ir import nodes as ir
from ...arith import OperationFault
from ...dispatch import DispatchPlan, WorkItemRunner, WorkPhase
from ...executors import Write
from ...interp.machine import Machine
from ...stages import DESCRIBING, RUNNING, reached
from ..device import DEFAULT_BLOCK, DEFAULT_MAX_LAUNCH, Device, DeviceError, Module
from ..ptx import PtxModule
from ..status import HOST_RESOURCE, HostStatus
from .fault_replay import describe_canonical, divergence
from .launches import Scan, Stats, run_launches
from .params import parameter_table
from .placement import Placement, pack, registers, unpack


class CudaRunner(WorkItemRunner):
    """The WorkItemRunner of gpu-cuda (see the module's docstring)."""

    def __init__(self, machine: Machine, device: Device, ptx: PtxModule, *, block_size: int = DEFAULT_BLOCK,
                 max_launch: int = DEFAULT_MAX_LAUNCH) -> None:
        if not 1 <= block_size <= device.max_block:
            raise ValueError(f"a block size of {block_size} work-items is outside 1..{device.max_block}")
        self.m = machine
        self.device = device
        self.ptx = ptx
        self.block = block_size
        if max_launch < 1:
            raise ValueError("a launch holds at least one work-item")
        self.max_launch = min(max_launch, device.max_grid * block_size)  # work-items per launch
        self.module: Module | None = None  # loaded at the first dispatch
        self.stats = Stats()

    # ---- check 8: the executor's limits

    def limits(self, kernel: ir.Kernel, space: list[int]) -> OperationFault | None:
        """Work-items per dispatch: up to MAX(I64) (Table 3), every executor's limit, which
        the shared protocol checks first (exec/dispatch.py, MAX_WORK_ITEMS); a dispatch
        of more launches as many times as it takes (`max_launch`): no limit of its own."""
        return None

    def counters(self) -> dict[str, int]:
        """The report's count per dispatch: launches (exec/dispatch.py, Dispatcher.log)."""
        return {"launches": self.stats.launches}

    # ---- the work-item phase

    def run(self, plan: DispatchPlan) -> WorkPhase:
        self.stats.dispatches += 1
        if plan.count == 0:
            return WorkPhase(None, [[] for _ in plan.kernel.reductions])
        placement = Placement(self.device)
        try:
            return self._run(plan, placement)
        except DeviceError as error:  # [B-16e]
            status = HostStatus(HOST_RESOURCE, [str(error), f"on {self.device.description}"])
            status.locate(plan.kernel.qualified, plan.number, plan.span)
            raise status from None
        except HostStatus as status:
            status.locate(plan.kernel.qualified, plan.number, plan.span)
            raise
        finally:
            placement.free()

    def _run(self, plan: DispatchPlan, placement: Placement) -> WorkPhase:
        device, kernel = self.device, plan.kernel
        if self.module is None:
            self.module = device.load(self.ptx.text)
        code = self.ptx.kernels[kernel.name]
        function = self.module.function(code.entry)
        placement.place(plan)
        launch = min(self.max_launch, plan.count)
        placement.scratch(launch, code.charges, len(kernel.reductions))
        table = parameter_table(code, plan, placement)
        # Never more threads per block than the entry runs (CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK).
        block = min(self.block, getattr(function, "max_threads", 0) or self.block)
        if block != self.block:
            self.stats.clamped[kernel.qualified] = (block, function.max_threads)
        scan = run_launches(device, function, code, plan, placement, table, block, launch, self.stats)
        if scan.k is not None:
            return self._describe(plan, scan)
        plan.fuel.consumed = scan.total
        placement.fetch_outputs(plan)  # the staging comes back; run_dispatch publishes
        return WorkPhase(None, scan.contributions)

    def _describe(self, plan: DispatchPlan, scan: Scan) -> WorkPhase:
        """The canonical fault, from the re-run of work-item k (10.6 paras 9 to 11)."""
        k = scan.k
        assert k is not None, "a dispatch is described only where its launches found a fault"
        self.stats.described.append(k)
        reached(DESCRIBING)  # may compile the cpu-c17 code of the kernel: not the run's time
        description = describe_canonical(self.m, plan, scan)
        reached(RUNNING)
        self.stats.descriptions.append((plan.number, k, description.note))
        if description.fault is None:
            raise divergence(scan, description, self.device.description)
        plan.fuel.consumed = description.consumed
        return WorkPhase(description.fault, scan.contributions)


class CudaMachine(Machine):
    """The host: the interpreter's machine, whose dispatches go through the shared
    protocol, with gpu-cuda's runner."""

    def __init__(self, program: ir.Program, fuel: int | None, write: Write | None, device: Device, ptx: PtxModule,
                 trace: bool = False, **runner: int) -> None:
        super().__init__(program, fuel, write, trace)
        self.runner = CudaRunner(self, device, ptx, **runner)


__all__ = ["CudaMachine", "CudaRunner", "Stats", "pack", "registers", "unpack"]
