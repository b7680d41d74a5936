"""A document as the editor features see it: text kept in step with the editor by
incremental edits, and one immutable `Snapshot` per version, whose syntax, analysis,
IR and per-item results are computed when first asked for and then kept.

`Document` is the live, mutable side, used by the server's own thread: `apply` edits
the text and the tree and makes the next snapshot (it computes nothing else).
`Document.snapshot()` is the current version, safe to hand to another thread: its
text, source and tree never change (the tree is a copy the next edit does not touch),
and its layers are computed under the document's lock.

What the versions of one document share (`_Shared`), so that an edit recomputes only
what it touched:
- the lowered top-level items by their text (`syntax/lower.py`, `ItemCache`) and the
  analysis of each unit (`analysis/cache.py`), as before;
- per top-level item, its results (`ItemEntry`): the kernel's IR, semantic tokens,
  inlay hints, document symbols, folding ranges. An entry belongs to one lowered item
  (the same text) and one analysis record of its unit; a record is reused only while
  the module's declarations (the analysis fingerprint) and the unit's own nodes are the
  same, so an item whose tokens or hints could change (a kernel it names was renamed,
  a uniform became varying) gets a new record and its results are computed again.
  Results are stored relative to the item's start, so they move with it.

Nothing a version holds changes after it is made. Spans inside the AST are relative
to their item's `Anchor`, and an item reused by a later version is the same object,
unchanged: each version records where it put each item, and the declarations of the
module symbols kept across versions (`analysis/cache.py`), in a `Placement` of its own,
and its spans and symbols resolve through it while it is read (`Snapshot.reading`, which
every `cint_ls.ide` feature wears through `find.total`; no lock). Two versions of one
document are read at once, from two threads, each at its own positions. The document's
lock is held only while a layer is computed: the caches the versions share (items,
analysis, entries) are written then. Outside `reading()`, a thread reads spans as
the version whose layers it asked for last has them (`syntax/source.py`, `asked`): a
convenience of direct reads (the tests, the CLI), which changes no other thread's.
"""

from __future__ import annotations

import itertools
import threading
from bisect import bisect_left
from collections.abc import Callable, Hashable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

import tree_sitter

from ..analysis import AnalysisCache, CheckedModule, KernelInfo, check
from ..analysis.cache import ItemRecord
from ..analysis.symbols import SymbolKind
from ..syntax import ParsedDocument, SyntaxResult, TextEdit, ast, parse, syntax_diagnostics
from ..syntax.diagnostics import Diagnostic, Severity
from ..syntax.lower import ItemCache, lower
from ..syntax.parser import same_tree
from ..syntax.source import ROOT, Placement, Position, SourceText, Span, asked, placed, widths

if TYPE_CHECKING:  # the IR is imported when first asked for: the diagnostics need none
    from ..ir import nodes as ir

_UNSET = object()
T = TypeVar("T")
RECENT_KERNELS = 64  # kernels whose IR a document keeps across versions
# What a feature keeps of a part or a version, by the feature's key: each its own
# shape (the feature that writes a key is the one that reads it).
Results = dict[Hashable, Any]


class ItemEntry:
    """The results of one top-level item (one lowered node, reused across versions with
    the same text) for one analysis record of its unit: another record gets another
    entry. `results` holds what depends on the analysis; `text_results` what depends on
    the text alone (shared by the node's entries). Each feature stores its own shape
    under its own key, relative to the item's start."""

    __slots__ = ("node", "record", "results", "text_results")

    def __init__(self, node: ast.Node, record: object, text_results: Results | None = None) -> None:
        self.node = node
        self.record = record  # its unit's ItemRecord, or _UNSET (none yet): compared by identity
        self.results: Results = {}
        self.text_results: Results = {} if text_results is None else text_results


