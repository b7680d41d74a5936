"""Parsing with the cint tree-sitter grammar, whole and incremental.

`ParsedDocument` holds a text and its tree and applies LSP-style edits (a range in
UTF-16 code units and the new text) with `Tree.edit` and an incremental reparse.
The resulting tree equals a fresh parse of the new text (tests/syntax), except a
*provisional* one: a tree with a syntax error that is not yet parsed again from
scratch (see `apply`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
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


YIELD_CHUNK = 8192  # bytes `parse_yielding` reads between two yields of the GIL
_READ = threading.local()  # each thread's buffer for `parse_yielding`'s chunks


def parse_yielding(data: bytes, wanted: Callable[[], bool] = lambda: True) -> tree_sitter.Tree | None:
    """A fresh parse of `data` for another thread than the one that answers requests:
    py-tree-sitter holds the GIL for a whole parse (180 to 230 ms at 50,000 lines), so
    the text is read in chunks and each read first gives the GIL to a thread that
    waits for it. None when `wanted()` turns false meanwhile (its text is out of date):
    the parse then ends at once, as if the text ended there.

    Every chunk is copied into one bytearray per thread, which the read returns each
    time: py-tree-sitter (0.25 and 0.26, `parser_read_wrapper`) never releases the
    object a read callback returns, so a new bytes object per chunk leaked the whole
    text on every parse (1.3 MB at 50,000 lines, at every syntax error's fresh parse;
    tests/syntax). Refilling the one buffer is safe: the wrapper releases its view of
    a chunk before it asks for the next, and tree-sitter reads a chunk only until then.
    """
    buffer = getattr(_READ, "buffer", None)
    if buffer is None:
        buffer = _READ.buffer = bytearray()
    text = memoryview(data)
    stopped = False

    def read(offset: int, _point: tree_sitter.Point) -> bytearray:
        nonlocal stopped
        time.sleep(0)  # releases the GIL: the loop answers a message that came meanwhile
        if stopped or not wanted():
            stopped = True
            offset = len(text)
        buffer[:] = text[offset:offset + YIELD_CHUNK]
        return buffer

    tree = _parser().parse(read)
    buffer.clear()
    return None if stopped else tree


def same_tree(a: tree_sitter.Tree, b: tree_sitter.Tree) -> bool:
    """Whether two trees of the same text are the same tree (every node's type, field,
    range and missing flag). The root's children are compared by type and range, and
    those with an error node by every node: an error-free child is what a parse of its
    bytes gives in any version (the property `ParsedDocument.apply` rests on)."""
    ra, rb = a.root_node, b.root_node
    if ra.child_count != rb.child_count or ra.type != rb.type or ra.byte_range != rb.byte_range:
        return False
    for x, y in zip(ra.children, rb.children):
        if x.type != y.type or x.byte_range != y.byte_range or x.has_error != y.has_error:
            return False
        if x.has_error and node_dump(x) != node_dump(y):
            return False
    return True


# A row of `node_dump`: depth, type, field name, start and end byte, missing flag.
NodeRow = tuple[int, str, str | None, int, int, bool]


def node_dump(node: tree_sitter.Node) -> list[NodeRow]:
    """Every node under `node` (itself included) with its depth, type, field, byte
    range and missing flag, in order."""
    out: list[NodeRow] = []
    cursor, depth = node.walk(), 0
    while True:
        current = cursor.node
        assert current is not None  # a cursor made from a node is always on one
        out.append((depth, current.type, cursor.field_name, current.start_byte, current.end_byte,
                    current.is_missing))
        if cursor.goto_first_child():
            depth += 1
            continue
        while depth == 0 or not cursor.goto_next_sibling():
            if depth == 0 or not cursor.goto_parent():
                return out
            depth -= 1


@dataclass(frozen=True, slots=True)
class TextEdit:
    """An LSP content change: replace `start`..`end` (UTF-16 positions) by `text`."""

    start: Position
    end: Position
    text: str


class ParsedDocument:
    """A document's text and its tree, kept in step by incremental reparses."""

    def __init__(self, text: str, path: str = "<input>", tree: tree_sitter.Tree | None = None) -> None:
        """`tree`: the caller's fresh parse of `text` (`parse`), else it is parsed here."""
        self._parser = _parser()
        self.source = SourceText(text, path)
        self.tree = tree if tree is not None else self._parser.parse(self.source.data)
        self.provisional = False  # whether the tree may differ from a fresh parse's (`apply`)

    @property
    def text(self) -> str:
        return self.source.text

    def replace(self, text: str) -> None:
        """Replace the whole text (a full-document change)."""
        self.source = SourceText(text, self.source.path)
        del self.tree  # the old tree's memory can serve the new one
        self.tree = self._parser.parse(self.source.data)
        self.provisional = False

    def reparse(self, tree: tree_sitter.Tree | None = None) -> None:
        """Make a provisional tree the one a fresh parse of the text gives: `tree`, when
        the caller parsed it (`parse_yielding`), else a parse here."""
        if self.provisional:
            del self.tree
            self.tree = tree if tree is not None else self._parser.parse(self.source.data)
            self.provisional = False

    def apply(self, edit: TextEdit, reparse: bool = True) -> tuple[int, int, int]:
        """Apply one edit incrementally. Returns (start byte, old end byte, new end
        byte). An inverted range is taken in order; positions past the end clamp.

        Error recovery depends on which old subtrees the reparse reuses, so a tree with
        an error can differ from a fresh parse of the same text; an error-free one
        cannot (tests/syntax, from provisional trees too). Diagnostics must
        be a function of the text alone, not of the edit history, so such a tree is
        parsed again from scratch: here (`reparse`), or later by the caller
        (`reparse=False` leaves it `provisional`; the language server parses on another
        thread, and meanwhile answers from this tree)."""
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
        self.provisional = tree.root_node.has_error
        if self.provisional and reparse:
            # Measured in benchmarks/parse.py. The trees that share the old one's nodes
            # go first: where no one else holds the old tree, its memory serves the new
            # one (53 MB at 50,000 lines).
            del self.tree, tree
            tree = self._parser.parse(new_source.data)
            self.provisional = False
        self.tree = tree
        self.source = new_source
        return start, end, new_end
