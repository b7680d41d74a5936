"""The tokens syntax/recovery.py reads a broken text by (syntax/scan.py), against the
plain whole-text readings they replaced (issue 29: a syntax error in a 50,000-line file
cost 1.7 s as one object per token, and every keystroke while the text did not parse
read the whole text again). Token for token and line for line: the arrays against the
plain loop, and each local reading of `scan.Text` (a line, what follows a line, the
tokens around an offset, a statement's first token, the `else` repairs) against the
same question asked of the whole text's tokens."""

from __future__ import annotations

import re
from bisect import bisect_left

from hypothesis import given, settings
from hypothesis import strategies as st

from cint_ls.syntax import recovery, scan

# The tokenizer as it was: one match at a time, the line counted from the last token.
_PLAIN = re.compile(rb'//[^\n]*|/\*.*?\*/|"(?:[^"\\\n]|\\.)*"?|[A-Za-z_][A-Za-z0-9_]*|[0-9][A-Za-z0-9_.]*|\S',
                    re.S)

Row = tuple[int, int, bytes, int]


def plain_tokens(data: bytes) -> list[Row]:
    out, line, last = [], 0, 0
    for m in _PLAIN.finditer(data):
        line += data.count(b"\n", last, m.start())
        last = m.start()
        out.append((m.start(), m.end(), m.group(), line))
    return out


def plain_code(data: bytes) -> list[Row]:
    return [t for t in plain_tokens(data) if not t[2].startswith((b"//", b"/*"))]


def rows(tokens: object) -> list[Row]:
    return [(t.start, t.end, t.text, t.line) for t in tokens]  # type: ignore[attr-defined]


def row(token: scan.Token | None) -> Row | None:
    return None if token is None else (token.start, token.end, token.text, token.line)


def plain_else_brace(data: bytes) -> list[recovery.Repair]:
    """recovery.else_brace as it was, on the whole text's code tokens."""
    toks = plain_code(data)
    texts = [t[2] for t in toks]
    starts = scan.line_starts(data)
    out: list[recovery.Repair] = []
    stack: list[int] = []
    closed = None

    def owner(opener: int) -> Row:
        return toks[scan.statement_start(texts, opener)[0]]

    for i in [i for i, t in enumerate(texts) if t in (b"{", b"}", b"else")]:
        t = toks[i]
        if t[2] == b"{":
            stack.append(i)
        elif t[2] == b"}":
            closed = owner(stack.pop()) if stack else None
        elif stack and not (texts[i - 1] == b"}" and closed is not None and closed[2] in (b"if", b"else")):
            opener = stack[-1]
            if owner(opener)[2] not in (b"if", b"else"):
                continue
            edit, text = None, "} "
            if not data[starts[t[3]]:t[0]].strip():
                edit = (starts[t[3]], t[0])
                text = recovery._indent(data, starts, owner(opener)[3]).decode() + "} "
            out.append(recovery.Repair(t[0], text, "}", opener=toks[opener][0], edit=edit,
                                       message="expected `}` before `else`"))
            closed = owner(stack.pop())
    return out


# Texts made of what changes a tokenizer's mind: line breaks in comments and strings,
# escapes, unterminated strings and comments, tabs, CRLF, a non-ASCII letter, and the
# words and brackets the repairs look for.
PIECES = [b"x", b"I64", b"12", b"1.5", b" ", b"    ", b"\t", b"\n", b"\n", b"\r\n", b"{", b"}", b"(", b")", b"[",
          b"]", b";", b"else", b"if", b"while", b"xelse", b'"', b"\\", b"//", b"/*", b"*/", b"=", "é".encode()]
texts = st.lists(st.sampled_from(PIECES), max_size=60).map(b"".join)


@settings(max_examples=300, deadline=None)
@given(texts)
def test_the_tokens_are_the_plain_loops(data: bytes) -> None:
    scan.forget()
    assert rows(scan.tokens(data)) == plain_tokens(data)
    assert rows(scan.code_tokens(data)) == plain_code(data)


