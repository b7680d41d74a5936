"""Document symbols."""

from __future__ import annotations

from ide_support import conformance, doc_of, text_at

from cint_ls.ide import document_symbols


def test_heat_symbols():
    doc = conformance("heat_e1.ci")
    symbols = document_symbols(doc)
    assert [(s.name, s.kind) for s in symbols] == [("diffuse", "kernel"), ("step", "function")]
    kernel = symbols[0]
    assert kernel.detail == "[h, w] over [y: h, x: w]"
    assert text_at(doc, kernel.selection) == "diffuse"
    assert kernel.span.line == 1 and kernel.span.end_line == 18
    children = [(c.name, c.kind, c.detail) for c in kernel.children]
    assert ("u", "parameter", "in I32[h, w]") in children
    assert ("kn", "parameter", "in I64") in children
    assert ("lap", "variable", "I64") in children
    assert ("h", "parameter", "size symbol") in children
    step = symbols[1]
    assert step.detail == "void ()"
    assert [c.name for c in step.children] == ["a", "b", "total"]


def test_entry_variables_and_exports():
    doc = doc_of("export I64 f(I64 x) { return x; }\nI64 top = 1;\nf(top);\n")
    symbols = document_symbols(doc)
    assert [(s.name, s.kind, s.detail) for s in symbols] == [
        ("f", "function", "export I64 (I64 x)"), ("top", "variable", "I64")]


def test_broken():
    doc = doc_of("kernel (")
    assert document_symbols(doc) == []
