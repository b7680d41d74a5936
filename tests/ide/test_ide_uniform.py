"""Uniform and varying values (SPEC-02P.1 8.2), by inference to a fixed point."""

from __future__ import annotations

from ide_support import conformance, doc_of

from cint_ls.ide.uniform import Uniformity


def classify(text: str) -> dict[str, bool]:
    doc = doc_of(text)
    checked = doc.checked
    assert not checked.has_errors, checked.errors
    info = next(iter(checked.kernels.values()))
    u = Uniformity(checked, info)
    return {s.name: u.symbol_varying(s) for s in checked.symbols.values() if s.owner == info.symbol.name}


def kernel(body: str) -> str:
    return f"kernel k[n](in I64[n] a, I64 c, out I64[n] b) over [i: n] {{\n{body}\n    b[i] = 0;\n}}\n"


def test_parameters_sizes_and_over():
    found = classify(kernel("    I64 u = c * 2;\n    I64 v = i + 1;"))
    assert found["n"] is False and found["c"] is False and found["i"] is True
    assert found["u"] is False and found["v"] is True


def test_reads_at_varying_and_uniform_indices():
    found = classify(kernel("    I64 r = a[i];\n    I64 q = a[0] + a[c];"))
    assert found["r"] is True and found["q"] is False


def test_assignment_under_varying_control():
    found = classify(kernel("    I64 s = 0;\n    I64 t = 0;\n    if (i > 2) { s = 1; }\n    if (c > 2) { t = 1; }"))
    assert found["s"] is True and found["t"] is False


def test_loops_and_fixed_point():
    # `p` becomes varying only through `q`, which is assigned after it in the loop body.
    found = classify(kernel("    I64 p = 0;\n    I64 q = 0;\n    for j in 0..4 {\n        p = q;\n        q = i;\n    }"))
    assert found["p"] is True and found["q"] is True and found["j"] is False


def test_varying_trip_count():
    found = classify(kernel("    I64 s = 0;\n    for j in 0..i { s = s + 1; }\n    I64 w = 0;\n"
                            "    while (w < 3) { if (a[i] > 0) { break; } w = w + 1; }"))
    assert found["j"] is True and found["s"] is True and found["w"] is True


def test_varying_return_makes_the_rest_varying():
    found = classify("kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {\n    b[i] = 0;\n"
                     "    if (a[i] > 0) { return; }\n    I64 t = 5;\n}\n")
    assert found["t"] is True


def test_heat():
    doc = conformance("heat_e1.ci")
    info = doc.checked.kernels["diffuse"]
    u = Uniformity(doc.checked, info)
    names = {s.name: u.symbol_varying(s) for s in doc.checked.symbols.values() if s.owner == "diffuse"}
    assert names == {"h": False, "w": False, "u": False, "kn": False, "kd": False, "v": False, "total": False,
                     "y": True, "x": True, "c": True, "r": True, "lap": True, "flux": True}
