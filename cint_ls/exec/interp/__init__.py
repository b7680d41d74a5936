"""cpu-sir-interp, the reference executor."""

from ..executors import Executor, register
from .machine import EXECUTOR, Machine, run_program


def _run(program, fuel, write, options):
    """Options: `trace` (the boundaries of a comparison in RunResult.trace), `report`
    (a row per dispatch in RunResult.dispatch_log)."""
    options = options or {}
    machine = Machine(program, fuel, write, trace=bool(options.get("trace")))
    if options.get("report"):
        machine.dispatcher.log = []
    result = machine.run()
    result.dispatch_log = machine.dispatcher.log
    return result


register(Executor(EXECUTOR, "the reference interpreter (Python)", _run))

__all__ = ["EXECUTOR", "Machine", "run_program"]
