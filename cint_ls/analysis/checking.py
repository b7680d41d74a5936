"""What every part of the check shares: the state of one module's walk and the
reporting. `Checker` (checker.py) is built of three layers, each typed against the one
below: this base, the expression typing (`ExpressionChecker`, expressions.py) and the
kernel rules (`KernelRules`, kernels.py); `Checker` itself adds the declarations, the
scopes and the statements.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..syntax import ast
from ..syntax.diagnostics import Diagnostic, DiagnosticData, Related, Severity
from ..syntax.source import Span
from .cache import AnalysisCache
from .result import CheckedModule, FunctionInfo, KernelInfo
from .symbols import Scope, Symbol
from .types import Type


class CheckerBase:
    """The walk's state (set by `Checker.__init__`), the reporting, and the operations
    of `Checker` that the expression and kernel rules call."""

    result: CheckedModule
    syntax_errors: list[int]  # where the syntax errors are: a body with one is tree-sitter's guess
    cache: AnalysisCache | None
    module_scope: Scope
    scope: Scope
    entry_names: set[str]  # the top-level statements' variables, which functions and kernels cannot read
    kernel: KernelInfo | None  # while checking a kernel body
    function: FunctionInfo | None  # while checking a function body
    owner: str | None  # the kernel or function being checked
    loops: int  # enclosing loops (for break/continue, reduce)
    breakable: int  # enclosing loops and switches
    store_base: ast.Expr | None  # the base of the store being checked, which is not a read

    # ------------------------------------------------------------------ reporting

    def guessed(self, node: ast.Node) -> bool:
        """Whether a syntax error lies in `node`: what it says is tree-sitter's guess."""
        return any(node.span.start_byte <= at <= node.span.end_byte for at in self.syntax_errors)

    def guessed_header(self, item: ast.FunctionDef | ast.KernelDef) -> bool:
        """Whether a syntax error lies in an item's signature (before its body): its
        parameters are a guess, and a call checked against them would be noise."""
        return any(item.span.start_byte <= at < item.body.span.start_byte for at in self.syntax_errors)

    def report(self, code: str, severity: Severity, message: str, span: Span, related: Iterable[Related] = (),
               data: DiagnosticData | None = None) -> None:
        self.result.diagnostics.append(Diagnostic(code, severity, message, span, tuple(related),
                                                  data={} if data is None else data))

    def error(self, code: str, message: str, span: Span, related: Iterable[Related] = ()) -> None:
        self.report(code, Severity.ERROR, message, span, related)

    def warning(self, code: str, message: str, span: Span) -> None:
        self.report(code, Severity.WARNING, message, span)

    # ------------------------------------------------------------------ Checker's (checker.py)

    def resolve_type(self, ref: ast.TypeRef, *, scalar_only: bool = False, allow_void: bool = False) -> Type:
        raise NotImplementedError

    def declare(self, symbol: Symbol, node: ast.Node | None = None) -> None:
        raise NotImplementedError

    def block(self, block: ast.Block, new_scope: bool = True) -> None:
        raise NotImplementedError
