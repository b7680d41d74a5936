"""Hover over stdio: every step of the heat kernel matches the table of SPEC-02P.1 11.2."""

from __future__ import annotations

import pytest
from lsp_support import at, conformance, doc_id, open_document, server_fixture, uri_of
from lsprotocol import types as lsp

pytestmark = pytest.mark.asyncio(loop_scope="module")

client = server_fixture()

HEAT = uri_of("heat_e1")

# SPEC-02P.1 11.2: step, line, operation; and the column of the operation's anchor on
# that line (the operator, the `[` of an element access, `as`, the callee, the reduce
# operator), which the test checks against the source text below.
STEPS = [
    (0, 8, "read u[y, x]", 14), (1, 8, "as I64", 21), (2, 9, "read u[y, x]", 14),
    (3, 10, "h - 1", 24), (4, 10, "w - 1", 46), (5, 11, "y - 1", 24),
    (6, 11, "read u[y - 1, x]", 21), (7, 11, "as I64", 32), (8, 11, "y + 1", 47),
    (9, 11, "read u[y + 1, x]", 44), (10, 11, "as I64", 55), (11, 11, "+", 40),
    (12, 12, "x - 1", 23), (13, 12, "read u[y, x - 1]", 17), (14, 12, "as I64", 28),
    (15, 12, "+", 13), (16, 12, "x + 1", 46), (17, 12, "read u[y, x + 1]", 40),
    (18, 12, "as I64", 51), (19, 12, "+", 36), (20, 12, "4 * c", 63), (21, 12, "-", 59),
    (22, 13, "kn * lap", 33), (23, 13, "div_round", 20), (24, 14, "c + flux", 16),
    (25, 14, "as I32", 24), (26, 16, "place v[y, x]", 6), (27, 17, "reduce (sum)", 20),
]


def _anchor_matches(line_text: str, operation: str, column: int) -> bool:
    """Whether the anchor at `column` (1-based) of `line_text` is the operation's."""
    at_col = line_text[column - 1:]
    if operation.startswith("read ") or operation.startswith("place "):
        name = operation.split()[1].split("[")[0]
        return at_col.startswith("[") and line_text[:column - 1].endswith(name)
    if operation.startswith("as "):
        return at_col.startswith(operation)
    if operation.startswith("reduce"):
        return at_col.startswith("sum") and "reduce" in line_text
    if operation == "div_round":
        return at_col.startswith("div_round")
    if len(operation) == 1:
        return at_col.startswith(operation + " ")
    left, op, right = operation.split()
    return at_col.startswith(f"{op} {right}") and line_text[:column - 1].rstrip().endswith(left)


async def test_every_step_of_the_heat_kernel(client):
    text = conformance("heat_e1")
    lines = text.splitlines()
    assert await open_document(client, HEAT, text) == []
    for step, line, operation, column in STEPS:
        assert _anchor_matches(lines[line - 1], operation, column), (step, operation)
        hover = await client.text_document_hover_async(lsp.HoverParams(text_document=doc_id(HEAT),
                                                                       position=at(line, column)))
        assert hover is not None, (step, operation)
        assert hover.contents.kind == lsp.MarkupKind.Markdown
        markdown = hover.contents.value
        assert markdown.startswith(f"**step {step}"), (step, operation, markdown)
        r, p = hover.range, at(line, column)
        assert (r.start.line, r.start.character) <= (p.line, p.character) < (r.end.line, r.end.character)


async def test_hover_op_identifier_and_faults(client):
    hover = await client.text_document_hover_async(lsp.HoverParams(text_document=doc_id(HEAT),
                                                                   position=at(13, 33)))
    assert "mul.checked.i64" in hover.contents.value
    assert "E_OVERFLOW" in hover.contents.value


async def test_hover_in_whitespace_and_unknown_document(client):
    assert await client.text_document_hover_async(lsp.HoverParams(
        text_document=doc_id(HEAT), position=lsp.Position(18, 0))) is None
    assert await client.text_document_hover_async(lsp.HoverParams(
        text_document=doc_id(uri_of("never_opened")), position=lsp.Position(0, 0))) is None


async def test_hover_after_non_ascii(client):
    uri = uri_of("hover_unicode")
    text = conformance("heat_e1").replace("    I64 c = u[y, x] as I64;",
                                          "    /* é😀 */ I64 c = u[y, x] as I64;")
    assert await open_document(client, uri, text) == []
    # `    /* é😀 */ I64 c = u[y, x] as I64;`: `as` is at code point 29 (0-based),
    # UTF-16 unit 30, because the emoji takes two units.
    line = text.splitlines()[7]
    code_points = line.index(" as ") + 1
    units = code_points + 1
    hover = await client.text_document_hover_async(lsp.HoverParams(
        text_document=doc_id(uri), position=lsp.Position(7, units)))
    assert hover is not None and hover.contents.value.startswith("**step 1**")
    # The hover's range is the whole conversion `u[y, x] as I64`, also in UTF-16 units.
    assert hover.range.start == lsp.Position(7, line.index("u[y, x] as") + 1)
    assert hover.range.end == lsp.Position(7, line.index(";") + 1)
