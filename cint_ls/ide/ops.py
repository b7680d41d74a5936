"""The operations of the AST as the hover describes them: operation identifier, operand
and result types, and the faults each can raise (LANGUAGE.md "Expressions", the arith
run-time of `cint_ls.exec.arith`). Identifiers are formed by the vocabulary's functions,
as the IR lowering forms them, so they match the IR and fault records.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..analysis.result import CheckedModule
from ..analysis.types import BOOL, I64, ArrayType, Type
from ..syntax import ast
from ..syntax.source import Span
from ..vocabulary.operations import conversion_id, div_round_id, op_id, reduction_id
from ..vocabulary.operators import BINARY_OPERATORS


@dataclass(frozen=True)
class Operation:
    node: ast.Node  # the expression, the Assign of a store, or the Reduce
    kind: str  # "arith", "convert", "div_round", "builtin", "read", "store", "reduce", "uncounted"
    label: str  # what the source says: "`*`", "read `u[...]`", "reduce (sum)"
    op_id: str | None  # None for an operation that is not counted
    anchor: Span  # the span the IR's Counted node has (operator, bracket, callee, reduce operator)
    operands: tuple[Type, ...]
    result: Type | None
    faults: tuple[str, ...]


def faults_of(op: str | None, kind: str) -> tuple[str, ...]:
    """The fault codes an operation can raise, from its identifier."""
    if op is None:
        return ()
    head = op.split(".")
    name, form = head[0], head[1] if len(head) > 1 else ""
    if kind == "reduce":
        if name == "sum":
            return ("E_OVERFLOW (in the epilogue)",)
        if name in ("min", "max"):
            return ("E_EMPTY (in the epilogue, when no work-item contributes)",)
        if name == "count":
            return ("E_OVERFLOW (in the epilogue)",)
        if name == "fold_checked":
            return ("E_OVERFLOW (at the work-item whose contribution overflows the fold)",)
        return ()
    if kind in ("read", "store"):
        return ("E_BOUNDS",)
    if name == "div_round":
        return ("E_DIV_ZERO", "E_OVERFLOW")
    if name == "as":
        return ("E_NARROW",) if form == "checked" else ()
    if form in ("wrap", "sat") or name in ("min", "max"):
        return ()
    if name == "div":
        return ("E_DIV_ZERO", "E_OVERFLOW")
    if name == "rem":
        return ("E_DIV_ZERO",)
    if name == "shl":
        return ("E_SHIFT", "E_OVERFLOW")
    if name == "shr":
        return ("E_SHIFT",)
    if form == "checked":
        return ("E_OVERFLOW",)
    return ()


def _t(checked: CheckedModule, node: ast.Node | None) -> Type | None:
    return checked.types.get(node) if node is not None else None


def _types(*types: Type | None) -> tuple[Type, ...]:
    return tuple(t for t in types if t is not None)


def _valid(*types: Type | None) -> bool:
    return all(t is not None and hasattr(t, "suffix") for t in types)


def operation_of(checked: CheckedModule, node: ast.Node, parent: ast.Node | None = None) -> Operation | None:
    """The operation `node` stands for, or None. `parent` tells a store target (the
    Index on the left of an Assign) from a read."""
    if isinstance(node, ast.Binary):
        t, lt, rt = _t(checked, node), _t(checked, node.left), _t(checked, node.right)
        operator = BINARY_OPERATORS.get(node.op)
        if operator is None:
            return None
        if not operator.counted:
            return Operation(node, "uncounted", f"`{node.op}`", None, node.op_span, _types(lt, rt), t, ())
        if not _valid(t):
            return None
        name, form = operator.operation, operator.form
        ident = op_id(name, form, t)
        return Operation(node, "arith", f"`{node.op}`", ident, node.op_span, _types(lt, rt), t,
                         faults_of(ident, "arith"))
    if isinstance(node, ast.Unary):
        t, ot = _t(checked, node), _t(checked, node.operand)
        if node.op != "-":
            return Operation(node, "uncounted", f"`{node.op}`", None, node.op_span, _types(ot), t, ())
        if not _valid(t):
            return None
        ident = op_id("neg", "checked", t)
        return Operation(node, "arith", "unary `-`", ident, node.op_span, _types(ot), t, faults_of(ident, "arith"))
    if isinstance(node, ast.Cast):
        t, st = _t(checked, node), _t(checked, node.value)
        if node.op == "as?" or not _valid(t, st):
            return None
        form = "wrap" if node.op == "as%" else "checked"
        ident = conversion_id(form, st, t)
        return Operation(node, "convert", f"`{node.op} {t.name}`", ident, node.op_span, (st,), t,
                         faults_of(ident, "convert"))
    if isinstance(node, ast.Index):
        if any(isinstance(i, ast.Slice) for i in node.indices):
            return None
        t = _t(checked, node)
        base = _t(checked, node.value)
        if t is None or isinstance(t, ArrayType):
            return None
        store = isinstance(parent, ast.Assign) and parent.target is node
        operands = (base,) + (I64,) * len(node.indices) if base is not None else (I64,) * len(node.indices)
        if store:
            value = _t(checked, parent.value)
            return Operation(parent, "store", "the place of a store", "store.checked", node.bracket_span,
                             operands, value, faults_of("store.checked", "store"))
        return Operation(node, "read", "an element read", "index.checked", node.bracket_span, operands, t,
                         faults_of("index.checked", "read"))
    if isinstance(node, ast.Assign) and isinstance(node.target, ast.Index):
        return operation_of(checked, node.target, node)
    if isinstance(node, ast.Call):
        info = checked.calls.get(node)
        if info is None or info.kind != "builtin":
            return None
        t = _t(checked, node)
        if not _valid(t):
            return None
        if info.name == "div_round":
            ident = div_round_id(t, info.mode)
            args = node.args[:2]
            kind = "div_round"
        elif info.name in ("min", "max"):
            ident, args, kind = op_id(info.name, None, t), node.args, "builtin"
        elif info.name == "abs":
            ident, args, kind = op_id("abs", "checked", t), node.args, "builtin"
        else:
            return None
        return Operation(node, kind, f"`{info.name}`", ident, node.callee.span,
                         _types(*(_t(checked, a) for a in args)), t, faults_of(ident, kind))
    if isinstance(node, ast.Reduce):
        target_symbol = checked.symbols.get(node.target)
        target = target_symbol.type if target_symbol is not None else None
        contribution = node.args[-1] if node.args else None
        ct = BOOL if node.op.text == "count" else _t(checked, contribution)
        if not _valid(target, ct):
            return None
        try:
            ident = reduction_id(node.op.text, ct, target)
        except ValueError:
            return None
        return Operation(node, "reduce", f"reduce ({node.op.text})", ident, node.op.span, (ct,), target,
                         faults_of(ident, "reduce"))
    return None


def type_text(t: Type | None) -> str:
    return t.name if t is not None else "?"
