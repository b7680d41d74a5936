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

The host is the program's C, as cpu-c17 emits it, compiled with `CINT_GPU_CUDA`
(c_host.py, rt/): it drives the CUDA driver (rt/gpu_cuda.c) or, through callbacks, the
simulated device. Without a C compiler gpu-cuda does not run: one line says so, as
cpu-c17's does. (A host in Python, `oracle/`, is kept only as the tests' oracle against
this one; no option selects it.)

Admission happens before `run`, where the checked module is at hand (`admission.admit`,
also the executor's `admit`): a program with a refused construct
never reaches the emitter. If one does, the emitter's `EmitError` becomes a one-line
`ExecutorUnavailable`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ...ir import nodes as ir
from ..executors import UNTRANSLATABLE, ExecutorUnavailable, Options, Write
from ..runtime import GPU_DEVICE, NULL_DEVICE, SIMULATED, RunResult
from ..stages import output_stream
from .device import DEFAULT_BLOCK, DEFAULT_MAX_LAUNCH, ORDERS, Device, DeviceError
from .notes import run_notes
from .probe import simulated_reason
from .ptx import PARAM_SPACE, EmitError, PtxModule, emit_module
from .simulator import SimulatedDevice

if TYPE_CHECKING:
    from ...analysis import CheckedModule
    from ...ir.build import Build
    from ...syntax import Diagnostic

EXECUTOR = "gpu-cuda"
DEVICES = ("auto", "cuda", "sim", "null")


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

    @classmethod
    def from_dict(cls, options: Options | None) -> CudaOptions:
        options = dict(options or {})
        known = {"device", "block_size", "order", "seed", "max_launch", "param_space", "trace", "report"}
        out = cls(**{k: v for k, v in options.items() if k in known and v is not None})
        if out.device not in DEVICES:
            raise ExecutorUnavailable(f"gpu-cuda: unknown device {out.device!r} (one of {', '.join(DEVICES)})")
        if out.order not in ORDERS:
            raise ExecutorUnavailable(f"gpu-cuda: unknown order {out.order!r} (one of {', '.join(ORDERS)})")
        if not isinstance(out.block_size, int) or not 1 <= out.block_size <= 1024:
            raise ExecutorUnavailable(f"gpu-cuda: a block size is 1 to 1024 work-items, not {out.block_size}")
        if not isinstance(out.max_launch, int) or out.max_launch < 1:
            raise ExecutorUnavailable(f"gpu-cuda: a launch holds at least 1 work-item, not {out.max_launch}")
        return out


def admit(checked: CheckedModule) -> Diagnostic | None:
    """gpu-cuda's refusal of a checked module (admission.py, imported here when asked:
    it stands on the checker, which a run's child process does not import)."""
    from . import admission

    return admission.admit(checked)


def admit_build(built: Build) -> Diagnostic | None:
    """gpu-cuda's refusal of a built program (admission.admit_build)."""
    from . import admission

    return admission.admit_build(built)


def compile_program(program: ir.Program, param_space: int = PARAM_SPACE) -> PtxModule:
    try:
        return emit_module(program, param_space)
    except EmitError as error:
        raise ExecutorUnavailable(f"gpu-cuda cannot build this program: {error}") from None


class HostUntranslatable(ExecutorUnavailable):
    """The host's C cannot be emitted: the program is beyond cpu-c17's limits (its
    README, "Limits"); `auto` then runs it on the reference, as for cpu-c17."""

    refusal = UNTRANSLATABLE


def compile_host(program: ir.Program, also: tuple[str, ...] = ()) -> Path:
    """The host: the program's C emitted once and compiled (cached) into its library.
    Raises a one-line ExecutorUnavailable where there is no C compiler (cpu-c17's own
    words after `gpu-cuda needs a C compiler for its host: `) or beyond cpu-c17's limits.
    `also`: kernels the entry does not reach, emitted too (the workbench's runner)."""
    from ..c17.build import NoCompiler
    from ..c17.library import Untranslatable
    from .c_host import library_for

    try:
        return library_for(program, also)
    except NoCompiler as error:
        raise ExecutorUnavailable(f"gpu-cuda needs a C compiler for its host: {error}") from None
    except Untranslatable as error:
        raise HostUntranslatable(f"gpu-cuda's host is the program's C, and {error}") from None


def run(program: ir.Program, fuel: int | None = None, write: Write | None = None, options: Options | None = None,
        *, device: Device | None = None) -> RunResult:
    """Run the program's entry with gpu-cuda: its PTX and its host's C each emitted once.
    `device` overrides the `device` option (tests pass a prepared simulated device)."""
    from .c_host import CHostStats, DeviceUnavailableHere, run_c_host

    opts = CudaOptions.from_dict(options)
    ptx = compile_program(program, opts.param_space)
    library = compile_host(program)
    fallback = None
    target: Device | str
    if device is not None:
        target = device
    elif opts.device in ("sim", "null"):
        target = "null" if opts.device == "null" else SimulatedDevice(opts.order, opts.seed)
    else:
        target = "cuda"

    def run_on(on: Device | str) -> tuple[RunResult, CHostStats, str]:
        return run_c_host(program, fuel, ptx, library, on, block=opts.block_size, max_launch=opts.max_launch,
                          trace=opts.trace, report=opts.report)

    try:
        result, stats, description = run_on(target)
    except DeviceUnavailableHere as error:
        if opts.device == "cuda":
            raise ExecutorUnavailable(f"gpu-cuda: {error} (the simulated device needs none: --device sim)") from None
        fallback = str(error)
        result, stats, description = run_on(SimulatedDevice(opts.order, opts.seed))
    if write is not None and result.output and output_stream() is None:  # streamed: already sent
        write(result.output)
    if target == NULL_DEVICE:
        result.device_kind = NULL_DEVICE
    elif fallback is not None or (isinstance(target, Device) and target.simulated):
        result.device_kind = SIMULATED
    else:
        result.device_kind = GPU_DEVICE
    result.device = description
    result.notes += run_notes(description, fallback, opts.block_size, stats.dispatches, stats.launches, stats.skipped,
                              stats.clamped, [(number, k, "cpu-c17") for number, k in stats.described])
    return result


def emit_text(program: ir.Program) -> str:
    """The PTX module gpu-cuda loads (`cint emit-ptx`); empty for a program without kernels."""
    return compile_program(program).text if program.kernels else ""


def device_ready(timeout: float | None = None) -> tuple[bool, str]:
    """(whether a CUDA device is present, what it is or why not), once the probe has
    answered (at most `timeout` seconds): `--executor auto`'s question (running/auto.py).
    The simulated device does not count."""
    from . import probe

    unable = probe.no_host()
    if unable is not None:
        return False, unable
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

    def run(self, program: ir.Program, fuel: int | None, write: Write | None, options: Options) -> RunResult:
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

__all__ = ["CudaOptions", "DEVICES", "EXECUTOR", "admit", "admit_build", "compile_host", "compile_program", "executor",
           "run", "DeviceError"]