class Part:
    """One child of the tree's root in one version: a top-level item, a statement of
    the entry, or a comment between them. `at` is its start as (byte, line, column),
    line and column 1-based in code points, the way an `Anchor` has it; `u16` the
    UTF-16 column of its start (LSP's), 0-based."""

    __slots__ = ("_entry", "at", "end", "memo", "node", "record", "start", "tree_node", "u16")

    def __init__(self, tree_node: tree_sitter.Node, start: int, end: int, at: tuple[int, int, int], u16: int,
                 node: ast.Node | None, record: ItemRecord | None, entry: ItemEntry | None) -> None:
        self.tree_node = tree_node
        self.start = start
        self.end = end
        self.at = at
        self.u16 = u16
        self.node = node  # the lowered AST node (None for a comment)
        self.record = record  # the analysis record of its unit, when it has one
        self._entry = entry
        self.memo: Results = {}  # this version's results of the part, by feature

    @property
    def entry(self) -> ItemEntry | None:
        """Its ItemEntry when its results can be kept across versions (those with the
        same node and analysis record share it)."""
        return self._entry

    @property
    def kept(self) -> Results:
        """Where a caller keeps what it derives from the part's results (the server's
        JSON of them): the entry's results, kept across versions and emptied with them,
        when the part has an entry; else this version's memo."""
        entry = self.entry
        return entry.results if entry is not None else self.memo


class Move:
    """How an item moved between two versions: from its start `old` to `new`, each
    (byte, line, column) as `Part.at`. A column changes only on the item's first line."""

    __slots__ = ("bytes", "columns", "line", "lines")

    def __init__(self, old: tuple[int, int, int], new: tuple[int, int, int]) -> None:
        self.bytes, self.lines, self.columns = new[0] - old[0], new[1] - old[1], new[2] - old[2]
        self.line = old[1]

    def span(self, span: Span) -> Span:
        """A frozen span inside the item, where it is after the move (frozen too)."""
        if span.anchor is ROOT:  # frozen: its fields are absolute (ROOT is line 1, column 1)
            line, end_line = span._line + 1, span._end_line + 1
            column = span._column + 1 if line == 1 else span._column
            end_column = span._end_column + 1 if end_line == 1 else span._end_column
            start, end = span._start, span._end
        else:
            start, end, line, column, end_line, end_column = span.absolute()
        if line == self.line:
            column += self.columns
        if end_line == self.line:
            end_column += self.columns
        return Span(start + self.bytes, end + self.bytes, line + self.lines, column, end_line + self.lines, end_column)


class _Shared:
    """What the versions of one document share."""

    def __init__(self) -> None:
        self.lock = threading.RLock()  # held while a layer is computed (the caches below are written)
        self.items = ItemCache()
        self.analysis = AnalysisCache()
        self.sequence = itertools.count()
        self.lowered = -1  # the newest snapshot that lowered with `items`
        self.checked = -1  # the newest snapshot that checked with `analysis`
        self.entries: dict[int, ItemEntry] = {}  # the latest, by id() of the item's node
        # The IR of the kernels used last (hovers), by id() of the kernel's node: (node,
        # analysis record, ir.Kernel or None). Not kept for every kernel: the IR is
        # large, and what the inlay hints need of it is kept with the item.
        self.kernels: dict[int, tuple[ast.KernelDef, object, ir.Kernel | None]] = {}
        self.counters: dict[str, int] = {}  # computations by kind (tests, benchmarks)

    def count(self, what: str, n: int = 1) -> None:
        self.counters[what] = self.counters.get(what, 0) + n

    def entry(self, node: ast.Node, record: object) -> ItemEntry:
        """The entry of `node` for `record`: the latest one when it is that record's,
        else a new one (which becomes the latest; an entry is never emptied, since a
        version may still read it)."""
        found = self.entries.get(id(node))
        if found is not None and found.node is node:
            if found.record is record:
                return found
            made = ItemEntry(node, record, found.text_results)
        else:
            made = ItemEntry(node, record)
        self.entries[id(node)] = made
        return made


def _copy_items(cache: ItemCache) -> ItemCache:
    copy = ItemCache()
    copy.items = dict(cache.items)
    return copy


def _copy_analysis(cache: AnalysisCache) -> AnalysisCache:
    copy = AnalysisCache()
    copy.records = dict(cache.records)
    copy.symbols = dict(cache.symbols)
    copy.tables = cache.tables  # read only: merged_tables makes new dicts
    copy.fields = {}
    return copy


