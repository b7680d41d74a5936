"""Document highlights: every occurrence of the name under the cursor, each marked as a
read or a write of it (LSP's DocumentHighlightKind).

A write: an assignment's target (`x = ...`, `a[i] = ...` writes `a`), a `reduce`
target, a declaration with a value (or a loop variable's), and a dispatch argument for
an out or inout parameter (SPEC-02P.1 6.5: the dispatch publishes into it). A
declaration without a value, and the names of kernels, functions, parameters and size
symbols where they are declared, are plain text; every other occurrence is a read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..analysis.result import CheckedModule
from ..analysis.symbols import Symbol, SymbolKind
from ..syntax import ast
from .find import clamp, contains, name_at, top_level, total, walk
from .navigation import _occurrences
from .results import Highlight

if TYPE_CHECKING:
    from .document import DocumentLike

_NEVER_WRITTEN = (SymbolKind.KERNEL, SymbolKind.FUNCTION, SymbolKind.STRUCT, SymbolKind.SIZE)


@total(list)
def highlights(doc: DocumentLike, offset: int) -> list[Highlight]:
    checked = doc.checked
    found = name_at(checked, clamp(doc, offset), doc)
    if found is None:
        return []
    symbol = found[1]
    spans = _occurrences(checked, symbol)
    if not spans:
        return []
    writes: set[int] = set()
    declared: set[int] = {symbol.span.start_byte}
    if symbol.kind not in _NEVER_WRITTEN:
        starts = [s.start_byte for s in spans]
        # Only the top-level items the occurrences are in: a variable's uses are in its item.
        items = [n for n in top_level(doc.module) if any(contains(n.span, s) for s in starts)]
        for item in items:
            for node in walk(item):
                writes |= _written(checked, node, symbol)
    out = []
    for span in spans:
        start = span.start_byte
        if start in writes:
            kind = "write"
        elif start in declared:
            kind = "text"
        else:
            kind = "read"
        out.append(Highlight(span.freeze(), kind))
    return out


def _base(e: ast.Expr) -> ast.Expr:
    while isinstance(e, (ast.Index, ast.Paren)):
        e = e.value if isinstance(e, ast.Index) else e.expr
    return e


def _written(checked: CheckedModule, node: ast.Node, symbol: Symbol) -> set[int]:
    """The start bytes of the names of `symbol` that `node` writes."""
    symbols = checked.symbols
    names: list[ast.Node] = []
    if isinstance(node, ast.Assign):
        names.append(_base(node.target))
    elif isinstance(node, ast.Reduce):
        names.append(node.target)
    elif isinstance(node, ast.VarDecl) and node.value is not None:
        names.append(node.name)
    elif isinstance(node, ast.For):
        names.append(node.variable)
    elif isinstance(node, ast.Call) and isinstance(node.callee, ast.Ident):
        callee = symbols.get(node.callee)
        item = callee.node if callee is not None else None
        params = item.params if isinstance(item, ast.KernelDef) else None
        if callee is not None and callee.kind is SymbolKind.KERNEL and params:
            names += [_base(arg) for arg, p in zip(node.args, params) if p.mode in ("out", "inout")]
    return {n.span.start_byte for n in names if symbols.get(n) is symbol}
