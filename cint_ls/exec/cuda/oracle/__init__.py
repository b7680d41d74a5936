"""gpu-cuda's host written in Python: the tests' oracle against the C host, and nothing
else. No option, setting or fallback runs a user's program here: gpu-cuda's one host is
the C one (../c_host.py, ../rt/), and without a C compiler gpu-cuda does not run.

It is kept because it is a second, independent writing of the host protocol
(SPEC-02P.1 10.5 paragraphs 4 to 9, 10.6) over the same PTX and the same devices: the
interpreter's machine runs the sequential code, the shared dispatch protocol
(exec/dispatch.py) numbers and checks each dispatch, and `CudaRunner` (machine.py) runs
the work-item phase one module for each part (placement.py, params.py, launches.py,
fault_replay.py). Tests run programs on both hosts and ask for the same outcome
(tests/cuda/test_cuda_block_reduce.py, test_cuda_fault_too_late.py, test_c_host*.py),
drive single dispatches through it (tests/cuda/cuda_support.py), and on a real GPU run
it through cuda-python (driver.py, the `cuda` extra; tests/gpu). benchmarks/heat_gpu.py
launches the heat kernel alone through driver.py, placement.py and launches.py.

    run(program, fuel=None, write: Write | None = None, options=None, *, device=None) -> RunResult

`options` as gpu-cuda's (CudaOptions) but `null`, which only the C host has.
"""

from __future__ import annotations

from ....ir import nodes as ir
from ...executors import ExecutorUnavailable, Options, Write
from ...runtime import GPU_DEVICE, SIMULATED, RunResult
from ...stages import RUNNING, reached
from .. import EXECUTOR, CudaOptions, compile_program
from ..device import Device, DeviceUnavailable
from ..notes import run_notes
from ..simulator import SimulatedDevice
from ..status import HostStatus
from .machine import CudaMachine


def open_device(options: CudaOptions) -> tuple[Device, str | None]:
    """The device to run on, and why it is the simulated one when the real one was
    wanted but could not be opened (None otherwise)."""
    if options.device == "sim":
        return SimulatedDevice(options.order, options.seed), None
    from .driver import CudaDevice

    try:
        return CudaDevice(), None
    except DeviceUnavailable as error:
        if options.device == "cuda":
            raise ExecutorUnavailable(f"gpu-cuda: {error} (the simulated device needs none: --device sim)") from None
        return SimulatedDevice(options.order, options.seed), str(error)


def run(program: ir.Program, fuel: int | None = None, write: Write | None = None, options: Options | None = None,
        *, device: Device | None = None) -> RunResult:
    """Run the program's entry on the oracle. `device` overrides the `device` option."""
    opts = CudaOptions.from_dict(options)
    if opts.device == "null":
        raise ExecutorUnavailable("gpu-cuda: the null device is the C host's")
    ptx = compile_program(program, opts.param_space)
    fallback = None
    if device is None:
        device, fallback = open_device(opts)
    try:
        machine = CudaMachine(program, fuel, write, device, ptx, trace=opts.trace, block_size=opts.block_size,
                              max_launch=opts.max_launch)
    except ValueError as error:  # a block size the device does not take
        device.close()
        raise ExecutorUnavailable(f"gpu-cuda: {error} on {device.description}") from None
    if opts.report:
        machine.dispatcher.log = []
    reached(RUNNING)  # PTX emitted, device open: the time limit of an isolated run counts from here
    try:
        result = machine.run()
    except HostStatus as status:
        result = machine.result(status.record(machine.fuel.consumed))
    finally:
        device.close()
    result.executor = EXECUTOR
    result.dispatch_log = machine.dispatcher.log
    stats = machine.runner.stats  # type: ignore[attr-defined]
    result.device, result.device_kind = device.description, SIMULATED if device.simulated else GPU_DEVICE
    result.notes += run_notes(device.description, fallback, opts.block_size, stats.dispatches, stats.launches,
                              stats.skipped, [(q, used, limit) for q, (used, limit) in stats.clamped.items()],
                              stats.descriptions)
    return result


__all__ = ["CudaMachine", "open_device", "run"]
