"""Source text and spans.

A span is a byte range plus 1-based line and column in code points, the coordinates of
reports (LANGUAGE.md "Reports"). LSP positions count UTF-16 code units; `SourceText`
converts between the three so that every layer above can stay in one unit.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
_LSP_LINE_END = re.compile(rb"\r\n|\r|\n")
_LINE_END = re.compile(rb"\n")


def without_lone_surrogates(text: str) -> str:
    """`text` with each lone surrogate (legal in JSON, not encodable in UTF-8; a Python
    str holds surrogates only unpaired) replaced by U+FFFD. Both are one UTF-16 unit, so
    every LSP position of the client's text stays where it was."""
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text


class Placement:
    """Where one version of a document puts what its versions share: each top-level
    item's `Anchor` (its start as (byte, line, column)) and, for the module symbols kept
    across versions, their fields in this version (`analysis/symbols.py`). Filled once,
    while the version's layers are computed; a version's spans and symbols resolve
    through it while it is read (`placed`), so versions never move each other's."""

    __slots__ = ("anchors", "fields")

    def __init__(self) -> None:
        self.anchors: dict[Anchor, tuple[int, int, int]] = {}
        # a kept symbol -> its (type, span, node) in this version
        self.fields: dict[object, tuple[Any, ...]] = {}


# The placement of the version this thread (or task) reads; None outside any version
# (the CLI, or a document of one version): every anchor is then where it was made.
_READING: ContextVar[Placement | None] = ContextVar("cint_placement", default=None)


# Outside any `placed` (code that reads a document's layers directly, as the tests and
# the CLI do): the placement of the version whose layers this thread (or task) asked for
# last (`asked`). A convenience of one thread's own reads; it changes no other thread's.
_ASKED: ContextVar[Placement | None] = ContextVar("cint_asked", default=None)


def reading() -> Placement | None:
    """The placement of the version being read, if any."""
    return _READING.get() or _ASKED.get()


def asked(placement: Placement) -> None:
    """This thread (or task) asked for a layer of `placement`'s version: outside any
    `placed`, its spans read as that version has them."""
    _ASKED.set(placement)


@contextmanager
def placed(placement: Placement) -> Iterator[Placement]:
    """Read spans and kept symbols as `placement`'s version has them."""
    token = _READING.set(placement)
    try:
        yield placement
    finally:
        _READING.reset(token)


class Anchor:
    """The start of a top-level item: the spans inside the item are relative to it.
    Immutable: `at` is where the item was when it was lowered; a later version that
    reuses the item records where it put it in its own `Placement`, so an edit that
    moves the item moves every span in it for that version alone."""

    __slots__ = ("at",)

    def __init__(self, byte: int = 0, line: int = 1, column: int = 1) -> None:
        self.at = (byte, line, column)

    def place(self) -> tuple[int, int, int]:
        """(byte, line, column) of the item in the version being read."""
        placement = _READING.get() or _ASKED.get()
        if placement is not None:
            found = placement.anchors.get(self)
            if found is not None:
                return found
        return self.at

    def __reduce__(self) -> str | tuple[type[Anchor], tuple[int, int, int]]:
        """Pickled (a run's program, sent to its child process: running/isolated.py) as
        where it is in the version being read, so that the copy needs no `Placement`;
        ROOT as itself."""
        if self is ROOT:
            return "ROOT"
        return Anchor, self.place()

    @property
    def byte(self) -> int:
        return self.place()[0]

    @property
    def line(self) -> int:
        return self.place()[1]

    @property
    def column(self) -> int:
        return self.place()[2]


ROOT = Anchor()  # the start of the file; never moves

# One int object for each item-relative offset below 2**13, shared by every span. Two
# offsets per span would each be an object of their own above 256 (CPython caches only
# the small ones): at 50,000 lines, 470,000 spans held 14 MB of ints. 2**13 covers
# items of up to 8 kB (the heat kernel is 0.5 kB); 2**16 cost 2.2 ms at every import
# (each run's child process), 2**13 0.3 ms.
_SHARED_OFFSETS = 1 << 13
_OFFSETS = tuple(range(_SHARED_OFFSETS))


