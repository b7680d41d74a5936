"""The typed syntax tree of cint, lowered from the tree-sitter tree (`lower.py`).

Every node carries its `span`. Operators also carry `op_span`, the place a fault at the
operator is reported (SPEC-02P.1 5.6: "the operator or subscript that faulted").
A part the parser could not recover is an `ErrorExpr`/`ErrorStmt`, so the analysis can
go on around it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .source import Span


@dataclass(eq=False, slots=True, repr=False)
class Node:
    span: Span

    def __repr__(self) -> str:
        # One for every node class, where dataclass would compile one for each (5 ms of
        # the server's start, issue 29); the same text as theirs.
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__dataclass_fields__)
        return f"{type(self).__name__}({fields})"


# ------------------------------------------------------------------ names and types


@dataclass(eq=False, slots=True, repr=False)
class Name(Node):
    text: str


@dataclass(eq=False, slots=True, repr=False)
class TypeRef(Node):
    pass


@dataclass(eq=False, slots=True, repr=False)
class ScalarTypeRef(TypeRef):
    """A built-in scalar type spelling (`I64`, `Q16.16`, `Bool`), not yet validated."""

    text: str


@dataclass(eq=False, slots=True, repr=False)
class NamedTypeRef(TypeRef):
    """A named type (a struct)."""

    name: Name


@dataclass(eq=False, slots=True, repr=False)
class ArrayTypeRef(TypeRef):
    element: TypeRef
    extents: list[Expr]


@dataclass(eq=False, slots=True, repr=False)
class VoidTypeRef(TypeRef):
    pass


# ------------------------------------------------------------------ expressions


@dataclass(eq=False, slots=True, repr=False)
class Expr(Node):
    pass


@dataclass(eq=False, slots=True, repr=False)
class ErrorExpr(Expr):
    """An expression the parser could not recover (already reported as syntax)."""


@dataclass(eq=False, slots=True, repr=False)
class Ident(Expr):
    name: str


@dataclass(eq=False, slots=True, repr=False)
class IntLit(Expr):
    text: str


@dataclass(eq=False, slots=True, repr=False)
class FixedLit(Expr):
    text: str


@dataclass(eq=False, slots=True, repr=False)
class BoolLit(Expr):
    value: bool


@dataclass(eq=False, slots=True, repr=False)
class Paren(Expr):
    expr: Expr


@dataclass(eq=False, slots=True, repr=False)
class ArrayLit(Expr):
    elements: list[Expr]


@dataclass(eq=False, slots=True, repr=False)
class Unary(Expr):
    op: str  # '-', '!', '~'
    operand: Expr
    op_span: Span


@dataclass(eq=False, slots=True, repr=False)
class Binary(Expr):
    op: str
    left: Expr
    right: Expr
    op_span: Span


@dataclass(eq=False, slots=True, repr=False)
class Cast(Expr):
    op: str  # 'as', 'as%', 'as?'
    value: Expr
    type: TypeRef
    op_span: Span


@dataclass(eq=False, slots=True, repr=False)
class Call(Expr):
    """A call, a built-in (`div_round`, `min`, `reverse`…) or a dispatch."""

    callee: Expr  # Ident, or Field for `mod.f`
    args: list[Expr]


@dataclass(eq=False, slots=True, repr=False)
class Slice(Node):
    """`lo..hi`, `lo..hi by s`, `..`; not an expression on its own."""

    start: Expr | None
    end: Expr | None
    step: Expr | None


@dataclass(eq=False, slots=True, repr=False)
class Index(Expr):
    value: Expr
    indices: list[Expr | Slice]
    bracket_span: Span


@dataclass(eq=False, slots=True, repr=False)
class Field(Expr):
    value: Expr
    field: Name


@dataclass(eq=False, slots=True, repr=False)
class TypeProperty(Expr):
    """`I128.max`, `Q16.16.min`."""

    type: ScalarTypeRef
    property: Name


@dataclass(eq=False, slots=True, repr=False)
class StringLit(Node):
    """A string statement's text: literal pieces (escapes decoded) and `{expr}`s."""

    parts: list[str | Expr]


# ------------------------------------------------------------------ statements


@dataclass(eq=False, slots=True, repr=False)
class Stmt(Node):
    pass


@dataclass(eq=False, slots=True, repr=False)
class ErrorStmt(Stmt):
    """A statement the parser could not recover (already reported as syntax)."""


@dataclass(eq=False, slots=True, repr=False)
class Block(Stmt):
    statements: list[Stmt]


@dataclass(eq=False, slots=True, repr=False)
class VarDecl(Stmt):
    type: TypeRef
    name: Name
    value: Expr | None


@dataclass(eq=False, slots=True, repr=False)
class Assign(Stmt):
    target: Expr
    value: Expr
    op_span: Span  # the `=`


@dataclass(eq=False, slots=True, repr=False)
class ExprStmt(Stmt):
    expr: Expr


@dataclass(eq=False, slots=True, repr=False)
class Print(Stmt):
    string: StringLit


@dataclass(eq=False, slots=True, repr=False)
class If(Stmt):
    condition: Expr
    then: Block
    otherwise: Block | If | None


@dataclass(eq=False, slots=True, repr=False)
class For(Stmt):
    variable: Name
    start: Expr
    end: Expr
    body: Block
    keyword_span: Span


@dataclass(eq=False, slots=True, repr=False)
class While(Stmt):
    condition: Expr
    body: Block
    keyword_span: Span


@dataclass(eq=False, slots=True, repr=False)
class SwitchClause(Node):
    label: Expr | None  # None for `default`
    body: list[Stmt]


@dataclass(eq=False, slots=True, repr=False)
class Switch(Stmt):
    value: Expr
    clauses: list[SwitchClause]


@dataclass(eq=False, slots=True, repr=False)
class Break(Stmt):
    pass


@dataclass(eq=False, slots=True, repr=False)
class Continue(Stmt):
    pass


@dataclass(eq=False, slots=True, repr=False)
class Return(Stmt):
    value: Expr | None


@dataclass(eq=False, slots=True, repr=False)
class Assert(Stmt):
    condition: Expr


@dataclass(eq=False, slots=True, repr=False)
class Reduce(Stmt):
    """`reduce target = op(args);`"""

    target: Name
    op: Name
    args: list[Expr]


# ------------------------------------------------------------------ items


@dataclass(eq=False, slots=True, repr=False)
class Param(Node):
    mode: str | None  # 'in', 'out', 'inout'; None when not written (means `in`)
    type: TypeRef
    name: Name

    @property
    def effective_mode(self) -> str:
        return self.mode or "in"


@dataclass(eq=False, slots=True, repr=False)
class OverBinding(Node):
    name: Name
    extent: Expr


@dataclass(eq=False, slots=True, repr=False)
class Item(Node):
    pass


@dataclass(eq=False, slots=True, repr=False)
class KernelDef(Item):
    name: Name
    sizes: list[Name]
    params: list[Param]
    space: list[OverBinding]
    where: list[Expr]
    body: Block


@dataclass(eq=False, slots=True, repr=False)
class FunctionDef(Item):
    export: bool
    return_type: TypeRef
    name: Name
    params: list[Param]
    body: Block


@dataclass(eq=False, slots=True, repr=False)
class FieldDecl(Node):
    type: TypeRef
    name: Name


@dataclass(eq=False, slots=True, repr=False)
class StructDef(Item):
    name: Name
    fields: list[FieldDecl]


@dataclass(eq=False, slots=True, repr=False)
class Import(Item):
    path: list[Name]


@dataclass(eq=False, slots=True, repr=False)
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
