"""What a diagnostic shows in an editor beyond `cint run`'s line: the specific reason
as the message, and the other half of the conflict as related places.

`cint run` keeps the catalogue's wording (conformance prints C5010 as "parameter mode,
alias, or ABI rule", SPEC-02P.1 6.5): the analysis leaves the reason in
`data["detail"]` and both places in `data["see"]`, which the editor and `cint check`
show. What the
analysis does not record is found here in the document: a refused kernel's dispatch
sites, and the declarations behind a type mismatch (C3003).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..analysis.symbols import Symbol, SymbolKind
from ..syntax import ast
from ..syntax.diagnostics import Diagnostic, Related
from ..syntax.source import Span
from .find import path_at, total
from .results import Explanation

if TYPE_CHECKING:
    from .document import DocumentLike

MAX_SITES = 3  # dispatch sites of a refused kernel, at most
REFUSAL_CODE = "C9100"


def _plain(diagnostic: Diagnostic) -> Explanation:
    return Explanation(diagnostic.message, tuple(diagnostic.related))


@total(lambda: None)
def explain(doc: DocumentLike, diagnostic: Diagnostic) -> Explanation | None:
    """The message and related places of `diagnostic` (one of `diagnostics(doc)`) for an
    editor; related spans are frozen. None only if something failed (then the server
    shows the diagnostic as it is)."""
    data = diagnostic.data or {}
    message = data.get("detail") or diagnostic.message
    related = list(diagnostic.related)
    related += [r for r in data.get("see", ()) if isinstance(r, Related)]
    if diagnostic.code == REFUSAL_CODE and isinstance(data.get("kernel"), str) and not data.get("mark"):
        # (a hint-level mark at one construct: its kernel's warning has the sites)
        related += _dispatch_sites(doc, data["kernel"])
    elif diagnostic.code == "C3003":
        related += _declarations(doc, diagnostic)
    return Explanation(message, tuple(Related(r.span.freeze(), r.message) for r in related))


def _dispatch_sites(doc: DocumentLike, kernel: str) -> list[Related]:
    """Where the module dispatches `kernel` (a gpu-cuda run of the program fails there),
    the first MAX_SITES in source order. Every kernel's sites are found in one pass over
    the resolved names, kept for the version."""
    sites: dict[str, list[Span]] | None = doc.memo.get("dispatch sites")
    if sites is None:
        sites = {}
        for node, symbol in doc.checked.symbols.items():
            if symbol.kind is SymbolKind.KERNEL and isinstance(node, ast.Ident):
                sites.setdefault(symbol.name, []).append(node.span)
        for spans in sites.values():
            spans.sort(key=lambda s: s.start_byte)
        doc.memo["dispatch sites"] = sites
    return [Related(span, f"`{kernel}` is dispatched here: a gpu-cuda run stops at this dispatch")
            for span in sites.get(kernel, ())[:MAX_SITES]]


def _declarations(doc: DocumentLike, diagnostic: Diagnostic) -> list[Related]:
    """The declarations that fix the types of a mismatch: the assigned variable, the
    parameter an argument is for, and each named operand."""
    span = diagnostic.span
    path = path_at(doc.module, span.start_byte)
    where = (span.start_byte, span.end_byte)

    def here(node: ast.Node) -> bool:  # the node the diagnostic is at (a mismatch of operands: its operator)
        at_span = node.op_span if isinstance(node, ast.Binary) else node.span
        return (at_span.start_byte, at_span.end_byte) == where or \
            (node.span.start_byte, node.span.end_byte) == where

    at = next((i for i in range(len(path) - 1, -1, -1) if here(path[i])), None)
    if at is None:
        return []
    node, parent = path[at], path[at - 1] if at > 0 else None
    symbols = doc.checked.symbols
    found: list[Symbol | None] = []
    if isinstance(parent, ast.Assign) and parent.value is node:
        found.append(_symbol_of(parent.target, symbols))
    elif isinstance(parent, ast.Call) and node in parent.args:
        found.append(_parameter(doc, parent, parent.args.index(node)))
    operands = [node.left, node.right] if isinstance(node, ast.Binary) else [node]
    found += [_symbol_of(e, symbols) for e in operands]
    out: list[Related] = []
    seen: set[int] = set()
    for symbol in found:
        if symbol is None or symbol.span.end_byte <= symbol.span.start_byte or id(symbol) in seen:
            continue
        seen.add(id(symbol))
        out.append(Related(symbol.span, f"`{symbol.name}` is declared {symbol.type.name} here"))
    return out


def _symbol_of(e: ast.Node, symbols: dict[ast.Node, Symbol]) -> Symbol | None:
    """The variable an expression reads or writes whole or by element (`a`, `a[i]`, `(a)`)."""
    while isinstance(e, (ast.Paren, ast.Index)):
        e = e.expr if isinstance(e, ast.Paren) else e.value
    symbol = symbols.get(e) if isinstance(e, ast.Ident) else None
    if symbol is None or symbol.kind in (SymbolKind.KERNEL, SymbolKind.FUNCTION, SymbolKind.STRUCT):
        return None
    return symbol


def _parameter(doc: DocumentLike, call: ast.Call, index: int) -> Symbol | None:
    """The parameter of the called function or kernel that argument `index` is for."""
    callee = doc.checked.symbols.get(call.callee) if isinstance(call.callee, ast.Ident) else None
    if callee is None or callee.node is None:
        return None
    node = callee.node
    params = node.params if isinstance(node, (ast.KernelDef, ast.FunctionDef)) else []
    if index >= len(params):
        return None
    return doc.checked.symbols.get(params[index].name)
