"""Every program of the conformance suite (the spec's examples among them) parses with
no ERROR or MISSING node, and lowers to an AST with the expected shape."""

from __future__ import annotations

import pytest
from conftest import CONFORMANCE, conformance_programs

from cint_ls.syntax import ast, parse_source

SPEC_EXAMPLES = [
    "acc", "alias_cols", "alias_even_odd", "alias_planes", "budget", "budget_fuel",
    "dispatch_count", "fixed_kernel", "fixed_reduce", "heat_e1", "heat_e2", "heat_e9",
    "heat_fold32", "heat_spot", "heat_sum32", "heat_tour", "index2d", "inout_twice", "mix",
    "mix1", "narrow_out", "ops_kernel", "rev_alias", "same_c5010", "sat", "scale", "shape_rt",
    "step5", "tie_a", "tie_b", "u128_kernel", "where_rt", "wide_kernel",
]


def test_every_spec_example_is_in_the_suite():
    present = {p.stem for p in conformance_programs()}
    assert set(SPEC_EXAMPLES) <= present


@pytest.mark.parametrize("path", conformance_programs(), ids=lambda p: p.stem)
def test_parses_without_errors(path):
    result = parse_source(path.read_text(), str(path))
    assert not result.tree.root_node.has_error
    assert result.diagnostics == []
    assert result.module.name == path.stem


def test_heat_kernel_lowers_with_fields():
    result = parse_source((CONFORMANCE / "heat_e1.ci").read_text(), "heat_e1.ci")
    (kernel,) = result.module.kernels()
    assert kernel.name.text == "diffuse"
    assert [s.text for s in kernel.sizes] == ["h", "w"]
    assert [(p.effective_mode, p.name.text) for p in kernel.params] == [
        ("in", "u"), ("in", "kn"), ("in", "kd"), ("out", "v"), ("out", "total"),
    ]
    assert [b.name.text for b in kernel.space] == ["y", "x"]
    flux = kernel.body.statements[2].then.statements[1]
    assert isinstance(flux, ast.VarDecl) and flux.name.text == "flux"
    call = flux.value
    assert isinstance(call, ast.Call) and call.callee.name == "div_round"
    product = call.args[0]
    assert isinstance(product, ast.Binary) and product.op == "*"
    # The fault position of heat_e1 is the operator: 13:33 (SPEC-02P.1 11.3).
    assert (product.op_span.line, product.op_span.column) == (13, 33)
    cast = kernel.body.statements[2].then.statements[2].value
    assert isinstance(cast, ast.Cast) and (cast.op_span.line, cast.op_span.column) == (14, 24)
    reduce = kernel.body.statements[-1]
    assert isinstance(reduce, ast.Reduce) and reduce.op.text == "sum"
    assert (reduce.op.span.line, reduce.op.span.column) == (17, 20)
    assert [type(s).__name__ for s in result.module.statements] == ["ExprStmt"]


def test_views_and_strings_lower():
    text = (CONFORMANCE / "alias_even_odd.ci").read_text()
    module = parse_source(text, "alias_even_odd.ci").module
    run = module.functions()[0]
    dispatch = run.body.statements[2].expr
    first = dispatch.args[0]
    assert isinstance(first, ast.Index)
    whole, strided = first.indices
    assert isinstance(whole, ast.Slice) and whole.start is None and whole.end is None
    assert isinstance(strided, ast.Slice) and strided.step.text == "2"
    printed = run.body.statements[3].string
    assert isinstance(printed.parts[0], ast.Index) and printed.parts[1] == "\n"
