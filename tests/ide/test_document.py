"""Document: after any sequence of edits, the reused and moved items give exactly the
AST, spans and diagnostics of a fresh parse of the final text."""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from unittest.mock import patch

from conftest import CONFORMANCE
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import DIVERGENT_EDIT, DIVERGENT_TEXT, edit_for

from cint_ls.analysis import cache, check
from cint_ls.ide.document import Document
from cint_ls.syntax import Position, TextEdit, parse_source
from cint_ls.syntax.parser import parse_yielding
from cint_ls.syntax.source import Span

BASES = [(CONFORMANCE / n).read_text() for n in ("heat_e1.ci", "ops_kernel.ci", "budget.ci", "acc.ci")]


def dump(node):
    """A plain, comparable picture of an AST: classes, fields and absolute spans."""
    if isinstance(node, Span):
        return ("span", node.absolute())
    if isinstance(node, list):
        return [dump(x) for x in node]
    if is_dataclass(node):
        return (type(node).__name__, tuple((f.name, dump(getattr(node, f.name))) for f in fields(node)))
    return node


def diagnostics(items):
    return [(d.code, d.message, d.span.absolute()) for d in items]


def resolution(checked):
    """Every name occurrence with what it resolves to, and every expression's type,
    by position: what the editor features read."""
    names = sorted(
        (node.span.absolute(), type(node).__name__, s.name, s.kind.name, s.span.absolute(), str(s.type))
        for node, s in checked.symbols.items()
    )
    types = sorted((node.span.absolute(), type(node).__name__, str(t)) for node, t in checked.types.items())
    kernels = sorted((name, info.node.span.absolute(), [p.name for p in info.params]) for name, info in
                     checked.kernels.items())
    values = sorted((node.span.absolute(), type(node).__name__, str(v)) for node, v in checked.values.items())
    calls = sorted((node.span.absolute(), c.kind, c.name) for node, c in checked.calls.items())
    return names, types, kernels, values, calls


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), base=st.sampled_from(BASES), count=st.integers(1, 5))
def test_edited_document_equals_fresh_analysis(data, base, count):
    document = Document("file:///m.ci", base, path="m.ci")
    document.checked  # noqa: B018 - fill the item cache, as the server does after each change
    for _ in range(count):
        document.apply([data.draw(edit_for(document.text))])
        document.checked  # noqa: B018
    fresh = parse_source(document.text, "m.ci")
    assert dump(document.module) == dump(fresh.module)
    fresh_checked = check(fresh)
    assert diagnostics(document.diagnostics) == diagnostics(fresh_checked.diagnostics)
    assert resolution(document.checked) == resolution(fresh_checked)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), base=st.sampled_from(BASES + [None]), count=st.integers(1, 5))
def test_tables_kept_from_the_last_version_equal_a_fresh_analysis(data, base, count):
    """The module's tables made from the last version's (a copy, less the units that
    went, plus those that came: analysis/cache.py `merged_tables`), whatever share of
    the units changed, equal a fresh analysis's."""
    with patch.object(cache, "REMERGE", 1.0):
        document = Document("file:///m.ci", base or _multi(), path="m.ci")
        document.checked  # noqa: B018
        for _ in range(count):
            document.apply([data.draw(edit_for(document.text))])
            document.checked  # noqa: B018
        fresh = check(parse_source(document.text, "m.ci"))
        assert resolution(document.checked) == resolution(fresh)
        assert diagnostics(document.diagnostics) == diagnostics(fresh.diagnostics)


def test_inserting_a_line_moves_the_items_below():
    text = (CONFORMANCE / "heat_e1.ci").read_text()
    document = Document("file:///h.ci", text, path="h.ci")
    kernel_before = document.module.items[0]
    document.apply([TextEdit(Position(0, 0), Position(0, 0), "// a comment\n")], version=2)
    kernel_after = document.module.items[0]
    assert kernel_after is kernel_before  # reused, not lowered again
    assert kernel_after.name.span.line == 2
    assert document.version == 2


def test_kernel_ir_is_available_when_another_item_has_errors():
    text = (CONFORMANCE / "heat_e1.ci").read_text() + "\nvoid broken() { I64 x = nope; }\n"
    document = Document("file:///h.ci", text, path="h.ci")
    assert document.program() is None
    kernel = document.kernel_ir("diffuse")
    assert kernel is not None and len(kernel.counted) == 28


def _multi() -> str:
    heat = (CONFORMANCE / "heat_e1.ci").read_text().split("\nvoid step()")[0]
    kernels = "\n".join(heat.replace("diffuse", f"diffuse{k}") for k in range(4))
    return kernels + (
        "\nI64 twice(I64 x) { return x * 2; }\n"
        "void step() {\n    I32[8, 8] a;\n    I32[8, 8] b;\n    I64 total = 0;\n"
        "    diffuse2(a, twice(1), 8, b, total);\n    \"{total}\\n\";\n}\nstep();\n"
    )


def test_an_edit_in_one_kernel_reuses_the_analysis_of_the_others():
    document = Document("file:///multi.ci", _multi(), path="multi.ci")
    before = dict(document.checked.kernels)
    twice_before = document.checked.functions["twice"]
    line = document.text.split("\n").index("        I64 flux = div_round(kn * lap, kd, half_even);")
    document.apply([TextEdit(Position(line, 26), Position(line, 28), "kd")])  # kernel 0: `kn * lap` -> `kd * lap`
    after = document.checked.kernels
    assert after["diffuse0"] is not before["diffuse0"]  # analysed again
    assert all(after[f"diffuse{k}"] is before[f"diffuse{k}"] for k in (1, 2, 3))  # reused
    assert document.checked.functions["twice"] is twice_before
    fresh = check(parse_source(document.text, "multi.ci"))
    assert resolution(document.checked) == resolution(fresh)
    assert diagnostics(document.diagnostics) == diagnostics(fresh.diagnostics)


