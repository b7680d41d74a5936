"""Go to definition, references, rename."""

from __future__ import annotations

import pytest
from ide_support import conformance, doc_of, find_offset, text_at

from cint_ls.ide import definition, prepare_rename, references, rename

SOURCE = """kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {
    I64 t = a[i];
    b[i] = t * 2;
}

void go(I64 m) {
    I64[3] a;
    I64[3] b;
    I64 t = m;
    k(a, b);
    "{t}\\n";
}
go(1);
"""


@pytest.fixture(scope="module")
def doc():
    return doc_of(SOURCE)


def positions(doc, locations):
    return [(loc.span.line, loc.span.column) for loc in locations]


def test_definition(doc):
    assert positions(doc, definition(doc, find_offset(doc, 3, "t * 2"))) == [(2, 9)]
    assert positions(doc, definition(doc, find_offset(doc, 10, "k("))) == [(1, 8)]
    assert positions(doc, definition(doc, find_offset(doc, 1, "n] a"))) == [(1, 10)]
    # The cursor just after a name is on it.
    assert positions(doc, definition(doc, find_offset(doc, 3, "t * 2", 1))) == [(2, 9)]
    assert definition(doc, find_offset(doc, 3, "* 2")) == []


def test_references_are_scoped(doc):
    inside = references(doc, find_offset(doc, 2, "t ="), include_declaration=True)
    assert positions(doc, inside) == [(2, 9), (3, 12)]
    outside = references(doc, find_offset(doc, 9, "t ="), include_declaration=False)
    assert positions(doc, outside) == [(11, 7)]
    sizes = references(doc, find_offset(doc, 1, "n]"), include_declaration=True)
    assert positions(doc, sizes) == [(1, 10), (1, 20), (1, 34), (1, 49)]


def test_prepare_rename(doc):
    span = prepare_rename(doc, find_offset(doc, 3, "t * 2"))
    assert text_at(doc, span) == "t"
    assert prepare_rename(doc, find_offset(doc, 3, "* 2")) is None
    assert prepare_rename(doc, 0) is None  # the keyword `kernel`


def apply(doc, result) -> str:
    data = doc.source.data
    for change in sorted(result.changes, key=lambda c: -c.span.start_byte):
        data = data[:change.span.start_byte] + change.new_text.encode() + data[change.span.end_byte:]
    return data.decode()


def test_rename(doc):
    result = rename(doc, find_offset(doc, 2, "t ="), "temp")
    assert result.error is None
    text = apply(doc, result)
    assert "I64 temp = a[i];\n    b[i] = temp * 2;" in text
    assert "I64 t = m;" in text  # the other `t` is another variable


def test_rename_kernel_and_size(doc):
    assert "kernel scale[n]" in apply(doc, rename(doc, find_offset(doc, 10, "k("), "scale"))
    assert apply(doc, rename(doc, find_offset(doc, 1, "n]"), "len")).startswith(
        "kernel k[len](in I64[len] a, out I64[len] b) over [i: len] {")


@pytest.mark.parametrize("name,why", [
    ("for", "keyword"), ("I64", "type"), ("I24", "type"), ("Q16.16", "identifier"), ("2x", "identifier"),
    ("min", "built-in"), ("", "identifier"), ("a b", "identifier"),
])
def test_rename_refuses_bad_names(doc, name, why):
    result = rename(doc, find_offset(doc, 2, "t ="), name)
    assert result.changes is None and why in result.error


def test_rename_refuses_clashes(doc):
    # `b[i] = b * 2` would store into the renamed local, not the parameter `b`.
    clash = rename(doc, find_offset(doc, 2, "t ="), "b")
    assert clash.changes is None and "already declared" in clash.error
    # Shadowing that changes no resolution is fine: `I64 a = a[i];` reads the parameter.
    assert rename(doc, find_offset(doc, 2, "t ="), "a").error is None
    capture = rename(doc, find_offset(doc, 9, "t ="), "m")  # same scope as the parameter m
    assert capture.changes is None
    fine = rename(doc, find_offset(doc, 9, "t ="), "n")  # `n` is the kernel's, not visible here
    assert fine.error is None


def test_rename_nothing():
    doc = conformance("heat_e1.ci")
    assert rename(doc, 0, "x").error is not None
