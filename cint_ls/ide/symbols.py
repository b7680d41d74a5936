"""Document symbols: kernels and functions with their parameters and local variables,
structs, and the entry's top-level variables, in source order."""

from __future__ import annotations

from ..syntax import ast
from . import declaration_text
from .find import top_level, total, walk
from .results import DocumentSymbol


def _locals(checked, body: ast.Block) -> tuple[DocumentSymbol, ...]:
    out = []
    for node in walk(body):
        if isinstance(node, ast.VarDecl) and node.name.text:
            out.append(DocumentSymbol(node.name.text, "variable", node.span.freeze(), node.name.span.freeze(),
                                      declaration_text.type_ref_text(checked, node.type)))
    return tuple(out)


def _params(checked, params: list[ast.Param], kernel: bool) -> tuple[DocumentSymbol, ...]:
    return tuple(
        DocumentSymbol(p.name.text, "parameter", p.span.freeze(), p.name.span.freeze(),
                       declaration_text.param_text(checked, p, kernel).rsplit(" ", 1)[0])
        for p in params if p.name.text
    )


@total(list)
def document_symbols(doc) -> list[DocumentSymbol]:
    checked = doc.checked
    out: list[DocumentSymbol] = []
    for item in top_level(checked.module):
        if isinstance(item, ast.KernelDef) and item.name.text:
            sizes = ", ".join(s.text for s in item.sizes)
            over = ", ".join(f"{b.name.text}: {declaration_text.text(checked, b.extent.span)}" for b in item.space)
            sizes_children = tuple(
                DocumentSymbol(s.text, "parameter", s.span.freeze(), s.span.freeze(), "size symbol")
                for s in item.sizes if s.text)
            out.append(DocumentSymbol(
                item.name.text, "kernel", item.span.freeze(), item.name.span.freeze(),
                f"[{sizes}] over [{over}]",
                sizes_children + _params(checked, item.params, True) + _locals(checked, item.body)))
        elif isinstance(item, ast.FunctionDef) and item.name.text:
            params = ", ".join(declaration_text.param_text(checked, p, False) for p in item.params)
            export = "export " if item.export else ""
            out.append(DocumentSymbol(
                item.name.text, "function", item.span.freeze(), item.name.span.freeze(),
                f"{export}{declaration_text.type_ref_text(checked, item.return_type)} ({params})",
                _params(checked, item.params, False) + _locals(checked, item.body)))
        elif isinstance(item, ast.StructDef) and item.name.text:
            fields = tuple(DocumentSymbol(f.name.text, "variable", f.span.freeze(), f.name.span.freeze(),
                                          declaration_text.type_ref_text(checked, f.type))
                           for f in item.fields if f.name.text)
            out.append(DocumentSymbol(item.name.text, "struct", item.span.freeze(), item.name.span.freeze(),
                                      "struct", fields))
        elif isinstance(item, ast.VarDecl) and item.name.text:
            out.append(DocumentSymbol(item.name.text, "variable", item.span.freeze(), item.name.span.freeze(),
                                      declaration_text.type_ref_text(checked, item.type)))
    return out
