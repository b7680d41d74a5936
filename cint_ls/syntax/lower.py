"""Lowering of the tree-sitter tree to the typed AST of `ast.py`.

The lowering never fails: a node the parser marked ERROR or MISSING becomes an
`ErrorExpr` or `ErrorStmt` (its syntax diagnostic comes from `diagnostics.py`), and a
field the tree lacks becomes an `ErrorExpr` at its parent.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import PurePath
from typing import TypeVar

import tree_sitter

from . import ast
from .diagnostics import Diagnostic, Severity
from .parser import language
from .source import _OFFSETS, _SHARED_OFFSETS, ROOT, Anchor, SourceText, Span

# Deeper nesting of statements and expressions together (blocks, `if`/`while`/`for`
# bodies, calls in calls, string interpolation) is refused (C1003) rather than
# overflowing the recursive passes after this one (analysis, IR, the executors, the
# editor features); no program a person writes comes near it (issue 13 item 3). The
# tree is cut where it passes the bound, as clang's "bracket nesting level exceeded"
# is at the bracket: what encloses the cut keeps its names, so a function nested too
# deeply inside is still declared (its calls get no "unknown name").
MAX_NESTING_DEPTH = 256

_T = TypeVar("_T")  # what a lowering function gives (`Lowerer.deeper`)
_new_span = object.__new__


class _CachedItem:
    __slots__ = ("node", "anchor", "diagnostics")

    def __init__(self, node: ast.Item | ast.Stmt | None, anchor: Anchor, diagnostics: list[Diagnostic]) -> None:
        self.node = node
        self.anchor = anchor
        self.diagnostics = diagnostics


class ItemCache:
    """The lowered top-level items of a document's previous version, by their text, so
    an edit re-lowers only the items it touched; the others are reused unchanged, and
    `places` says where the last lowering put each (a version's `Placement.anchors`)."""

    def __init__(self) -> None:
        # (node type and text, occurrence) -> the lowered item
        self.items: dict[tuple[bytes, int], _CachedItem] = {}
        self.places: dict[Anchor, tuple[int, int, int]] = {}

_ESCAPES = {"\\n": "\n", "\\t": "\t", "\\\\": "\\", '\\"': '"', "\\{": "{", "\\}": "}"}


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NOT_NAME = re.compile(r"[^A-Za-z0-9_]+")


def module_name(path: str) -> str:
    """A module is named by its file's stem (`heat_e1.ci` is `heat_e1`); a stem that is
    not an identifier is C2004 (LANGUAGE.md "Lexical"). A text that is no file on disk has
    a path in angle brackets: `<input>` is `main`, and a buffer of an editor,
    `<untitled:Untitled-1>` or `</home/me/my heat.ci>` (see `buffer_path`), is named by
    an identifier made from its name (`Untitled_1`, `my_heat`, `_2heat`)."""
    if not path or path == "<input>":
        return "main"
    if path.startswith("<"):
        return _derived_name(path[1:-1] if path.endswith(">") else path[1:])
    return PurePath(path).stem


def _derived_name(name: str) -> str:
    stem = PurePath(re.split(r"[/\\:]", name)[-1]).stem
    derived = _NOT_NAME.sub("_", stem).strip("_")
    if not derived:
        return "main"
    return derived if _NAME.fullmatch(derived) else f"_{derived}"


def buffer_path(path: str) -> str:
    """The path an editor's buffer is analysed under: the file's path when its stem names
    a module, else the path in angle brackets, so that an untitled buffer or a file such
    as `my heat.ci` gets a module name made from its name instead of C2004 (and keeps its
    hovers and runs). `cint check` reads files by their paths and still reports C2004."""
    if path.startswith("<") or _NAME.fullmatch(PurePath(path).stem):
        return path
    return f"<{path}>"


class Lowerer:
    def __init__(self, source: SourceText, cache: ItemCache | None = None) -> None:
        self.source = source
        self.cache = cache
        self.ascii = source.data.isascii()
        self.anchor = ROOT
        self.depth = 0
        self.too_deep = False  # C1003 reported in the item being lowered (one per item)
        self.diagnostics: list[Diagnostic] = []
        self._texts: dict[bytes, str] = {}

    # ---- helpers

    def span(self, node: tree_sitter.Node) -> Span:
        """The node's span, relative to the anchor of the item being lowered. The
        lowering's hottest function (one call per node, 47,000 at 5,000 lines): the
        span is made in place rather than through `Span.relative`."""
        a = self.anchor
        a_byte, a_line, a_column = a.at  # the item being lowered is where it was made
        (start_row, start_col), (end_row, end_col) = node.start_point, node.end_point
        if self.ascii:
            start_col += 1
            end_col += 1
        else:
            start_col = self.source.line_column(node.start_byte)[1]
            end_col = self.source.line_column(node.end_byte)[1]
        start, end = node.start_byte - a_byte, node.end_byte - a_byte
        span = _new_span(Span)
        span.anchor = a
        if 0 <= start and end < _SHARED_OFFSETS:
            start, end = _OFFSETS[start], _OFFSETS[end]
        span._start, span._end = start, end
        line = span._line = start_row + 1 - a_line
        end_line = span._end_line = end_row + 1 - a_line
        span._column = start_col - a_column if line == 0 else start_col
        span._end_column = end_col - a_column if end_line == 0 else end_col
        return span

    def span_between(self, start: int, end: int) -> Span:
        """A span of two byte offsets, relative to the current anchor."""
        a = self.anchor
        a_byte, a_line, a_column = a.at
        line, column = self.source.line_column(start)
        end_line, end_column = self.source.line_column(end)
        line, end_line = line - a_line, end_line - a_line
        return Span.relative(
            a, start - a_byte, end - a_byte,
            line, column - a_column if line == 0 else column,
            end_line, end_column - a_column if end_line == 0 else end_column,
        )

    def text(self, node: tree_sitter.Node) -> str:
        # Interned: the same few names and literals recur all over a file (116,000
        # identifiers of 5 MB at 50,000 lines, nearly all repeats).
        # The texts met so far, by their bytes: most are met again, and a lookup is
        # cheaper than decoding and interning.
        data = self.source.data[node.start_byte:node.end_byte]
        text = self._texts.get(data)
        if text is None:
            text = self._texts[data] = sys.intern(data.decode("utf-8", errors="replace"))
        return text

    def name(self, node: tree_sitter.Node | None, parent: tree_sitter.Node) -> ast.Name:
        if node is None or node.is_missing:
            at = node or parent
            return ast.Name(self.span_between(at.end_byte, at.end_byte), "")
        return ast.Name(self.span(node), self.text(node))

    def error_at(self, node: tree_sitter.Node) -> ast.ErrorExpr:
        return ast.ErrorExpr(self.span(node))

    # ---- module

    def module(self, root: tree_sitter.Node) -> ast.Module:
        module = ast.Module(self.span(root), module_name(self.source.path))
        reused: dict[tuple[bytes, int], _CachedItem] = {}
        seen: dict[bytes, int] = {}
        places: dict[Anchor, tuple[int, int, int]] = {}
        if self.cache is not None:
            self.cache.places = places
        for child in root.named_children:
            if child.type == "comment":
                continue
            text = child.type.encode() + b"\0" + self.source.data[child.start_byte:child.end_byte]
            key = (text, seen.get(text, 0))  # equal items at two places are two entries
            seen[text] = key[1] + 1
            if self.ascii:  # the tree's point, without a search of the line index
                row, byte_column = child.start_point
                line, column = row + 1, byte_column + 1
            else:
                line, column = self.source.line_column(child.start_byte)
            # Only an item without syntax errors is reused: error recovery can give the
            # same text another tree in another context.
            reusable = self.cache is not None and not child.has_error
            cached = self.cache.items.get(key) if reusable and self.cache is not None else None
            if cached is not None:
                places[cached.anchor] = (child.start_byte, line, column)  # the item itself stays as it is
                self.diagnostics.extend(cached.diagnostics)
            else:
                self.anchor = Anchor(child.start_byte, line, column)
                before = len(self.diagnostics)
                cached = _CachedItem(self.item(child), self.anchor, self.diagnostics[before:])
                places[self.anchor] = self.anchor.at
                self.anchor = ROOT
            if reusable:
                reused[key] = cached
            if cached.node is None:
                continue
            if isinstance(cached.node, ast.Item):
                module.items.append(cached.node)
            else:
                module.statements.append(cached.node)
        if self.cache is not None:
            self.cache.items = reused
        return module

    def item(self, child: tree_sitter.Node) -> ast.Item | ast.Stmt | None:
        """A top-level node: an item, or a statement of the entry."""
        self.too_deep = False
        if child.type in _ITEMS:
            return self.deeper(_ITEMS[child.type], child)
        return self.statement(child)

    # ---- items

    def kernel(self, node: tree_sitter.Node) -> ast.KernelDef:
        sizes_node = node.child_by_field_id(_FIELDS["sizes"])
        space_node = node.child_by_field_id(_FIELDS["space"])
        where_node = node.child_by_field_id(_FIELDS["where"])
        return ast.KernelDef(
            self.span(node),
            self.name(node.child_by_field_id(_FIELDS["name"]), node),
            [self.name(s, node) for s in sizes_node.children_by_field_id(_FIELDS["size"])] if sizes_node else [],
            self.params(node.child_by_field_id(_FIELDS["parameters"])),
            [
                ast.OverBinding(
                    self.span(b),
                    self.name(b.child_by_field_id(_FIELDS["name"]), b),
                    self.expr_field(b, "extent"),
                )
                for b in (space_node.children_by_field_id(_FIELDS["dimension"]) if space_node else [])
            ],
            [self.expr(c) for c in where_node.children_by_field_id(_FIELDS["constraint"])] if where_node else [],
            self.block(node.child_by_field_id(_FIELDS["body"]), node),
        )

    def function(self, node: tree_sitter.Node) -> ast.FunctionDef:
        return ast.FunctionDef(
            self.span(node),
            node.child_by_field_id(_FIELDS["export"]) is not None,
            self.type_ref(node.child_by_field_id(_FIELDS["return_type"]), node),
            self.name(node.child_by_field_id(_FIELDS["name"]), node),
            self.params(node.child_by_field_id(_FIELDS["parameters"])),
            self.block(node.child_by_field_id(_FIELDS["body"]), node),
        )

    def struct(self, node: tree_sitter.Node) -> ast.StructDef:
        return ast.StructDef(
            self.span(node),
            self.name(node.child_by_field_id(_FIELDS["name"]), node),
            [
                ast.FieldDecl(
                    self.span(f),
                    self.type_ref(f.child_by_field_id(_FIELDS["type"]), f),
                    self.name(f.child_by_field_id(_FIELDS["name"]), f),
                )
                for f in node.children_by_field_id(_FIELDS["field"])
            ],
        )

    def import_(self, node: tree_sitter.Node) -> ast.Import:
        path = node.child_by_field_id(_FIELDS["path"])
        names = [self.name(n, node) for n in path.named_children] if path else []
        return ast.Import(self.span(node), names)

    def params(self, node: tree_sitter.Node | None) -> list[ast.Param]:
        if node is None:
            return []
        params = []
        for p in node.children_by_field_id(_FIELDS["parameter"]):
            mode = p.child_by_field_id(_FIELDS["mode"])
            params.append(
                ast.Param(
                    self.span(p),
                    self.text(mode) if mode is not None else None,
                    self.type_ref(p.child_by_field_id(_FIELDS["type"]), p),
                    self.name(p.child_by_field_id(_FIELDS["name"]), p),
                )
            )
        return params

    # ---- types

    def type_ref(self, node: tree_sitter.Node | None, parent: tree_sitter.Node) -> ast.TypeRef:
        if node is None or node.is_missing:
            at = node or parent
            return ast.ScalarTypeRef(self.span_between(at.start_byte, at.start_byte), "")
        kind = node.type
        if kind == "primitive_type":
            return ast.ScalarTypeRef(self.span(node), self.text(node))
        if kind == "type_identifier":
            return ast.NamedTypeRef(self.span(node), ast.Name(self.span(node), self.text(node)))
        if kind == "void_type":
            return ast.VoidTypeRef(self.span(node))
        if kind == "array_type":
            return ast.ArrayTypeRef(
                self.span(node),
                self.type_ref(node.child_by_field_id(_FIELDS["element"]), node),
                [self.expr(e) for e in node.children_by_field_id(_FIELDS["extent"])],
            )
        return ast.ScalarTypeRef(self.span(node), "")

    # ---- statements

    def block(self, node: tree_sitter.Node | None, parent: tree_sitter.Node) -> ast.Block:
        if node is None:
            return ast.Block(self.span_between(parent.end_byte, parent.end_byte), [])
        return ast.Block(self.span(node), self.statements(node.named_children))

    def statements(self, nodes: list[tree_sitter.Node]) -> list[ast.Stmt]:
        return [self.statement(n) for n in nodes if n.kind_id not in _COMMENT]

    def statement(self, node: tree_sitter.Node) -> ast.Stmt:
        lower = _STATEMENT_KINDS.get(node.kind_id)
        if lower is None:  # ERROR, or an item where a statement belongs
            return ast.ErrorStmt(self.span(node))
        if self.depth >= MAX_NESTING_DEPTH:
            self.nested_too_deeply(node)
            return ast.ErrorStmt(self.span(node))
        return self.deeper(lower, node)

    def nested_too_deeply(self, node: tree_sitter.Node) -> None:
        """C1003 at the first statement or expression past MAX_NESTING_DEPTH, once per
        item; the caller puts an error node in its place."""
        if self.too_deep:
            return
        self.too_deep = True
        self.diagnostics.append(Diagnostic(
            "C1003", Severity.ERROR,
            f"nested more than {MAX_NESTING_DEPTH} levels deep (blocks and expressions together); "
            "split it into functions or local variables",
            self.span(node),
        ))

    def deeper(self, lower: Callable[[Lowerer, tree_sitter.Node], _T], node: tree_sitter.Node) -> _T:
        self.depth += 1
        try:
            return lower(self, node)
        finally:
            self.depth -= 1

    def var_decl(self, node: tree_sitter.Node) -> ast.Stmt:
        value = node.child_by_field_id(_FIELDS["value"])
        return ast.VarDecl(
            self.span(node),
            self.type_ref(node.child_by_field_id(_FIELDS["type"]), node),
            self.name(node.child_by_field_id(_FIELDS["name"]), node),
            self.expr(value) if value is not None else None,
        )

    def assign(self, node: tree_sitter.Node) -> ast.Stmt:
        equals = next((c for c in node.children if c.type == "="), node)
        return ast.Assign(
            self.span(node),
            self.expr_field(node, "left"),
            self.expr_field(node, "right"),
            self.span(equals),
        )

    def expr_stmt(self, node: tree_sitter.Node) -> ast.Stmt:
        inner = node.named_children[0] if node.named_child_count else None
        return ast.ExprStmt(self.span(node), self.expr(inner) if inner else self.error_at(node))

    def print_(self, node: tree_sitter.Node) -> ast.Stmt:
        return ast.Print(self.span(node), self.string(node.child_by_field_id(_FIELDS["string"]), node))

    def string(self, node: tree_sitter.Node | None, parent: tree_sitter.Node) -> ast.StringLit:
        if node is None:
            return ast.StringLit(self.span(parent), [])
        parts: list[str | ast.Expr] = []
        for child in node.named_children:
            if child.type == "string_content":
                parts.append(self.text(child))
            elif child.type == "escape_sequence":
                parts.append(_ESCAPES.get(self.text(child), self.text(child)))
            elif child.type == "interpolation":
                parts.append(self.expr_field(child, "expression"))
        merged: list[str | ast.Expr] = []
        for part in parts:
            if isinstance(part, str) and merged and isinstance(merged[-1], str):
                merged[-1] += part
            else:
                merged.append(part)
        return ast.StringLit(self.span(node), merged)

    def if_(self, node: tree_sitter.Node) -> ast.Stmt:
        alternative = node.child_by_field_id(_FIELDS["alternative"])
        otherwise: ast.Block | ast.If | None = None
        if alternative is not None:
            lowered = self.statement(alternative)
            otherwise = lowered if isinstance(lowered, (ast.Block, ast.If)) else None
        return ast.If(
            self.span(node),
            self.expr_field(node, "condition"),
            self.block(node.child_by_field_id(_FIELDS["consequence"]), node),
            otherwise,
        )

    def for_(self, node: tree_sitter.Node) -> ast.Stmt:
        return ast.For(
            self.span(node),
            self.name(node.child_by_field_id(_FIELDS["variable"]), node),
            self.expr_field(node, "start"),
            self.expr_field(node, "end"),
            self.block(node.child_by_field_id(_FIELDS["body"]), node),
            self.span(node.children[0]),
        )

    def while_(self, node: tree_sitter.Node) -> ast.Stmt:
        return ast.While(
            self.span(node),
            self.expr_field(node, "condition"),
            self.block(node.child_by_field_id(_FIELDS["body"]), node),
            self.span(node.children[0]),
        )

    def switch(self, node: tree_sitter.Node) -> ast.Stmt:
        clauses = []
        for clause in node.children_by_field_id(_FIELDS["clause"]):
            label = self.expr_field(clause, "label") if clause.type == "case_clause" else None
            clauses.append(
                ast.SwitchClause(
                    self.span(clause), label, self.statements(clause.children_by_field_id(_FIELDS["statement"]))
                )
            )
        return ast.Switch(self.span(node), self.expr_field(node, "value"), clauses)

    def return_(self, node: tree_sitter.Node) -> ast.Stmt:
        value = node.child_by_field_id(_FIELDS["value"])
        return ast.Return(self.span(node), self.expr(value) if value is not None else None)

    def assert_(self, node: tree_sitter.Node) -> ast.Stmt:
        return ast.Assert(self.span(node), self.expr_field(node, "condition"))

    def reduce(self, node: tree_sitter.Node) -> ast.Stmt:
        arguments = node.child_by_field_id(_FIELDS["arguments"])
        return ast.Reduce(
            self.span(node),
            self.name(node.child_by_field_id(_FIELDS["target"]), node),
            self.name(node.child_by_field_id(_FIELDS["operator"]), node),
            [self.expr(a) for a in arguments.children_by_field_id(_FIELDS["argument"])] if arguments else [],
        )

    # ---- expressions

    def expr_field(self, node: tree_sitter.Node, name: str) -> ast.Expr:
        child = node.child_by_field_id(_FIELDS[name])
        if child is None:
            return ast.ErrorExpr(self.span_between(node.end_byte, node.end_byte))
        return self.expr(child)

    def expr(self, node: tree_sitter.Node) -> ast.Expr:
        if node.is_missing:
            return self.error_at(node)
        lower = _EXPRESSION_KINDS.get(node.kind_id)
        if lower is None:
            return self.error_at(node)
        if self.depth >= MAX_NESTING_DEPTH:
            self.nested_too_deeply(node)
            return self.error_at(node)
        self.depth += 1  # `deeper`, written out: a call per expression
        try:
            return lower(self, node)
        finally:
            self.depth -= 1

    def operator_span(self, node: tree_sitter.Node) -> tuple[str, Span]:
        op = node.child_by_field_id(_FIELDS["operator"])
        if op is None:
            return "", self.span(node)
        return self.text(op), self.span(op)

    def unary(self, node: tree_sitter.Node) -> ast.Expr:
        op, op_span = self.operator_span(node)
        return ast.Unary(self.span(node), op, self.expr_field(node, "operand"), op_span)

    def binary(self, node: tree_sitter.Node) -> ast.Expr:
        op, op_span = self.operator_span(node)
        return ast.Binary(
            self.span(node), op, self.expr_field(node, "left"), self.expr_field(node, "right"), op_span
        )

    def cast(self, node: tree_sitter.Node) -> ast.Expr:
        op, op_span = self.operator_span(node)
        return ast.Cast(
            self.span(node),
            op,
            self.expr_field(node, "value"),
            self.type_ref(node.child_by_field_id(_FIELDS["type"]), node),
            op_span,
        )

    def call(self, node: tree_sitter.Node) -> ast.Expr:
        arguments = node.child_by_field_id(_FIELDS["arguments"])
        return ast.Call(
            self.span(node),
            self.expr_field(node, "function"),
            [self.expr(a) for a in arguments.children_by_field_id(_FIELDS["argument"])] if arguments else [],
        )

    def index(self, node: tree_sitter.Node) -> ast.Expr:
        indices: list[ast.Expr | ast.Slice] = []
        for child in node.children_by_field_id(_FIELDS["index"]):
            if child.type == "slice":
                start = child.child_by_field_id(_FIELDS["start"])
                end = child.child_by_field_id(_FIELDS["end"])
                step = child.child_by_field_id(_FIELDS["step"])
                indices.append(
                    ast.Slice(
                        self.span(child),
                        self.expr(start) if start is not None else None,
                        self.expr(end) if end is not None else None,
                        self.expr(step) if step is not None else None,
                    )
                )
            else:
                indices.append(self.expr(child))
        bracket = next((c for c in node.children if c.type == "["), node)
        return ast.Index(self.span(node), self.expr_field(node, "value"), indices, self.span(bracket))

    def field(self, node: tree_sitter.Node) -> ast.Expr:
        return ast.Field(
            self.span(node), self.expr_field(node, "value"), self.name(node.child_by_field_id(_FIELDS["field"]), node)
        )

    def type_property(self, node: tree_sitter.Node) -> ast.Expr:
        type_node = node.child_by_field_id(_FIELDS["type"])
        type_ref = ast.ScalarTypeRef(self.span(type_node), self.text(type_node)) if type_node else \
            ast.ScalarTypeRef(self.span(node), "")
        return ast.TypeProperty(self.span(node), type_ref, self.name(node.child_by_field_id(_FIELDS["property"]), node))

    def array_literal(self, node: tree_sitter.Node) -> ast.Expr:
        return ast.ArrayLit(self.span(node), [self.expr(e) for e in node.children_by_field_id(_FIELDS["element"])])

    def paren(self, node: tree_sitter.Node) -> ast.Expr:
        return ast.Paren(self.span(node), self.expr_field(node, "expression"))


_ITEMS: dict[str, Callable[[Lowerer, tree_sitter.Node], ast.Item]] = {
    "kernel_definition": Lowerer.kernel,
    "function_definition": Lowerer.function,
    "struct_definition": Lowerer.struct,
    "import_declaration": Lowerer.import_,
}

_STATEMENTS: dict[str, Callable[[Lowerer, tree_sitter.Node], ast.Stmt]] = {
    "variable_declaration": Lowerer.var_decl,
    "assignment_statement": Lowerer.assign,
    "expression_statement": Lowerer.expr_stmt,
    "print_statement": Lowerer.print_,
    "if_statement": Lowerer.if_,
    "for_statement": Lowerer.for_,
    "while_statement": Lowerer.while_,
    "switch_statement": Lowerer.switch,
    "break_statement": lambda self, node: ast.Break(self.span(node)),
    "continue_statement": lambda self, node: ast.Continue(self.span(node)),
    "return_statement": Lowerer.return_,
    "assert_statement": Lowerer.assert_,
    "reduce_statement": Lowerer.reduce,
    "block": lambda self, node: self.block(node, node),
}

_EXPRESSIONS: dict[str, Callable[[Lowerer, tree_sitter.Node], ast.Expr]] = {
    "identifier": lambda self, node: ast.Ident(self.span(node), self.text(node)),
    "integer_literal": lambda self, node: ast.IntLit(self.span(node), self.text(node)),
    "fixed_literal": lambda self, node: ast.FixedLit(self.span(node), self.text(node)),
    "boolean_literal": lambda self, node: ast.BoolLit(self.span(node), self.text(node) == "true"),
    "parenthesized_expression": Lowerer.paren,
    "array_literal": Lowerer.array_literal,
    "unary_expression": Lowerer.unary,
    "binary_expression": Lowerer.binary,
    "cast_expression": Lowerer.cast,
    "call_expression": Lowerer.call,
    "index_expression": Lowerer.index,
    "field_expression": Lowerer.field,
    "type_property": Lowerer.type_property,
}


# The grammar's node kinds and fields by their numbers: the hot paths ask a node for
# `kind_id` and `child_by_field_id`, not `type` (a new str, hashed, at every call) and
# `child_by_field_name` (the name compared with every field's); 10% of the lowering.
_FIELDS: dict[str, int] = {language().field_name_for_id(i) or "": i for i in range(1, language().field_count + 1)}


def _by_kind(table: dict[str, _T]) -> dict[int, _T]:
    """`table` by the numbers of the node kinds it names (a name can have several)."""
    kinds = language()
    return {i: table[name] for i in range(kinds.node_kind_count) if (name := kinds.node_kind_for_id(i)) in table}


_STATEMENT_KINDS = _by_kind(_STATEMENTS)
_EXPRESSION_KINDS = _by_kind(_EXPRESSIONS)
_COMMENT = frozenset(_by_kind({"comment": True}))


def lower(tree: tree_sitter.Tree, source: SourceText,
          cache: ItemCache | None = None) -> tuple[ast.Module, list[Diagnostic]]:
    """The AST of a parsed file, and the diagnostics of lowering (C1003). With a cache,
    unchanged top-level items are reused from the previous version."""
    lowerer = Lowerer(source, cache)
    return lowerer.module(tree.root_node), lowerer.diagnostics
