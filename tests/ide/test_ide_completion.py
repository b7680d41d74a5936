"""Completion, on complete and half-typed text."""

from __future__ import annotations

from ide_support import doc_of

from cint_ls.ide import completion

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
    assert {"reduce", "return"} <= labels(items, "keyword") and {"if", "for"} <= labels(items, "snippet")
    assert {"I64", "U8", "Bool", "Q16.16"} <= labels(items, "type")
    assert not {"div_round", "min", "max", "abs"} & labels(items)  # a built-in's value is not a statement
    doc, offset = at_cursor(KERNEL.replace("{CURSOR}", "t = {CURSOR}"))
    assert {"div_round", "min", "max", "abs"} <= labels(completion(doc, offset), "function")
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


def test_one_entry_per_keyword():
    for template in (KERNEL, "{CURSOR}\n", "void f() {\n    for i in 0..3 {\n        {CURSOR}\n    }\n}\n"):
        doc, offset = at_cursor(template)
        all_labels = [i.label for i in completion(doc, offset)]
        assert len(all_labels) == len(set(all_labels)), sorted(all_labels)


def test_statement_context_in_a_function_body():
    doc, offset = at_cursor("void f() {\n    I64 x = 1;\n    {CURSOR}\n}\n")
    items = completion(doc, offset)
    found = labels(items)
    assert {"if", "for", "while", "return", "x", "I64", "f"} <= found
    # Not at a statement of a function: items, switch labels, loop exits, reduce.
    assert not found & {"kernel", "export", "void", "case", "default", "break", "continue", "reduce", "over"}


def test_loop_and_switch_and_kernel_words():
    doc, offset = at_cursor("void f() {\n    for i in 0..3 {\n        {CURSOR}\n    }\n}\n")
    assert {"break", "continue"} <= labels(completion(doc, offset))
    doc, offset = at_cursor("void f(I64 v) {\n    switch (v) {\n        case 1: {CURSOR}\n    }\n}\n")
    assert {"case", "default", "break"} <= labels(completion(doc, offset))
    doc, offset = at_cursor(KERNEL)
    assert "reduce" in labels(completion(doc, offset))


def test_top_level_offers_items():
    doc, offset = at_cursor("void go() {\n}\n{CURSOR}\n")
    items = completion(doc, offset)
    assert {"kernel", "void", "export", "go", "I64"} <= labels(items)
    assert not labels(items) & {"return", "break", "reduce", "if", "else", "case"}
    first = min(items, key=lambda i: i.sort)
    assert first.label in ("kernel", "void", "export")


def test_expression_context_offers_values_only():
    doc, offset = at_cursor(KERNEL.replace("{CURSOR}", "I64 u = {CURSOR}"))
    items = completion(doc, offset)
    found = labels(items)
    assert {"t", "a", "c", "i", "min", "div_round", "true", "I64"} <= found
    assert not found & {"if", "for", "return", "reduce", "kernel", "else"}
    assert "k" not in found  # a kernel is dispatched by a statement, never a value (C5016)
    by_label = {i.label: i for i in items}
    assert by_label["t"].sort < by_label["min"].sort < by_label["true"].sort < by_label["I64"].sort


def test_names_first_in_a_statement():
    doc, offset = at_cursor("void f() {\n    I64 total = 1;\n    to{CURSOR}\n}\n")
    by_label = {i.label: i for i in completion(doc, offset)}
    assert by_label["total"].sort < by_label["if"].sort < by_label["I64"].sort


def test_members_after_a_type_and_a_dot():
    doc, offset = at_cursor("void f() {\n    I64 x = I64.{CURSOR}\n}\n")
    items = completion(doc, offset)
    assert [(i.label, i.detail) for i in items] == [
        ("min", "I64.min = -9223372036854775808"), ("max", "I64.max = 9223372036854775807")]
    doc, offset = at_cursor("void f() {\n    U8 x = U8.m{CURSOR}\n}\n")
    assert [i.detail for i in completion(doc, offset)] == ["U8.min = 0", "U8.max = 255"]
    doc, offset = at_cursor("void f() {\n    Q16.16 x = Q16.16.{CURSOR}\n}\n")
    assert labels(completion(doc, offset)) == {"min", "max"}


def test_nothing_for_a_new_name_and_in_after_a_loop_variable():
    doc, offset = at_cursor("void f() {\n    I64 {CURSOR}\n}\n")
    assert completion(doc, offset) == []
    doc, offset = at_cursor("void f() {\n    for i {CURSOR}\n}\n")
    assert labels(completion(doc, offset)) == {"in"}


def test_documentation():
    doc, offset = at_cursor("void f() {\n    {CURSOR}\n}\n")
    by_label = {i.label: i for i in completion(doc, offset)}
    assert by_label["while"].documentation.startswith("`while (condition)")
    assert by_label["I8"].documentation == "signed 8-bit integer, -128 to 127"
    assert by_label["Q16.16"].documentation.startswith("signed fixed point: 32 bits, 16 of them fractional")
    assert all(i.sort for i in by_label.values())
