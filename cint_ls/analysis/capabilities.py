"""The capability profile of gpu-cuda (SPEC-02P.1 10.5, Table 3 and the list of refused
capabilities) as data, and the walk that finds every construct of a module's kernels
that the profile refuses.

The profile is two tables (ARCHITECTURE.md "Capability profile"): `TYPE_CLASSES` maps a
class of types to native or refused-with-capability, and `CONSTRUCTS` maps a construct
(an operator in a form, a statement, a built-in) likewise. `STORE_ELEMENTS` is Table 3's
"element stores into outputs of I32, U32, I64 and U64". Anything the walk meets that no
table lists is refused with `node` (10.5 paragraph 10: "Every family, form or type that
the table does not list is refused").

`gpu_refusals` is the single source of truth: the editor's diagnostics, hovers and
`cint check --executor gpu-cuda` read it, and gpu-cuda's admission reuses it. Its list is
in *build order*: the kernels in source order; in each, the parameters, then the body in
evaluation order with the operands of an operation before the operation and the value
of a store before the store itself, because that is the order in which a code generator
meets them. The first refusal of that order is the one a gpu-cuda build reports
(SPEC-02P.1 10.5 paragraph 11): for `narrow_out` it is the division at 2:17, not the
narrow store at 2:5 that encloses it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..syntax import ast
from ..syntax.source import Span
from ..vocabulary.operators import BINARY_OPERATORS, CONVERSION_OPERATORS, UNARY_OPERATORS, Operator
from .builtins import VIEW_BUILTINS
from .result import CheckedModule, KernelInfo, Refusal  # Refusal lives beside KernelInfo, which keeps them
from .symbols import SymbolKind
from .types import ArrayType, BoolType, FixedType, IntType, Type

EXECUTOR = "gpu-cuda"
NATIVE = None  # a table entry that the executor runs natively

# The capabilities gpu-cuda refuses, each with what needs it (SPEC-02P.1 10.5 para 10).
CAPABILITIES: dict[str, str] = {
    "wide": "a value, element or operand of an integer type wider than 64 bits",
    "sat": "a saturating operator",
    "result": "a result form, or an error value",
    "div": "/ or %",
    "shift": "a shift",
    "bits": "&, |, ^ or ~",
    "neg": "unary minus",
    "as.wrap": "the conversions as% and as?",
    "builtin": "a built-in operation other than div_round, such as min, max or abs",
    "switch": "a switch statement",
    "store.narrow": "a store into an output whose elements are Bool or of 8 or 16 bits",
    "array": "a local array",
    "struct": "a struct value",
    "view.make": "forming a view inside the body",
    "reduce.view": "a reduction over a whole view inside the body",
    "call": "a call of a function",
    "print": "printing inside the body",
    "assert": "asserting inside the body",
    "state": "a module-level variable",
    "outer.write": "an assignment to a variable that the work-item body does not declare",
    "params": "a kernel whose parameters need more than 4,096 bytes, or more than 61 parameters",
    "node": "any other construct, fixed-point values included",
}


@dataclass(frozen=True, slots=True)
class Entry:
    """One row of the profile: native (capability None) or refused with a capability."""

    capability: str | None
    what: str  # what the construct is, for messages: "unary minus"

    @property
    def native(self) -> bool:
        return self.capability is None


def _native(what: str) -> Entry:
    return Entry(NATIVE, what)


# ---- Table 3, "Native types": Bool, I8 to I64, U8 to U64.
TYPE_CLASSES: dict[str, Entry] = {
    "bool": _native("Bool"),
    "int8": _native("an 8-bit integer"),
    "int16": _native("a 16-bit integer"),
    "int32": _native("a 32-bit integer"),
    "int64": _native("a 64-bit integer"),
    "int.wide": Entry("wide", "an integer type wider than 64 bits"),
    "fixed": Entry("node", "a fixed-point value"),
}

# ---- Table 3, "element stores into outputs of I32, U32, I64 and U64".
STORE_ELEMENTS: dict[str, Entry] = {
    "bool": Entry("store.narrow", "a store into an output of Bool elements"),
    "int8": Entry("store.narrow", "a store into an output of 8-bit elements"),
    "int16": Entry("store.narrow", "a store into an output of 16-bit elements"),
    "int32": _native("a store into an output of 32-bit elements"),
    "int64": _native("a store into an output of 64-bit elements"),
}

# ---- Table 3, "Native operations", and the refusal list: construct -> entry. An
# operator's construct is the family of the operation it names (cint_ls.vocabulary.operators).
CONSTRUCTS: dict[str, Entry] = {
    # checked and wrapping +, - and *
    "add.checked": _native("checked addition `+`"),
    "sub.checked": _native("checked subtraction `-`"),
    "mul.checked": _native("checked multiplication `*`"),
    "add.wrap": _native("wrapping addition `+%`"),
    "sub.wrap": _native("wrapping subtraction `-%`"),
    "mul.wrap": _native("wrapping multiplication `*%`"),
    "add.sat": Entry("sat", "saturating addition `+|`"),
    "sub.sat": Entry("sat", "saturating subtraction `-|`"),
    "mul.sat": Entry("sat", "saturating multiplication `*|`"),
    "div.checked": Entry("div", "division `/`"),
    "rem.checked": Entry("div", "remainder `%`"),
    "shl.checked": Entry("shift", "shift `<<`"),
    "shr.checked": Entry("shift", "shift `>>`"),
    "and": Entry("bits", "bitwise `&`"),
    "or": Entry("bits", "bitwise `|`"),
    "xor": Entry("bits", "bitwise `^`"),
    "not": Entry("bits", "bitwise `~`"),
    "neg.checked": Entry("neg", "unary minus"),
    # comparisons; &&, || and ! on Bool
    "compare": _native("a comparison"),
    "logic": _native("`&&`, `||` or `!`"),
    # the checked conversion as between the native types
    "as.checked": _native("the checked conversion `as`"),
    "as.wrap": Entry("as.wrap", "the wrapping conversion `as%`"),
    "as.result": Entry("as.wrap", "the result form `as?`"),
    # div_round in every rounding mode; other built-ins refused
    "div_round": _native("div_round"),
    "min": Entry("builtin", "the built-in `min`"),
    "max": Entry("builtin", "the built-in `max`"),
    "abs": Entry("builtin", "the built-in `abs`"),
    "view": Entry("view.make", "forming a view inside the body"),
    "call": Entry("call", "a call of a function"),
    # element reads; stores (by element class, STORE_ELEMENTS)
    "read": _native("an element read"),
    "store": _native("an element store"),
    # if, else, for, while, break and continue; fuel charges
    "if": _native("`if`/`else`"),
    "for": _native("a `for` loop"),
    "while": _native("a `while` loop"),
    "break": _native("`break`"),
    "continue": _native("`continue`"),
    "switch": Entry("switch", "a switch statement"),
    "return": Entry("node", "a `return` statement"),
    "local.array": Entry("array", "a local array"),
    "print": Entry("print", "printing inside the body"),
    "assert": Entry("assert", "an assertion inside the body"),
    "struct": Entry("struct", "a struct value"),
    "state": Entry("state", "a module-level variable"),
    "outer.write": Entry("outer.write", "an assignment to a variable the body does not declare"),
    # reduce in every form over contributions of the native types
    "reduce": _native("a reduce statement"),
    "params": Entry("params", "more than 61 parameters, or more than 4,096 bytes of them"),
}

# The `params` limits, and what a parameter needs in the launch's parameter buffer: a
# scalar or a size symbol 8 bytes, a view its address, origin and an extent and a stride
# for each dimension (8 bytes each).
MAX_PARAMS = 61
MAX_PARAM_BYTES = 4096


def type_class(t: Type) -> str | None:
    """The class of a scalar type in TYPE_CLASSES (None for a type the walk ignores)."""
    if isinstance(t, ArrayType):
        t = t.element
    if isinstance(t, BoolType):
        return "bool"
    if isinstance(t, IntType):
        return f"int{t.bits}" if t.bits <= 64 else "int.wide"
    if isinstance(t, FixedType):
        return "fixed"
    return None


_NATIVE: dict[Type, bool] = {}


def _native_type(t: Type) -> bool:
    """Whether gpu-cuda takes values of `t` natively (no type class, or a native one);
    asked for every operand of every operation, so remembered per type."""
    native = _NATIVE.get(t)
    if native is None:
        cls = type_class(t)
        native = _NATIVE[t] = cls is None or TYPE_CLASSES[cls].native
    return native


def _construct(operators: dict[str, Operator], op: str) -> str:
    """The construct of a source operator; `node` for one the tables do not know."""
    operator = operators.get(op)
    return operator.family if operator is not None else "node"


def _entry(key: str) -> Entry:
    """The construct's entry; one the tables do not know is refused as `node`. (Not
    `CONSTRUCTS.get(key, Entry(...))`: that makes an Entry for every operation walked.)"""
    entry = CONSTRUCTS.get(key)
    return entry if entry is not None else Entry("node", key)


def param_bytes(t: Type) -> int:
    return 8 * (2 + 2 * t.rank) if isinstance(t, ArrayType) else 8


class _KernelWalk:
    """The refusals of one kernel, in build order."""

    def __init__(self, checked: CheckedModule, info: KernelInfo) -> None:
        self.checked = checked
        self.info = info
        self.name = info.symbol.name
        self.out: list[Refusal] = []

    def refuse(self, entry: Entry, span: Span) -> None:
        if entry.capability is not None:
            self.out.append(Refusal(self.name, entry.capability, entry.what, span.freeze()))

    def construct(self, key: str, span: Span) -> None:
        self.refuse(_entry(key), span)

    def type_of(self, node: ast.Node) -> Type | None:
        return self.checked.types.get(node)

    def value_type(self, t: Type | None, span: Span, what: str = "a value of {type}") -> bool:
        """Refuse a value of a refused type class; True when one was refused. `what`
        says what needs the type, `{type}` standing for its name."""
        if t is None:
            return False
        cls = type_class(t)
        if cls is None:
            return False
        entry = TYPE_CLASSES[cls]
        if entry.native:
            return False
        name = t.element.name if isinstance(t, ArrayType) else t.name
        self.refuse(Entry(entry.capability, what.format(type=name)), span)
        return True

    # ---- the kernel

    def run(self) -> list[Refusal]:
        node = self.info.node
        for param, symbol in zip(node.params, self.info.params):
            span = param.type.element.span if isinstance(param.type, ast.ArrayTypeRef) else param.type.span
            what = "the {type} elements of `%s`" if isinstance(symbol.type, ArrayType) else "the {type} parameter `%s`"
            self.value_type(symbol.type, span, what % symbol.name)
        # Table 3 counts parameters; size symbols are not parameters (Table 1, 8.2), though
        # their values travel in the launch's parameter buffer and count in its bytes.
        count = len(self.info.params)
        size = sum(param_bytes(s.type) for s in self.info.params) + 8 * len(self.info.sizes)
        if count > MAX_PARAMS or size > MAX_PARAM_BYTES:
            self.refuse(Entry("params", f"{count} parameters, {size} bytes with the size symbols (at most {MAX_PARAMS} and "
                              f"{MAX_PARAM_BYTES} bytes)"), node.name.span)
        self.block(node.body.statements)
        return self.out

    # ---- statements

    def block(self, statements: list[ast.Stmt]) -> None:
        for s in statements:
            self.statement(s)

    def statement(self, s: ast.Stmt) -> None:
        if isinstance(s, ast.Block):
            self.block(s.statements)
        elif isinstance(s, ast.VarDecl):
            if isinstance(s.type, ast.ArrayTypeRef):
                self.construct("local.array", s.span)
                for extent in s.type.extents:
                    self.expr(extent)
                if s.value is not None:
                    self.expr(s.value)
                return
            symbol = self.checked.symbols.get(s.name)
            if symbol is not None:
                self.value_type(symbol.type, s.type.span, "the {type} local `" + symbol.name + "`")
            if s.value is not None:
                self.expr(s.value)
        elif isinstance(s, ast.Assign):
            self.assign(s)
        elif isinstance(s, ast.ExprStmt):
            self.expr(s.expr)
        elif isinstance(s, ast.Print):
            for part in s.string.parts:
                if isinstance(part, ast.Expr):
                    self.expr(part)
            self.construct("print", s.span)
        elif isinstance(s, ast.If):
            self.expr(s.condition)
            self.block(s.then.statements)
            if s.otherwise is not None:
                self.statement(s.otherwise)
        elif isinstance(s, ast.For):
            self.expr(s.start)
            self.expr(s.end)
            self.block(s.body.statements)
        elif isinstance(s, ast.While):
            self.expr(s.condition)
            self.block(s.body.statements)
        elif isinstance(s, ast.Switch):
            self.construct("switch", s.span)
            self.expr(s.value)
            for clause in s.clauses:
                self.block(clause.body)
        elif isinstance(s, (ast.Break, ast.Continue)):
            pass
        elif isinstance(s, ast.Return):
            if s.value is not None:
                self.expr(s.value)
            self.construct("return", s.span)
        elif isinstance(s, ast.Assert):
            self.expr(s.condition)
            self.construct("assert", s.span)
        elif isinstance(s, ast.Reduce):
            for arg in s.args:
                if not (isinstance(arg, ast.Ident) and arg.name == "add" and s.op.text == "fold_checked"
                        and arg is s.args[0]):
                    self.expr(arg)
            contribution = s.args[-1] if s.args else None
            t = self.type_of(contribution) if contribution is not None else None
            if t is not None and isinstance(t, ArrayType):
                self.construct("reduce.view", s.op.span)
            elif t is not None:
                self.value_type(t, s.op.span, f"`{s.op.text}` over {{type}} contributions")
        elif isinstance(s, ast.ErrorStmt):
            pass
        else:
            self.construct(type(s).__name__.lower(), s.span)

    def assign(self, s: ast.Assign) -> None:
        target = s.target
        if isinstance(target, ast.Index):
            for index in target.indices:
                self.index_part(index)
            self.expr(s.value)
            base = target.value
            symbol = self.checked.symbols.get(base) if isinstance(base, ast.Ident) else None
            t = symbol.type if symbol is not None else None
            if symbol is not None and symbol.kind is SymbolKind.PARAM and isinstance(t, ArrayType):
                cls = type_class(t)
                if cls in STORE_ELEMENTS:
                    entry = STORE_ELEMENTS[cls]
                    self.refuse(Entry(entry.capability, f"a store into `{symbol.name}`, an output of "
                                      f"{t.element.name} elements"), target.bracket_span)
                else:
                    self.value_type(t, target.bracket_span, "a store of {type} elements")
            elif t is not None:
                # A local array's element (the array itself is refused) or a wide/fixed element.
                if not isinstance(base, ast.Ident):
                    self.construct("view", base.span)
            return
        self.expr(s.value)
        if isinstance(target, ast.Ident):
            symbol = self.checked.symbols.get(target)
            if symbol is not None and symbol.owner != self.name:
                self.construct("state" if symbol.kind is SymbolKind.ENTRY_LOCAL else "outer.write", target.span)
            elif symbol is not None and symbol.kind in (SymbolKind.PARAM, SymbolKind.SIZE, SymbolKind.OVER):
                self.construct("outer.write", target.span)

    # ---- expressions (operands first, then the operation)

    def index_part(self, index: ast.Expr | ast.Slice) -> None:
        if isinstance(index, ast.Slice):
            for part in (index.start, index.end, index.step):
                if part is not None:
                    self.expr(part)
            self.construct("view", index.span)
        else:
            self.expr(index)

    def expr(self, e: ast.Expr) -> None:
        # By the node's class (a table, not a chain of isinstance: every operand of
        # every kernel passes here, the diagnostics of each version ask for it).
        walk = _EXPRESSIONS.get(type(e))
        if walk is None:
            self.construct("node", e.span)
        else:
            walk(self, e)

    def leaf(self, e: ast.Expr) -> None:
        pass

    def fixed_literal(self, e: ast.FixedLit) -> None:
        self.value_type(self.type_of(e), e.span, "a {type} literal")

    def ident(self, e: ast.Ident) -> None:
        symbol = self.checked.symbols.get(e)
        if symbol is not None and symbol.kind is SymbolKind.ENTRY_LOCAL:
            self.construct("state", e.span)

    def paren(self, e: ast.Paren) -> None:
        self.expr(e.expr)

    def unary(self, e: ast.Unary) -> None:
        self.expr(e.operand)
        self.operation(_construct(UNARY_OPERATORS, e.op), e, e.op_span, [e.operand])

    def binary(self, e: ast.Binary) -> None:
        self.expr(e.left)
        self.expr(e.right)
        self.operation(_construct(BINARY_OPERATORS, e.op), e, e.op_span, [e.left, e.right])

    def cast(self, e: ast.Cast) -> None:
        self.expr(e.value)
        self.operation(_construct(CONVERSION_OPERATORS, e.op), e, e.op_span, [e.value])

    def index(self, e: ast.Index) -> None:
        self.expr_base(e.value)
        for index in e.indices:
            self.index_part(index)
        if any(isinstance(i, ast.Slice) for i in e.indices):
            return  # a view (refused above); its elements are read by the outer index
        self.operation("read", e, e.bracket_span, [])

    def array_literal(self, e: ast.ArrayLit) -> None:
        for element in e.elements:
            self.expr(element)

    def field(self, e: ast.Field) -> None:
        self.expr(e.value)
        self.construct("struct", e.span)

    def expr_base(self, e: ast.Expr) -> None:
        """The array of an element read: a parameter or a local array (not a read itself)."""
        if isinstance(e, ast.Ident):
            return
        if isinstance(e, ast.Paren):
            self.expr_base(e.expr)
            return
        self.expr(e)

    def call(self, e: ast.Call) -> None:
        info = self.checked.calls.get(e)
        name = info.name if info is not None else (e.callee.name if isinstance(e.callee, ast.Ident) else "")
        if info is not None and info.kind == "builtin" and name in VIEW_BUILTINS:
            if e.args:
                self.expr_base(e.args[0])
            self.construct("view", e.callee.span)
            return
        args = e.args[:2] if name == "div_round" else e.args
        for arg in args:
            self.expr(arg)
        if info is None:
            return
        if info.kind == "builtin":
            self.operation(name, e, e.callee.span, args)
        else:
            self.construct("call", e.callee.span)
            self.value_type(self.type_of(e), e.callee.span, "a {type} result")

    def operation(self, key: str, e: ast.Expr, span: Span, operands: list[ast.Expr]) -> None:
        entry = _entry(key)
        if not entry.native:
            self.refuse(entry, span)
            return
        # A native operation is refused when a type it works on is (wide, fixed).
        types = self.checked.types
        for o in (*operands, e):
            t = types.get(o)
            if t is not None and not _native_type(t) and self.value_type(t, span, entry.what + " on {type}"):
                return



_EXPRESSIONS: dict[type, Callable[[_KernelWalk, Any], None]] = {
    ast.IntLit: _KernelWalk.leaf, ast.BoolLit: _KernelWalk.leaf, ast.TypeProperty: _KernelWalk.leaf,
    ast.ErrorExpr: _KernelWalk.leaf, ast.FixedLit: _KernelWalk.fixed_literal, ast.Ident: _KernelWalk.ident,
    ast.Paren: _KernelWalk.paren, ast.Unary: _KernelWalk.unary, ast.Binary: _KernelWalk.binary,
    ast.Cast: _KernelWalk.cast, ast.Index: _KernelWalk.index, ast.Call: _KernelWalk.call,
    ast.ArrayLit: _KernelWalk.array_literal, ast.Field: _KernelWalk.field,
}

def kernel_refusals(checked: CheckedModule, info: KernelInfo) -> list[Refusal]:
    """The refusals of one kernel, in build order (kept on the KernelInfo: a kernel the
    analysis cache reuses is not walked again)."""
    if info.refusals is None:
        info.refusals = _KernelWalk(checked, info).run()
    return info.refusals


def gpu_refusals(checked: CheckedModule) -> list[Refusal]:
    """Every construct of the module's kernels that gpu-cuda refuses, in build order (the
    module docstring); the first is the one a gpu-cuda build reports."""
    out: list[Refusal] = []
    for info in sorted(checked.kernels.values(), key=lambda k: k.node.span.start_byte):
        out.extend(kernel_refusals(checked, info))
    return out


def refused_kernels(checked: CheckedModule) -> dict[str, list[Refusal]]:
    """The refusals of each kernel, by kernel name (a kernel without any is absent)."""
    by_kernel: dict[str, list[Refusal]] = {}
    for refusal in gpu_refusals(checked):
        by_kernel.setdefault(refusal.kernel, []).append(refusal)
    return by_kernel


__all__ = [
    "CAPABILITIES", "CONSTRUCTS", "EXECUTOR", "Entry", "Refusal", "STORE_ELEMENTS", "TYPE_CLASSES",
    "gpu_refusals", "kernel_refusals", "refused_kernels", "type_class",
]
