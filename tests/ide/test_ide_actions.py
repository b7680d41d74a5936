"""Quick fixes (`ide.code_actions`): each is applied, and the fixed text must parse, lose
the diagnostic it fixes, and gain no error."""

from __future__ import annotations

import pytest
from ide_support import conformance, doc_of

from cint_ls import ide
from cint_ls.ide.document import Document


def apply(doc, changes) -> str:
    data, out, last = doc.source.data, [], 0
    for c in sorted(changes, key=lambda c: c.span.start_byte):
        out += [data[last:c.span.start_byte], c.new_text.encode()]
        last = c.span.end_byte
    out.append(data[last:])
    return b"".join(out).decode()


def fix(text: str, code: str, title: str | None = None) -> tuple[str, Document]:
    """The text with the one fix of the one `code` diagnostic applied, and its document."""
    doc = doc_of(text)
    (d,) = [d for d in ide.diagnostics(doc) if d.code == code]
    actions = ide.code_actions(doc, d.span.start_byte, d.span.end_byte)
    (action,) = [a for a in actions if a.diagnostic.code == code]
    if title is not None:
        assert action.title == title
    assert action.kind == "quickfix" and action.preferred
    fixed = apply(doc, action.changes)
    after = doc_of(fixed)
    assert after.syntax.diagnostics == [], fixed  # it parses
    assert code not in [d.code for d in ide.diagnostics(after)], fixed
    errors = [d for d in ide.diagnostics(after) if d.severity == 1]
    assert len(errors) < len([d for d in ide.diagnostics(doc) if d.severity == 1])
    return fixed, after


def test_did_you_mean():
    fixed, _ = fix("void go() {\n    I64 count = 1;\n    I64 x = cuont + 1;\n}\n", "C2001", "Change to `count`")
    assert "I64 x = count + 1;" in fixed


def test_insert_semicolon():
    fixed, _ = fix("void go() {\n    I64 x = 1\n    I64 y = x;\n}\n", "C1002", "Insert `;`")
    assert "I64 x = 1;\n" in fixed


def test_insert_parenthesis():
    text = "I64 g(I64 a, I64 b) {\n    return a + b;\n}\nI64 f(I64 a) {\n    return g(a, 1;\n}\n"
    fixed, _ = fix(text, "C1002", "Insert `)`")
    assert "return g(a, 1);" in fixed


@pytest.mark.parametrize("text, expected", [
    ("void go() {\n    I32 t = 1;\n    I64 v = 2;\n    t = v;\n}\n", "t = v as I32;"),
    ("void go() {\n    I64 v = 2;\n    I32 t = v + 1;\n}\n", "I32 t = (v + 1) as I32;"),
    ("I64 f(I32 p) {\n    return p as I64;\n}\nvoid go() {\n    I64 v = 2;\n    I64 r = f(v);\n}\n",
     "I64 r = f(v as I32);"),
])
def test_convert_with_as(text, expected):
    fixed, _ = fix(text, "C3003")
    assert expected in fixed


def test_in_parameter_written_becomes_inout():
    text = "kernel k[n](in I64[n] a) over [i: n] {\n    a[i] = 1;\n}\n"
    fixed, _ = fix(text, "C5005", "Declare `a` inout")
    assert fixed.startswith("kernel k[n](inout I64[n] a)")


def test_parameter_without_mode_written_becomes_inout():
    fixed, _ = fix("kernel k[n](I64[n] a) over [i: n] {\n    a[i] = 1;\n}\n", "C5005")
    assert fixed.startswith("kernel k[n](inout I64[n] a)")


def test_out_parameter_read_becomes_inout():
    text = "kernel k[n](out I64[n] a) over [i: n] {\n    a[i] = a[i] + 1;\n}\n"
    fixed, _ = fix(text, "C5014", "Declare `a` inout")
    assert fixed.startswith("kernel k[n](inout I64[n] a)")


def test_no_fix_that_does_not_work():
    # `cont` is close to the kernel `count`, which is no value: the suggested name would be
    # C2005, one error for another, so it is not offered (the message still suggests it).
    doc = doc_of("kernel count[n](in I64[n] a) over [i: n] {\n}\nvoid go() {\n    I64 x = cont;\n}\n")
    (d,) = ide.diagnostics(doc)
    assert d.data == {"suggestion": "count"}
    assert ide.code_actions(doc, 0, len(doc.source.data)) == []
    # A type mismatch between operands has no one value to convert: nothing is offered.
    doc = doc_of("void go() {\n    I32 t = 1;\n    I64 v = 2;\n    I64 w = t + v;\n}\n")
    assert ide.code_actions(doc, 0, len(doc.source.data)) == []


def test_no_fix_for_a_refusal():
    """A gpu-cuda refusal is a warning on a program that runs: rewriting it would change
    its fault record (`-x` as `0 - x` names sub.checked.i64, not neg.checked.i64)."""
    doc = conformance("ops_kernel.ci")
    assert any(d.code == "C9100" for d in ide.diagnostics(doc))
    assert ide.code_actions(doc, 0, len(doc.source.data)) == []


def test_only_the_range_asked_about():
    doc = doc_of("void go() {\n    I64 count = 1;\n    I64 x = cuont + 1;\n}\n")
    assert ide.code_actions(doc, 0, 5) == []
    assert ide.code_actions(doc, len(doc.source.data), len(doc.source.data)) == []
    assert ide.code_actions(doc, -10, 10 ** 9) != []  # out of range: clamped, never raises
