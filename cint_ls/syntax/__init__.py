"""Syntax: text to tree (tree-sitter), tree to typed AST with spans, syntax diagnostics.

Sources and spans (`source.py`) are imported with the package; the parser's half (the
tree-sitter binding, the AST, lowering, diagnostics) when one of its names is first asked
for (`__getattr__`). A run's child process reads spans of a program built by its parent
and never parses (running/isolated.py): it does not import tree-sitter at all.
`syntax.lower` is the module; its function is `syntax.lower.lower`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .source import Position, SourceText, Span

if TYPE_CHECKING:
    import tree_sitter

    from . import ast
    from .diagnostics import Diagnostic, Related, Severity, syntax_diagnostics
    from .lower import buffer_path, module_name
    from .parser import ParsedDocument, TextEdit, language, parse

# The names of the parser's half, imported together on first use.
_PARSING = frozenset({"Diagnostic", "ParsedDocument", "Related", "Severity", "TextEdit", "ast", "buffer_path",
                      "language", "module_name", "parse", "syntax_diagnostics"})


def __getattr__(name: str) -> object:
    if name not in _PARSING:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from .ast import Module  # noqa: F401  (the submodule, which the package then holds as `ast`)
    if name == "ast":  # `from . import ast` in lower.py asks here first: not lower.py again, half made
        return globals()["ast"]
    from .diagnostics import Diagnostic, Related, Severity, syntax_diagnostics
    from .lower import buffer_path, module_name
    from .parser import ParsedDocument, TextEdit, language, parse

    found = {"Diagnostic": Diagnostic, "ParsedDocument": ParsedDocument, "Related": Related, "Severity": Severity,
             "TextEdit": TextEdit, "ast": globals()["ast"], "buffer_path": buffer_path, "language": language,
             "module_name": module_name, "parse": parse, "syntax_diagnostics": syntax_diagnostics}
    globals().update(found)
    return found[name]


@dataclass(slots=True)
class SyntaxResult:
    source: SourceText
    tree: tree_sitter.Tree
    module: ast.Module
    diagnostics: list[Diagnostic]


def parse_source(text: str, path: str = "<input>") -> SyntaxResult:
    """Parse, lower and collect the syntax diagnostics of one file."""
    from .diagnostics import syntax_diagnostics
    from .lower import lower
    from .parser import parse

    source = SourceText(text, path)
    tree = parse(text)
    module, lowering = lower(tree, source)
    diagnostics = sorted(syntax_diagnostics(tree, source) + lowering, key=lambda d: d.span.start_byte)
    return SyntaxResult(source, tree, module, diagnostics)


__all__ = [
    "Diagnostic", "ParsedDocument", "Position", "Related", "Severity", "SourceText", "Span",
    "SyntaxResult", "TextEdit", "ast", "buffer_path", "language", "module_name", "parse",
    "parse_source", "syntax_diagnostics",
]
