"""Analysis: names, types, the kernel rules and C5010, over the syntax layer's AST."""

from .cache import AnalysisCache
from .checker import check
from .result import CallInfo, CheckedModule, FunctionInfo, KernelInfo
from .symbols import Symbol, SymbolKind

__all__ = ["AnalysisCache", "CallInfo", "CheckedModule", "FunctionInfo", "KernelInfo", "Symbol", "SymbolKind", "check"]
