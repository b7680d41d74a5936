"""Messages for the mistakes people make first (issue 32, points 3 and 4): C type names,
a misspelt keyword, `=` in a condition, a negative literal out of range quoted as
written, and `I8.min` applied by a fix. Each fix is applied and must check clean."""

from __future__ import annotations

import pytest
from ide_support import doc_of
from test_ide_actions import fix

from cint_ls import ide


@pytest.mark.parametrize("c, cint", [("int", "I32"), ("long", "I64"), ("short", "I16"), ("unsigned", "U32"),
                                     ("bool", "Bool"), ("size_t", "I64")])
def test_c_type_name_gets_the_cint_type_and_a_fix(c, cint):
    value = "true" if cint == "Bool" else "1"
    fixed, after = fix(f"void go() {{\n    {c} x = {value};\n    \"{{x}}\\n\";\n}}\ngo();\n", "C3019",
                       f"Change to `{cint}`")
    assert f"    {cint} x = {value};" in fixed and ide.diagnostics(after) == []


@pytest.mark.parametrize("c, says", [("float", "no floating point"), ("double", "Qm.n"), ("char", "`U8` for a byte")])
def test_c_type_without_one_cint_type_says_so_and_offers_nothing(c, says):
    doc = doc_of(f"void go() {{\n    {c} t;\n}}\n")
    (d,) = ide.diagnostics(doc)
    assert d.code == "C3019" and says in d.message and "struct" not in d.message
    assert ide.code_actions(doc, 0, len(doc.source.data)) == []


def test_misspelt_kernel_keyword_did_you_mean_kernel():
    text = "kernal scale[n](in I64[n] a, out I64[n] b) over [i: n] {\n    b[i] = a[i];\n}\n"
    doc = doc_of(text)
    (d,) = ide.diagnostics(doc)  # one diagnostic, not C9001 and a cascade through the body
    assert d.code == "C1004" and d.message == "unknown word `kernal`; did you mean `kernel`?"
    fixed, after = fix(text, "C1004", "Change to `kernel`")
    assert fixed.startswith("kernel scale[n]") and ide.diagnostics(after) == []


def test_assignment_in_a_condition_did_you_mean_equals():
    text = "void go() {\n    I64 x = 1;\n    if (x = 2) {\n        \"two\\n\";\n    }\n}\ngo();\n"
    doc = doc_of(text)
    (d,) = ide.diagnostics(doc)  # no "unexpected `=`", no type error
    assert d.code == "C1005" and "did you mean `==`" in d.message and (d.span.line, d.span.column) == (3, 11)
    fixed, after = fix(text, "C1005", "Change to `==`")
    assert "if (x == 2) {" in fixed and ide.diagnostics(after) == []


def test_negative_literal_out_of_range_is_quoted_as_written():
    (d,) = ide.diagnostics(doc_of("void go() {\n    I8 c = -129;\n}\n"))
    assert d.code == "C3002" and d.message == "the literal -129 does not fit I8 (-128..127)"
    assert (d.span.column, d.span.end_column) == (12, 16)  # the whole `-129`


def test_min_hint_is_applied_by_a_fix():
    text = "void go() {\n    I8 m = -128;\n    \"{m}\\n\";\n}\ngo();\n"
    fixed, after = fix(text, "C3002", "Change to `I8.min`")
    assert "I8 m = I8.min;" in fixed and ide.diagnostics(after) == []
