"""The interface every executor implements (ARCHITECTURE.md "Executor"), and the names
of the executors of SPEC-02P.1 clause 10.

Each executor's package makes one object of this shape (`executor`, in the package's
`__init__.py`); the registry that finds them by name sits above the executors
(running/executors.py), with an import of each package written out, so that the layer
test sees every edge. Nobody outside `running` calls an executor directly:
`running/run.py` is the one way to run a program (build, admit, run in a child process
when the executor is native, compare), and `running/isolated.py` is its child process.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias, runtime_checkable

from ..ir import nodes as ir
from ..vocabulary.executors import EXECUTOR_NAMES as EXECUTOR_NAMES  # every executor, in order
from .runtime import RunResult

if TYPE_CHECKING:  # the parent's: a run's child neither builds nor admits (running/isolated.py)
    from ..ir.build import Build
    from ..syntax import Diagnostic

# Not an executor: the name that asks `running/auto.py` to choose one per run (the
# default of `cint run` and of the editor's plain Run).
AUTO = "auto"


def display_name(name: str, simulated: bool) -> str:
    """The executor's name as an editor shows it: `gpu-cuda (simulated)` where its runs
    will take place on a simulated device (the façade's forecast,
    running.run.simulated_executors)."""
    return f"{name} (simulated)" if simulated else name

# Where the program's output goes as it is printed (None: kept in RunResult.output only).
Write = Callable[[str], object]
# An executor's options: a JSON object, for they cross into an isolated run's child process.
Options: TypeAlias = dict[str, Any]


class ExecutorUnavailable(Exception):
    """The executor cannot run here (no C compiler, no CUDA driver, ...): one line
    that names the cause."""

    # The kind of refusal, a fact the façade acts on without reading the message
    # (RunOutcome.refusal): UNTRANSLATABLE, or None for any other cause.
    refusal: str | None = None


# ExecutorUnavailable.refusal of a program beyond cpu-c17's limits (its README, "Limits"):
# `auto` then runs it on the reference.
UNTRANSLATABLE = "untranslatable"


@runtime_checkable
class Executor(Protocol):
    """An executor, as the façade (running/run.py) and `auto` (running/auto.py) use it."""

    name: str  # one of EXECUTOR_NAMES
    description: str  # one line, for `cint executors` and the editor
    # Whether `run` needs a child process for safety (native code that may crash, a
    # driver that may hang): the façade then always runs it isolated.
    native: bool
    # Whether `run` reports stages.RUNNING itself once compiled (else the façade does,
    # before calling it).
    compiles: bool

    def run(self, program: ir.Program, fuel: int | None, write: Write | None, options: Options) -> RunResult:
        """Run the program's entry in this process. Raises ExecutorUnavailable."""
        ...

    def admit(self, built: Build) -> Diagnostic | None:
        """The executor's refusal of the program (its E_UNSUPPORTED build error: gpu-cuda's
        capability profile, SPEC-02P.1 10.5 para 11), or None where it builds it."""
        ...

    def emit(self, program: ir.Program) -> str:
        """The code the executor builds (cpu-c17: C17, gpu-cuda: PTX). Raises
        ExecutorUnavailable where it emits none or cannot translate the program."""
        ...

    def ready(self, timeout: float | None = None) -> tuple[bool, str]:
        """(whether it can run here, what it runs on or why not), waiting at most
        `timeout` seconds for what it has to ask (gpu-cuda: the CUDA probe)."""
        ...

    def simulated(self) -> bool:
        """A quick forecast, without waiting: whether its runs will take place on a
        simulated device here."""
        ...
