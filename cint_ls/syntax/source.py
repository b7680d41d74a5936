"""Source text and spans.

A span is a byte range plus 1-based line and column in code points, the coordinates of
reports (LANGUAGE.md "Reports"). LSP positions count UTF-16 code units; `SourceText`
converts between the three so that every layer above can stay in one unit.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Span:
    """A byte range of a source and its start and end as 1-based (line, column) in
    code points. `end_line`/`end_column` point just past the last character."""

    start_byte: int
    end_byte: int
    line: int
    column: int
    end_line: int
    end_column: int

    def contains_byte(self, offset: int) -> bool:
        return self.start_byte <= offset < self.end_byte or offset == self.start_byte

    def __str__(self) -> str:
        return f"{self.line}:{self.column}"


@dataclass(frozen=True, slots=True)
class Position:
    """An LSP position: 0-based line and character in UTF-16 code units."""

    line: int
    character: int


class SourceText:
    """Text of one file with a line index over its UTF-8 bytes."""

    def __init__(self, text: str, path: str = "<input>") -> None:
        self.text = text
        self.path = path
        self.data = text.encode("utf-8")
        starts = [0]
        find = self.data.find
        i = find(b"\n")
        while i >= 0:
            starts.append(i + 1)
            i = find(b"\n", i + 1)
        self._line_starts = starts

    # ---- lines

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

    def position(self, offset: int) -> Position:
        """The LSP position (UTF-16) of a byte offset."""
        line0, col = self.point_of_byte(offset)
        start = self._line_starts[line0]
        chunk = self.data[start:start + col]
        if chunk.isascii():
            return Position(line0, col)
        text = chunk.decode("utf-8", errors="replace")
        return Position(line0, len(text.encode("utf-16-le")) // 2)

    def offset(self, position: Position) -> int:
        """The byte offset of an LSP position. A line past the end gives the end of the
        text; a character past the end of its line gives the end of that line (as LSP
        asks clients and servers to treat out-of-range positions)."""
        if position.line < 0:
            return 0
        if position.line >= len(self._line_starts):
            return len(self.data)
        line = self.line_bytes(position.line)
        start = self._line_starts[position.line]
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
