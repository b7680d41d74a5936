"""A workbench session as one cint program (issue 31): the loaded modules' declarations,
the session's kernels and functions, its variables' declarations, then the input being
run, each placed at the column it has in its own source, so that a position in the
program maps back to the input (or file) it came from: `--> entry 1:1:74`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ..exec.faults import Address, FaultRecord, StackFrame
from ..syntax.source import SourceText, Span

SESSION = "session"  # the session's module: `session.total_checked`


@dataclass(frozen=True)
class Source:
    """An input of the session (`entry 3`) or a loaded file (`budget.ci`)."""

    label: str
    text: str
    module: str = SESSION  # the module its declarations belong to


@dataclass(frozen=True)
class Piece:
    """A part of a source placed in the program: its bytes [start, end) of `source`."""

    source: Source
    start: int
    end: int


@dataclass
class Placed:
    """Where a piece lies in the program text."""

    piece: Piece
    byte: int  # the program's byte where the piece's first byte is
    line: int  # the program's line (1-based) of that byte
    source_line: int  # that byte's line in its source


class Assembly:
    """The program text, piece by piece, and the way back from its spans."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._bytes = 0
        self._line = 1
        self.placed: list[Placed] = []

    def add(self, piece: Piece) -> None:
        text = piece.source.text
        before = text.encode("utf-8")[:piece.start].decode("utf-8", "replace")
        column = len(before) - (before.rfind("\n") + 1)  # code points before it on its line
        chunk = " " * column + text.encode("utf-8")[piece.start:piece.end].decode("utf-8", "replace") + "\n"
        self.placed.append(Placed(piece, self._bytes + column, self._line, before.count("\n") + 1))
        self._parts.append(chunk)
        self._bytes += len(chunk.encode("utf-8"))
        self._line += chunk.count("\n")

    def add_text(self, text: str) -> None:
        """Text of the session's own (its variables' declarations): no source maps to it."""
        chunk = text if text.endswith("\n") else text + "\n"
        self._parts.append(chunk)
        self._bytes += len(chunk.encode("utf-8"))
        self._line += chunk.count("\n")

    @property
    def text(self) -> str:
        return "".join(self._parts)

    @property
    def end(self) -> int:
        return self._bytes

    def locate(self, span: Span) -> tuple[Source, Span] | None:
        """The source a program span lies in, and the span in that source's terms."""
        for placed in reversed(self.placed):
            piece = placed.piece
            if placed.byte <= span.start_byte < placed.byte + piece.end - piece.start + 1:
                shift_bytes = piece.start - placed.byte
                shift_lines = placed.source_line - placed.line
                return piece.source, Span(span.start_byte + shift_bytes, span.end_byte + shift_bytes,
                                          span.line + shift_lines, span.column, span.end_line + shift_lines,
                                          span.end_column)
        return None


def qualify(name: str, modules: dict[str, str]) -> str:
    """`session.run` -> `budget.run` for a name a loaded module declares (`modules`:
    name -> module)."""
    module, _, bare = name.partition(".")
    if module == SESSION and bare in modules:
        return f"{modules[bare]}.{bare}"
    return name


def report_parts(assembly: Assembly, record: FaultRecord, modules: dict[str, str]
                 ) -> tuple[SourceText, FaultRecord, list[str]]:
    """The source to frame a report in, the record in that source's terms (names
    qualified by their modules), and its stack lines (`heat_e1.step at entry 4:1:1`)."""
    located = assembly.locate(record.span) if record.span is not None else None
    source = SourceText(located[0].text, located[0].label) if located else SourceText("", SESSION)
    stack = []
    for frame in record.stack:
        where = assembly.locate(frame.span) if frame.span is not None else None
        name = qualify(frame.function, modules)
        if where is None:
            stack.append(f"stack: {name}")
        else:
            stack.append(f"stack: {name} at {where[0].label}:{where[1].line}:{where[1].column}")
    address = record.address
    if address is not None:
        address = Address(qualify(address.kernel, modules), address.dispatch, address.phase, address.work_item,
                          address.step)
    shown = replace(record, span=located[1] if located else None, stack=(), address=address,
                    )
    return source, shown, stack


def unqualify(text: str, modules: set[str]) -> str:
    """`budget.run()` -> `       run()`: a loaded module's qualifier becomes spaces, so
    every column of the input is kept (the program holds the module's names bare)."""
    if not modules:
        return text
    pattern = re.compile(r"\b(" + "|".join(re.escape(m) for m in sorted(modules)) + r")\.(?=[A-Za-z_])")
    return pattern.sub(lambda m: " " * (len(m.group(1)) + 1), text)


__all__ = ["Assembly", "Piece", "SESSION", "Source", "StackFrame", "qualify", "report_parts", "unqualify"]
