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


def frame(source: SourceText, span: Span, label: str = "") -> list[str]:
    """The `-->` line and the source frame with a caret under `span`'s start."""
    width = gutter_width(span.line)
    pad = " " * width
    caret = "^" + (f" {label}" if label else "")
    return [
        f"{pad}--> {display_path(source.path)}:{span.line}:{span.column}",
        f"{pad} |",
        f"{span.line:>{width}} | {source.line_text(span.line)}".rstrip(),
        f"{pad} | {' ' * (span.column - 1)}{caret}",
    ]


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