class Span:
    """A byte range of a source and its start and end as 1-based (line, column) in
    code points; `end_line`/`end_column` point just past the last character.

    Stored relative to an `Anchor`: bytes and lines as offsets, a column as an offset
    on the anchor's own line and as an absolute column on later lines. Immutable; its
    absolute place is the anchor's in the version being read (`placed`)."""

    __slots__ = ("anchor", "_start", "_end", "_line", "_column", "_end_line", "_end_column")

    def __init__(self, start_byte: int, end_byte: int, line: int, column: int, end_line: int,
                 end_column: int) -> None:
        self.anchor = ROOT
        self._start, self._end = start_byte, end_byte
        self._line, self._end_line = line - 1, end_line - 1
        self._column = column - 1 if line == 1 else column
        self._end_column = end_column - 1 if end_line == 1 else end_column

    @classmethod
    def relative(cls, anchor: Anchor, start: int, end: int, line: int, column: int, end_line: int,
                 end_column: int) -> Span:
        """A span from offsets to `anchor`: `line`/`end_line` count lines after the
        anchor's; a column on the anchor's line is an offset from its column."""
        span = cls.__new__(cls)
        span.anchor = anchor
        if 0 <= start and end < _SHARED_OFFSETS:
            start, end = _OFFSETS[start], _OFFSETS[end]
        span._start, span._end, span._line, span._end_line = start, end, line, end_line
        span._column, span._end_column = column, end_column
        return span

    def __reduce__(self) -> tuple[object, tuple[Anchor, int, int, int, int, int, int]]:
        # Its fields as a tuple: half the bytes of the default (a dict of its slots).
        return Span.relative, (self.anchor, self._start, self._end, self._line, self._column, self._end_line,
                               self._end_column)

    @property
    def start_byte(self) -> int:
        return self.anchor.byte + self._start

    @property
    def end_byte(self) -> int:
        return self.anchor.byte + self._end

    @property
    def line(self) -> int:
        return self.anchor.line + self._line

    @property
    def column(self) -> int:
        return self.anchor.column + self._column if self._line == 0 else self._column

    @property
    def end_line(self) -> int:
        return self.anchor.line + self._end_line

    @property
    def end_column(self) -> int:
        return self.anchor.column + self._end_column if self._end_line == 0 else self._end_column

    def absolute(self) -> tuple[int, int, int, int, int, int]:
        byte, line, column = self.anchor.place()
        return (byte + self._start, byte + self._end, line + self._line,
                column + self._column if self._line == 0 else self._column, line + self._end_line,
                column + self._end_column if self._end_line == 0 else self._end_column)

    def freeze(self) -> Span:
        """The same span anchored at the file's start: it no longer moves."""
        return Span(*self.absolute())

    def contains_byte(self, offset: int) -> bool:
        byte = self.anchor.place()[0]
        return byte + self._start <= offset < byte + self._end or offset == byte + self._start

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Span) and self.absolute() == other.absolute()

    def __hash__(self) -> int:
        return hash(self.absolute())

    def __repr__(self) -> str:
        return "Span(start_byte={}, end_byte={}, line={}, column={}, end_line={}, end_column={})".format(
            *self.absolute())

    def __str__(self) -> str:
        return f"{self.line}:{self.column}"


@dataclass(frozen=True, slots=True)
class Position:
    """An LSP position: 0-based line and character in UTF-16 code units."""

    line: int
    character: int


def widths(text: bytes) -> tuple[int, int]:
    """(code points, UTF-16 code units) of UTF-8 bytes: a column as the reports count it
    and as LSP does."""
    if text.isascii():
        return len(text), len(text)
    decoded = text.decode("utf-8", errors="replace")
    return len(decoded), len(decoded.encode("utf-16-le")) // 2


