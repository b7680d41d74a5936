"""Completion, on complete and half-typed text."""

from __future__ import annotations

from cint_ls.ide import completion
from ide_support import doc_of

KERNEL = "kernel k[n](in I64[n] a, I64 c, out I64[n] b) over [i: n] {\n    I64 t = a[i];\n    {CURSOR}\n}\n" \
         "void go() {\n    I64 z = 1;\n}\n"


def at_cursor(template: str):
    text = template.replace("{CURSOR}", "")
    return doc_of(text), len(template[:template.index("{CURSOR}")].encode())


def labels(items, kind=None):
    return {i.label for i in items if kind is None or i.kind == kind}


def test_names_in_scope_keywords_types_builtins():
    doc, offset = at_cursor(KERNEL)
    items = completion(doc, offset)
    assert {"t", "i", "n"} <= labels(items, "variable")
    assert {"a", "c", "b"} <= labels(items, "parameter")
    assert "z" not in labels(items)  # go's local is not visible in the kernel
    assert {"k"} <= labels(items, "kernel") and {"go"} <= labels(items, "function")
    assert {"if", "for", "reduce", "return"} <= labels(items, "keyword")
    assert {"I64", "U8", "Bool", "Q16.16"} <= labels(items, "type")
    assert {"div_round", "min", "max", "abs"} <= labels(items, "function")
    snippets = [i for i in items if i.kind == "snippet"]
    assert snippets and all(i.insert_text for i in snippets)


def test_locals_after_the_cursor_are_not_visible():
    doc, offset = at_cursor("void f() {\n    I64 x = 1;\n    {CURSOR}\n    I64 y = 2;\n}\n")
    names = labels(completion(doc, offset), "variable")
    assert "x" in names and "y" not in names


def test_reduce_operators_on_half_typed_line():
    doc, offset = at_cursor("kernel k[n](in I64[n] a, out I64 s) over [i: n] {\n    reduce s = {CURSOR}\n")
    items = completion(doc, offset)
    assert labels(items) == {"sum", "sum_wrap", "sum_sat", "min", "max", "count", "fold_checked"}
    doc, offset = at_cursor("kernel k[n](in I64[n] a, out I64 s) over [i: n] {\n    reduce s = su{CURSOR}\n}\n")
    assert "sum" in labels(completion(doc, offset))


def test_rounding_modes_as_third_argument():
    doc, offset = at_cursor("void f(I64 a) {\n    I64 q = div_round(a, 3, {CURSOR}\n}\n")
    assert labels(completion(doc, offset)) == {"floor", "ceil", "trunc", "away", "half_even", "half_away",
                                               "half_trunc"}
    doc, offset = at_cursor("void f(I64 a) {\n    I64 q = div_round(a, {CURSOR}\n}\n")
    assert "half_even" not in labels(completion(doc, offset))
    assert "a" in labels(completion(doc, offset))


def test_parameter_modes():
    doc, offset = at_cursor("kernel k[n](in I64[n] a, {CURSOR}")
    items = completion(doc, offset)
    assert {"in", "out", "inout"} <= labels(items, "keyword") and "I64" in labels(items, "type")
    doc, offset = at_cursor("kernel k[n]({CURSOR}")
    assert {"in", "out", "inout"} <= labels(completion(doc, offset))


def test_types_after_as():
    doc, offset = at_cursor("void f(I64 a) {\n    I32 q = a as {CURSOR}\n}\n")
    assert labels(completion(doc, offset)) == labels(completion(doc, offset), "type")


def test_entry_variables():
    doc, offset = at_cursor("I64 top = 1;\n{CURSOR}\n")
    assert "top" in labels(completion(doc, offset), "variable")


def test_nothing_in_comments_and_strings():
    doc, offset = at_cursor("// a comment {CURSOR}\n")
    assert completion(doc, offset) == []
    doc, offset = at_cursor('void f() { "some text {CURSOR} here"; }\n')
    assert completion(doc, offset) == []
    doc, offset = at_cursor('void f() { I64 x = 1; "value {x{CURSOR}}"; }\n')
    assert "x" in labels(completion(doc, offset))
