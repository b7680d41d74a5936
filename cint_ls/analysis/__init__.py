"""Analysis: names, types, the kernel rules and C5010, over the syntax layer's AST.

The checker and its results are imported when one of their names is first asked for
(`__getattr__`): a run's child process needs the types (`types.py`) of a program built by
its parent, not the checker, nor the parser it stands on (running/isolated.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .cache import AnalysisCache
    from .checker import check
    from .result import CallInfo, CheckedModule, FunctionInfo, KernelInfo
    from .symbols import Symbol, SymbolKind

_CHECKING = frozenset({"AnalysisCache", "CallInfo", "CheckedModule", "FunctionInfo", "KernelInfo", "Symbol",
                       "SymbolKind", "check"})


def __getattr__(name: str) -> object:
    if name not in _CHECKING:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from .cache import AnalysisCache
    from .checker import check
    from .result import CallInfo, CheckedModule, FunctionInfo, KernelInfo
    from .symbols import Symbol, SymbolKind

    found = {"AnalysisCache": AnalysisCache, "CallInfo": CallInfo, "CheckedModule": CheckedModule,
             "FunctionInfo": FunctionInfo, "KernelInfo": KernelInfo, "Symbol": Symbol, "SymbolKind": SymbolKind,
             "check": check}
    globals().update(found)
    return found[name]


__all__ = ["AnalysisCache", "CallInfo", "CheckedModule", "FunctionInfo", "KernelInfo", "Symbol", "SymbolKind", "check"]
