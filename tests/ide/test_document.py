"""Document: after any sequence of edits, the reused and moved items give exactly the
AST, spans and diagnostics of a fresh parse of the final text."""

from __future__ import annotations

from dataclasses import fields, is_dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cint_ls.analysis import check
from cint_ls.ide.document import Document
from cint_ls.syntax import Position, TextEdit, parse_source
from cint_ls.syntax.source import Span
from conftest import CONFORMANCE
from strategies import edit_for

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
    assert diagnostics(document.diagnostics) == diagnostics(check(fresh).diagnostics)


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
