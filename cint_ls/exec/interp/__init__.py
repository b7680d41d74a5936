"""cpu-sir-interp, the reference executor."""

from ..executors import Executor, register
from .machine import EXECUTOR, Machine, run_program


def _run(program, fuel, write, options):
    """Options: `trace` (the boundaries of a comparison in RunResult.trace)."""
    return Machine(program, fuel, write, trace=bool((options or {}).get("trace"))).run()


register(Executor(EXECUTOR, "the reference interpreter (Python)", _run))

__all__ = ["EXECUTOR", "Machine", "run_program"]