class Snapshot:
    """One version of a document: its text, source and tree, and everything derived
    from them, computed once when first asked for, then never changed. Safe to read
    from any thread, in `reading()` (the layers are computed under the document's lock)."""

    def __init__(self, shared: _Shared, uri: str, path: str, version: int, source: SourceText,
                 tree: tree_sitter.Tree, provisional: bool = False) -> None:
        self.uri = uri
        self.path = path
        self.version = version
        self.source = source
        self.tree = tree
        # Whether the tree has a syntax error and may differ from a fresh parse of the
        # text (`ParsedDocument.apply`): then `Document.confirm` gives its last word.
        self.provisional = provisional
        self._shared = shared
        self._sequence = next(shared.sequence)
        self._syntax: SyntaxResult | None = None
        self._checked: CheckedModule | None = None
        self._program: ir.Program | None | object = _UNSET
        self._kernels: dict[str, ir.Kernel | None] = {}  # this version's kernels whose IR is not kept
        self._reusable: dict[int, ast.Node] = {}  # start byte -> a lowered item kept across versions
        self._placement = Placement()  # where this version puts its items and kept symbols
        self._entries: dict[int, ItemEntry] = {}  # this version's entries, by id() of the item's node
        self._records: dict[int, ItemRecord] = {}  # id() of a unit's first node -> its analysis record
        self._errors: list[tuple[int, int]] | None = None  # (start, end) of the error diagnostics, sorted
        self._parts: list[Part] | None = None
        self._ends: list[int] | None = None
        self.memo: Results = {}  # this version's whole-document results, by feature

    def snapshot(self) -> Snapshot:
        return self

    # ---- text

    @property
    def text(self) -> str:
        return self.source.text

    def offset(self, position: Position) -> int:
        return self.source.offset(position)

    def position(self, offset: int) -> Position:
        return self.source.position(offset)

    # ---- reading, and the lock for computing

    @property
    def lock(self) -> threading.RLock:
        """Held while a layer of a version of this document is computed."""
        return self._shared.lock

    @contextmanager
    def reading(self) -> Iterator[Snapshot]:
        """Read this version: its spans and kept symbols resolve to its own positions
        and declarations (this thread's, or task's, context). No lock."""
        with placed(self._placement):
            yield self

    @contextmanager
    def _computing(self) -> Iterator[None]:
        """Compute a layer: the document's lock (the shared caches are written), reading
        this version."""
        with self._shared.lock, placed(self._placement):
            yield

    @property
    def counters(self) -> dict[str, int]:
        """How many of each computation this document did (tokens, hints, ... of an item)."""
        return self._shared.counters

    # ---- layers, computed on demand

    @property
    def syntax(self) -> SyntaxResult:
        asked(self._placement)
        if self._syntax is None:
            with self._computing():
                if self._syntax is None:
                    self._lower()
        return self._syntax  # type: ignore[return-value]

    def _lower(self) -> None:
        shared = self._shared
        newest = self._sequence >= shared.lowered
        items = shared.items if newest else _copy_items(shared.items)  # an older version leaves the cache be
        source, tree = self.source, self.tree
        module, lowering = lower(tree, source, items)
        places = self._placement.anchors = items.places
        kept = [c for c in items.items.values() if c.node is not None]
        self._reusable = {places[c.anchor][0]: c.node for c in kept if c.node is not None}
        if newest:
            shared.lowered = self._sequence
            alive = {id(c.node) for c in kept}
            shared.entries = {k: e for k, e in shared.entries.items() if k in alive}
        diagnostics = sorted(syntax_diagnostics(tree, source) + lowering, key=lambda d: d.span.start_byte)
        self._syntax = SyntaxResult(source, tree, module, diagnostics)

    @property
    def module(self) -> ast.Module:
        return self.syntax.module

    @property
    def checked(self) -> CheckedModule:
        asked(self._placement)
        if self._checked is None:
            with self._computing():
                if self._checked is None:
                    syntax = self.syntax
                    shared = self._shared
                    newest = self._sequence >= shared.checked
                    cache = shared.analysis if newest else _copy_analysis(shared.analysis)
                    if newest:
                        shared.checked = self._sequence
                    cache.fields = self._placement.fields  # the kept symbols' declarations in this version
                    checked = check(syntax, cache)
                    self._records = cache.records
                    self._checked = checked
        return self._checked

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return self.checked.diagnostics

    def program(self) -> ir.Program | None:
        """The IR of the whole module, or None while it has translation errors."""
        if self._program is not _UNSET:
            return self._program  # type: ignore[return-value]
        with self._computing():
            if self._program is _UNSET:
                checked = self.checked
                from ..ir.lower import lower_program

                self._program = None if checked.has_errors else lower_program(checked)
            return self._program  # type: ignore[return-value]

    def kernel_ir(self, name: str) -> ir.Kernel | None:
        """The IR of one kernel, when the kernel itself has no error (another item's
        errors do not matter): what hovers and inlay hints need. Kept with the kernel's
        item across versions while its analysis record is the same."""
        with self._computing():
            info = self.checked.kernels.get(name)
            if info is None:
                return None
            if name in self._kernels:
                return self._kernels[name]
            entry = self.entry_of(info.node)
            if entry is None:
                kernel = self._kernels[name] = self._lower_kernel(name, info, False)
                return kernel
            recent = self._shared.kernels
            found = recent.pop(id(info.node), None)
            if found is not None and found[0] is info.node and found[1] is entry.record:
                kernel = found[2]
            else:
                kernel = self._lower_kernel(name, info, True)
            recent[id(info.node)] = (info.node, entry.record, kernel)  # the most recent last
            while len(recent) > RECENT_KERNELS:
                del recent[next(iter(recent))]
            return kernel

    def _lower_kernel(self, name: str, info: KernelInfo, kept: bool) -> ir.Kernel | None:
        checked = self.checked
        self._shared.count("ir")
        span = info.node.span
        # An error of the kernel: one that starts inside it, or, when it has syntax
        # errors (no entry: it is not kept), an empty one at its end (what is missing
        # there). The next item's errors may start at its end byte too, when nothing
        # separates them: those do not count.
        if self._errors is None:
            self._errors = sorted((d.span.start_byte, d.span.end_byte) for d in checked.diagnostics
                                  if d.severity == Severity.ERROR)
        errors = self._errors
        at = bisect_left(errors, (span.start_byte, -1))
        while at < len(errors) and errors[at][0] <= span.end_byte:
            start, end = errors[at]
            if start < span.end_byte or (end == start and not kept):
                return None
            at += 1
        # A kernel that calls a function with errors cannot be lowered safely. The
        # names the kernel's body resolves are in its unit's record.
        record = self._records.get(id(info.node))
        symbols = record.symbols if record is not None else checked.symbols
        for node, symbol in symbols.items():
            if symbol.kind is SymbolKind.FUNCTION and symbol.name not in checked.functions \
                    and span.start_byte <= node.span.start_byte < span.end_byte:
                return None
        try:
            from ..ir.lower import KernelLowerer

            return KernelLowerer(checked, name).lower()
        except (KeyError, AssertionError):
            return None  # an analysis gap: no IR rather than a crash in an editor request

    def analyse_text(self, text: str, read: Callable[[CheckedModule], T]) -> T:
        """`read(checked)` of the analysis of another text (a trial edit of this
        version, as a rename makes), reusing the items and units this document keeps.
        The trial has a `Placement` of its own: read its analysis only inside `read`."""
        shared = self._shared
        with shared.lock:
            items, analysis = _copy_items(shared.items), _copy_analysis(shared.analysis)
        trial = Placement()
        analysis.fields = trial.fields
        with placed(trial):
            source = SourceText(text, self.path)
            tree = parse(text)
            module, lowering = lower(tree, source, items)
            trial.anchors = items.places
            diagnostics = sorted(syntax_diagnostics(tree, source) + lowering, key=lambda d: d.span.start_byte)
            checked = check(SyntaxResult(source, tree, module, diagnostics), analysis)
            return read(checked)

    # ---- top-level items and their kept results

    def entry_of(self, node: ast.Node) -> ItemEntry | None:
        """The kept results of a top-level item of this version, or None for an item
        whose results are not kept (it has syntax errors, or no unit of analysis)."""
        found = self._entries.get(id(node))
        if found is not None and found.node is node and found.record is not _UNSET:
            return found
        with self._computing():
            checked = self.checked
            if self._reusable.get(node.span.start_byte) is not node:
                return None
            record = self._unit_record(checked.module, node)
            return None if record is None else self._entry(node, record)

    def _entry(self, node: ast.Node, record: ItemRecord) -> ItemEntry:
        """(Computing.) This version's entry of `node`, made or taken from the shared ones."""
        found = self._entries.get(id(node))
        if found is None or found.node is not node or found.record is not record:
            found = self._entries[id(node)] = self._shared.entry(node, record)
        return found

    def text_entry_of(self, node: ast.Node) -> ItemEntry | None:
        """The kept results of a top-level item of this version for what depends on
        its text alone (`ItemEntry.text_results`), without analysing the module."""
        found = self._entries.get(id(node))
        if found is not None and found.node is node:
            return found
        with self._computing():
            self.syntax  # noqa: B018 - lowered: `_reusable` is this version's
            if self._reusable.get(node.span.start_byte) is not node:
                return None
            entries = self._shared.entries
            found = entries.get(id(node))
            if found is None or found.node is not node:
                found = entries[id(node)] = ItemEntry(node, _UNSET)  # no analysis record yet
            self._entries.setdefault(id(node), found)
            return found

    def _unit_record(self, module: ast.Module, node: ast.Node) -> ItemRecord | None:
        if isinstance(node, ast.Item):
            return self._records.get(id(node))
        return self._records.get(id(module.statements[0])) if module.statements else None

    def parts(self) -> list[Part]:
        """The children of the tree's root, in order, each with its lowered node and
        its entry where it has one."""
        if self._parts is not None:
            return self._parts
        with self._computing():
            if self._parts is None:
                checked = self.checked
                module = checked.module
                top = {n.span.start_byte: n for n in (*module.items, *module.statements)}
                data = self.source.data
                entry_record = self._records.get(id(module.statements[0])) if module.statements else None
                records, reusable = self._records, self._reusable
                parts: list[Part] = []
                for child in self.tree.root_node.children:
                    start, end = child.start_byte, child.end_byte
                    node = top.get(start) if child.type != "comment" else None
                    if node is not None and node.span.end_byte != end:
                        node = None
                    record: ItemRecord | None = None
                    entry: ItemEntry | None = None
                    if node is not None:
                        record = records.get(id(node)) if isinstance(node, ast.Item) else entry_record
                        if record is not None and reusable.get(start) is node:
                            entry = self._entry(node, record)
                    row, column = child.start_point  # rows count `\n` as SourceText's lines do
                    column, u16 = widths(data[start - column:start])
                    parts.append(Part(child, start, end, (start, row + 1, column + 1), u16, node, record, entry))
                self._parts = parts
            return self._parts

    def parts_between(self, start: int, end: int) -> list[Part]:
        """The parts that overlap the bytes start..end (both ends included)."""
        parts = self.parts()
        if self._ends is None:
            self._ends = [p.end for p in parts]
        first = bisect_left(self._ends, start)
        out: list[Part] = []
        for part in parts[first:]:
            if part.start > end:
                break
            out.append(part)
        return out


