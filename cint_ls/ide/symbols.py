"""Document symbols: kernels and functions with their parameters and local variables,
structs, and the entry's top-level variables, in source order."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..analysis.result import CheckedModule
from ..syntax import ast
from . import declaration_text
from .document import Move
from .find import total, walk
from .results import DocumentSymbol

if TYPE_CHECKING:
    from .document import DocumentLike, Part


def _locals(checked: CheckedModule, body: ast.Block) -> tuple[DocumentSymbol, ...]:
    out = []
    for node in walk(body):
        if isinstance(node, ast.VarDecl) and node.name.text:
            out.append(DocumentSymbol(node.name.text, "variable", node.span.freeze(), node.name.span.freeze(),
                                      declaration_text.type_ref_text(checked, node.type)))
    return tuple(out)


def _params(checked: CheckedModule, params: list[ast.Param], kernel: bool) -> tuple[DocumentSymbol, ...]:
    return tuple(
        DocumentSymbol(p.name.text, "parameter", p.span.freeze(), p.name.span.freeze(),
                       declaration_text.param_text(checked, p, kernel).rsplit(" ", 1)[0])
        for p in params if p.name.text
    )


def _item_symbols(checked: CheckedModule, item: ast.Node) -> list[DocumentSymbol]:
    if isinstance(item, ast.KernelDef) and item.name.text:
        sizes = ", ".join(s.text for s in item.sizes)
        over = ", ".join(f"{b.name.text}: {declaration_text.text(checked, b.extent.span)}" for b in item.space)
        sizes_children = tuple(
            DocumentSymbol(s.text, "parameter", s.span.freeze(), s.span.freeze(), "size symbol")
            for s in item.sizes if s.text)
        return [DocumentSymbol(
            item.name.text, "kernel", item.span.freeze(), item.name.span.freeze(),
            f"[{sizes}] over [{over}]",
            sizes_children + _params(checked, item.params, True) + _locals(checked, item.body))]
    if isinstance(item, ast.FunctionDef) and item.name.text:
        params = ", ".join(declaration_text.param_text(checked, p, False) for p in item.params)
        export = "export " if item.export else ""
        return [DocumentSymbol(
            item.name.text, "function", item.span.freeze(), item.name.span.freeze(),
            f"{export}{declaration_text.type_ref_text(checked, item.return_type)} ({params})",
            _params(checked, item.params, False) + _locals(checked, item.body))]
    if isinstance(item, ast.StructDef) and item.name.text:
        fields = tuple(DocumentSymbol(f.name.text, "variable", f.span.freeze(), f.name.span.freeze(),
                                      declaration_text.type_ref_text(checked, f.type))
                       for f in item.fields if f.name.text)
        return [DocumentSymbol(item.name.text, "struct", item.span.freeze(), item.name.span.freeze(),
                               "struct", fields)]
    if isinstance(item, ast.VarDecl) and item.name.text:
        return [DocumentSymbol(item.name.text, "variable", item.span.freeze(), item.name.span.freeze(),
                               declaration_text.type_ref_text(checked, item.type))]
    return []


def _moved(symbol: DocumentSymbol, move: Move) -> DocumentSymbol:
    return DocumentSymbol(symbol.name, symbol.kind, move.span(symbol.span), move.span(symbol.selection),
                          symbol.detail, tuple(_moved(c, move) for c in symbol.children))


def part_symbols(doc: DocumentLike, part: Part) -> list[DocumentSymbol]:
    """A part's symbols: kept with its item across versions (with the place they were
    made at, and moved when the item moved), made once a version. Holding the
    document's lock (`doc.reading()`)."""
    found: list[DocumentSymbol] | None = part.memo.get("symbols")
    if found is not None:
        return found
    entry = part.entry
    kept: tuple[tuple[int, int, int], list[DocumentSymbol]] | None = (
        entry.results.get("symbols") if entry is not None else None)
    if part.node is None:
        found = []
    elif kept is None:
        found = _item_symbols(doc.checked, part.node)
        doc.counters["symbols"] = doc.counters.get("symbols", 0) + 1
    elif kept[0] == part.at:
        found = kept[1]
    else:
        move = Move(kept[0], part.at)
        found = [_moved(s, move) for s in kept[1]]
    if entry is not None:
        entry.results["symbols"] = (part.at, found)
    part.memo["symbols"] = found
    return found


@total(list)
def document_symbols(doc: DocumentLike) -> list[DocumentSymbol]:
    found: list[DocumentSymbol] | None = doc.memo.get("symbols")
    if found is None:
        found = doc.memo["symbols"] = [s for part in doc.parts() for s in part_symbols(doc, part)]
    return list(found)
