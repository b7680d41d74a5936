"""Syntax: text to tree (tree-sitter), tree to typed AST with spans, syntax diagnostics."""

from __future__ import annotations

from dataclasses import dataclass

import tree_sitter

from . import ast
from .diagnostics import Diagnostic, Related, Severity, syntax_diagnostics
from .lower import buffer_path, lower, module_name
from .parser import ParsedDocument, TextEdit, language, parse
from .source import Position, SourceText, Span


@dataclass(slots=True)
class SyntaxResult:
    source: SourceText
    tree: tree_sitter.Tree
    module: ast.Module
    diagnostics: list[Diagnostic]


def parse_source(text: str, path: str = "<input>") -> SyntaxResult:
    """Parse, lower and collect the syntax diagnostics of one file."""
    source = SourceText(text, path)
    tree = parse(text)
    module, lowering = lower(tree, source)
    diagnostics = sorted(syntax_diagnostics(tree, source) + lowering, key=lambda d: d.span.start_byte)
    return SyntaxResult(source, tree, module, diagnostics)


__all__ = [
    "Diagnostic", "ParsedDocument", "Position", "Related", "Severity", "SourceText", "Span",
    "SyntaxResult", "TextEdit", "ast", "buffer_path", "language", "lower", "module_name", "parse",
    "parse_source", "syntax_diagnostics",
]
