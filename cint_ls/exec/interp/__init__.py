"""cpu-sir-interp, the reference executor."""

from .machine import EXECUTOR, Machine, run_program

__all__ = ["EXECUTOR", "Machine", "run_program"]
