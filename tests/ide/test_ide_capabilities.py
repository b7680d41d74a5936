"""The gpu-cuda capability profile (SPEC-02P.1 10.5) and its diagnostics."""

from __future__ import annotations

import pytest
from ide_support import CONFORMANCE, conformance, doc_of

from cint_ls.analysis.capabilities import (
    CAPABILITIES,
    CONSTRUCTS,
    STORE_ELEMENTS,
    TYPE_CLASSES,
    gpu_refusals,
    type_class,
)
from cint_ls.analysis.types import BOOL, I8, I32, I64, I128, U8, U16, U64, U512, FixedType
from cint_ls.ide import diagnostics
from cint_ls.syntax.diagnostics import Severity

HEAT = sorted(p.name for p in CONFORMANCE.glob("heat_*.ci"))


def refusals_of(name: str):
    return [(r.capability, r.span.line, r.span.column) for r in gpu_refusals(conformance(name).checked)]


def test_ops_kernel_first_refusal_is_neg_at_3_13():
    found = refusals_of("ops_kernel.ci")
    assert found[0] == ("neg", 3, 13)
    assert found == [
        ("neg", 3, 13), ("bits", 4, 16), ("bits", 4, 26), ("bits", 4, 21), ("builtin", 5, 13), ("sat", 6, 15),
        ("div", 7, 15), ("shift", 8, 16), ("as.wrap", 9, 15), ("switch", 11, 5), ("array", 15, 5),
    ]


def test_narrow_out_is_refused_at_its_division_first():
    found = refusals_of("narrow_out.ci")
    assert found[0] == ("div", 2, 17)
    assert ("store.narrow", 2, 6) in found


def test_wide_kernel_is_refused_with_wide():
    found = refusals_of("wide_kernel.ci")
    assert found and {c for c, _, _ in found} == {"wide"}
    assert found[0] == ("wide", 1, 17)  # the I128 elements of `a`


def test_u8_copy_is_refused_at_its_store():
    doc = doc_of("kernel copy[n](in U8[n] a, out U8[n] b) over [i: n] {\n    b[i] = a[i];\n}\n")
    assert [(r.capability, r.span.line, r.span.column) for r in gpu_refusals(doc.checked)] == \
        [("store.narrow", 2, 6)]


@pytest.mark.parametrize("element", ["Bool", "I8", "U16"])
def test_narrow_stores(element):
    value = "a[i]"
    doc = doc_of(f"kernel copy[n](in {element}[n] a, out {element}[n] b) over [i: n] {{\n    b[i] = {value};\n}}\n")
    assert [r.capability for r in gpu_refusals(doc.checked)] == ["store.narrow"]


@pytest.mark.parametrize("element", ["I32", "U32", "I64", "U64"])
def test_native_stores(element):
    doc = doc_of(f"kernel copy[n](in {element}[n] a, out {element}[n] b) over [i: n] {{\n    b[i] = a[i];\n}}\n")
    assert gpu_refusals(doc.checked) == []


@pytest.mark.parametrize("name", HEAT)
def test_every_heat_example_builds_for_gpu_cuda(name):
    assert refusals_of(name) == []


def test_fixed_point_is_node_and_u128_is_wide():
    assert refusals_of("fixed_kernel.ci")[0][0] == "node"
    assert {c for c, _, _ in refusals_of("u128_kernel.ci")} == {"wide"}


@pytest.mark.parametrize("body,capability", [
    ("b[i] = f(a[i]);", "call"),
    ("b[i] = min(a[i], 2);", "builtin"),
    ("b[i] = abs(a[i]);", "builtin"),
    ("b[i] = a[i] >> 1;", "shift"),
    ("b[i] = a[i] % 3;", "div"),
    ("b[i] = a[i] *| 3;", "sat"),
    ("b[i] = ~a[i];", "bits"),
    ("assert(a[i] > 0); b[i] = a[i];", "assert"),
    ("b[i] = a[i]; return;", "node"),
    ("I128 w = a[i] as I128; b[i] = 1;", "wide"),
])
def test_refused_constructs(body, capability):
    text = ("I64 f(I64 x) { return x; }\n"
            f"kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {{\n    {body}\n}}\n")
    doc = doc_of(text)
    assert not doc.checked.has_errors, doc.checked.errors
    assert gpu_refusals(doc.checked)[0].capability == capability


@pytest.mark.parametrize("body", [
    "b[i] = a[i] + 1;",
    "b[i] = a[i] -% 1;",
    "b[i] = a[i] * 2 - 1;",
    "b[i] = div_round(a[i], 3, floor);",
    "if (a[i] > 0 && !(a[i] == 3)) { b[i] = 1; } else { b[i] = 2; }",
    "I64 s = 0; for j in 0..4 { if (j == 2) { break; } s = s + j; } b[i] = s;",
    "I64 s = 0; while (s < 3) { s = s + 1; continue; } b[i] = s;",
    "I32 t = a[i] as I32; b[i] = t as I64;",
])
def test_native_constructs(body):
    doc = doc_of(f"kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {{\n    {body}\n}}\n")
    assert not doc.checked.has_errors, doc.checked.errors
    assert gpu_refusals(doc.checked) == []


