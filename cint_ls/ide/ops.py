"""The operations of the source as the editor finds them: which node is an operation,
what the source calls it and where its counted IR node is anchored (the operator, the
bracket, the callee, the reduce operator).

What an operation is (identifier, operand and result types, faults, step ordinals) is
the IR's: `counted_of` finds its `ir.Counted` node, the kernel's own where the kernel
lowers (step ordinals come from ir/steps.py), else the operation lowered alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..analysis.result import CheckedModule, KernelInfo
from ..analysis.types import ArrayType
from ..syntax import ast
from ..syntax.source import Span
from ..vocabulary.operators import BINARY_OPERATORS, UNARY_OPERATORS

if TYPE_CHECKING:
    from ..ir import nodes as ir
    from .document import DocumentLike


@dataclass(frozen=True)
class Operation:
    node: ast.Node  # the expression, the Assign of a store, or the Reduce
    kind: str  # "arith", "convert", "div_round", "builtin", "read", "store", "reduce", "uncounted"
    label: str  # what the source says: "`*`", "unary `-`", "`as I64`", "reduce (sum)"
    anchor: Span  # the span of its counted IR node; for an uncounted one, the operator


def operation_of(checked: CheckedModule, node: ast.Node, parent: ast.Node | None = None) -> Operation | None:
    """The operation `node` stands for, or None. `parent` tells a store target (the
    Index on the left of an Assign) from a read."""
    if isinstance(node, ast.Binary):
        operator = BINARY_OPERATORS.get(node.op)
        if operator is None:
            return None
        return Operation(node, "arith" if operator.counted else "uncounted", f"`{node.op}`", node.op_span)
    if isinstance(node, ast.Unary):
        operator = UNARY_OPERATORS.get(node.op)
        if operator is None:
            return None
        if operator.counted:
            return Operation(node, "arith", f"unary `{node.op}`", node.op_span)
        return Operation(node, "uncounted", f"`{node.op}`", node.op_span)
    if isinstance(node, ast.Cast):
        target = checked.types.get(node)
        return Operation(node, "convert", f"`{node.op} {target.name if target else '?'}`", node.op_span)
    if isinstance(node, ast.Index):
        if any(isinstance(i, ast.Slice) for i in node.indices) or isinstance(checked.types.get(node), ArrayType):
            return None  # a view, not an element
        if isinstance(parent, ast.Assign) and parent.target is node:
            return Operation(parent, "store", "the place of a store", node.bracket_span)
        return Operation(node, "read", "an element read", node.bracket_span)
    if isinstance(node, ast.Assign) and isinstance(node.target, ast.Index):
        return operation_of(checked, node.target, node)
    if isinstance(node, ast.Call):
        info = checked.calls.get(node)
        if info is None or info.kind != "builtin" or info.name not in ("div_round", "min", "max", "abs"):
            return None
        kind = "div_round" if info.name == "div_round" else "builtin"
        return Operation(node, kind, f"`{info.name}`", node.callee.span)
    if isinstance(node, ast.Reduce):
        return Operation(node, "reduce", f"reduce ({node.op.text})", node.op.span)
    return None


def counted_by_anchor(kernel: ir.Kernel | None) -> dict[int, ir.Counted]:
    """A kernel's counted nodes by the first byte of their anchor."""
    return {c.span.start_byte: c for c in kernel.counted} if kernel is not None else {}


def counted_of(doc: DocumentLike, op: Operation, kernel: KernelInfo | None) -> tuple[ir.Counted | None, bool]:
    """The IR node of a counted operation, and whether it is the kernel's own (with its
    step ordinals): `kernel` is the kernel whose body holds the operation. Otherwise (a
    function, the entry, a kernel with errors) the operation lowered alone, without
    steps; None when it does not lower (its own types have errors)."""
    name = kernel.symbol.name if kernel is not None else None
    if name is not None:
        counted = counted_by_anchor(doc.kernel_ir(name)).get(op.anchor.start_byte)
        if counted is not None:
            return counted, True
    from ..ir.lower import lower_operation  # the IR on first use: the diagnostics need none

    return lower_operation(doc.checked, op.node, name), False
