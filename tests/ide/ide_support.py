"""Helpers of the editor-feature tests: documents from text or conformance files, and
offsets from 1-based line:column. Importing it makes the features re-raise (STRICT), so
a bug shows as its exception rather than as an empty answer."""

from __future__ import annotations

from pathlib import Path

from cint_ls.ide import find
from cint_ls.ide.document import Document

find.STRICT = True

TESTS = Path(__file__).resolve().parent.parent
CONFORMANCE = TESTS / "conformance"
# The top-level conformance programs are the examples of SPEC-02P.1 (spec/examples), verbatim.
SPEC_EXAMPLES = sorted(CONFORMANCE.glob("*.ci"))


def doc_of(text: str, name: str = "t.ci") -> Document:
    return Document(f"file:///tmp/{name}", text, path=name)


def conformance(name: str) -> Document:
    path = CONFORMANCE / name
    return Document(path.as_uri(), path.read_text(), path=name)


def offset(doc: Document, line: int, column: int) -> int:
    """The byte offset of 1-based line and column (code points)."""
    start = doc.source._line_starts[line - 1]
    text = doc.source.line_text(line)
    return start + len(text[:column - 1].encode("utf-8"))


def find_offset(doc: Document, line: int, fragment: str, at: int = 0, occurrence: int = 0) -> int:
    """The offset of character `at` of the `occurrence`-th `fragment` on `line`."""
    text = doc.source.line_text(line)
    index = -1
    for _ in range(occurrence + 1):
        index = text.index(fragment, index + 1)
    return offset(doc, line, index + 1 + at)


def text_at(doc: Document, span) -> str:
    return doc.source.data[span.start_byte:span.end_byte].decode("utf-8")
