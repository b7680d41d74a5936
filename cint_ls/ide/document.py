"""A document as the editor features see it: text kept in step with the editor by
incremental edits, and its syntax, analysis and IR, each computed when first asked
for after a change.

An edit re-lowers only the top-level items whose text it changed (`ItemCache`); the
others are reused and moved with their anchors. Analysis runs on the whole module (it
is fast), and the IR of a kernel is built on demand for hovers and hints.
"""

from __future__ import annotations

from ..analysis import AnalysisCache, CheckedModule, check
from ..analysis.symbols import SymbolKind
from ..ir import nodes as ir
from ..ir.lower import KernelLowerer, lower_program
from ..syntax import ParsedDocument, SyntaxResult, TextEdit, ast, lower, syntax_diagnostics
from ..syntax.diagnostics import Diagnostic, Severity
from ..syntax.lower import ItemCache
from ..syntax.source import Position, SourceText


class Document:
    def __init__(self, uri: str, text: str, version: int = 0, path: str | None = None) -> None:
        self.uri = uri
        self.path = path or uri
        self.version = version
        self._parsed = ParsedDocument(text, self.path)
        self._items = ItemCache()
        self._analysis = AnalysisCache()
        self._invalidate()

    # ---- text

    @property
    def text(self) -> str:
        return self._parsed.text

    @property
    def source(self) -> SourceText:
        return self._parsed.source

    @property
    def tree(self):
        return self._parsed.tree

    def apply(self, changes: list[TextEdit | str], version: int | None = None) -> None:
        """Apply LSP content changes in order: a TextEdit, or a str for the whole text."""
        for change in changes:
            if isinstance(change, str):
                self._parsed.replace(change)
            else:
                self._parsed.apply(change)
        if version is not None:
            self.version = version
        self._invalidate()

    def _invalidate(self) -> None:
        self._syntax: SyntaxResult | None = None
        self._checked: CheckedModule | None = None
        self._program: ir.Program | None | bool = False
        self._kernels: dict[str, ir.Kernel | None] = {}

    # ---- positions

    def offset(self, position: Position) -> int:
        return self.source.offset(position)

    def position(self, offset: int) -> Position:
        return self.source.position(offset)

    # ---- layers, computed on demand

    @property
    def syntax(self) -> SyntaxResult:
        if self._syntax is None:
            source, tree = self.source, self.tree
            module, lowering = lower(tree, source, self._items)
            diagnostics = sorted(syntax_diagnostics(tree, source) + lowering, key=lambda d: d.span.start_byte)
            self._syntax = SyntaxResult(source, tree, module, diagnostics)
        return self._syntax

    @property
    def module(self) -> ast.Module:
        return self.syntax.module

    @property
    def checked(self) -> CheckedModule:
        if self._checked is None:
            self._checked = check(self.syntax, self._analysis)
        return self._checked

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return self.checked.diagnostics

    def program(self) -> ir.Program | None:
        """The IR of the whole module, or None while it has translation errors."""
        if self._program is False:
            checked = self.checked
            self._program = None if checked.has_errors else lower_program(checked)
        return self._program  # type: ignore[return-value]

    def kernel_ir(self, name: str) -> ir.Kernel | None:
        """The IR of one kernel, when the kernel itself has no error (another item's
        errors do not matter): what hovers and inlay hints need."""
        if name not in self._kernels:
            self._kernels[name] = self._lower_kernel(name)
        return self._kernels[name]

    def _lower_kernel(self, name: str) -> ir.Kernel | None:
        checked = self.checked
        info = checked.kernels.get(name)
        if info is None:
            return None
        span = info.node.span
        for d in checked.diagnostics:
            if d.severity == Severity.ERROR and span.start_byte <= d.span.start_byte <= span.end_byte:
                return None
        # A kernel that calls a function with errors cannot be lowered safely.
        for node, symbol in checked.symbols.items():
            if symbol.kind is SymbolKind.FUNCTION and span.start_byte <= node.span.start_byte < span.end_byte:
                if symbol.name not in checked.functions:
                    return None
        try:
            return KernelLowerer(checked, name).lower()
        except (KeyError, AssertionError):
            return None  # an analysis gap: no IR rather than a crash in an editor request