class SourceText:
    """Text of one file with a line index over its UTF-8 bytes."""

    def __init__(self, text: str, path: str = "<input>") -> None:
        try:
            self.data = text.encode("utf-8")
        except UnicodeEncodeError:
            text = without_lone_surrogates(text)
            self.data = text.encode("utf-8")
        self.text = text
        self.path = path
        starts = [0]
        starts += [m.end() for m in _LINE_END.finditer(self.data)]  # half the time of a find() loop
        self._line_starts = starts
        # Lines as LSP counts them: `\r\n`, `\n` and a lone `\r` each end a line. The
        # tree and reports count `\n` only; the two differ only for a lone `\r`.
        self._lsp_starts = starts
        if b"\r" in self.data and re.search(rb"\r(?!\n)", self.data):
            self._lsp_starts = [0] + [m.end() for m in _LSP_LINE_END.finditer(self.data)]

    # ---- lines

    @property
    def lone_carriage_returns(self) -> bool:
        """Whether a lone `\r` ends a line: LSP's lines are then not the tree's."""
        return self._lsp_starts is not self._line_starts

    @property
    def line_count(self) -> int:
        return len(self._line_starts)

    def line_bytes(self, line0: int) -> bytes:
        """Bytes of 0-based line `line0`, without its line break."""
        start = self._line_starts[line0]
        end = self._line_starts[line0 + 1] - 1 if line0 + 1 < len(self._line_starts) else len(self.data)
        line = self.data[start:end]
        return line[:-1] if line.endswith(b"\r") else line

    def line_text(self, line1: int) -> str:
        """Text of 1-based line `line1` (empty past the end)."""
        if not 1 <= line1 <= self.line_count:
            return ""
        return self.line_bytes(line1 - 1).decode("utf-8", errors="replace")

    # ---- conversions

    def line_of_byte(self, offset: int) -> int:
        """0-based line that holds byte `offset`."""
        return bisect_right(self._line_starts, offset) - 1

    def point_of_byte(self, offset: int) -> tuple[int, int]:
        """(0-based line, byte column) of a byte offset, clamped to the text."""
        offset = max(0, min(offset, len(self.data)))
        line0 = self.line_of_byte(offset)
        return line0, offset - self._line_starts[line0]

    def _prefix(self, line0: int, byte_column: int) -> str:
        start = self._line_starts[line0]
        return self.data[start:start + byte_column].decode("utf-8", errors="replace")

    def line_column(self, offset: int) -> tuple[int, int]:
        """1-based (line, column in code points) of a byte offset."""
        line0, col = self.point_of_byte(offset)
        start = self._line_starts[line0]
        chunk = self.data[start:start + col]
        if chunk.isascii():
            return line0 + 1, col + 1
        return line0 + 1, len(chunk.decode("utf-8", errors="replace")) + 1

    def span(self, start_byte: int, end_byte: int) -> Span:
        line, column = self.line_column(start_byte)
        end_line, end_column = self.line_column(end_byte)
        return Span(start_byte, end_byte, line, column, end_line, end_column)

    def lsp_line(self, offset: int) -> int:
        """The 0-based LSP line that holds byte `offset` (`position(offset).line`)."""
        return bisect_right(self._lsp_starts, max(0, min(offset, len(self.data)))) - 1

    def _lsp_line(self, line0: int) -> tuple[int, bytes]:
        """Start and bytes (without the line end) of 0-based LSP line `line0`."""
        starts = self._lsp_starts
        start = starts[line0]
        end = starts[line0 + 1] if line0 + 1 < len(starts) else len(self.data)
        line = self.data[start:end]
        if line.endswith(b"\n"):
            line = line[:-1]
        if line.endswith(b"\r"):
            line = line[:-1]
        return start, line

    def position(self, offset: int) -> Position:
        """The LSP position (UTF-16) of a byte offset."""
        offset = max(0, min(offset, len(self.data)))
        line0 = bisect_right(self._lsp_starts, offset) - 1
        start, line = self._lsp_line(line0)
        col = min(offset - start, len(line))
        return Position(line0, widths(self.data[start:start + col])[1])

    def offset(self, position: Position) -> int:
        """The byte offset of an LSP position. A line past the end gives the end of the
        text; a character past the end of its line gives the end of that line (as LSP
        asks clients and servers to treat out-of-range positions)."""
        if position.line < 0:
            return 0
        if position.line >= len(self._lsp_starts):
            return len(self.data)
        start, line = self._lsp_line(position.line)
        character = max(0, position.character)
        if line.isascii():
            return start + min(character, len(line))
        text = line.decode("utf-8")  # the bytes came from a str: valid UTF-8
        units = 0
        for index, char in enumerate(text):
            if units >= character:
                return start + len(text[:index].encode("utf-8"))
            units += 2 if ord(char) > 0xFFFF else 1
        return start + len(line)
