"""Inputs from lines: an input goes on to the next line while a bracket is open (the
plain reader's and the prompt's rule alike)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from .session import Session

CONTINUATION = "   ...> "


def open_brackets(text: str) -> int:
    """How many `{`, `(` and `[` are still open at the end of `text` (strings and `//`
    comments skipped): an input goes on while this is above 0."""
    depth = 0
    in_string = False
    i = 0
    while i < len(text):
        c = text[i]
        if in_string:
            if c == "\\":
                i += 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c == "/" and text.startswith("//", i):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
            continue
        elif c in "{([":
            depth += 1
        elif c in "})]":
            depth -= 1
        i += 1
    return depth


def inputs(read_line: Callable[[str], str | None], session: Session) -> Iterator[str]:
    """Whole inputs from lines (None: the end), continuing while brackets are open."""
    while True:
        line = read_line(session.prompt)
        if line is None:
            return
        text = line
        while open_brackets(text) > 0:
            more = read_line(CONTINUATION)
            if more is None:
                break
            text += "\n" + more
        yield text
