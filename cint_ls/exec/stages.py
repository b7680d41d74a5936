"""The stages of a run, as the executors reach them: compiling (building the program:
translation, C or PTX emission, the C compiler), running, and describing a fault
(gpu-cuda re-runs the faulting work-item in cpu-c17 code, which may compile first).

An isolated run's child listens (`isolated.py`) and passes each stage to its parent,
which reports it (the editor's progress) and counts the run's time limit only while the
child is running: compilation has a limit of its own. With no listener (an in-process
run) reaching a stage does nothing.

Executors that compile say so with the option `compiles` (`Executor.options`) and
report RUNNING themselves once compiled; for the others `run.run_built` reports it.
"""

from __future__ import annotations

from collections.abc import Callable

COMPILING = "compiling"
RUNNING = "running"
DESCRIBING = "describing the fault"
STAGES = (COMPILING, RUNNING, DESCRIBING)

_listener: Callable[[str], object] | None = None


def listen(listener: Callable[[str], object] | None) -> None:
    """Send every stage reached in this process to `listener` (None: to nobody)."""
    global _listener
    _listener = listener


def reached(stage: str) -> None:
    assert stage in STAGES, stage
    if _listener is not None:
        _listener(stage)
