"""A workbench session as one cint program (issue 31): the loaded modules' declarations,
the session's kernels and functions, its variables' declarations, then the input being
run, each placed at the column it has in its own source, so that a position in the
program maps back to the input (or file) it came from: `--> entry 1:1:74`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ..exec.faults import Address, FaultRecord, StackFrame
from ..running.report import render
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
    """A part of a source placed in the program: its bytes [start, end) of `source`,
    between the text `wrap` puts around it (an expression inside a print: `"{`, `}";`)."""

    source: Source
    start: int
    end: int
    wrap: tuple[str, str] = ("", "")


@dataclass
class Placed:
    """Where a piece lies in the program text."""

    piece: Piece
    first: int  # the program's byte where the piece's text, its wrapping included, begins
    byte: int  # the program's byte where the piece's first byte is
    last: int  # the program's byte just past the piece's text, its wrapping included


class Assembly:
    """The program text, piece by piece, and the way back from its spans."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._bytes = 0
        self.placed: list[Placed] = []
        self._sources: dict[int, SourceText] = {}  # id() of a Source -> its lines, for `locate`

    def add(self, piece: Piece) -> None:
        data = piece.source.text.encode("utf-8")
        before = data[:piece.start].decode("utf-8", "replace")
        column = len(before) - (before.rfind("\n") + 1)  # code points before it on its line
        prefix, suffix = (part.encode("utf-8") for part in piece.wrap)
        body = data[piece.start:piece.end]
        first = self._bytes + column
        self.placed.append(Placed(piece, first, first + len(prefix), first + len(prefix) + len(body) + len(suffix)))
        chunk = " " * column + (prefix + body + suffix).decode("utf-8", "replace") + "\n"
        self._parts.append(chunk)
        self._bytes += len(chunk.encode("utf-8"))

    def add_text(self, text: str) -> None:
        """Text of the session's own (its variables' declarations): no source maps to it."""
        chunk = text if text.endswith("\n") else text + "\n"
        self._parts.append(chunk)
        self._bytes += len(chunk.encode("utf-8"))

    @property
    def text(self) -> str:
        return "".join(self._parts)

    @property
    def end(self) -> int:
        return self._bytes

    def locate(self, span: Span) -> tuple[Source, Span] | None:
        """The source a program span lies in, and the span in that source's terms (what
        lies in a piece's wrapping, at the piece's nearer end)."""
        for placed in reversed(self.placed):
            piece = placed.piece
            if placed.first <= span.start_byte <= placed.last:
                shift = piece.start - placed.byte
                start = min(max(span.start_byte + shift, piece.start), piece.end)
                end = min(max(span.end_byte + shift, start), piece.end)
                lines = self._sources.get(id(piece.source))
                if lines is None:
                    lines = self._sources[id(piece.source)] = SourceText(piece.source.text, piece.source.label)
                return piece.source, lines.span(start, end)
        return None


def expression_piece(label: str, text: str) -> Piece:
    """An input that is an expression, inside the print that shows its value (`"{...}";`):
    its positions are the input's own."""
    source = Source(label, text)
    lead = len(text) - len(text.lstrip())
    core = text.strip().rstrip(";")
    start = len(text[:lead].encode("utf-8"))
    return Piece(source, start, start + len(core.encode("utf-8")), ('"{', '}";'))


def qualify(name: str, modules: dict[str, str]) -> str:
    """`session.run` -> `budget.run` for a name a loaded module declares (`modules`:
    name -> module)."""
    module, _, bare = name.partition(".")
    if module == SESSION and bare in modules:
        return f"{modules[bare]}.{bare}"
    return name


def report(assembly: Assembly, record: FaultRecord, modules: dict[str, str], revision: str) -> str:
    """The fault's report as `cint run` writes it, in the terms of the inputs and files
    its positions lie in (`--> entry 1:1:74`, `stack: heat_e1.step at entry 4:1:1`), with
    the names a loaded module declares qualified by it (`modules`: name -> module)."""
    located = assembly.locate(record.span) if record.span is not None else None
    source = SourceText(located[0].text, located[0].label) if located else SourceText("", SESSION)

    def place(frame: StackFrame) -> str:
        where = assembly.locate(frame.span) if frame.span is not None else None
        name = qualify(frame.function, modules)
        return name if where is None else f"{name} at {where[0].label}:{where[1].line}:{where[1].column}"

    address = record.address
    if address is not None:
        address = Address(qualify(address.kernel, modules), address.dispatch, address.phase, address.work_item,
                          address.step)
    shown = replace(record, span=located[1] if located else None, address=address)
    return render(source, shown, revision=revision, place=place)


def unqualify(text: str, modules: set[str]) -> str:
    """`budget.run()` -> `       run()`: a loaded module's qualifier becomes spaces, so
    every column of the input is kept (the program holds the module's names bare)."""
    if not modules:
        return text
    pattern = re.compile(r"\b(" + "|".join(re.escape(m) for m in sorted(modules)) + r")\.(?=[A-Za-z_])")
    return pattern.sub(lambda m: " " * (len(m.group(1)) + 1), text)


__all__ = ["Assembly", "Piece", "SESSION", "Source", "expression_piece", "qualify", "report", "unqualify"]
