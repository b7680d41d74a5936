"""The executors by name, behind one interface (ARCHITECTURE.md "Executor"):
`run(program, fuel, write, options) -> RunResult`, in the calling process.

Nobody outside `exec` calls this directly: `run.py` is the one way to run a program
(build, admit, run in a child process when the executor is native, compare), and
`isolated.py` is its child process.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..ir import nodes as ir
from .runtime import RunResult

Runner = Callable[[ir.Program, "int | None", "Callable[[str], object] | None", dict], RunResult]


class ExecutorUnavailable(Exception):
    """The executor cannot run here (no C compiler, no CUDA driver, ...): one line
    that names the cause."""


@dataclass
class Executor:
    name: str
    description: str
    run: Runner
    # Whether `run` needs a child process for safety (native code that may crash, a
    # driver that may hang): run.py then always runs it isolated.
    native: bool = False
    options: dict = field(default_factory=dict)


_REGISTRY: dict[str, Executor] = {}


def register(executor: Executor) -> None:
    _REGISTRY[executor.name] = executor


# Every executor of SPEC-02P.1 clause 10, in the order tools list them.
EXECUTOR_NAMES = ("cpu-sir-interp", "cpu-c17", "gpu-cuda")


# The package of each executor of EXECUTOR_NAMES: importing it registers the executor.
_MODULES = {"cpu-sir-interp": "cint_ls.exec.interp", "cpu-c17": "cint_ls.exec.c17", "gpu-cuda": "cint_ls.exec.cuda"}


def _load_optional(names=None) -> None:
    """Every executor registers itself from its own package when imported, the
    reference too (the registry sits below the executors: tests/test_layers.py).
    `names`: only those executors' packages (a run's child imports only its own)."""
    import importlib

    for name, module in _MODULES.items():
        if names is not None and name not in names:
            continue
        try:
            importlib.import_module(module)
        except ImportError:
            pass


def preload(names) -> None:
    """Import these executors' packages now (a spare run child, before its request)."""
    _load_optional(tuple(names))


def available() -> dict[str, Executor]:
    _load_optional()
    return dict(_REGISTRY)


def get(name: str) -> Executor:
    if name not in _REGISTRY:
        _load_optional((name,))
    if name in _REGISTRY:
        return _REGISTRY[name]
    executors = available()
    if name not in executors:
        known = ", ".join(executors)
        raise ExecutorUnavailable(f"the executor {name} is not implemented yet (available: {known})")
    return executors[name]
