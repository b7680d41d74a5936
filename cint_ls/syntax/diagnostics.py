"""Diagnostics, and the syntax diagnostics read off ERROR and MISSING nodes.

The `Diagnostic` shape is shared by every layer (ARCHITECTURE.md "Contracts"): a stable
code (C1xxx syntax, C2xxx names, C3xxx types, C5xxx kernels, C9xxx not implemented), a
severity, a message a person can act on, a span, related (span, message) pairs, and for
a capability refusal the capability's name and the executor.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

import tree_sitter

from .source import SourceText, Span


class Severity(IntEnum):
    # The values of LSP's DiagnosticSeverity, so the server maps them one to one.
    ERROR = 1
    WARNING = 2
    INFORMATION = 3
    HINT = 4

    @property
    def label(self) -> str:
        return {1: "error", 2: "warning", 3: "info", 4: "hint"}[self.value]


@dataclass(frozen=True, slots=True)
class Related:
    span: Span
    message: str


@dataclass(frozen=True, slots=True)
class Diagnostic:
    code: str
    severity: Severity
    message: str
    span: Span
    related: tuple[Related, ...] = ()
    capability: str | None = None
    executor: str | None = None
    data: dict = field(default_factory=dict, compare=False, hash=False)


# Closing tokens and what they close, for "expected `)` to close `(`".
_CLOSERS = {")": "(", "]": "[", "}": "{"}

# The statement-like nodes whose missing `;` deserves "after the ...".
_STATEMENT_NAMES = {
    "variable_declaration": "the declaration",
    "assignment_statement": "the assignment",
    "expression_statement": "the statement",
    "print_statement": "the string statement",
    "return_statement": "`return`",
    "break_statement": "`break`",
    "continue_statement": "`continue`",
    "assert_statement": "`assert(...)`",
    "reduce_statement": "the reduce statement",
    "field_declaration": "the field",
    "import_declaration": "the import",
}

# Readable names for the grammar's named nodes, for "expected a name".
_NODE_NAMES = {
    "identifier": "a name",
    "primitive_type": "a type",
    "type_identifier": "a type",
    "integer_literal": "a number",
    "block": "a block `{ ... }`",
    "parameter_list": "a parameter list `( ... )`",
    "argument_list": "an argument list `( ... )`",
    "iteration_space": "an iteration space `[v: extent, ...]`",
    "size_parameters": "size symbols `[n, ...]`",
    "string": "a string",
}


def _missing_message(source: SourceText, node: tree_sitter.Node) -> str:
    kind = node.type
    parent = node.parent
    if not node.is_named:
        if kind == ";" and parent is not None and parent.type in _STATEMENT_NAMES:
            return f"expected `;` after {_STATEMENT_NAMES[parent.type]}"
        if kind in _CLOSERS:
            opener = _CLOSERS[kind]
            opened = next((c for c in parent.children if c.type == opener), None) if parent else None
            if opened is not None:
                line, column = source.line_column(opened.start_byte)
                return f"expected `{kind}` to close the `{opener}` at {line}:{column}"
            return f"expected `{kind}` to close `{opener}`"
        return f"expected `{kind}`"
    return f"expected {_NODE_NAMES.get(kind, kind.replace('_', ' '))}"


def _describe_token(source: SourceText, node: tree_sitter.Node) -> str:
    text = source.data[node.start_byte:node.end_byte].decode("utf-8", errors="replace")
    first = text.split(None, 1)[0] if text.strip() else text
    if len(first) > 24:
        first = first[:21] + "..."
    return first


def _error_message(source: SourceText, node: tree_sitter.Node) -> str:
    if node.start_byte >= len(source.data.rstrip()):
        return "unexpected end of file"
    token = _describe_token(source, node)
    parent = node.parent
    where = ""
    if parent is not None and parent.type in ("block", "source_file"):
        where = "; expected a statement"
    elif parent is not None and parent.type in ("argument_list", "parameter_list", "array_literal"):
        where = "; check the `,` between the elements"
    if token.startswith('"'):
        return f"unterminated or malformed string `{token}`{where}"
    return f"unexpected `{token}`{where}"


def syntax_diagnostics(tree: tree_sitter.Tree, source: SourceText) -> list[Diagnostic]:
    """One diagnostic for each ERROR node (C1001) and each MISSING node (C1002), in
    source order. Nested errors inside an ERROR node are not reported again."""
    found: list[Diagnostic] = []
    if not tree.root_node.has_error:
        return found
    cursor = tree.walk()
    visited_children = False
    while True:
        node = cursor.node
        if not visited_children:
            if node.is_missing:
                at = source.span(node.start_byte, node.start_byte)
                # The missing token, for the editor's quick fix that inserts it.
                data = {} if node.is_named else {"missing": node.type}
                found.append(Diagnostic("C1002", Severity.ERROR, _missing_message(source, node), at, data=data))
            elif node.type == "ERROR" or node.is_error:
                end = node.end_byte if node.end_byte > node.start_byte else node.start_byte
                found.append(
                    Diagnostic("C1001", Severity.ERROR, _error_message(source, node), source.span(node.start_byte, end))
                )
                # Do not descend: one diagnostic per ERROR node.
                visited_children = True
                continue
            if node.has_error and cursor.goto_first_child():
                continue
            visited_children = True
        if cursor.goto_next_sibling():
            visited_children = False
        elif not cursor.goto_parent():
            break
    found.sort(key=lambda d: d.span.start_byte)
    return found
