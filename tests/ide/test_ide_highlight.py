"""Document highlights: the occurrences of the name under the cursor, reads and writes."""

from __future__ import annotations

from ide_support import conformance, doc_of, find_offset, text_at

from cint_ls import ide


def marks(doc, offset):
    return [(h.span.line, h.span.column, text_at(doc, h.span), h.kind) for h in ide.highlights(doc, offset)]


def test_local_array_written_by_store_and_by_dispatch():
    doc = conformance("heat_e1.ci")
    b = find_offset(doc, 22, "b")
    assert marks(doc, b) == [(22, 15, "b", "text"), (25, 58, "b", "write")]
    a = find_offset(doc, 21, "a")
    assert marks(doc, a) == [(21, 15, "a", "text"), (23, 5, "a", "write"), (25, 13, "a", "read")]


def test_scalar_out_argument_and_reduce_target():
    doc = conformance("heat_e1.ci")
    total = find_offset(doc, 24, "total")
    assert marks(doc, total) == [(24, 9, "total", "write"), (25, 61, "total", "write"), (26, 7, "total", "read")]
    param = find_offset(doc, 6, "total")
    assert marks(doc, param) == [(6, 13, "total", "text"), (17, 12, "total", "write")]


def test_variable_assigned_and_read():
    doc = conformance("heat_e1.ci")
    r = find_offset(doc, 9, "r")
    assert [m[3] for m in marks(doc, r)] == ["write", "write", "read", "read"]  # decl, `r = ...`, v[..] = r, sum(r)


def test_kernel_name_is_never_a_write():
    doc = conformance("heat_e1.ci")
    assert [m[3] for m in marks(doc, find_offset(doc, 1, "diffuse"))] == ["text", "read"]


def test_nothing_off_a_name_and_any_offset():
    doc = doc_of("void go() {\n    I64 x = 1;\n}\n")
    assert ide.highlights(doc, 0) == []
    assert ide.highlights(doc, -5) == [] and ide.highlights(doc, 10 ** 9) == []
    assert ide.highlights(doc_of("void go( {\n  x = \n"), 12) == []
