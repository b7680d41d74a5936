"""Analysis: names, types, the kernel rules and C5010, over the syntax layer's AST."""

from .checker import check
from .result import CallInfo, CheckedModule, FunctionInfo, KernelInfo
from .symbols import Symbol, SymbolKind

__all__ = ["CallInfo", "CheckedModule", "FunctionInfo", "KernelInfo", "Symbol", "SymbolKind", "check"]
