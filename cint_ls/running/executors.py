"""The executors by name: each executor's package is imported when first asked for, by an
import written out below (the layer test sees each), so that a run's child imports only
its own executor and gpu-cuda's package is left to the runs that need it.

`tests/test_layers.py` checks that every name of EXECUTOR_NAMES has a loader here and
that what each loader returns satisfies the `Executor` interface (exec/executors.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ..exec.executors import EXECUTOR_NAMES, Executor, ExecutorUnavailable


def _reference() -> Executor:
    from ..exec.interp import executor
    return executor


def _c17() -> Executor:
    from ..exec.c17 import executor
    return executor


def _cuda() -> Executor:
    from ..exec.cuda import executor
    return executor


LOADERS: dict[str, Callable[[], Executor]] = {"cpu-sir-interp": _reference, "cpu-c17": _c17, "gpu-cuda": _cuda}

_loaded: dict[str, Executor] = {}


def _load(name: str) -> Executor | None:
    executor = _loaded.get(name)
    if executor is None and name in LOADERS:
        try:
            executor = _loaded[name] = LOADERS[name]()
        except ImportError:  # a package this executor needs is not installed
            return None
    return executor


def preload(names: Iterable[str]) -> None:
    """Import these executors' packages now (a spare run child, before its request)."""
    for name in names:
        _load(name)


def available() -> dict[str, Executor]:
    """The executors that can be imported here, in the order of EXECUTOR_NAMES."""
    return {name: executor for name in EXECUTOR_NAMES if (executor := _load(name)) is not None}


def get(name: str) -> Executor:
    """The executor of that name. Raises ExecutorUnavailable, naming the ones there are."""
    executor = _load(name)
    if executor is None:
        known = ", ".join(available())
        raise ExecutorUnavailable(f"the executor {name} is not implemented yet (available: {known})")
    return executor