class Document:
    """The live document of the editor: `apply` edits it; every read goes to the
    current `Snapshot` (use `snapshot()` to keep one version for another thread)."""

    def __init__(self, uri: str, text: str, version: int = 0, path: str | None = None,
                 tree: tree_sitter.Tree | None = None) -> None:
        """`tree`: a fresh parse of `text` the caller made (`syntax.parse`), else it is
        parsed here."""
        self.uri = uri
        self.path = path or uri
        self._parsed = ParsedDocument(text, self.path, tree)
        self._shared = _Shared()
        self._current = self._snapshot(version)

    def _snapshot(self, version: int) -> Snapshot:
        return Snapshot(self._shared, self.uri, self.path, version, self._parsed.source, self._parsed.tree,
                        self._parsed.provisional)

    def snapshot(self) -> Snapshot:
        """The current version, immutable: safe to read from another thread while this
        one applies the next edit."""
        return self._current

    @property
    def version(self) -> int:
        return self._current.version

    # ---- text

    @property
    def text(self) -> str:
        return self._current.text

    @property
    def source(self) -> SourceText:
        return self._current.source

    @property
    def tree(self) -> tree_sitter.Tree:
        return self._current.tree

    def apply(self, changes: list[TextEdit | tuple[int, int, int, int, str] | str], version: int | None = None,
              reparse: bool = True) -> None:
        """Apply LSP content changes in order: a TextEdit (or its start line, start
        character, end line, end character and text, as LSP sends it), or a str for
        the whole text.
        `reparse=False`: a tree with a syntax error stays provisional (the snapshot
        says so) until `confirm`."""
        # The current snapshot keeps its tree: the edits go to a copy (Tree.edit is in place).
        self._parsed.tree = self._parsed.tree.copy()
        version = self._current.version if version is None else version
        # The old version is not held here while the edits parse (only the loop applies
        # edits and pins versions): where no request holds it, its tree is freed before
        # a parse from scratch makes the next one (ParsedDocument.apply).
        del self._current
        try:
            for change in changes:
                if isinstance(change, str):
                    self._parsed.replace(change)
                elif isinstance(change, tuple):
                    line, character, end_line, end_character, text = change
                    self._parsed.apply(TextEdit(Position(line, character), Position(end_line, end_character), text),
                                       reparse)
                else:
                    self._parsed.apply(change, reparse)
        finally:
            self._current = self._snapshot(version)

    def confirm(self, snapshot: Snapshot, tree: tree_sitter.Tree) -> bool:
        """`tree` is a fresh parse of provisional `snapshot`'s text (`parse_yielding`):
        when the snapshot is still the current one and its tree differs, the current
        version becomes a new snapshot with `tree` (the same version number), and this
        returns True. Otherwise the snapshot's tree is the one a fresh parse gives, and
        it stops being provisional."""
        if self._current is not snapshot or not snapshot.provisional:
            return False
        if same_tree(snapshot.tree, tree):
            snapshot.provisional = self._parsed.provisional = False
            return False
        self._parsed.reparse(tree)
        self._current = self._snapshot(snapshot.version)
        return True

    # ---- positions

    def offset(self, position: Position) -> int:
        return self.source.offset(position)

    def position(self, offset: int) -> Position:
        return self.source.position(offset)

    # ---- the current version's layers

    @property
    def lock(self) -> threading.RLock:
        return self._shared.lock

    def reading(self) -> AbstractContextManager[Snapshot]:
        return self._current.reading()

    @property
    def counters(self) -> dict[str, int]:
        return self._shared.counters

    @property
    def memo(self) -> Results:
        return self._current.memo

    @property
    def syntax(self) -> SyntaxResult:
        return self._current.syntax

    @property
    def module(self) -> ast.Module:
        return self._current.module

    @property
    def checked(self) -> CheckedModule:
        return self._current.checked

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return self._current.diagnostics

    def program(self) -> ir.Program | None:
        return self._current.program()

    def kernel_ir(self, name: str) -> ir.Kernel | None:
        return self._current.kernel_ir(name)

    def entry_of(self, node: ast.Node) -> ItemEntry | None:
        return self._current.entry_of(node)

    def analyse_text(self, text: str, read: Callable[[CheckedModule], T]) -> T:
        return self._current.analyse_text(text, read)

    def text_entry_of(self, node: ast.Node) -> ItemEntry | None:
        return self._current.text_entry_of(node)

    def parts(self) -> list[Part]:
        return self._current.parts()

    def parts_between(self, start: int, end: int) -> list[Part]:
        return self._current.parts_between(start, end)


# What an ide feature reads: a document (its current version) or one version of it;
# the two have the same reading interface.
DocumentLike = Document | Snapshot
