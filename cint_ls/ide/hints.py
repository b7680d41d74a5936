"""Inlay hints: the step ordinal (SPEC-02P.1 5.4) after each counted operation of a
kernel body, read from the IR: `#22`, `#{3,4,5,26}` (one per path), `#?` (depends on
the iteration). An operator's hint follows the operator; a read's, a conversion's and a
built-in's follow the whole expression; a store's follows its place; a reduce's follows
its operator call. Functions have none: their steps depend on the caller.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from ..analysis.result import KernelInfo
from ..ir.printer import format_steps
from ..syntax import ast
from .find import total, walk
from .hover import steps_text
from .ops import Operation, counted_by_anchor, operation_of
from .results import InlayHint

if TYPE_CHECKING:
    from .document import DocumentLike, Part


def _hint_offset(op: Operation) -> int:
    node = op.node
    if op.kind in ("arith", "uncounted"):
        return op.anchor.end_byte
    if isinstance(node, ast.Assign):  # a store
        return node.target.span.end_byte
    if isinstance(node, ast.Reduce):
        return node.args[-1].span.end_byte + 1 if node.args else op.anchor.end_byte
    return node.span.end_byte


def _kernel_hints(doc: DocumentLike, name: str, info: KernelInfo) -> list[tuple[int, str, str]]:
    """Every hint of one kernel: (offset, label, tooltip), by offset."""
    checked = doc.checked
    kernel = doc.kernel_ir(name)
    if kernel is None:
        return []
    counted = counted_by_anchor(kernel)
    stores = {id(n.target): n for n in walk(info.node.body) if isinstance(n, ast.Assign)}
    size = len(doc.source.data)
    out: list[tuple[int, str, str]] = []
    for node in walk(info.node.body):
        if isinstance(node, ast.Assign):
            continue  # its place is the Index target, met on its own
        op = operation_of(checked, node, stores.get(id(node)))
        if op is None or op.kind == "uncounted":
            continue
        c = counted.get(op.anchor.start_byte)
        if c is None:
            continue
        # The same few labels and tooltips recur in every kernel: one string each.
        out.append((min(_hint_offset(op), size), sys.intern(format_steps(c.steps)),
                    sys.intern(f"{steps_text(c.steps)} · {c.op_id}")))
    out.sort(key=lambda h: h[0])
    doc.counters["hints"] = doc.counters.get("hints", 0) + 1
    return out


def part_hints(doc: DocumentLike, part: Part) -> list[InlayHint]:
    """The hints of a part that is a kernel: kept with its item across versions (with
    the kernel's start they were made at, moved when the kernel moved). Holding the
    document's lock (`doc.reading()`)."""
    found: list[InlayHint] | None = part.memo.get("hints")
    if found is not None:
        return found
    node = part.node
    found = []
    info = doc.checked.kernels.get(node.name.text) if isinstance(node, ast.KernelDef) else None
    if info is not None and info.node is node:
        entry = part.entry
        kept: tuple[int, list[InlayHint]] | None = entry.results.get("hints") if entry is not None else None
        if kept is None:
            found = [InlayHint(offset, label, tip) for offset, label, tip in _kernel_hints(doc, node.name.text, info)]
        elif kept[0] == part.start:
            found = kept[1]
        else:
            by = part.start - kept[0]
            found = [InlayHint(h.offset + by, h.label, h.tooltip) for h in kept[1]]
        if entry is not None:
            entry.results["hints"] = (part.start, found)
    part.memo["hints"] = found
    return found


@total(list)
def inlay_hints(doc: DocumentLike, start: int, end: int) -> list[InlayHint]:
    """The hints at offsets start..end (both included), computed only for the kernels
    that overlap them."""
    return [h for part in doc.parts_between(start, end) for h in part_hints(doc, part) if start <= h.offset <= end]
