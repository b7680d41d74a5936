"""The typed syntax tree of cint, lowered from the tree-sitter tree (`lower.py`).

Every node carries its `span`. Operators also carry `op_span`, the place a fault at the
operator is reported (SPEC-02P.1 5.6: "the operator or subscript that faulted").
A part the parser could not recover is an `ErrorExpr`/`ErrorStmt`, so the analysis can
go on around it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .source import Span


@dataclass(eq=False, slots=True)
class Node:
    span: Span


# ------------------------------------------------------------------ names and types


@dataclass(eq=False, slots=True)
class Name(Node):
    text: str


@dataclass(eq=False, slots=True)
class TypeRef(Node):
    pass


@dataclass(eq=False, slots=True)
class ScalarTypeRef(TypeRef):
    """A built-in scalar type spelling (`I64`, `Q16.16`, `Bool`), not yet validated."""

    text: str


@dataclass(eq=False, slots=True)
class NamedTypeRef(TypeRef):
    """A named type (a struct)."""

    name: Name


@dataclass(eq=False, slots=True)
class ArrayTypeRef(TypeRef):
    element: TypeRef
    extents: list[Expr]


@dataclass(eq=False, slots=True)
class VoidTypeRef(TypeRef):
    pass


# ------------------------------------------------------------------ expressions


@dataclass(eq=False, slots=True)
class Expr(Node):
    pass


@dataclass(eq=False, slots=True)
class ErrorExpr(Expr):
    """An expression the parser could not recover (already reported as syntax)."""


@dataclass(eq=False, slots=True)
class Ident(Expr):
    name: str


@dataclass(eq=False, slots=True)
class IntLit(Expr):
    text: str


@dataclass(eq=False, slots=True)
class FixedLit(Expr):
    text: str


@dataclass(eq=False, slots=True)
class BoolLit(Expr):
    value: bool


@dataclass(eq=False, slots=True)
class Paren(Expr):
    expr: Expr


@dataclass(eq=False, slots=True)
class ArrayLit(Expr):
    elements: list[Expr]


@dataclass(eq=False, slots=True)
class Unary(Expr):
    op: str  # '-', '!', '~'
    operand: Expr
    op_span: Span


@dataclass(eq=False, slots=True)
class Binary(Expr):
    op: str
    left: Expr
    right: Expr
    op_span: Span


@dataclass(eq=False, slots=True)
class Cast(Expr):
    op: str  # 'as', 'as%', 'as?'
    value: Expr
    type: TypeRef
    op_span: Span


@dataclass(eq=False, slots=True)
class Call(Expr):
    """A call, a built-in (`div_round`, `min`, `reverse`…) or a dispatch."""

    callee: Expr  # Ident, or Field for `mod.f`
    args: list[Expr]


@dataclass(eq=False, slots=True)
class Slice(Node):
    """`lo..hi`, `lo..hi by s`, `..`; not an expression on its own."""

    start: Expr | None
    end: Expr | None
    step: Expr | None


@dataclass(eq=False, slots=True)
class Index(Expr):
    value: Expr
    indices: list[Expr | Slice]
    bracket_span: Span


@dataclass(eq=False, slots=True)
class Field(Expr):
    value: Expr
    field: Name


@dataclass(eq=False, slots=True)
class TypeProperty(Expr):
    """`I128.max`, `Q16.16.min`."""

    type: ScalarTypeRef
    property: Name


@dataclass(eq=False, slots=True)
class StringLit(Node):
    """A string statement's text: literal pieces (escapes decoded) and `{expr}`s."""

    parts: list[str | Expr]


# ------------------------------------------------------------------ statements


@dataclass(eq=False, slots=True)
class Stmt(Node):
    pass


@dataclass(eq=False, slots=True)
class ErrorStmt(Stmt):
    """A statement the parser could not recover (already reported as syntax)."""


@dataclass(eq=False, slots=True)
class Block(Stmt):
    statements: list[Stmt]


@dataclass(eq=False, slots=True)
class VarDecl(Stmt):
    type: TypeRef
    name: Name
    value: Expr | None


@dataclass(eq=False, slots=True)
class Assign(Stmt):
    target: Expr
    value: Expr
    op_span: Span  # the `=`


@dataclass(eq=False, slots=True)
class ExprStmt(Stmt):
    expr: Expr


@dataclass(eq=False, slots=True)
class Print(Stmt):
    string: StringLit


@dataclass(eq=False, slots=True)
class If(Stmt):
    condition: Expr
    then: Block
    otherwise: Block | If | None


@dataclass(eq=False, slots=True)
class For(Stmt):
    variable: Name
    start: Expr
    end: Expr
    body: Block
    keyword_span: Span


@dataclass(eq=False, slots=True)
class While(Stmt):
    condition: Expr
    body: Block
    keyword_span: Span


@dataclass(eq=False, slots=True)
class SwitchClause(Node):
    label: Expr | None  # None for `default`
    body: list[Stmt]


@dataclass(eq=False, slots=True)
class Switch(Stmt):
    value: Expr
    clauses: list[SwitchClause]


@dataclass(eq=False, slots=True)
class Break(Stmt):
    pass


@dataclass(eq=False, slots=True)
class Continue(Stmt):
    pass


@dataclass(eq=False, slots=True)
class Return(Stmt):
    value: Expr | None


@dataclass(eq=False, slots=True)
class Assert(Stmt):
    condition: Expr


@dataclass(eq=False, slots=True)
class Reduce(Stmt):
    """`reduce target = op(args);`"""

    target: Name
    op: Name
    args: list[Expr]


# ------------------------------------------------------------------ items


@dataclass(eq=False, slots=True)
class Param(Node):
    mode: str | None  # 'in', 'out', 'inout'; None when not written (means `in`)
    type: TypeRef
    name: Name

    @property
    def effective_mode(self) -> str:
        return self.mode or "in"


@dataclass(eq=False, slots=True)
class OverBinding(Node):
    name: Name
    extent: Expr


@dataclass(eq=False, slots=True)
class Item(Node):
    pass


@dataclass(eq=False, slots=True)
class KernelDef(Item):
    name: Name
    sizes: list[Name]
    params: list[Param]
    space: list[OverBinding]
    where: list[Expr]
    body: Block


@dataclass(eq=False, slots=True)
class FunctionDef(Item):
    export: bool
    return_type: TypeRef
    name: Name
    params: list[Param]
    body: Block


@dataclass(eq=False, slots=True)
class FieldDecl(Node):
    type: TypeRef
    name: Name


@dataclass(eq=False, slots=True)
class StructDef(Item):
    name: Name
    fields: list[FieldDecl]


@dataclass(eq=False, slots=True)
class Import(Item):
    path: list[Name]


@dataclass(eq=False, slots=True)
class Module(Node):
    """A file: its items and, in source order, the top-level statements that form
    its entry (LANGUAGE.md "Functions, entries, programs")."""

    name: str
    items: list[Item] = field(default_factory=list)
    statements: list[Stmt] = field(default_factory=list)

    def kernels(self) -> list[KernelDef]:
        return [item for item in self.items if isinstance(item, KernelDef)]

    def functions(self) -> list[FunctionDef]:
        return [item for item in self.items if isinstance(item, FunctionDef)]
