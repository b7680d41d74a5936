"""Signature help on dispatches, calls, built-ins and reductions."""

from __future__ import annotations

from ide_support import conformance, doc_of, find_offset

from cint_ls.ide import signature_help


def test_dispatch():
    doc = conformance("heat_e1.ci")
    found = signature_help(doc, find_offset(doc, 25, "b, total"))
    assert found.label == "diffuse(in I32[h, w] u, in I64 kn, in I64 kd, out I32[h, w] v, out I64 total)"
    assert found.parameters[found.active_parameter] == "out I32[h, w] v"
    assert all(p in found.label for p in found.parameters)
    assert "over [y: h, x: w]" in found.documentation


def test_dispatch_signature_does_not_say_over_over():
    """Issue 32: the documentation read "dispatch over `over [y: h, x: w]`"."""
    doc = conformance("heat_e1.ci")
    found = signature_help(doc, find_offset(doc, 25, "b, total"))
    assert "over over" not in found.documentation.replace("`", "")
    assert found.documentation.startswith("one work-item for each point of `over [y: h, x: w]`; fuel: ")


def test_builtin_and_half_typed():
    doc = doc_of("void f(I64 a) {\n    I64 q = div_round(a, 3, \n")
    found = signature_help(doc, len(doc.source.data) - 1)
    assert found.label == "div_round(a, b, mode)" and found.active_parameter == 2


def test_function_call_and_nesting():
    doc = doc_of("I64 g(I64 x, I64 y) { return x; }\nvoid f() { I64 v = g(1, min(2, 3)); }\n")
    found = signature_help(doc, find_offset(doc, 2, "3)"))
    assert found.label == "min(a, b)" and found.active_parameter == 1
    found = signature_help(doc, find_offset(doc, 2, "min"))
    assert found.label == "I64 g(I64 x, I64 y)" and found.active_parameter == 1


def test_reduce():
    doc = doc_of("kernel k[n](in I64[n] a, out I64 s) over [i: n] {\n    reduce s = fold_checked(add, 0, ")
    found = signature_help(doc, len(doc.source.data))
    assert found.label == "fold_checked(add, init, x)" and found.active_parameter == 2


def test_none_outside_calls():
    doc = conformance("heat_e1.ci")
    assert signature_help(doc, 0) is None
    assert signature_help(doc, find_offset(doc, 8, "c =")) is None