@settings(max_examples=300, deadline=None)
@given(texts, st.integers(-2, 12))
def test_a_line_and_what_follows_it(data: bytes, line: int) -> None:
    scan.forget()
    code = plain_code(data)
    index, text = scan.index(data), scan.text(data)
    on = [t for t in code if t[3] == line]
    assert rows(index.on_line(line)) == on and rows(text.on_line(line)) == on
    assert rows(index.after_line(line)) == [t for t in code if t[3] > line]
    assert row(text.first_after_line(line)) == next((t for t in code if t[3] > line), None)
    assert rows(index.braces) == [t for t in code if t[2] in (b"{", b"}")]
    assert index.blocks == [i for i, t in enumerate(code) if t[2] in (b"{", b"}", b"else")]
    assert text.blocks == [(t[0], t[2]) for t in code if t[2] in (b"{", b"}", b"else")]
    assert (text.opened, text.closed) == (index.opened, index.closed)


@settings(max_examples=300, deadline=None)
@given(texts, st.data())
def test_the_tokens_around_an_offset(data: bytes, draw: st.DataObject) -> None:
    scan.forget()
    code = plain_code(data)
    text = scan.text(data)
    at = draw.draw(st.integers(0, len(data)))
    end = draw.draw(st.integers(at, len(data)))
    assert row(text.last_ending_by(at)) == next((t for t in reversed(code) if t[1] <= at), None)
    assert row(text.first_starting_from(at)) == next((t for t in code if t[0] >= at), None)
    assert rows(text.between(at, end)) == [t for t in code if at <= t[0] and t[1] < end]


@settings(max_examples=400, deadline=None)
@given(texts)
def test_statement_starts_and_else_repairs_as_the_whole_text_reads_them(data: bytes) -> None:
    scan.forget()
    code = plain_code(data)
    texts_ = [t[2] for t in code]
    text = scan.text(data)
    braces = [t[0] for t in code if t[2] in (b"{", b"}")]
    for i, t in enumerate(code):
        if t[2] != b"{":
            continue
        before = max((b for b in braces if b < t[0]), default=-1)
        local = text.statement_start(before, t[0])
        if local is not None:
            assert row(local) == code[scan.statement_start(texts_, i)[0]]
        assert text.blank_between(before + 1, t[0]) == (i == 0 or code[i - 1][0] < before + 1)
    assert recovery.else_brace(data) == plain_else_brace(data)
    depth, unopened = 0, []
    for t in code:
        depth += (t[2] == b"{") - (t[2] == b"}")
        if depth < 0:
            unopened.append(t[0])
            depth = 0
    assert recovery.unopened(data) == unopened


def test_a_view_indexes_as_a_list_slice_does() -> None:
    data = b"a b c d e\nf g"
    toks = scan.tokens(data)
    whole = plain_tokens(data)
    assert len(toks) == len(whole) == 7
    for lo, hi in [(0, 7), (2, 5), (5, 2), (-3, None), (None, -1), (6, 100)]:
        view = toks[lo:hi]
        assert rows(view) == whole[lo:hi]
        assert len(view) == len(whole[lo:hi])
        if whole[lo:hi]:
            assert tuple(view[0]) == whole[lo:hi][0] and tuple(view[-1]) == whole[lo:hi][-1]
    try:
        toks[2:4][2]
    except IndexError:
        pass
    else:
        raise AssertionError("a view's index past its end is an IndexError, as a list's")


def test_a_line_inside_a_block_comment_is_read_from_the_whole_text() -> None:
    data = b"x = 1; /* a {\nb } */ y\nz {\n"
    text = scan.text(data)
    assert text.blocks == [(data.index(b"z {") + 2, b"{")]
    assert rows(text.on_line(1)) == [t for t in plain_code(data) if t[3] == 1]
    assert [t.text for t in text.on_line(1)] == [b"y"]
    assert bisect_left(scan.line_starts(data), len(data)) == 3
