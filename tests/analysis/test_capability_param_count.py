"""Issue 13 item 12: gpu-cuda refuses "more than 61 parameters" (SPEC-02P.1 Table 3);
size symbols are not parameters (Table 1, 8.2), so a kernel with exactly 61 parameters
and a size symbol is admitted, and one with 62 is refused."""

from __future__ import annotations

from cint_ls.analysis.capabilities import gpu_refusals
from cint_ls.ir.build import build


def kernel_with(count: int) -> str:
    params = ", ".join(f"in I64[n] a{i}" for i in range(count - 1))
    return (f"kernel wide[n]({params}, out I64[n] r) over [i: n] {{\n    r[i] = a0[i];\n}}\n"
            "void go() {\n    I64[2] x = [1, 2];\n    I64[2] r;\n"
            f"    wide({', '.join(['x'] * (count - 1))}, r);\n}}\ngo();\n")


def capabilities(count: int) -> list[str]:
    checked = build(kernel_with(count), "wide.ci").checked
    assert not checked.has_errors, checked.errors
    return [r.capability for r in gpu_refusals(checked)]


def test_exactly_61_parameters_and_a_size_symbol_are_admitted():
    assert "params" not in capabilities(61)


def test_62_parameters_are_refused():
    assert "params" in capabilities(62)
