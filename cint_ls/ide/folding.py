"""Folding ranges from the grammar's fold query (grammar/queries/folds.scm): every
captured node that spans more than one line folds from its first line to the line
before its last (so the closing `}` or `)` stays visible); comments fold whole."""

from __future__ import annotations

from ..syntax.queries import captures
from .find import total
from .results import FoldingRange


@total(list)
def folding_ranges(doc) -> list[FoldingRange]:
    found = captures("folds", doc.tree.root_node)
    seen: set[tuple[int, int]] = set()
    out: list[FoldingRange] = []
    for node in found.get("fold", []):
        start, end = node.start_point[0], node.end_point[0]
        if node.end_point[1] == 0 and end > start:
            end -= 1  # a node that ends at the start of a line ends on the line before
        kind = "comment" if node.type == "comment" else None
        if kind is None and end - start >= 1:
            end -= 1  # keep the closing line visible
        if end <= start or (start, end) in seen:
            continue
        seen.add((start, end))
        out.append(FoldingRange(start, end, kind))
    out.sort(key=lambda f: (f.start_line, -f.end_line))
    return out
