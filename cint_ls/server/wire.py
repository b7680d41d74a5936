"""LSP's JSON made directly, without lsprotocol: a diagnostic, a range, the link to a
code's row in the catalogue.

The diagnostics are published as this JSON by the server and by its fast start
(`prelude.py`, which answers before pygls and lsprotocol are imported: importing
`lsprotocol.types` alone takes longer than analysing a 5,000-line file). Building
lsprotocol's objects and unstructuring them again would also take about four times as
long as the dicts. `convert.lsp_diagnostic` is this JSON structured, for the code actions
that carry a diagnostic: one definition of what the editor shows.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ..ide.document import DocumentLike
from ..ide.explain import explain
from ..syntax.diagnostics import Diagnostic
from ..syntax.source import SourceText, Span

SOURCE = "cint"


def _local_catalogue() -> Path | None:
    here = Path(__file__).resolve()
    for path in (here.parents[2] / "docs" / "diagnostics.md",  # a checkout (editable install)
                 here.parent / "docs" / "diagnostics.md"):  # the copy a wheel carries (setup.py)
        if path.is_file():
            return path
    return None


# `codeDescription.href` of a diagnostic: its code's row in the catalogue,
# docs/diagnostics.md, whose rows carry anchors (`<a id="c5010">`). The project has no
# published documentation address yet (the repository URL in pyproject is a
# placeholder), so this is the catalogue on this machine: the checkout's, or the copy
# the wheel carries. A file opens in the editor as text, where an `#c5010` fragment
# means nothing (VS Code opened it at line 1): the link names the row's line instead,
# `#L14`, which VS Code and code-server select (their opener reads `L<line>` fragments).
# Set CATALOGUE_URL to the published address, once there is one: its links are anchors.
CATALOGUE: Path | None = _local_catalogue()
CATALOGUE_URL: str | None = CATALOGUE.as_uri() if CATALOGUE is not None else None
_CATALOGUED = re.compile(r"C[0-9]{4}")
_ANCHOR = re.compile(r'<a id="(c[0-9]{4})"></a>')
_catalogue_lines: dict[str, int] | None = None


def catalogue_line(code: str) -> int | None:
    """The 1-based line of `code`'s row in the local catalogue (None: no row)."""
    global _catalogue_lines
    if _catalogue_lines is None:
        lines: dict[str, int] = {}
        try:
            text = CATALOGUE.read_text(encoding="utf-8") if CATALOGUE is not None else ""
        except OSError:
            text = ""
        for number, line in enumerate(text.splitlines(), 1):
            for anchor in _ANCHOR.findall(line):
                lines.setdefault(anchor, number)
        _catalogue_lines = lines
    return _catalogue_lines.get(code.lower())


def code_href(code: str) -> str | None:
    """The link of a catalogued code: its row's line in the local catalogue (a file an
    editor opens as text), or its anchor at a published address."""
    if CATALOGUE_URL is None or not _CATALOGUED.fullmatch(code):
        return None
    if not CATALOGUE_URL.startswith("file:"):
        return f"{CATALOGUE_URL}#{code.lower()}"
    line = catalogue_line(code)
    return f"{CATALOGUE_URL}#L{line}" if line is not None else CATALOGUE_URL


def range_json(source: SourceText, span: Span) -> dict[str, Any]:
    """LSP's Range of a span (UTF-16 positions); an inverted span is empty at its start."""
    start = span.start_byte
    a, b = source.position(start), source.position(max(start, span.end_byte))
    return {"start": {"line": a.line, "character": a.character}, "end": {"line": b.line, "character": b.character}}


def data_json(diagnostic: Diagnostic) -> dict[str, Any] | None:
    """The diagnostic's `data`: its capability, executor and facts, those JSON can hold."""
    data: dict[str, Any] = {}
    if diagnostic.capability is not None:
        data["capability"] = diagnostic.capability
    if diagnostic.executor is not None:
        data["executor"] = diagnostic.executor
    for key, value in (diagnostic.data or {}).items():
        try:
            json.dumps(value)
        except (TypeError, ValueError):
            continue
        data[str(key)] = value
    return data or None


def diagnostic_json(doc: DocumentLike, diagnostic: Diagnostic) -> dict[str, Any]:
    """The editor's diagnostic: the specific reason as the message and the other half
    of a conflict as related information (`ide.explain`), linked to the catalogue. The
    CLI prints the same diagnostic with the catalogue's line (conformance outputs)."""
    source = doc.source
    explained = explain(doc, diagnostic)
    message, places = (diagnostic.message, diagnostic.related) if explained is None else \
        (explained.message, explained.related)
    out: dict[str, Any] = {"range": range_json(source, diagnostic.span), "message": message,
                           "severity": int(diagnostic.severity), "code": diagnostic.code}
    if (href := code_href(diagnostic.code)) is not None:
        out["codeDescription"] = {"href": href}
    out["source"] = SOURCE
    if places:
        out["relatedInformation"] = [
            {"location": {"uri": doc.uri, "range": range_json(source, r.span)}, "message": r.message}
            for r in places]
    if (data := data_json(diagnostic)) is not None:
        out["data"] = data
    return out


def diagnostics_json(doc: DocumentLike, diagnostics: list[Diagnostic]) -> list[dict[str, Any]]:
    return [diagnostic_json(doc, d) for d in diagnostics]
