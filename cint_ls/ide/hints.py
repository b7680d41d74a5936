"""Inlay hints: the step ordinal (SPEC-02P.1 5.4) after each counted operation of a
kernel body, read from the IR: `#22`, `#{3,4,5,26}` (one per path), `#?` (depends on
the iteration). An operator's hint follows the operator; a read's, a conversion's and a
built-in's follow the whole expression; a store's follows its place; a reduce's follows
its operator call. Functions have none: their steps depend on the caller.
"""

from __future__ import annotations

from ..ir.printer import format_steps
from ..syntax import ast
from .find import total, walk
from .hover import steps_text
from .ops import counted_by_anchor, operation_of
from .results import InlayHint


def _hint_offset(op) -> int:
    node = op.node
    if op.kind in ("arith", "uncounted"):
        return op.anchor.end_byte
    if op.kind == "store":
        return node.target.span.end_byte
    if op.kind == "reduce":
        return node.args[-1].span.end_byte + 1 if node.args else op.anchor.end_byte
    return node.span.end_byte


@total(list)
def inlay_hints(doc, start: int, end: int) -> list[InlayHint]:
    checked = doc.checked
    hints: list[InlayHint] = []
    for name, info in checked.kernels.items():
        body = info.node.body.span
        if body.end_byte < start or body.start_byte > end:
            continue
        kernel = doc.kernel_ir(name)
        if kernel is None:
            continue
        counted = counted_by_anchor(kernel)
        stores = {id(n.target): n for n in walk(info.node.body) if isinstance(n, ast.Assign)}
        for node in walk(info.node.body):
            if isinstance(node, ast.Assign):
                continue  # its place is the Index target, met on its own
            op = operation_of(checked, node, stores.get(id(node)))
            if op is None or op.kind == "uncounted":
                continue
            c = counted.get(op.anchor.start_byte)
            if c is None:
                continue
            offset = min(_hint_offset(op), len(doc.source.data))
            if start <= offset <= end:
                hints.append(InlayHint(offset, format_steps(c.steps), f"{steps_text(c.steps)} · {c.op_id}"))
    hints.sort(key=lambda h: h.offset)
    return hints
