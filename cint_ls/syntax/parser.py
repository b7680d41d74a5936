"""Parsing with the cint tree-sitter grammar, whole and incremental.

`ParsedDocument` holds a text and its tree and applies LSP-style edits (a range in
UTF-16 code units and the new text) with `Tree.edit` and an incremental reparse.
The resulting tree always equals a fresh parse of the new text (tests/syntax).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import tree_sitter

try:
    from . import _binding
except ImportError as error:  # pragma: no cover - a source tree without the build
    raise ImportError(
        "the cint grammar extension (cint_ls.syntax._binding) is not built: install the package "
        "with `pip install .` (or `pip install -e .` for development)"
    ) from error
from .source import Position, SourceText, without_lone_surrogates


@lru_cache(maxsize=1)
def language() -> tree_sitter.Language:
    return tree_sitter.Language(_binding.language())


def _parser() -> tree_sitter.Parser:
    return tree_sitter.Parser(language())


def parse(text: str) -> tree_sitter.Tree:
    """A fresh parse of `text`."""
    return _parser().parse(without_lone_surrogates(text).encode("utf-8"))


@dataclass(frozen=True, slots=True)
class TextEdit:
    """An LSP content change: replace `start`..`end` (UTF-16 positions) by `text`."""

    start: Position
    end: Position
    text: str


class ParsedDocument:
    """A document's text and its tree, kept in step by incremental reparses."""

    def __init__(self, text: str, path: str = "<input>") -> None:
        self._parser = _parser()
        self.source = SourceText(text, path)
        self.tree = self._parser.parse(self.source.data)

    @property
    def text(self) -> str:
        return self.source.text

    def replace(self, text: str) -> None:
        """Replace the whole text (a full-document change)."""
        self.source = SourceText(text, self.source.path)
        self.tree = None  # the old tree's memory can serve the new one
        self.tree = self._parser.parse(self.source.data)

    def apply(self, edit: TextEdit) -> tuple[int, int, int]:
        """Apply one edit incrementally. Returns (start byte, old end byte, new end
        byte). An inverted range is taken in order; positions past the end clamp."""
        old = self.source
        start, end = old.offset(edit.start), old.offset(edit.end)
        if end < start:
            start, end = end, start
        inserted = without_lone_surrogates(edit.text).encode("utf-8")
        new_data = old.data[:start] + inserted + old.data[end:]
        new_source = SourceText(new_data.decode("utf-8"), old.path)
        new_end = start + len(inserted)
        self.tree.edit(
            start_byte=start,
            old_end_byte=end,
            new_end_byte=new_end,
            start_point=old.point_of_byte(start),
            old_end_point=old.point_of_byte(end),
            new_end_point=new_source.point_of_byte(new_end),
        )
        tree = self._parser.parse(new_source.data, self.tree)
        if tree.root_node.has_error:
            # Error recovery depends on which old subtrees the reparse reuses, so an
            # erroneous incremental tree can differ from a fresh parse of the same text.
            # Diagnostics must be a function of the text alone, not of the edit
            # history: reparse from scratch (measured in benchmarks/parse.py). The
            # trees that share the old one's nodes go first: where no one else holds
            # the old tree, its memory serves the new one (53 MB at 50,000 lines).
            self.tree = tree = None
            tree = self._parser.parse(new_source.data)
        self.tree = tree
        self.source = new_source
        return start, end, new_end
