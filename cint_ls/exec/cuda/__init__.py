"""gpu-cuda: the work-item phase of each dispatch on an NVIDIA GPU through the CUDA
driver API, or on the simulated device that executes the same PTX (SPEC-02P.1 10.5,
10.6; README.md beside this file).

    run(program, fuel, write, options) -> RunResult

Options (all optional; JSON values, so an isolated run can pass them):

- `device`: "auto" (default: the CUDA driver when there is one, else the simulated
  device, and the result's notes say so), "cuda" (the driver, or a one-line
  `ExecutorUnavailable`) or "sim" (the simulated device);
- `block_size`: work-items per block, 256 unless chosen (the suite also runs 32);
- `order`, `seed`: the simulated device's schedule: "ascending", "descending" or
  "shuffled" (by `seed`), each thread to completion; "interleaved" (by `seed`) or
  "adversarial", the threads of a launch interleaved at every global access;
- `max_launch`: work-items per launch (a dispatch larger than this is split);
- `trace`: record the boundaries of a comparison (`RunResult.trace`, running/compare.py);
- `report`: a row per dispatch in `RunResult.dispatch_log` (its launches, its time);
- `param_space`: bytes of entry parameters beyond which a kernel takes its parameters
  in an argument block in device memory (4096, the PTX limit; tests lower it).

Admission happens before `run`, where the checked module is at hand (`admission.admit`,
also the executor's `admit`): a program with a refused construct
never reaches the emitter. If one does, the emitter's `EmitError` becomes a one-line
`ExecutorUnavailable`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...ir import nodes as ir
from ...ir.build import Build
from ...syntax import Diagnostic
from ..executors import ExecutorUnavailable, Write
from ..runtime import GPU_DEVICE, NULL_DEVICE, SIMULATED, RunResult
from ..stages import RUNNING, reached
from ..words import counted
from .admission import admit, admit_build
from .device import ORDERS, Device, DeviceError, DeviceUnavailable
from .probe import simulated_reason
from .ptx import PARAM_SPACE, EmitError, PtxModule, emit_module
from .python_host import DEFAULT_BLOCK, DEFAULT_MAX_LAUNCH, CudaMachine
from .simulator import SimulatedDevice
from .status import HostStatus

EXECUTOR = "gpu-cuda"
DEVICES = ("auto", "cuda", "sim", "null")
HOSTS = ("auto", "c", "python")


@dataclass
class CudaOptions:
    device: str = "auto"
    block_size: int = DEFAULT_BLOCK
    order: str = "ascending"
    seed: int = 0
    max_launch: int = DEFAULT_MAX_LAUNCH
    param_space: int = PARAM_SPACE  # bytes of entry parameters before an argument block (tests lower it)
    trace: bool = False  # the boundaries of a comparison in RunResult.trace (running/compare.py)
    report: bool = False  # a row per dispatch in RunResult.dispatch_log (cint run --report)
    host: str = "auto"  # "c" (rt/gpu_host.c), "python" (python_host.py), auto: C where there is a C compiler

    @classmethod
    def from_dict(cls, options: dict | None) -> CudaOptions:
        options = dict(options or {})
        known = {"device", "block_size", "order", "seed", "max_launch", "param_space", "trace", "report", "host"}
        out = cls(**{k: v for k, v in options.items() if k in known and v is not None})
        if out.device not in DEVICES:
            raise ExecutorUnavailable(f"gpu-cuda: unknown device {out.device!r} (one of {', '.join(DEVICES)})")
        if out.host not in HOSTS:
            raise ExecutorUnavailable(f"gpu-cuda: unknown host {out.host!r} (one of {', '.join(HOSTS)})")
        if out.order not in ORDERS:
            raise ExecutorUnavailable(f"gpu-cuda: unknown order {out.order!r} (one of {', '.join(ORDERS)})")
        if not isinstance(out.block_size, int) or not 1 <= out.block_size <= 1024:
            raise ExecutorUnavailable(f"gpu-cuda: a block size is 1 to 1024 work-items, not {out.block_size}")
        if not isinstance(out.max_launch, int) or out.max_launch < 1:
            raise ExecutorUnavailable(f"gpu-cuda: a launch holds at least 1 work-item, not {out.max_launch}")
        return out


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


def device_note(device: Device, fallback: str | None) -> str:
    """RunResult.notes[0]: `gpu-cuda ran on NVIDIA H200 (sm_90)`, `gpu-cuda ran on the
    simulated device`, or `gpu-cuda ran on the simulated device, not a GPU: no CUDA
    driver: ...` when the device was not chosen."""
    return f"gpu-cuda ran on {device.description}" + (f", not a GPU: {fallback}" if fallback else "")


def compile_program(program: ir.Program, param_space: int = PARAM_SPACE) -> PtxModule:
    try:
        return emit_module(program, param_space)
    except EmitError as error:
        raise ExecutorUnavailable(f"gpu-cuda cannot build this program: {error}") from None


def run(program: ir.Program, fuel: int | None = None, write=None, options: dict | None = None,
        *, device: Device | None = None) -> RunResult:
    """Run the program's entry with gpu-cuda. `device` overrides the `device` option
    (tests pass a prepared simulated device)."""
    opts = CudaOptions.from_dict(options)
    ptx = compile_program(program, opts.param_space)
    why_python = None
    if opts.host != "python":
        why_python = c_host_unusable(program)
        if why_python is None:
            from ..c17.build import NoCompiler

            try:
                return run_on_c_host(program, fuel, write, opts, ptx, device)
            except NoCompiler as error:  # a CC that runs but does not compile (before anything ran)
                why_python = str(error)
        if opts.host == "c":
            raise ExecutorUnavailable(f"gpu-cuda: the C host cannot run this program: {why_python}")
    if opts.device == "null":
        raise ExecutorUnavailable("gpu-cuda: the null device needs the C host"
                                  + (f", and {why_python}" if why_python else ""))
    result = run_on_python_host(program, fuel, write, opts, ptx, device)
    if why_python is not None:
        result.notes.append(f"gpu-cuda's host ran in Python, not C: {why_python}")
    return result


def c_host_unusable(program: ir.Program) -> str | None:
    """Why the C host cannot run the program (no C compiler, beyond cpu-c17's limits), or None."""
    from ..c17.build import NoCompiler, find_compiler
    from ..c17.library import Untranslatable, emit

    try:
        find_compiler()
        emit(program)
    except (NoCompiler, Untranslatable) as error:
        return str(error)
    return None


def run_on_c_host(program: ir.Program, fuel, write, opts: CudaOptions, ptx: PtxModule,
                  device: Device | None) -> RunResult:
    """The host in C (c_host.py, rt/gpu_host.c)."""
    from .c_host import DeviceUnavailableHere, run_c_host

    fallback = None
    target: Device | str
    if device is not None:
        target = device
    elif opts.device in ("sim", "null"):
        target = "null" if opts.device == "null" else SimulatedDevice(opts.order, opts.seed)
    else:
        target = "cuda"
    kwargs = dict(block=opts.block_size, max_launch=opts.max_launch, trace=opts.trace, report=opts.report)
    try:
        result, stats, description = run_c_host(program, fuel, ptx, target, **kwargs)
    except DeviceUnavailableHere as error:
        if opts.device == "cuda":
            raise ExecutorUnavailable(f"gpu-cuda: {error} (the simulated device needs none: --device sim)") from None
        fallback = str(error)
        result, stats, description = run_c_host(program, fuel, ptx, SimulatedDevice(opts.order, opts.seed),
                                                 **kwargs)
    if write is not None and result.output:
        write(result.output)
    if target == NULL_DEVICE:
        result.device_kind = NULL_DEVICE
    elif fallback is not None or (isinstance(target, Device) and target.simulated):
        result.device_kind = SIMULATED
    else:
        result.device_kind = GPU_DEVICE
    result.device = description
    result.notes.append(f"gpu-cuda ran on {description}" + (f", not a GPU: {fallback}" if fallback else ""))
    result.notes.append(f"block size {opts.block_size}; {counted(stats.launches, 'launch')} for "
                        f"{counted(stats.dispatches, 'dispatch')}"
                        + (f"; {counted(stats.skipped, 'launch')} above a fault not started" if stats.skipped else ""))
    for qualified, used, limit in stats.clamped:
        result.notes.append(f"kernel {qualified} ran in blocks of {used}, not {opts.block_size}: the device runs at "
                            f"most {limit} threads per block of it (CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)")
    for number, k in stats.described:  # which code described the fault (10.6 para 9)
        result.notes.append(f"the fault of work-item {k} of dispatch {number} was described by cpu-c17")
    return result


def run_on_python_host(program: ir.Program, fuel, write, opts: CudaOptions, ptx: PtxModule,
                       device: Device | None) -> RunResult:
    """The host in Python (python_host.py): where there is no C compiler."""
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
    result.notes.append(device_note(device, fallback))
    result.notes.append(f"block size {opts.block_size}; {counted(stats.launches, 'launch')} for "
                        f"{counted(stats.dispatches, 'dispatch')}"
                        + (f"; {counted(stats.skipped, 'launch')} above a fault not started" if stats.skipped else ""))
    for qualified, (used, limit) in stats.clamped.items():
        result.notes.append(f"kernel {qualified} ran in blocks of {used}, not {opts.block_size}: the device runs at "
                            f"most {limit} threads per block of it (CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)")
    for number, k, by in stats.descriptions:  # which code described the fault (10.6 para 9)
        result.notes.append(f"the fault of work-item {k} of dispatch {number} was described by {by}")
    return result


def emit_text(program: ir.Program) -> str:
    """The PTX module gpu-cuda loads (`cint emit-ptx`); empty for a program without kernels."""
    return compile_program(program).text if program.kernels else ""


def device_ready(timeout: float | None = None) -> tuple[bool, str]:
    """(whether a CUDA device is present, what it is or why not), once the probe has
    answered (at most `timeout` seconds): `--executor auto`'s question (running/auto.py).
    The simulated device does not count."""
    from . import probe

    reason = probe.wait(timeout)
    if reason is not None:
        return False, reason
    if probe._probing is not None and probe._probing.is_alive():
        return False, "the CUDA probe has not answered yet"
    return True, "a CUDA device"


class Cuda:
    """gpu-cuda as an `Executor` (exec/executors.py)."""

    name = EXECUTOR
    description = "the work-item phase on an NVIDIA GPU (PTX through the CUDA driver API), or on the simulated device"
    native = True
    compiles = True

    def run(self, program: ir.Program, fuel: int | None, write: Write | None, options: dict) -> RunResult:
        return run(program, fuel, write, options)

    def admit(self, built: Build) -> Diagnostic | None:
        return admit_build(built)

    def emit(self, program: ir.Program) -> str:
        return emit_text(program)

    def ready(self, timeout: float | None = None) -> tuple[bool, str]:
        return device_ready(timeout)

    def simulated(self) -> bool:
        return simulated_reason() is not None


executor = Cuda()

__all__ = ["CudaOptions", "DEVICES", "EXECUTOR", "device_note", "admit", "admit_build", "compile_program", "executor",
           "open_device", "run", "DeviceError"]
