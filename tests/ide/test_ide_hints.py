"""Inlay hints: the step ordinal after each counted operation of a kernel body."""

from __future__ import annotations

from ide_support import conformance, doc_of

from cint_ls.ide import inlay_hints


def annotate(doc, start=0, end=None) -> str:
    data = doc.source.data
    out, last = b"", 0
    for h in inlay_hints(doc, start, len(data) if end is None else end):
        out += data[last:h.offset] + h.label.encode()
        last = h.offset
    return (out + data[last:]).decode()


def test_heat_hints():
    text = annotate(conformance("heat_e1.ci"))
    assert "I64 c = u[y, x]#0 as I64#1;" in text
    assert "if (y > 0 && y < h -#3 1 && x > 0 && x < w -#4 1) {" in text
    assert "I64 flux = div_round(kn *#22 lap, kd, half_even)#23;" in text
    assert "r = (c +#24 flux) as I32#25;" in text
    assert "v[y, x]#{3,4,5,26} = r;" in text
    assert "reduce total = sum(r)#{4,5,6,27};" in text
    assert text.count("#") == 28


def test_tooltips_and_range():
    doc = conformance("heat_e1.ci")
    hints = inlay_hints(doc, 0, len(doc.source.data))
    assert hints[0].tooltip == "step 0 · index.checked"
    line13 = doc.source._line_starts[12]
    inside = inlay_hints(doc, line13, doc.source._line_starts[13])
    assert [h.label for h in inside] == ["#22", "#23"]
    assert [h.offset for h in hints] == sorted(h.offset for h in hints)


def test_loops_and_functions():
    doc = doc_of("I64 f(I64 x) { return x * 2; }\n"
                 "kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {\n    I64 s = 0;\n"
                 "    for j in 0..2 { s = s + 1; }\n    b[i] = f(s);\n}\n")
    text = annotate(doc)
    assert "return x * 2;" in text  # no hints in functions
    assert "s = s +#? 1;" in text
    assert "b[i]#? = f(s);" in text  # after a loop that counts


def test_no_hints_in_a_kernel_with_errors():
    doc = doc_of("kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {\n    b[i] = a[i] + zz;\n}\n")
    assert inlay_hints(doc, 0, 1000) == []