def test_reduce_forms_over_native_contributions():
    doc = doc_of("kernel k[n](in I32[n] a, out I64 s, out I32 m, out I64 c, out I32 f) over [i: n] {\n"
                 "    reduce s = sum(a[i]);\n    reduce m = max(a[i]);\n    reduce c = count(a[i] > 0);\n"
                 "    reduce f = fold_checked(add, 0, a[i]);\n}\n")
    assert not doc.checked.has_errors
    assert gpu_refusals(doc.checked) == []


def test_too_many_parameters():
    params = ", ".join(f"I64 p{k}" for k in range(61))
    doc = doc_of(f"kernel k[n](in I64[n] a, {params}, out I64[n] b) over [i: n] {{\n    b[i] = a[i];\n}}\n")
    assert [r.capability for r in gpu_refusals(doc.checked)] == ["params"]


def test_the_profile_is_data():
    used = {e.capability for e in [*CONSTRUCTS.values(), *TYPE_CLASSES.values(), *STORE_ELEMENTS.values()]}
    assert used - {None} <= set(CAPABILITIES)
    assert {"wide", "sat", "div", "shift", "bits", "neg", "as.wrap", "builtin", "switch", "store.narrow", "array",
            "call", "node"} <= used
    assert [type_class(t) for t in (BOOL, I8, U16, I32, U64, I128, U512, FixedType(16, 16))] == \
        ["bool", "int8", "int16", "int32", "int64", "int.wide", "int.wide", "fixed"]
    assert TYPE_CLASSES["int64"].native and not TYPE_CLASSES["int.wide"].native
    assert STORE_ELEMENTS[type_class(U8)].capability == "store.narrow"
    assert STORE_ELEMENTS[type_class(I64)].native


# ---- diagnostics

def test_same_c5010_at_7_14():
    found = [d for d in diagnostics(conformance("same_c5010.ci")) if d.code == "C5010"]
    assert [(d.span.line, d.span.column) for d in found] == [(7, 14)]
    assert found[0].message == "parameter mode, alias, or ABI rule"


def test_ops_kernel_with_default_settings_shows_one_warning_per_refused_kernel():
    """Issue 32: a kernel that runs on cpu-c17 got a warning per refused construct (11 in
    ops_kernel.ci). While another target runs it: one warning on the kernel's name that
    lists what is refused, each construct as related information, a hint at each."""
    found = [d for d in diagnostics(conformance("ops_kernel.ci")) if d.executor == "gpu-cuda"]
    warnings = [d for d in found if d.severity == Severity.WARNING]
    assert len(warnings) == 1
    (warning,) = warnings
    assert warning.code == "C9100" and (warning.span.line, warning.span.column) == (1, 8)  # `ops`
    assert warning.message.startswith("gpu-cuda refuses kernel `ops`: `neg` (unary minus), `bits` (&, |, ^ or ~)")
    assert "11 constructs; cpu-c17 runs it" in warning.message
    assert warning.data["first"] and "fails first at 3:13" in warning.message
    assert [(r.span.line, r.span.column) for r in warning.related] == [
        (3, 13), (4, 16), (4, 26), (4, 21), (5, 13), (6, 15), (7, 15), (8, 16), (9, 15), (11, 5), (15, 5)]
    assert warning.related[0].message == "gpu-cuda refuses `neg`: unary minus"
    hints = [d for d in found if d.severity == Severity.HINT]
    assert [(d.span.line, d.span.column) for d in hints] == sorted((r.span.line, r.span.column) for r in warning.related)
    assert all(d.code == "C9100" and d.data["mark"] and not d.data["first"] for d in hints)
    assert len(found) == 12


def test_each_refused_kernel_gets_its_own_warning():
    doc = doc_of("kernel k[n](in I64[n] a, out I64[n] b) over [i: n] { b[i] = -a[i]; }\n"
                 "kernel fine[n](in I64[n] a, out I64[n] b) over [i: n] { b[i] = a[i] + 1; }\n"
                 "kernel q[n](in I64[n] a, out I64[n] b) over [i: n] { b[i] = a[i] / 2; }\n")
    warnings = [d for d in diagnostics(doc) if d.severity == Severity.WARNING]
    assert [(d.data["kernel"], d.span.line, d.span.column, d.data["first"]) for d in warnings] == \
        [("k", 1, 8, True), ("q", 3, 8, False)]
    assert warnings[1].message == "gpu-cuda refuses kernel `q`: `div` (division `/`) (1 construct; cpu-c17 runs it)"


def test_refusals_are_errors_when_gpu_cuda_is_the_only_target():
    found = [d for d in diagnostics(conformance("ops_kernel.ci"), ["gpu-cuda"]) if d.executor == "gpu-cuda"]
    assert found and all(d.severity == Severity.ERROR for d in found)


def test_no_refusal_diagnostics_without_gpu_target():
    assert not [d for d in diagnostics(conformance("ops_kernel.ci"), ["cpu-c17"]) if d.executor]
    assert not [d for d in diagnostics(conformance("ops_kernel.ci"), ["cpu-sir-interp"]) if d.executor]


def test_diagnostics_are_sorted_and_include_the_analysis():
    doc = doc_of("void f() { I64 x = y; }\nkernel k[n](in I64[n] a, out I64[n] b) over [i: n] { b[i] = -a[i]; }\n")
    found = diagnostics(doc)
    assert [d.code for d in found] == ["C2001", "C9100", "C9100"]  # the kernel's warning, the mark at `-`
    assert [d.span.start_byte for d in found] == sorted(d.span.start_byte for d in found)
