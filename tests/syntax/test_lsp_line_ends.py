"""Issue 13 item 7: the document is the client's, in LSP's coordinates. LSP ends a line at
`\\r\\n`, `\\n` and a lone `\\r`, and counts UTF-16 units; a lone surrogate (legal JSON)
used to drop the edit that carried it with a UnicodeEncodeError. A hypothesis test edits
a model of the client's text (UTF-16 units, LSP lines) and the Document side by side."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from cint_ls import ide
from cint_ls.ide.document import Document
from cint_ls.syntax.parser import TextEdit
from cint_ls.syntax.source import Position, SourceText, without_lone_surrogates

PIECES = ["a", "x", " ", "\n", "\r", "\r\n", "é", "😀", "\ud800", "\udfff", "{", "}", ";", "I64 ", "void f() {}"]


def lsp_offset(text: str, position: Position) -> int:
    """Index in `text` (a str, surrogates as their own characters) of an LSP position."""
    starts = [0] + [m.end() for m in re.finditer("\r\n|\r|\n", text)]
    if position.line >= len(starts):
        return len(text)
    start = starts[position.line]
    end = starts[position.line + 1] if position.line + 1 < len(starts) else len(text)
    line = text[start:end].rstrip("\r\n") if position.line + 1 < len(starts) else text[start:end]
    units = 0
    for i, ch in enumerate(line):
        if units >= position.character:
            return start + i
        units += 2 if ord(ch) > 0xFFFF else 1
    return start + len(line)


def test_a_lone_carriage_return_ends_a_line():
    doc = Document("file:///t.ci", "void f() {}\rvoid g() {}\r", 1)
    doc.apply([TextEdit(Position(1, 5), Position(1, 6), "h")], 2)
    assert doc.text == "void f() {}\rvoid h() {}\r"
    assert ide.diagnostics(doc, ()) == []
    assert SourceText(doc.text).position(len("void f() {}\rvoid ")) == Position(1, 5)


def test_a_lone_surrogate_keeps_every_position():
    doc = Document("file:///u.ci", 'void f() { "\ud800"; }\nI64 x = 1;\n', 1)
    doc.apply([TextEdit(Position(1, 4), Position(1, 5), "y")], 2)
    assert doc.text == 'void f() { "\ufffd"; }\nI64 y = 1;\n'
    doc.apply([TextEdit(Position(0, 12), Position(0, 12), "\udc00z")], 3)
    assert doc.text == 'void f() { "\ufffdz\ufffd"; }\nI64 y = 1;\n'


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=12).map("".join),
       st.lists(st.tuples(st.integers(0, 6), st.integers(0, 14), st.integers(0, 6), st.integers(0, 14),
                          st.lists(st.sampled_from(PIECES), max_size=3).map("".join)), max_size=8))
def test_edits_keep_the_document_equal_to_the_clients_text(initial, edits):
    client = initial
    doc = Document("file:///h.ci", initial, 1)
    for version, (l1, c1, l2, c2, text) in enumerate(edits, start=2):
        a, b = Position(l1, c1), Position(l2, c2)
        i, j = lsp_offset(client, a), lsp_offset(client, b)
        if j < i:
            i, j = j, i
        client = client[:i] + text + client[j:]
        doc.apply([TextEdit(a, b, text)], version)
        assert doc.text == without_lone_surrogates(client)