def test_a_signature_edit_analyses_every_item_again():
    document = Document("file:///multi.ci", _multi(), path="multi.ci")
    before = dict(document.checked.kernels)
    text = document.text.replace("I64 twice(I64 x)", "I32 twice(I64 x)")
    line = document.text.split("\n").index("I64 twice(I64 x) { return x * 2; }")
    document.apply([TextEdit(Position(line, 0), Position(line, 3), "I32")])
    assert document.text == text
    assert all(document.checked.kernels[name] is not info for name, info in before.items())
    fresh = check(parse_source(document.text, "multi.ci"))
    assert diagnostics(document.diagnostics) == diagnostics(fresh.diagnostics)
    assert [d.code for d in document.diagnostics if d.severity == 1] == ["C3003", "C3003"]
    assert resolution(document.checked) == resolution(fresh)


def test_a_reused_function_reports_its_signature_once():
    """Found by the hypothesis test above: a function whose unit the analysis cache
    reuses reported a C9001 of its return type twice (re-resolved, and again from the
    record). Edits that make `kernelvoid run() {` the header of the unchanged `run`."""
    base = next(b for b in BASES if "total128" in b)
    document = Document("file:///m.ci", base, path="m.ci")
    document.checked  # noqa: B018
    for (a, b, c, d) in [(0, 1, 3, 0), (1, 0, 5, 0), (2, 0, 5, 0), (0, 0, 0, 0)]:
        document.apply([TextEdit(Position(a, b), Position(c, d), "kernel")])
        document.checked  # noqa: B018
    fresh = check(parse_source(document.text, "m.ci"))
    assert diagnostics(document.diagnostics) == diagnostics(fresh.diagnostics)
    assert [d.message for d in fresh.diagnostics].count("`kernelvoid`: structs are not implemented") == 1


# ---- provisional trees (`Document.apply(reparse=False)`, `Document.confirm`)


def diagnostics_picture(doc):
    return [(d.code, d.span.start_byte, d.span.end_byte, d.message) for d in doc.diagnostics]


def test_confirm_replaces_a_provisional_tree_that_differs():
    doc = Document("file:///p.ci", DIVERGENT_TEXT, 1)
    doc.apply([DIVERGENT_EDIT], 2, reparse=False)
    provisional = doc.snapshot()
    assert provisional.provisional and provisional.version == 2
    doc.diagnostics  # noqa: B018 - the provisional version's layers, computed as the server would
    assert doc.confirm(provisional, parse_yielding(provisional.source.data))
    confirmed = doc.snapshot()
    assert confirmed is not provisional and confirmed.version == 2 and not confirmed.provisional
    assert diagnostics_picture(confirmed) == diagnostics_picture(Document("file:///f.ci", doc.text, 2))
    assert not doc.confirm(provisional, parse_yielding(provisional.source.data))  # no longer current


def test_confirm_keeps_a_provisional_tree_that_is_the_fresh_one():
    text = (CONFORMANCE / "heat_e1.ci").read_text()
    doc = Document("file:///p.ci", text, 1)
    line = text.split("\n")[7]
    semi = line.index(";")
    doc.apply([TextEdit(Position(7, semi), Position(7, semi + 1), "")], 2, reparse=False)
    provisional = doc.snapshot()
    assert provisional.provisional
    assert not doc.confirm(provisional, parse_yielding(provisional.source.data))
    assert doc.snapshot() is provisional and not provisional.provisional
    # The next edit starts from it; an error-free result is never provisional.
    doc.apply([TextEdit(Position(7, semi), Position(7, semi), ";")], 3, reparse=False)
    assert not doc.snapshot().provisional and doc.diagnostics == []


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), base=st.sampled_from(BASES), count=st.integers(1, 5))
def test_provisional_versions_confirm_to_the_fresh_document(data, base, count):
    doc = Document("file:///p.ci", base, 1)
    for version in range(2, count + 2):
        doc.apply([data.draw(edit_for(doc.text))], version, reparse=False)
        doc.diagnostics  # noqa: B018 - computed, as the server would
        snapshot = doc.snapshot()
        if snapshot.provisional:
            doc.confirm(snapshot, parse_yielding(snapshot.source.data))
        assert not doc.snapshot().provisional
        assert diagnostics_picture(doc.snapshot()) == diagnostics_picture(Document("file:///f.ci", doc.text, version))


def test_the_fingerprint_from_kept_headers_is_the_fresh_one():
    """`cache.fingerprint` keeps each item's header by its node: after edits in a body
    and in a signature it equals the digest made without them, and a signature edit
    changes it."""
    document = Document("file:///multi.ci", _multi(), path="multi.ci")
    headers: dict = {}
    first = cache.fingerprint(document.module, document.source, headers)
    assert first == cache.fingerprint(document.module, document.source)
    lines = document.text.split("\n")
    body = lines.index("        I64 flux = div_round(kn * lap, kd, half_even);")
    document.apply([TextEdit(Position(body, 26), Position(body, 28), "kd")])
    assert cache.fingerprint(document.module, document.source, headers) == first
    signature = lines.index("I64 twice(I64 x) { return x * 2; }")
    document.apply([TextEdit(Position(signature, 0), Position(signature, 3), "I32")])
    changed = cache.fingerprint(document.module, document.source, headers)
    assert changed != first
    assert changed == cache.fingerprint(document.module, document.source)
    assert {id(item) for item in document.module.items} == set(headers)
