"""Semantic tokens: sorted, non-overlapping, single-line, classified by meaning."""

from __future__ import annotations

import pytest
from ide_support import SPEC_EXAMPLES, conformance, doc_of, text_at

from cint_ls.ide import SEMANTIC_TOKEN_KINDS, SEMANTIC_TOKEN_MODIFIERS, semantic_tokens


def table(doc):
    return [(t.span.line, t.span.column, text_at(doc, t.span), t.kind, t.modifiers) for t in semantic_tokens(doc)]


def check_shape(doc):
    tokens = semantic_tokens(doc)
    last = -1
    for t in tokens:
        assert t.span.start_byte >= last and t.span.end_byte > t.span.start_byte
        assert t.span.line == t.span.end_line
        assert t.kind in SEMANTIC_TOKEN_KINDS
        assert set(t.modifiers) <= set(SEMANTIC_TOKEN_MODIFIERS)
        last = t.span.end_byte
    return tokens


@pytest.mark.parametrize("path", SPEC_EXAMPLES, ids=lambda p: p.name)
def test_shape_on_every_example(path):
    check_shape(conformance(path.name))


def test_heat_classification():
    rows = {(line, col): (text, kind, mods) for line, col, text, kind, mods in table(conformance("heat_e1.ci"))}
    assert rows[(1, 1)] == ("kernel", "keyword", ())
    assert rows[(1, 8)] == ("diffuse", "kernel", ("declaration",))
    assert rows[(1, 16)] == ("h", "sizeSymbol", ("declaration", "readonly", "uniform"))
    assert rows[(2, 18)] == ("u", "parameter", ("declaration", "in", "readonly"))
    assert rows[(3, 9)] == ("kn", "parameter", ("declaration", "in", "readonly", "uniform"))
    assert rows[(5, 19)] == ("v", "parameter", ("declaration", "out"))
    assert rows[(7, 9)] == ("y", "overVariable", ("declaration", "readonly", "varying"))
    assert rows[(8, 9)] == ("c", "variable", ("declaration", "varying"))
    assert rows[(8, 13)] == ("u", "parameter", ("in", "readonly"))
    assert rows[(13, 20)] == ("div_round", "function", ("defaultLibrary",))
    assert rows[(13, 44)] == ("half_even", "enumMember", ("defaultLibrary",))
    assert rows[(17, 20)] == ("sum", "function", ("defaultLibrary",))
    assert rows[(20, 1)] == ("void", "keyword", ())


def test_uniform_local_and_comments_and_strings():
    doc = doc_of("/* two\nlines */\nkernel k[n](in I64[n] a, I64 c, out I64[n] b) over [i: n] {\n"
                 "    I64 u = c + 1; // one\n    b[i] = u;\n}\nvoid g() { \"x {1} \\n\"; }\n")
    rows = table(doc)
    assert (1, 1, "/* two", "comment", ()) in rows and (2, 1, "lines */", "comment", ()) in rows
    assert (4, 9, "u", "variable", ("declaration", "uniform")) in rows
    assert (4, 20, "// one", "comment", ()) in rows
    kinds = [r[3] for r in rows if r[0] == 7]
    assert "string" in kinds and "number" in kinds
    check_shape(doc)


def test_broken_file_still_colours():
    doc = doc_of("kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {\n    b[i] = a[i] +\n")
    rows = check_shape(doc)
    assert rows and rows[0].kind == "keyword"


def test_a_long_line_is_read_once(monkeypatch):
    """Issue 13 item 8: each token's column was counted from its line's start, so a
    line of n tokens read n²/2 bytes (a 176 kB line took 11.7 s). The bytes the
    column count reads stay within twice the line's length, and the columns stay right
    after non-ASCII text."""
    from cint_ls.ide import Document, tokens

    read = []
    real = tokens.widths

    def counting(data: bytes):
        read.append(len(data))
        return real(data)

    monkeypatch.setattr(tokens, "widths", counting)
    line = 'void f() { I64 x = 1; "é😀"; ' + "x = x + 7; " * 3000 + "}\n"
    doc = Document("file:///long.ci", line, 1)
    data = tokens.semantic_tokens_data(doc)
    assert sum(read) <= 2 * len(line.encode())
    # The last token, the last `7`: its UTF-16 column, counted independently.
    columns, character = [], 0
    for i in range(0, len(data), 5):
        character = character + data[i + 1] if data[i] == 0 else data[i + 1]
        columns.append(character)
    assert columns[-1] == len(line[:line.rindex("7")].encode("utf-16-le")) // 2


def test_an_item_after_non_ascii_on_its_line_has_utf16_columns():
    """A part's UTF-16 column (`Part.u16`, taken when the parts are made) counts the
    code units of what precedes it on its line: the encoding of the objects, by
    `SourceText.position`, is the same."""
    from cint_ls.ide import semantic_tokens_data
    from cint_ls.ide.tokens import _encode_tokens

    doc = doc_of('/* é😀 */ I64 twice(I64 x) { return x * 2; } /* ü */ void f() { I64 y = twice(1); }\n')
    data = semantic_tokens_data(doc)
    assert data == _encode_tokens(doc.source, semantic_tokens(doc))
    assert len(data) > 20
