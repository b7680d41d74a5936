"""The tokens syntax/recovery.py reads a broken text by: parallel arrays made in C loops
(issue 29: as one object per token, a syntax error in a 50,000-line file cost 1.7 s),
checked here against the plain loop they replaced, token for token and line for line."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from cint_ls.syntax import recovery

# The tokenizer as it was: one match at a time, the line counted from the last token.
_PLAIN = re.compile(rb'//[^\n]*|/\*.*?\*/|"(?:[^"\\\n]|\\.)*"?|[A-Za-z_][A-Za-z0-9_]*|[0-9][A-Za-z0-9_.]*|\S',
                    re.S)


def plain_tokens(data: bytes) -> list[tuple[int, int, bytes, int]]:
    out, line, last = [], 0, 0
    for m in _PLAIN.finditer(data):
        line += data.count(b"\n", last, m.start())
        last = m.start()
        out.append((m.start(), m.end(), m.group(), line))
    return out


def as_tuples(tokens: object) -> list[tuple[int, int, bytes, int]]:
    return [(t.start, t.end, t.text, t.line) for t in tokens]  # type: ignore[attr-defined]


# Texts made of what changes a tokenizer's mind: line breaks in comments and strings,
# escapes, unterminated strings and comments, tabs, CRLF, a non-ASCII letter.
PIECES = [b"x", b"I64", b"12", b"1.5", b" ", b"\t", b"\n", b"\r\n", b"{", b"}", b"(", b")", b";", b"else",
          b'"', b"\\", b"//", b"/*", b"*/", b"=", "é".encode()]
texts = st.lists(st.sampled_from(PIECES), max_size=60).map(b"".join)


@settings(max_examples=300, deadline=None)
@given(texts)
def test_the_tokens_are_the_plain_loops(data: bytes) -> None:
    recovery.forget()
    assert as_tuples(recovery.tokens(data)) == plain_tokens(data)
    code = [t for t in plain_tokens(data) if not t[2].startswith((b"//", b"/*"))]
    assert as_tuples(recovery._code_tokens(data)) == code


@settings(max_examples=200, deadline=None)
@given(texts, st.integers(-2, 12))
def test_a_line_and_what_follows_it(data: bytes, line: int) -> None:
    recovery.forget()
    code = [t for t in plain_tokens(data) if not t[2].startswith((b"//", b"/*"))]
    index = recovery._index(data)
    assert as_tuples(index.on_line(line)) == [t for t in code if t[3] == line]
    assert as_tuples(index.after_line(line)) == [t for t in code if t[3] > line]
    assert as_tuples(index.braces) == [t for t in code if t[2] in (b"{", b"}")]
    assert index.blocks == [i for i, t in enumerate(code) if t[2] in (b"{", b"}", b"else")]


def test_a_view_indexes_as_a_list_slice_does() -> None:
    data = b"a b c d e\nf g"
    toks = recovery.tokens(data)
    whole = plain_tokens(data)
    assert len(toks) == len(whole) == 7
    for lo, hi in [(0, 7), (2, 5), (5, 2), (-3, None), (None, -1), (6, 100)]:
        view = toks[lo:hi]
        assert as_tuples(view) == whole[lo:hi]
        assert len(view) == len(whole[lo:hi])
        if whole[lo:hi]:
            assert tuple(view[0]) == whole[lo:hi][0] and tuple(view[-1]) == whole[lo:hi][-1]
    try:
        toks[2:4][2]
    except IndexError:
        pass
    else:
        raise AssertionError("a view's index past its end is an IndexError, as a list's")
