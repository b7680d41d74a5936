"""Incremental parsing: random sequences of LSP edits (UTF-16 ranges) applied with
Tree.edit and a reparse give the tree of a fresh parse of the final text, and every
syntax diagnostic lies inside the document — for cint snippets, random text and
random bytes alike. A tree with an error left provisional (`reparse=False`) may differ
from the fresh parse; an error-free one never does, whatever provisional trees came
before it, and `reparse` / `same_tree` / `parse_yielding` give and recognise the fresh
parse."""

from __future__ import annotations

import tracemalloc

from conftest import CONFORMANCE, examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import DIVERGENT_EDIT, DIVERGENT_TEXT, edit_for, expected_text, utf16_length

from cint_ls.syntax import ParsedDocument, Position, TextEdit, parse, syntax_diagnostics
from cint_ls.syntax.parser import node_dump, parse_yielding, same_tree

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


@settings(max_examples=examples(100), deadline=None)
@given(st.one_of(st.text(max_size=200), st.binary(max_size=200).map(lambda b: b.decode("utf-8", "replace"))))
def test_random_text_gives_diagnostics_inside_the_document(text):
    document = ParsedDocument(text)
    size = len(document.source.data)
    for diagnostic in syntax_diagnostics(document.tree, document.source):
        assert 0 <= diagnostic.span.start_byte <= diagnostic.span.end_byte <= size
        assert diagnostic.message


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), base=st.sampled_from(BASES), count=st.integers(1, 8))
def test_provisional_trees(data, base, count):
    """Edits with no reparse from scratch: the property the language server's
    provisional trees rest on (server/handlers/documents.py)."""
    document = ParsedDocument(base, "doc.ci")
    text = base
    for _ in range(count):
        edit = data.draw(edit_for(text))
        text = expected_text(text, edit)
        document.apply(edit, reparse=False)
        fresh = parse(text)
        assert document.provisional == document.tree.root_node.has_error
        if not document.provisional:
            assert dump(document.tree) == dump(fresh)  # error-free: the fresh parse, always
        assert same_tree(document.tree, fresh) == (dump(document.tree) == dump(fresh))
    document.reparse()
    assert not document.provisional
    assert dump(document.tree) == dump(parse(text))




def test_a_provisional_tree_can_differ_from_the_fresh_parse():
    document = ParsedDocument(DIVERGENT_TEXT)
    document.apply(DIVERGENT_EDIT, reparse=False)
    fresh = parse(document.text)
    assert document.provisional
    assert dump(document.tree) != dump(fresh)
    assert not same_tree(document.tree, fresh)
    document.reparse(parse_yielding(document.source.data))
    assert not document.provisional and dump(document.tree) == dump(fresh)
    # The default reparses at once: the tree is the fresh parse's.
    at_once = ParsedDocument(DIVERGENT_TEXT)
    at_once.apply(DIVERGENT_EDIT)
    assert not at_once.provisional and dump(at_once.tree) == dump(fresh)


def test_parse_yielding_is_a_fresh_parse_and_stops_when_not_wanted():
    text = "\n".join((CONFORMANCE / "heat_e1.ci").read_text() for _ in range(20))  # several chunks
    data = text.encode()
    assert dump(parse_yielding(data)) == dump(parse(text))
    asked = []
    assert parse_yielding(data, lambda: asked.append(1) is None and len(asked) < 3) is None
    assert len(asked) == 3  # it stopped at the first unwanted chunk


def test_parse_yielding_keeps_nothing_of_what_it_read():
    # py-tree-sitter 0.25 and 0.26 never release what a read callback returns: a new
    # bytes object per chunk kept the whole text alive after every parse.
    text = "\n".join((CONFORMANCE / "heat_e1.ci").read_text() for _ in range(20))
    data = text.encode()
    parse_yielding(data)  # the thread's buffer
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(10):
            assert parse_yielding(data) is not None
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < len(data) // 4, grown  # a bytes object per chunk: 10 * len(data)


def test_node_dump_stays_inside_its_node():
    tree = parse("I64 x = 1;\nI64 y = 2;\n")
    first, second = tree.root_node.children
    assert node_dump(first)[0][1:2] == (first.type,)
    assert all(first.start_byte <= start and end <= first.end_byte for _, _, _, start, end, _ in node_dump(first))
    assert len(node_dump(tree.root_node)) == 1 + len(node_dump(first)) + len(node_dump(second))
