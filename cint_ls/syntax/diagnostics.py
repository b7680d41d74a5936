"""Diagnostics, and the syntax diagnostics read off ERROR and MISSING nodes.

The `Diagnostic` shape is shared by every layer (ARCHITECTURE.md "Contracts"): a stable
code (C1xxx syntax, C2xxx names, C3xxx types, C5xxx kernels, C9xxx not implemented), a
severity, a message a person can act on, a span, related (span, message) pairs, and for
a capability refusal the capability's name and the executor.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

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


# A diagnostic's `data`: JSON for the client, which sends it back with a code action
# request; each code has keys of its own (a region, a fix's text, a kernel's name), so a
# reader indexes it knowing the code.
DiagnosticData = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Diagnostic:
    code: str
    severity: Severity
    message: str
    span: Span
    related: tuple[Related, ...] = ()
    capability: str | None = None
    executor: str | None = None
    data: DiagnosticData = field(default_factory=dict, compare=False, hash=False)


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
    if _name_missing(node):
        return "expected the declared variable's name before `=`"
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
    source order, after `recovery` has decided the missing `}` and `;` from the layout:
    each of those is one C1002 where it is missing, with the region it confuses
    (`data["region"]`, where the analysis stays quiet). Nested errors inside an ERROR
    node are not reported again. Only a position `recovery` is sure of has the data of a
    fix (`data["missing"]`, and `data["insert"]` where the text is more than the token)."""
    if not tree.root_node.has_error:
        return []
    # Imported here: a file without syntax errors (the usual first open) never needs it
    # (about 6 ms of the server's start).
    from . import scan

    try:
        return _errors(tree, source)
    finally:
        scan.forget()  # the next version is another text: what was read of this one is of no use


def _errors(tree: tree_sitter.Tree, source: SourceText) -> list[Diagnostic]:
    from .recovery import certain, declaring_scope, recover, statement_region, to_original, unopened

    repairs, rest, text, rounds = recover(tree, source.data)
    found: list[Diagnostic] = []
    for r in repairs:
        at = source.span(r.at, r.at + r.old)
        data: DiagnosticData = {"missing": r.missing, "insert": r.text, "region": list(r.region)}
        if r.old:
            found.append(Diagnostic(r.code, Severity.ERROR, r.message, at,
                                    data={"replacement": r.text, "region": list(r.region)}))
            continue
        if r.edit is not None:
            data["edit"] = list(r.edit)  # the fix rewrites the `else`'s indentation too
        if r.missing == "}" and r.opener is not None:
            line, column = source.line_column(r.opener)
            message = r.message or f"expected `}}` to close the `{{` at {line}:{column}; the indentation says the block ends here"
            related: tuple[Related, ...] = (Related(source.span(r.opener, r.opener + 1), "the block that is not closed"),)
        elif r.missing == "{" and r.closer is not None:
            message = r.message
            related = (Related(source.span(r.closer, r.closer + 1), "the `}` that closes the block"),)
            if r.item:  # the item was not read: an unknown use of its name is this mistake's
                data["declares"] = [0, len(source.data)]
        else:
            what = _STATEMENT_NAMES.get(r.statement)
            message = f"expected `{r.missing}` after {what}" if what else f"expected `{r.missing}`"
            related = ()
        found.append(Diagnostic("C1002", Severity.ERROR, message, at, related, data=data))
    repaired = source if not rounds else SourceText(text.decode("utf-8", errors="replace"), source.path)
    # A `{` missing where the layout does not say (no fix): the parser reads the block's
    # statements one level up until the `}` that nothing opened. The first error before
    # that `}` is the mistake's; its region reaches the `}`, so what follows from it (the
    # `}` itself unexpected, names out of their scope) is not reported again.
    strays, previous = unopened(text), -1
    for node in rest:
        start, end = to_original(node.start_byte, rounds), to_original(node.end_byte, rounds)
        first, last = (to_original(at, rounds) for at in statement_region(node, text))
        stray = next((at for at in strays if at >= node.start_byte), None)
        if stray is not None and stray != previous:
            last, previous = max(last, to_original(stray + 1, rounds)), stray
        region = [source.data.rfind(b"\n", 0, first) + 1, max(last, end)]
        extra: DiagnosticData = {"region": region}
        scope = declaring_scope(node, text)
        if scope is not None:
            extra["declares"] = [to_original(at, rounds) for at in scope]
        if node.is_missing:
            # A `}` whose place the layout does not tell gets no fix: at the end of the
            # file, tree-sitter's guess, it would move the statements after it. Nor does a
            # `;`, `)` or `]` whose place is not certain (recovery.certain).
            sure = not node.is_named and node.type != "}" and (node.type not in (";", ")", "]") or certain(text, node))
            data = {"missing": node.type, **extra} if sure else extra
            message = _missing_message(repaired, node)
            equals = None if sure else _equals_missing(node)
            if equals is not None:
                start, message = to_original(equals[0], rounds), equals[1]
            found.append(Diagnostic("C1002", Severity.ERROR, message, source.span(start, start), data=data))
        else:
            found.append(Diagnostic("C1001", Severity.ERROR, _error_message(repaired, node), source.span(start, end),
                                    data=extra))
    found.sort(key=lambda d: d.span.start_byte)
    return _one_per_statement(found)


