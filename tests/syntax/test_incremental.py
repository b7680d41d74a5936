"""Incremental parsing: random sequences of LSP edits (UTF-16 ranges) applied with
Tree.edit and a reparse give the tree of a fresh parse of the final text, and every
syntax diagnostic lies inside the document — for cint snippets, random text and
random bytes alike."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cint_ls.syntax import ParsedDocument, Position, TextEdit, parse, syntax_diagnostics
from conftest import CONFORMANCE
from strategies import edit_for, expected_text, utf16_length

BASES = [
    (CONFORMANCE / name).read_text()
    for name in ("heat_e1.ci", "ops_kernel.ci", "alias_even_odd.ci", "budget.ci")
] + ["", "// é ü 😀 comment\nkernel k[n](in I64[n] a, out I64[n] b) over [i: n] { b[i] = a[i]; }\n"]

def dump(tree) -> list[tuple]:
    """Every node with its type, field, byte range and error flags, in order."""
    out, cursor = [], tree.walk()
    depth = 0
    while True:
        node = cursor.node
        out.append((depth, node.type, cursor.field_name, node.start_byte, node.end_byte, node.is_missing))
        if cursor.goto_first_child():
            depth += 1
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return out
            depth -= 1


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), base=st.sampled_from(BASES), count=st.integers(1, 6))
def test_incremental_equals_fresh_parse(data, base, count):
    document = ParsedDocument(base, "doc.ci")
    text = base
    for _ in range(count):
        edit = data.draw(edit_for(text))
        text = expected_text(text, edit)
        document.apply(edit)
        assert document.text == text
    assert dump(document.tree) == dump(parse(text))
    size = len(document.source.data)
    for diagnostic in syntax_diagnostics(document.tree, document.source):
        assert 0 <= diagnostic.span.start_byte <= diagnostic.span.end_byte <= size
        assert 1 <= diagnostic.span.line <= document.source.line_count


def test_utf16_positions_after_non_ascii_comment():
    text = "// naïve 😀 comment\nI64 x = 1;\n"
    document = ParsedDocument(text)
    # Replace `1` on line 1; then an edit on line 0 after the emoji (2 UTF-16 units).
    document.apply(TextEdit(Position(1, 8), Position(1, 9), "22"))
    assert document.text == "// naïve 😀 comment\nI64 x = 22;\n"
    emoji_end = utf16_length("// naïve 😀")
    document.apply(TextEdit(Position(0, emoji_end), Position(0, emoji_end), "!"))
    assert document.text.startswith("// naïve 😀! comment")
    assert dump(document.tree) == dump(parse(document.text))


def test_out_of_range_and_inverted_ranges_clamp():
    document = ParsedDocument("I64 x = 1;\n")
    document.apply(TextEdit(Position(0, 9), Position(0, 4), "y = 2"))  # inverted
    assert document.text == "I64 y = 2;\n"
    document.apply(TextEdit(Position(99, 0), Position(120, 5), "x;"))
    assert document.text == "I64 y = 2;\nx;"


@settings(max_examples=100, deadline=None)
@given(st.one_of(st.text(max_size=200), st.binary(max_size=200).map(lambda b: b.decode("utf-8", "replace"))))
def test_random_text_gives_diagnostics_inside_the_document(text):
    document = ParsedDocument(text)
    size = len(document.source.data)
    for diagnostic in syntax_diagnostics(document.tree, document.source):
        assert 0 <= diagnostic.span.start_byte <= diagnostic.span.end_byte <= size
        assert diagnostic.message
