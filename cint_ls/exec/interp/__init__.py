"""cpu-sir-interp, the reference executor."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...ir import nodes as ir
from ..executors import ExecutorUnavailable, Options, Write
from ..runtime import RunResult
from .machine import EXECUTOR, Machine, run_program

if TYPE_CHECKING:
    from ...ir.build import Build
    from ...syntax import Diagnostic


class Reference:
    """cpu-sir-interp as an `Executor` (exec/executors.py)."""

    name = EXECUTOR
    description = "the reference interpreter (Python)"
    native = False
    compiles = False

    def run(self, program: ir.Program, fuel: int | None, write: Write | None, options: Options) -> RunResult:
        """Options: `trace` (the boundaries of a comparison in RunResult.trace), `report`
        (a row per dispatch in RunResult.dispatch_log)."""
        options = options or {}
        machine = Machine(program, fuel, write, trace=bool(options.get("trace")))
        if options.get("report"):
            machine.dispatcher.log = []
        result = machine.run()
        result.dispatch_log = machine.dispatcher.log
        return result

    def admit(self, built: Build) -> Diagnostic | None:
        return None  # the reference runs every program without translation errors

    def emit(self, program: ir.Program) -> str:
        raise ExecutorUnavailable(f"{EXECUTOR} emits no code")

    def ready(self, timeout: float | None = None) -> tuple[bool, str]:
        return True, "the reference interpreter"

    def simulated(self) -> bool:
        return False


executor = Reference()

__all__ = ["EXECUTOR", "Machine", "executor", "run_program"]
