"""Hypothesis strategies shared by the tests: LSP edits of a text; and what they found."""

from __future__ import annotations

from hypothesis import strategies as st

from cint_ls.syntax import Position, SourceText, TextEdit

SNIPPETS = [
    "kernel", "void", "{", "}", "(", ")", "[", "]", ";", ",", "..", " by 2", "as%", "as?", "+|",
    "reduce s = sum(", "I64 x = ", "a[i, j]", '"{x}\\n"', '"', "/*", "*/", "//", "\n", "\t",
    "é", "😀", "Q16.16", "0x_ff", "1.25", "for i in 0..8 {", "switch (x) { case 1: ", "\r\n",
]

inserted_text = st.one_of(
    st.sampled_from(SNIPPETS),
    st.text(max_size=12),
    st.binary(max_size=12).map(lambda b: b.decode("utf-8", errors="replace")),
)


def utf16_length(line: str) -> int:
    return len(line.encode("utf-16-le")) // 2


@st.composite
def edit_for(draw, text: str) -> TextEdit:
    lines = text.split("\n")

    def position() -> Position:
        line = draw(st.integers(0, len(lines)))  # one past the end is allowed
        width = utf16_length(lines[line]) if line < len(lines) else 0
        return Position(line, draw(st.integers(0, width + 2)))

    start, end = position(), position()
    return TextEdit(start, end, draw(inserted_text))


def expected_text(text: str, edit: TextEdit) -> str:
    """The edit applied by a second, independent reading of LSP positions."""
    source = SourceText(text)
    a, b = sorted((source.offset(edit.start), source.offset(edit.end)))
    data = source.data
    return (data[:a] + edit.text.encode() + data[b:]).decode()


# Found by a random search of erroneous edits (2026-12-01): the incremental parse's
# recovery from this edit reuses the old tree's array literal and differs from a fresh
# parse of the new text (issue 11's provisional trees).
DIVERGENT_TEXT = " []sI+(y,]as I)+"
DIVERGENT_EDIT = TextEdit(Position(0, 0), Position(0, 1), "[")
