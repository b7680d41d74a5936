"""cpu-sir-interp, the reference executor."""

from ..executors import Executor, register
from .machine import EXECUTOR, Machine, run_program


def _run(program, fuel, write, options):
    """Options: `trace` (the boundaries of a comparison in RunResult.trace)."""
    if (options or {}).get("trace"):
        from .trace import run_traced

        return run_traced(program, fuel, write)
    return run_program(program, fuel, write)


register(Executor(EXECUTOR, "the reference interpreter (Python)", _run))

__all__ = ["EXECUTOR", "Machine", "run_program"]
