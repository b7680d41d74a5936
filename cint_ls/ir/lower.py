"""Lowering of a checked module (without errors) to the IR.

Counted operations are created in evaluation order (operands first, a store's place
before its value), which numbers them (`index`); `steps.py` then assigns the static step
ordinals. Each carries its identifier, operand types and faults from the vocabulary.
`lower_operation` lowers one operation alone, for an editor.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from ..analysis import CheckedModule
from ..analysis.symbols import Symbol
from ..analysis.types import BOOL, I64, ArrayType, Type
from ..syntax import ast
from ..syntax.source import Span
from ..vocabulary.operations import (
    INDEX_ID,
    STORE_ID,
    Fault,
    conversion_id,
    div_round_id,
    op_id,
    operation_faults,
    reduction_faults,
    reduction_id,
)
from ..vocabulary.operators import BINARY_OPERATORS, CONVERSION_OPERATORS, UNARY_OPERATORS
from . import nodes as ir
from .steps import assign_steps

C = TypeVar("C", bound=ir.Counted)


class UnitLowerer:
    """Lowers one function, kernel or the entry: owns its slots and counted ops.

    With `only`, it lowers that one operation (`lower_operation`): every other
    expression it meets, an operand, becomes a constant of its type."""

    def __init__(self, checked: CheckedModule, only: ast.Node | None = None) -> None:
        self.checked = checked
        self.only = only
        self.slots: dict[Symbol, int] = {}
        self.counted: list[ir.Counted] = []

    # ---- slots and types

    def slot(self, symbol: Symbol) -> int:
        if symbol not in self.slots:
            self.slots[symbol] = len(self.slots)
        return self.slots[symbol]

    def declared(self, node: ast.Node) -> Symbol:
        return self.checked.symbols[node]

    def type_of(self, e: ast.Expr) -> Type:
        return self.checked.types[e]

    def counted_node(self, cls: type[C], t: Type, ident: str, span: Span, operands: list[Type],
                     faults: tuple[Fault, ...] | None = None, **fields: Any) -> C:
        node = cls(t, ident, span, index=len(self.counted), steps=None, operands=tuple(operands),
                   faults=operation_faults(ident) if faults is None else faults, **fields)
        self.counted.append(node)
        return node

    # ---- statements

    def block(self, statements: list[ast.Stmt]) -> list[ir.Stmt]:
        out: list[ir.Stmt] = []
        for s in statements:
            out.extend(self.statement(s))
        return out

    def statement(self, s: ast.Stmt) -> list[ir.Stmt]:
        lower: Callable[[ast.Stmt], list[ir.Stmt]] = getattr(self, "stmt_" + type(s).__name__)
        return lower(s)

    def stmt_Block(self, s: ast.Block) -> list[ir.Stmt]:
        return self.block(s.statements)

    def stmt_VarDecl(self, s: ast.VarDecl) -> list[ir.Stmt]:
        symbol = self.declared(s.name)
        slot = self.slot(symbol)
        if isinstance(symbol.type, ArrayType):
            extents = [self.expr(e) for e in symbol.array_extents]
            init = None
            if s.value is not None:
                init = [self.expr(e) for e in _flatten(s.value)]
            return [ir.DeclareArray(s.span, slot, symbol.name, symbol.type.element, extents, init)]
        value = self.expr(s.value) if s.value is not None else ir.Const(symbol.type, _zero(symbol.type))
        return [ir.Assign(s.span, slot, symbol.name, value)]

    def stmt_Assign(self, s: ast.Assign) -> list[ir.Stmt]:
        if isinstance(s.target, ast.Ident):
            symbol = self.checked.symbols[s.target]
            return [ir.Assign(s.span, self.slot(symbol), symbol.name, self.expr(s.value))]
        target = s.target
        assert isinstance(target, ast.Index)
        array = self.view(target.value)
        positions = _element_indices(target)
        indices = [self.expr(i) for i in positions]
        place = self.counted_node(ir.Counted, self.type_of(s.value), STORE_ID, target.bracket_span,
                                  [self.type_of(target.value), *map(self.type_of, positions)])
        return [ir.Store(s.span, array, indices, self.expr(s.value), place)]

    def stmt_ExprStmt(self, s: ast.ExprStmt) -> list[ir.Stmt]:
        e = s.expr
        if isinstance(e, ast.Call) and self.checked.calls[e].kind == "dispatch":
            return [self.dispatch(e)]
        return [ir.Eval(s.span, self.expr(e))]

    def stmt_Print(self, s: ast.Print) -> list[ir.Stmt]:
        parts = [p if isinstance(p, str) else self.expr(p) for p in s.string.parts]
        return [ir.Print(s.span, parts)]

    def stmt_If(self, s: ast.If) -> list[ir.Stmt]:
        condition = self.expr(s.condition)
        then = self.block(s.then.statements)
        otherwise = self.statement(s.otherwise) if s.otherwise is not None else []
        return [ir.If(s.span, condition, then, otherwise)]

    def stmt_For(self, s: ast.For) -> list[ir.Stmt]:
        start, end = self.expr(s.start), self.expr(s.end)
        symbol = self.declared(s.variable)
        body = [ir.Charge(s.keyword_span)] + self.block(s.body.statements)
        return [ir.For(s.span, self.slot(symbol), symbol.name, start, end, body)]

    def stmt_While(self, s: ast.While) -> list[ir.Stmt]:
        condition = self.expr(s.condition)
        body = [ir.Charge(s.keyword_span)] + self.block(s.body.statements)
        return [ir.While(s.span, condition, body)]

    def stmt_Switch(self, s: ast.Switch) -> list[ir.Stmt]:
        value = self.expr(s.value)
        cases: list[tuple[list[int], list[ir.Stmt]]] = []
        default = None
        for clause in s.clauses:
            body = self.block(clause.body)
            if clause.label is None:
                default = body
            else:
                cases.append(([_constant(self.checked, clause.label)], body))
        return [ir.Switch(s.span, value, cases, default)]

    def stmt_Break(self, s: ast.Break) -> list[ir.Stmt]:
        return [ir.Break(s.span)]

    def stmt_Continue(self, s: ast.Continue) -> list[ir.Stmt]:
        return [ir.Continue(s.span)]

    def stmt_Return(self, s: ast.Return) -> list[ir.Stmt]:
        return [ir.Return(s.span, self.expr(s.value) if s.value is not None else None)]

    def stmt_Assert(self, s: ast.Assert) -> list[ir.Stmt]:
        return [ir.Assert(s.span, self.expr(s.condition))]

    def dispatch(self, e: ast.Call) -> ir.Dispatch:
        info = self.checked.kernels[self.checked.calls[e].name]
        args: list[ir.DispatchArg] = []
        for arg, param in zip(e.args, info.params):
            if isinstance(param.type, ArrayType):
                args.append(ir.ArrayArg(self.view(arg)))
            elif param.mode == "out":
                symbol = self.checked.symbols[arg]
                args.append(ir.OutArg(self.slot(symbol), symbol.name))
            else:
                args.append(ir.ScalarArg(self.expr(arg)))
        return ir.Dispatch(e.callee.span, info.symbol.name, args)

    # ---- views

    def view(self, e: ast.Expr) -> ir.ViewExpr:
        t = self.type_of(e)
        rank = t.rank if isinstance(t, ArrayType) else 0
        if isinstance(e, ast.Paren):
            return self.view(e.expr)
        if isinstance(e, ast.Ident):
            symbol = self.checked.symbols[e]
            return ir.ArrayVar(rank, e.span, self.slot(symbol), symbol.name)
        if isinstance(e, ast.Index):
            specs: list[ir.Expr | ir.SliceSpec] = []
            for index in e.indices:
                if isinstance(index, ast.Slice):
                    step = self.checked.values.get(index.step, 1) if index.step is not None else 1
                    specs.append(ir.SliceSpec(
                        self.expr(index.start) if index.start is not None else None,
                        self.expr(index.end) if index.end is not None else None,
                        int(step),
                    ))
                else:
                    specs.append(self.expr(index))
            return ir.Select(rank, e.span, self.view(e.value), specs)
        assert isinstance(e, ast.Call) and isinstance(e.callee, ast.Ident)
        if e.callee.name == "reverse":
            return ir.Reverse(rank, e.span, self.view(e.args[0]), int(self.checked.values[e.args[1]]))
        return ir.Transpose(rank, e.span, self.view(e.args[0]))

    # ---- expressions

    def expr(self, e: ast.Expr) -> ir.Expr:
        if self.only is not None and e is not self.only:
            return ir.Const(self.type_of(e), 0)  # an operand of the one operation lowered
        lower: Callable[[ast.Expr], ir.Expr] = getattr(self, "expr_" + type(e).__name__)
        return lower(e)

    def expr_Paren(self, e: ast.Paren) -> ir.Expr:
        return self.expr(e.expr)

    def literal(self, e: ast.Expr) -> ir.Expr:
        return ir.Const(self.type_of(e), self.checked.values[e])

    expr_IntLit = expr_FixedLit = expr_BoolLit = expr_TypeProperty = literal

    def expr_Ident(self, e: ast.Ident) -> ir.Expr:
        symbol = self.checked.symbols[e]
        return ir.Var(symbol.type, self.slot(symbol), symbol.name)

    def expr_Unary(self, e: ast.Unary) -> ir.Expr:
        t = self.type_of(e)
        operand = self.expr(e.operand)
        operator = UNARY_OPERATORS[e.op]
        if operator.operation == "logic":
            return ir.Logic(BOOL, e.op, [operand])
        if not operator.counted:
            return ir.Bitwise(t, e.op, [operand])
        name, form = operator.operation, operator.form
        return self.counted_node(ir.Arith, t, op_id(name, form, t), e.op_span, [self.type_of(e.operand)],
                                 op=name, form=form, args=[operand])

    def expr_Binary(self, e: ast.Binary) -> ir.Expr:
        left, right = self.expr(e.left), self.expr(e.right)
        t = self.type_of(e)
        operator = BINARY_OPERATORS[e.op]
        if operator.operation == "logic":
            return ir.Logic(BOOL, e.op, [left, right])
        if operator.operation == "compare":
            return ir.Compare(BOOL, e.op, left, right)
        if not operator.counted:
            return ir.Bitwise(t, e.op, [left, right])
        name, form = operator.operation, operator.form
        return self.counted_node(ir.Arith, t, op_id(name, form, t), e.op_span,
                                 [self.type_of(e.left), self.type_of(e.right)], op=name, form=form,
                                 args=[left, right])

    def expr_Cast(self, e: ast.Cast) -> ir.Expr:
        value = self.expr(e.value)
        source, target = self.type_of(e.value), self.type_of(e)
        form = CONVERSION_OPERATORS[e.op].form
        if form is None or form == "result":  # `as?`: refused by the checker (C9003), it has no identifier
            raise ValueError("the result form `as?` is not lowered")
        return self.counted_node(ir.Convert, target, conversion_id(form, source, target), e.op_span, [source],
                                 form=form, source=source, value=value)

    def expr_Index(self, e: ast.Index) -> ir.Expr:
        array = self.view(e.value)
        positions = _element_indices(e)
        indices = [self.expr(i) for i in positions]
        return self.counted_node(ir.Load, self.type_of(e), INDEX_ID, e.bracket_span,
                                 [self.type_of(e.value), *map(self.type_of, positions)], array=array,
                                 indices=indices)

    def expr_Call(self, e: ast.Call) -> ir.Expr:
        info = self.checked.calls[e]
        t = self.type_of(e)
        if info.kind == "function":
            return ir.Call(t, info.name, [self.expr(a) for a in e.args], e.callee.span)
        if info.name == "div_round":
            assert info.mode is not None  # the checker gives div_round its rounding mode
            left, right = self.expr(e.args[0]), self.expr(e.args[1])
            return self.counted_node(ir.DivRound, t, div_round_id(t, info.mode), e.callee.span,
                                     [self.type_of(e.args[0]), self.type_of(e.args[1])], mode=info.mode,
                                     left=left, right=right)
        args = [self.expr(a) for a in e.args]
        operands = [self.type_of(a) for a in e.args]
        if info.name == "abs":
            return self.counted_node(ir.Arith, t, op_id("abs", "checked", t), e.callee.span, operands, op="abs",
                                     form="checked", args=args)
        return self.counted_node(ir.Arith, t, op_id(info.name, None, t), e.callee.span, operands, op=info.name,
                                 form=None, args=args)


class KernelLowerer(UnitLowerer):
    def __init__(self, checked: CheckedModule, name: str, only: ast.Node | None = None) -> None:
        super().__init__(checked, only)
        self.info = checked.kernels[name]
        self.reductions: list[ir.Reduction] = []

    def stmt_Reduce(self, s: ast.Reduce) -> list[ir.Stmt]:
        symbol = self.checked.symbols[s.target]
        position = self.info.params.index(symbol)
        contribution_node = s.args[-1]
        contribution = self.expr(contribution_node)
        contribution_type = BOOL if s.op.text == "count" else self.type_of(contribution_node)
        op = self.counted_node(ir.Counted, symbol.type, reduction_id(s.op.text, contribution_type, symbol.type),
                               s.op.span, [contribution_type], faults=reduction_faults(s.op.text))
        init_value = int(_constant(self.checked, s.args[1])) if s.op.text == "fold_checked" else 0
        self.reductions.append(ir.Reduction(position, s.op.text, contribution_type, symbol.type, op, init_value))
        return [ir.Reduce(s.span, position, s.op.text, contribution, op)]

    def lower(self) -> ir.Kernel:
        info = self.info
        node = info.node
        size_slots = [self.slot(s) for s in info.sizes]
        params: list[ir.KernelParam] = []
        for symbol, param in zip(info.params, node.params):
            slot = self.slot(symbol)
            assert symbol.mode is not None  # a kernel's parameter has one (in, out, inout)
            if isinstance(symbol.type, ArrayType):
                extents = [self.extent(x) for x in symbol.array_extents]
                params.append(ir.KernelParam(symbol.name, symbol.mode, symbol.type.element, extents, slot,
                                             param.span))
            else:
                params.append(ir.KernelParam(symbol.name, symbol.mode, symbol.type, None, slot, param.span))
        over = [(s.name, self.slot(s), self.expr(b.extent)) for s, b in zip(info.over, node.space)]
        where: list[ir.WhereConstraint] = []
        for c in node.where:
            assert isinstance(c, ast.Binary)  # the checker refuses any other constraint (C5017)
            where.append(ir.WhereConstraint(c.op, self.expr(c.left), self.expr(c.right), c.span))
        # Over extents and where sides are evaluated at the entry checks, not counted
        # in any work-item: the body's counted operations start here.
        self.counted = []
        body = self.block(node.body.statements)
        order = {r.param: r for r in self.reductions}
        reductions = [order[i] for i in sorted(order)]
        kernel = ir.Kernel(info.symbol.name, f"{self.checked.name}.{info.symbol.name}", [s.name for s in info.sizes],
                           size_slots, params, over, where, reductions, body, len(self.slots), self.counted,
                           node.span)
        assign_steps(kernel.body)
        return kernel

    def extent(self, e: ast.Expr) -> ir.Extent:
        if isinstance(e, ast.IntLit):
            return ir.Extent(None, int(self.checked.values[e]), e.span)
        if isinstance(e, ast.Ident):
            return ir.Extent(self.info.sizes.index(self.checked.symbols[e]), 0, e.span)
        assert isinstance(e, ast.Binary)
        c = int(self.checked.values[e.right])
        return ir.Extent(self.info.sizes.index(self.checked.symbols[e.left]), c if e.op == "+" else -c, e.span)


def lower_program(checked: CheckedModule) -> ir.Program:
    """The IR of a module that checked without errors."""
    assert not checked.has_errors, "lower only a module without errors"
    kernels = {name: KernelLowerer(checked, name).lower() for name in checked.kernels}
    functions: dict[str, ir.Function] = {}
    for name, info in checked.functions.items():
        unit = UnitLowerer(checked)
        params = [unit.slot(p) for p in info.params]
        body = unit.block(info.node.body.statements)
        functions[name] = ir.Function(name, f"{checked.name}.{name}", params, [p.name for p in info.params],
                                      [p.type for p in info.params], info.return_type, body, len(unit.slots), info.node.name.span)
    entry_unit = UnitLowerer(checked)
    entry_body = entry_unit.block(checked.module.statements)
    entry = ir.Function("<entry>", f"{checked.name} entry", [], [], [], I64, entry_body, len(entry_unit.slots),
                        checked.source.span(0, 0))
    return ir.Program(checked.name, checked.source.path, functions, kernels, entry)


def lower_operation(checked: CheckedModule, node: ast.Node, kernel: str | None = None) -> ir.Counted | None:
    """The counted node of one operation lowered alone, its operands left out and no
    step ordinals: what an editor shows of an operation whose unit has no IR (a
    function, the entry, a kernel with errors). `node` is the operation's expression,
    the Assign of an element store or a Reduce; `kernel` names the kernel around it.
    None when `node` is no counted operation, or its own types have errors."""
    lowerer = KernelLowerer(checked, kernel, only=node) if kernel is not None else UnitLowerer(checked, only=node)
    try:
        if isinstance(node, ast.Reduce):  # only a kernel reduces (elsewhere it is an error)
            reduced = lowerer.stmt_Reduce(node)[0] if isinstance(lowerer, KernelLowerer) else None
            return reduced.op if isinstance(reduced, ir.Reduce) else None
        if isinstance(node, ast.Assign):
            stored = lowerer.stmt_Assign(node)[0]
            return stored.place if isinstance(stored, ir.Store) else None
        if not isinstance(node, ast.Expr):
            return None
        lowered = lowerer.expr(node)
    except (KeyError, ValueError, AssertionError):
        return None  # a type, symbol or value the checker could not give (an error there)
    return lowered if isinstance(lowered, ir.Counted) else None


def _constant(checked: CheckedModule, e: ast.Expr) -> int:
    """The value of a constant expression the checker accepted (a literal, `-` a
    literal, `T.min`/`T.max`, in parentheses)."""
    if isinstance(e, ast.Paren):
        return _constant(checked, e.expr)
    if isinstance(e, ast.Unary):
        return -_constant(checked, e.operand)
    return int(checked.values[e])


def _element_indices(e: ast.Index) -> list[ast.Expr]:
    """The indices of an element read or a store's place: no slice (an index with one
    is a view, which `view` lowers)."""
    indices = [i for i in e.indices if not isinstance(i, ast.Slice)]
    assert len(indices) == len(e.indices), "a slice makes a view, not an element"
    return indices


def _flatten(e: ast.Expr) -> list[ast.Expr]:
    if isinstance(e, ast.ArrayLit):
        return [x for item in e.elements for x in _flatten(item)]
    return [e]


def _zero(t: Type) -> int | bool:
    return False if t == BOOL else 0


__all__ = ["lower_operation", "lower_program", "Span"]
