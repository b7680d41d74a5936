"""Folding ranges from the grammar's fold query (grammar/queries/folds.scm): every
captured node that spans more than one line folds from its first line to the line
before its last (so the closing `}` or `)` stays visible); comments fold whole."""

from __future__ import annotations

from typing import TYPE_CHECKING

import tree_sitter

from ..syntax.queries import captures
from ..syntax.source import SourceText
from .find import total
from .results import FoldingRange

if TYPE_CHECKING:
    from .document import DocumentLike, Part


def _node_folds(node: tree_sitter.Node, first_line: int, source: SourceText) -> list[tuple[int, int, str | None]]:
    """The folds inside a tree node: (start line, end line, kind), LSP lines counted
    from `first_line`, in the query's order, before de-duplication. (The tree's rows
    are LSP's lines unless a lone `\r` ends one: the tree does not count it.)"""
    out = []
    lone_cr = source.lone_carriage_returns
    for found in captures("folds", node).get("fold", []):
        if lone_cr:
            start, end = source.lsp_line(found.start_byte), source.lsp_line(found.end_byte)
            at_line_start = source.position(found.end_byte).character == 0
        else:
            start, end = found.start_point[0], found.end_point[0]
            at_line_start = found.end_point[1] == 0
        if at_line_start and end > start:
            end -= 1  # a node that ends at the start of a line ends on the line before
        kind = "comment" if found.type == "comment" else None
        if kind is None and end - start >= 1:
            end -= 1  # keep the closing line visible
        if end > start:
            out.append((start - first_line, end - first_line, kind))
    return out


def _part_folds(doc: DocumentLike, part: Part) -> list[tuple[int, int, str | None]]:
    """A part's folds, relative to its first line (they depend on its text alone): kept
    with its item across versions."""
    entry = part.entry
    found: list[tuple[int, int, str | None]] | None = entry.text_results.get("folds") if entry is not None else None
    if found is None:
        first = doc.source.lsp_line(part.start)
        found = _node_folds(part.tree_node, first, doc.source)
        if part.node is not None:  # an item (a comment between items is not counted)
            doc.counters["folds"] = doc.counters.get("folds", 0) + 1
        if entry is not None:
            entry.text_results["folds"] = found
    return found


def part_folding_ranges(doc: DocumentLike, part: Part) -> list[FoldingRange]:
    """A part's FoldingRanges at its line, in order and without repeats: the same
    objects while its item stays on the same line (an edit that adds no line break
    moves no fold). Holding the document's lock (`doc.reading()`)."""
    first = doc.source.lsp_line(part.start)
    entry = part.entry
    kept: tuple[int, list[FoldingRange]] | None = entry.text_results.get("ranges") if entry is not None else None
    if kept is not None and kept[0] == first:
        return kept[1]
    spans = sorted({(start + first, end + first): kind for start, end, kind in reversed(_part_folds(doc, part))}.items(),
                   key=lambda f: (f[0][0], -f[0][1]))
    ranges = [FoldingRange(start, end, kind) for (start, end), kind in spans]
    if entry is not None:
        entry.text_results["ranges"] = (first, ranges)
    return ranges


@total(list)
def folding_ranges(doc: DocumentLike) -> list[FoldingRange]:
    """Every part's ranges, one after another: already in order and without repeats
    across parts, since a part's folds start before its last line (a fold spans two
    lines at least), where the next part starts at the earliest."""
    found = doc.memo.get("folds")
    if found is None:
        found = doc.memo["folds"] = [fold for part in doc.parts() for fold in part_folding_ranges(doc, part)]
    return list(found)


def folding_ranges_of_tree(doc: DocumentLike) -> list[FoldingRange]:
    """The folds of the whole tree in one query: what `folding_ranges` computes item by
    item (the tests compare the two)."""
    seen: set[tuple[int, int]] = set()
    out = []
    for start, end, kind in _node_folds(doc.tree.root_node, 0, doc.source):
        if (start, end) not in seen:
            seen.add((start, end))
            out.append(FoldingRange(start, end, kind))
    out.sort(key=lambda f: (f.start_line, -f.end_line))
    return out
