"""The stages of a run, as the executors reach them: compiling (building the program:
translation, C or PTX emission, the C compiler), running, and describing a fault
(gpu-cuda re-runs the faulting work-item in cpu-c17 code, which may compile first).

An isolated run's child listens (`isolated.py`) and passes each stage to its parent,
which reports it (the editor's progress) and counts the run's time limit only while the
child is running: compilation has a limit of its own. With no listener (an in-process
run) reaching a stage does nothing.

Executors that compile say so with `Executor.compiles` and
report RUNNING themselves once compiled; for the others `running.entry.run_built` reports it.
"""

from __future__ import annotations

import time
from collections.abc import Callable

COMPILING = "compiling"
RUNNING = "running"
DESCRIBING = "describing the fault"
STAGES = (COMPILING, RUNNING, DESCRIBING)

_listener: Callable[[str], object] | None = None
_time_limit: float | None = None  # the run's limit on running (an isolated run's child: isolated.py)
_running_since: float | None = None


_output_stream: tuple[int, int | None] | None = None


def stream_output(fd: int, keep: int | None) -> None:
    """Send the program's output to `fd` as it is printed (an isolated run's child: its
    parent keeps it when the run is cut short), keeping at most `keep` bytes of it in
    this process (None: all)."""
    global _output_stream
    _output_stream = (fd, keep)


def output_stream() -> tuple[int, int | None] | None:
    """(fd, keep) of `stream_output`, or None."""
    return _output_stream


def limit(seconds: float | None) -> None:
    """The run's time limit (seconds of running), so that what the run waits on in this
    process (a cluster: c17/cluster.py) gives up, and says so, before the parent stops it."""
    global _time_limit
    _time_limit = seconds


def remaining() -> float | None:
    """Seconds of the time limit left (from the first RUNNING reached; all of it before),
    or None without a limit."""
    if _time_limit is None:
        return None
    if _running_since is None:
        return _time_limit
    return max(0.0, _time_limit - (time.monotonic() - _running_since))


def listen(listener: Callable[[str], object] | None) -> None:
    """Send every stage reached in this process to `listener` (None: to nobody)."""
    global _listener
    _listener = listener


WAITING = "waiting for "  # the start of a line that says what the run waits on (not a stage)


def waiting(what: str | None) -> None:
    """What the run waits on from now (a cluster's scheduler, its tiles), None: nothing:
    a run stopped at its time limit meanwhile says so (isolated.py)."""
    if _listener is not None:
        _listener(WAITING + (what or ""))


def reached(stage: str) -> None:
    assert stage in STAGES, stage
    global _running_since
    if stage == RUNNING and _running_since is None:
        _running_since = time.monotonic()
    if _listener is not None:
        _listener(stage)