_TYPES = ("primitive_type", "array_type")


def _name_missing(node: tree_sitter.Node) -> bool:
    """`I64  = 2;` (`=` the ERROR after the type) or `I64[4]  = [1, 2];` (an ERROR of the
    type and the `=`): a declaration that lost its name."""
    children = node.children
    if [c.type for c in children] == ["="]:
        before = node.prev_sibling
        return before is not None and before.type in _TYPES and node.parent is not None \
            and node.parent.type == "variable_declaration"
    return len(children) == 2 and children[0].type in _TYPES and children[1].type == "="


def _equals_missing(node: tree_sitter.Node) -> tuple[int, str] | None:
    """Where an `=` left out goes, for a `;` that tree-sitter says is missing inside a
    line after a declaration (`I64[4] a  [1, 2];`, `b[i]  a[i] * k;`): the rest of the
    line is the value. After the name of a declaration of a built-in type; after the
    type of one whose type is a name (`b[i]`: structs are not implemented, so it is an
    assignment to `b[i]`). None where the statement reads otherwise. The message only:
    whether the `=` or another token was lost is not certain, so no fix."""
    parent = node.parent
    if parent is None or parent.type != "variable_declaration" or node.next_sibling is not None:
        return None
    following = parent.next_sibling
    if following is None or following.start_point[0] != node.start_point[0] or following.type == "}":
        return None
    named = [c for c in parent.children if c.is_named]
    if len(named) != 2 or named[1].type != "identifier":
        return None
    kind, name = named
    element = kind.child(0) if kind.type == "array_type" and kind.child_count else kind
    if element is not None and element.type == "primitive_type":
        return name.end_byte, "expected `=` between the declaration's name and its value"
    if element is not None and element.type == "type_identifier":
        return kind.end_byte, f"expected `=` after `{kind.text.decode() if kind.text else ''}` (an assignment)"
    return None


def _one_per_statement(found: list[Diagnostic]) -> list[Diagnostic]:
    """Without the errors that no repair explains inside the region of an earlier one:
    tree-sitter's recovery of one mistake (`out [n] b`, the type lost) often leaves a
    second ERROR further on in the same statement (`unexpected [`, then `unexpected ]`).
    The first is where the mistake is; the rest of its statement is its consequence."""
    out: list[Diagnostic] = []
    for d in found:
        repaired = "missing" in d.data or "replacement" in d.data or "insert" in d.data
        if not repaired and any("region" in e.data and e.data["region"][0] <= d.span.start_byte < e.data["region"][1]
                                for e in out):
            continue
        out.append(d)
    return out
