"""What the analysis knows of a module: resolution, types, call targets, diagnostics."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..syntax import ast
from ..syntax.diagnostics import Diagnostic, Severity
from ..syntax.source import SourceText, Span
from .symbols import Symbol
from .types import Type


@dataclass(eq=False)
class CallInfo:
    """What a call expression calls."""

    kind: str  # 'builtin', 'function', 'dispatch'
    name: str
    symbol: Symbol | None = None  # the function or kernel
    mode: str | None = None  # div_round's rounding mode


@dataclass(frozen=True, slots=True)
class Refusal:
    """A construct of a kernel that gpu-cuda refuses (SPEC-02P.1 10.5); `capabilities` finds them."""

    kernel: str
    capability: str  # "neg", "div", "wide", "store.narrow", ...
    what: str  # what needs it: "unary minus"
    span: Span

    @property
    def message(self) -> str:
        return f"gpu-cuda refuses `{self.capability}`: {self.what}"


@dataclass(eq=False)
class KernelInfo:
    node: ast.KernelDef
    symbol: Symbol
    sizes: list[Symbol]
    params: list[Symbol]
    over: list[Symbol]
    # The reduce statement of each scalar out parameter, by parameter name.
    reductions: dict[str, ast.Reduce] = field(default_factory=dict)
    # Scalar out parameters assigned where a reduce was meant (`s = sum(x[i]);`: C5006).
    reduced_by_assignment: set[str] = field(default_factory=set)
    # gpu-cuda's refusals of this kernel, once computed (capabilities.py); a kernel
    # reused from the analysis cache keeps them.
    refusals: list[Refusal] | None = None


@dataclass(eq=False)
class FunctionInfo:
    node: ast.FunctionDef
    symbol: Symbol
    params: list[Symbol]
    return_type: Type


@dataclass(eq=False)
class CheckedModule:
    module: ast.Module
    source: SourceText
    diagnostics: list[Diagnostic] = field(default_factory=list)
    # Every name occurrence (Ident, Name of a declaration or a reference) -> its symbol.
    symbols: dict[ast.Node, Symbol] = field(default_factory=dict)
    # Every checked expression -> its type.
    types: dict[ast.Node, Type] = field(default_factory=dict)
    # Literals and T.min/T.max -> their value in their type (fixed point: stored).
    values: dict[ast.Node, int | bool] = field(default_factory=dict)
    calls: dict[ast.Call, CallInfo] = field(default_factory=dict)
    kernels: dict[str, KernelInfo] = field(default_factory=dict)
    functions: dict[str, FunctionInfo] = field(default_factory=dict)
    # The entry's own variables (top-level declarations).
    entry_symbols: list[Symbol] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.module.name

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == Severity.ERROR]

    @property
    def has_errors(self) -> bool:
        return any(d.severity == Severity.ERROR for d in self.diagnostics)

    def references(self, symbol: Symbol) -> list[ast.Node]:
        return [node for node, s in self.symbols.items() if s is symbol]
