"""Every feature is total: each offset of a broken file gives an answer, never an
exception (ide_support makes the features re-raise, so a failure here is a bug)."""

from __future__ import annotations

import pytest
from ide_support import CONFORMANCE, doc_of

from cint_ls import ide

HEAT = (CONFORMANCE / "heat_e1.ci").read_text()

BROKEN = {
    "half_kernel": "kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {\n    b[i] = a[i] +\n",
    "half_header": "kernel diffuse[h, w](\n    in I32[h, w] u,\n    I64 kn\n) over [y: h, x: \n",
    "garbage": "void f() { I64 x = ; reduce s = sum(; div_round(1, 2, \n} }} )) [[ \"open {x\n",
    "unicode": "// é 😀\nkernel k[n](in I64[n] a, out I64[n] b) over [i: n] {\r\n    b[i] = a[i] * 2; // ü\r\n}\r\n"
               "void g() { \"😀 {1 +}\"; }\n",
    "heat_cut": HEAT[:HEAT.index("reduce")],
    "heat_tail": HEAT[HEAT.index("I64 flux"):],
    "switch": "void f(I64 x) { switch (x) { case 1: x = ; default: } while (x) { break continue; }",
    "empty": "",
}


def every_feature(doc, offset):
    n = len(doc.source.data)
    ide.hover(doc, offset)
    ide.inlay_hints(doc, offset, n)
    ide.inlay_hints(doc, 0, offset)
    ide.definition(doc, offset)
    ide.references(doc, offset, True)
    ide.references(doc, offset, False)
    ide.prepare_rename(doc, offset)
    ide.rename(doc, offset, "renamed")
    ide.completion(doc, offset)
    ide.signature_help(doc, offset)


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_every_offset(name):
    doc = doc_of(BROKEN[name])
    for offset in range(-1, len(doc.source.data) + 3):
        every_feature(doc, offset)
    ide.diagnostics(doc)
    ide.diagnostics(doc, ["gpu-cuda"])
    ide.semantic_tokens(doc)
    ide.document_symbols(doc)
    ide.folding_ranges(doc)
    ide.code_lenses(doc, ["cpu-sir-interp"])
    formatted = ide.format_document(doc)
    assert formatted is None or name == "empty"


def test_every_offset_of_heat():
    doc = doc_of(HEAT)
    for offset in range(0, len(doc.source.data) + 1, 3):
        every_feature(doc, offset)


def test_the_guard_returns_the_default_when_not_strict(monkeypatch):
    import importlib

    from cint_ls.ide import find

    hover_module = importlib.import_module("cint_ls.ide.hover")
    monkeypatch.setattr(find, "STRICT", False)
    monkeypatch.setattr(hover_module, "path_at", lambda *a: 1 / 0)
    assert ide.hover(doc_of(HEAT), 10) is None
