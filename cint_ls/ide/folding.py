"""Folding ranges from the grammar's fold query (grammar/queries/folds.scm): every
captured node that spans more than one line folds from its first line to the line
before its last (so the closing `}` or `)` stays visible); comments fold whole."""

from __future__ import annotations

from ..syntax.queries import captures
from .find import total
from .results import FoldingRange


def _node_folds(node, first_line: int) -> list[tuple[int, int, str | None]]:
    """The folds inside a tree node: (start line, end line, kind), lines counted from
    `first_line`, in the query's order, before de-duplication."""
    out = []
    for found in captures("folds", node).get("fold", []):
        start, end = found.start_point[0], found.end_point[0]
        if found.end_point[1] == 0 and end > start:
            end -= 1  # a node that ends at the start of a line ends on the line before
        kind = "comment" if found.type == "comment" else None
        if kind is None and end - start >= 1:
            end -= 1  # keep the closing line visible
        if end > start:
            out.append((start - first_line, end - first_line, kind))
    return out


def _part_folds(doc, part) -> list[tuple[int, int, str | None]]:
    """A part's folds, relative to its first line (they depend on its text alone): kept
    with its item across versions."""
    entry = part.entry
    found = entry.text_results.get("folds") if entry is not None else None
    if found is None:
        first = part.at[1] - 1
        found = _node_folds(part.tree_node, first)
        if part.node is not None:  # an item (a comment between items is not counted)
            doc.counters["folds"] = doc.counters.get("folds", 0) + 1
        if entry is not None:
            entry.text_results["folds"] = found
    return found


def _part_ranges(doc, part) -> list[FoldingRange]:
    """A part's FoldingRanges at its line: the same objects while its item stays on
    the same line (an edit that adds no line break moves no fold)."""
    first = part.at[1] - 1
    entry = part.entry
    kept = entry.text_results.get("ranges") if entry is not None else None
    if kept is not None and kept[0] == first:
        return kept[1]
    ranges = [FoldingRange(start + first, end + first, kind) for start, end, kind in _part_folds(doc, part)]
    if entry is not None:
        entry.text_results["ranges"] = (first, ranges)
    return ranges


@total(list)
def folding_ranges(doc) -> list[FoldingRange]:
    found = doc.memo.get("folds")
    if found is None:
        seen: set[tuple[int, int]] = set()
        found = []
        for part in doc.parts():
            for fold in _part_ranges(doc, part):
                if (fold.start_line, fold.end_line) in seen:
                    continue
                seen.add((fold.start_line, fold.end_line))
                found.append(fold)
        found.sort(key=lambda f: (f.start_line, -f.end_line))
        doc.memo["folds"] = found
    return list(found)


def folding_ranges_of_tree(doc) -> list[FoldingRange]:
    """The folds of the whole tree in one query: what `folding_ranges` computes item by
    item (the tests compare the two)."""
    seen: set[tuple[int, int]] = set()
    out = []
    for start, end, kind in _node_folds(doc.tree.root_node, 0):
        if (start, end) not in seen:
            seen.add((start, end))
            out.append(FoldingRange(start, end, kind))
    out.sort(key=lambda f: (f.start_line, -f.end_line))
    return out
