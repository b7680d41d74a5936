"""The report format of LANGUAGE.md "Reports": a header, `--> file:line:col`, and a
frame that shows the source line with a caret under the column.

    error[C5010]: parameter mode, alias, or ABI rule
      --> same_c5010.ci:7:14
       |
     7 |     copy1(a, a);
       |              ^

Fault records (exec) print with the same frame, followed by their fields.
"""

from __future__ import annotations

from pathlib import PurePath

from .diagnostics import Diagnostic
from .source import SourceText, Span


def gutter_width(line: int) -> int:
    return max(2, len(str(line)))


def display_path(path: str) -> str:
    """Reports name a file as it was given, or by its base name for a temporary one."""
    return str(PurePath(path)) if path else "<input>"


# A source line longer than this is shown as an excerpt around the column (issue 13
# item 8: a fault on a 10,000-character line printed all of it).
MAX_EXCERPT = 120
_ELLIPSIS = "..."


def excerpt(line: str, column: int) -> tuple[str, int]:
    """The line as a frame shows it and the 1-based column of the caret in it: the whole
    line when it is short, else MAX_EXCERPT characters around the column, cut ends
    marked with `...`."""
    if len(line) <= MAX_EXCERPT:
        return line, column
    half = MAX_EXCERPT // 2
    start = max(0, min(column - 1 - half, len(line) - MAX_EXCERPT))
    end = start + MAX_EXCERPT
    shown = line[start:end]
    caret = column - start
    if start > 0:
        shown, caret = _ELLIPSIS + shown, caret + len(_ELLIPSIS)
    if end < len(line):
        shown += _ELLIPSIS
    return shown, caret


def frame(source: SourceText, span: Span, label: str = "") -> list[str]:
    """The `-->` line and the source frame with a caret under `span`'s start."""
    width = gutter_width(span.line)
    pad = " " * width
    caret = "^" + (f" {label}" if label else "")
    shown, column = excerpt(source.line_text(span.line), span.column)
    return [
        f"{pad}--> {display_path(source.path)}:{span.line}:{span.column}",
        f"{pad} |",
        f"{span.line:>{width}} | {shown}".rstrip(),
        f"{pad} | {' ' * (column - 1)}{caret}",
    ]


def diagnostic_line(diagnostic: Diagnostic) -> str:
    """One line for a place with no room for a frame: `C5010 at 7:14: message`."""
    return f"{diagnostic.code} at {diagnostic.span.line}:{diagnostic.span.column}: {diagnostic.message}"


def render_diagnostic(source: SourceText, diagnostic: Diagnostic) -> str:
    """A translation diagnostic: `error[CODE]: message` and its frame; related
    information follows as `= note:` lines."""
    lines = [f"{diagnostic.severity.label}[{diagnostic.code}]: {diagnostic.message}"]
    lines += frame(source, diagnostic.span)
    for related in diagnostic.related:
        lines.append(
            f"{' ' * gutter_width(diagnostic.span.line)} = note: {related.message}"
            f" ({display_path(source.path)}:{related.span.line}:{related.span.column})"
        )
    return "\n".join(lines) + "\n"
