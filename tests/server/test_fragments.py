"""The whole-document answers assembled from per-item JSON (server/fragments.py) equal
the plain conversion of the ide's results, version after version: items kept in place,
moved down or up a line, moved along their first line, and edited (issue 11)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types as lsp
from strategies import edit_for

from cint_ls import ide
from cint_ls.server import convert, fragments
from cint_ls.server.protocol import create_server
from cint_ls.syntax import Position, TextEdit

KERNEL = """kernel k{n}[h, w](in I32[h, w] u, out I32[h, w] v) over [y: h, x: w] {{
    I64 c = u[y, x] as I64;
    v[y, x] = (c + {n}) as I32;
}}
"""
TEXT = "// heading\n" + "\n".join(KERNEL.format(n=n) for n in range(6)) + """
/* a comment
   over lines */
void main() {
    I32[2, 2] a = 0;
    I32[2, 2] b = 0;
    dispatch k0[2, 2](a, b);
}
"""
SERIALIZE = create_server().protocol.serialize


def _done(steps) -> str:
    """A heavy request's steps (`scheduling.steps`) run to the end: their JSON."""
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value


def plain(doc) -> dict:
    """Each answer converted as a server without fragments would."""
    source = doc.source
    hints = [lsp.InlayHint(position=convert.lsp_position(source, h.offset), label=h.label, tooltip=h.tooltip,
                           padding_left=True) for h in ide.inlay_hints(doc, 0, len(source.data))]
    folds = [lsp.FoldingRange(start_line=f.start_line, end_line=f.end_line, kind=convert.folding_kind(f.kind))
             for f in ide.folding_ranges(doc) if f.end_line > f.start_line]
    return {
        "symbols": [convert.document_symbol_json(source, s) for s in ide.document_symbols(doc)],
        "hints": json.loads(SERIALIZE(hints)),
        "tokens": ide.semantic_tokens_data(doc),
        "folds": json.loads(SERIALIZE(folds)),
    }


def assembled(doc) -> dict:
    data = ide.semantic_tokens_data(doc)
    return {
        "symbols": json.loads(_done(fragments.symbols(doc))),
        "hints": json.loads(_done(fragments.inlay_hints(doc, 0, len(doc.source.data)))),
        "tokens": json.loads(_done(fragments.tokens_data(doc, data))),
        "folds": json.loads(_done(fragments.folding_ranges(doc))),
    }


def check(doc) -> None:
    snapshot = doc.snapshot()
    assert assembled(snapshot) == plain(snapshot)


def test_fragments_follow_items_that_move() -> None:
    doc = ide.Document("file:///t/frag.ci", TEXT, 1)
    check(doc)
    edits = [
        TextEdit(Position(3, 14), Position(3, 14), " "),  # inside k0: nothing moves by a line
        TextEdit(Position(0, 0), Position(0, 0), "\n\n"),  # everything moves down two lines
        TextEdit(Position(0, 0), Position(2, 0), ""),  # and back up
        TextEdit(Position(6, 0), Position(6, 0), "/* x */ "),  # k1 moves along its first line
        TextEdit(Position(6, 0), Position(6, 8), ""),
        TextEdit(Position(7, 4), Position(7, 4), "I64 d = 1;\n    "),  # a new local in k1
        TextEdit(Position(12, 0), Position(12, 0), "😀"),  # a non-ASCII prefix before k2's line
    ]
    for version, edit in enumerate(edits, start=2):
        doc.apply([edit], version)
        check(doc)


def test_fragments_follow_items_that_a_lone_carriage_return_moves() -> None:
    # A lone `\r` ends a line for LSP, not for the tree: the items after it move down
    # a line of the client's and stay on their line of the tree. (Found by the random
    # edits below: `kernel`, `kernel`, then `\r`, each typed at the start.)
    doc = ide.Document("file:///t/frag.ci", TEXT, 1)
    check(doc)
    for version, text in enumerate(["kernel", "kernel", "\r", "\r\n", "\r"], start=2):
        doc.apply([TextEdit(Position(0, 0), Position(0, 0), text)], version)
        check(doc)


def test_a_range_of_hints_is_cut_at_its_ends() -> None:
    doc = ide.Document("file:///t/frag.ci", TEXT, 1).snapshot()
    source = doc.source
    start, end = source.offset(Position(2, 0)), source.offset(Position(9, 10))
    expected = [{"position": {"line": p.line, "character": p.character}, "label": h.label, "tooltip": h.tooltip,
                 "paddingLeft": True}
                for h in ide.inlay_hints(doc, start, end) for p in [source.position(h.offset)]]
    assert json.loads(_done(fragments.inlay_hints(doc, start, end))) == expected
    assert expected  # the range holds hints of two kernels, the second cut


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_fragments_equal_the_plain_answers_after_random_edits(data) -> None:
    doc = ide.Document("file:///t/frag.ci", TEXT, 1)
    check(doc)
    for version in range(2, 6):
        doc.apply([data.draw(edit_for(doc.text))], version)
        check(doc)


@given(st.lists(st.integers(-3, 120), max_size=6), st.lists(st.integers(0, 100_000), min_size=1, max_size=6))
def test_a_template_rendered_anywhere_equals_its_json_made_there(lines, bases) -> None:
    # The template keeps one text and cuts it at its line numbers, whose digit counts
    # change as the item moves (9 -> 10, 99 -> 100): each rendering must equal the
    # JSON made afresh at that line.
    def objects(base):
        return [{"range": {"start": {"line": base + n, "character": 1}, "endLine": base + n + 1},
                 "name": f"x{n}", "line": base} for n in lines]

    first = bases[0]
    template = fragments.Template(objects(first), first, 0)
    for base in bases:
        assert json.loads("[" + template.at(base) + "]") == objects(base)
