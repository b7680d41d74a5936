"""`ide.explain`: the specific reason and the other half of a conflict, for the editor
(the CLI keeps the catalogue's line: conformance same_c5010.out)."""

from __future__ import annotations

from ide_support import CONFORMANCE, conformance, doc_of, text_at

from cint_ls import ide
from cint_ls.syntax import parse_source
from cint_ls.syntax.report import render_diagnostic


def only(doc, code):
    (found,) = [d for d in ide.diagnostics(doc) if d.code == code]
    return found


def places(doc, explanation):
    return [(r.span.line, r.span.column, text_at(doc, r.span), r.message) for r in explanation.related]


def test_c5010_names_both_parameters_and_points_at_both_arguments():
    doc = conformance("same_c5010.ci")
    d = only(doc, "C5010")
    assert d.message == "parameter mode, alias, or ABI rule"  # what `cint check` prints
    e = ide.explain(doc, d)
    assert e.message.startswith("the same view is passed for `u` (in) and `v` (out)")
    assert places(doc, e) == [
        (7, 11, "a", "passed for `u` (in)"),
        (7, 14, "a", "the same view passed for `v` (out)"),
    ]


def test_c5010_cli_text_unchanged():
    """The related places are data only: `cint check`'s text is the conformance output."""
    doc = conformance("same_c5010.ci")
    expected = (CONFORMANCE / "same_c5010.out").read_text()
    assert render_diagnostic(doc.source, only(doc, "C5010")) == expected


def test_refusal_points_at_the_dispatch_site():
    doc = conformance("ops_kernel.ci")
    first = next(d for d in ide.diagnostics(doc) if d.code == "C9100")
    e = ide.explain(doc, first)
    assert e.message == first.message
    assert places(doc, e)[0] == (3, 13, "-", "gpu-cuda refuses `neg`: unary minus")  # the constructs first
    assert places(doc, e)[-1] == (22, 5, "ops", "`ops` is dispatched here: a gpu-cuda run stops at this dispatch")
    mark = next(d for d in ide.diagnostics(doc) if d.code == "C9100" and d.data.get("mark"))
    assert places(doc, ide.explain(doc, mark)) == []  # a mark at one construct: the warning has the sites


def test_type_mismatch_points_at_the_declarations():
    doc = doc_of("void go() {\n    I32 t = 1;\n    I64 v = 2;\n    t = v;\n    I64 w = t + v;\n}\n")
    assign, binary = [d for d in ide.diagnostics(doc) if d.code == "C3003"]
    assert [p[:3] for p in places(doc, ide.explain(doc, assign))] == [(2, 9, "t"), (3, 9, "v")]
    assert places(doc, ide.explain(doc, assign))[0][3] == "`t` is declared I32 here"
    assert [p[:3] for p in places(doc, ide.explain(doc, binary))] == [(2, 9, "t"), (3, 9, "v")]


def test_argument_mismatch_points_at_the_parameter():
    doc = doc_of("I64 f(I32 p) {\n    return p as I64;\n}\nvoid go() {\n    I64 v = 2;\n    I64 r = f(v);\n}\n")
    (d,) = [d for d in ide.diagnostics(doc) if d.code == "C3003"]
    assert [p[:3] for p in places(doc, ide.explain(doc, d))] == [(1, 11, "p"), (5, 9, "v")]


def test_other_diagnostics_are_as_they_are():
    doc = doc_of("void go() {\n    I64 x = y;\n}\n")
    d = only(doc, "C2001")
    e = ide.explain(doc, d)
    assert e.message == d.message and e.related == ()


def test_parse_source_is_unaffected():
    assert parse_source("void go() {}\n").diagnostics == []
