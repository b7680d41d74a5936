"""Reuse of analysis results across versions of a document (the language server's
"only the items an edit touched are analysed again").

An item's analysis depends on its own text and on the module's declarations: every
item's header (name, parameters, return type), and the names of the top-level
variables. `fingerprint` captures those; when it is unchanged, an item whose AST node
was reused by the syntax layer's item cache (same text) has the same analysis, and its
recorded results are merged instead of being computed again.

Module-level symbols persist across versions by (kind, name), so the references that
reused items hold stay valid when the declaring item is analysed again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

try:  # CPython's own BLAKE2, without hashlib's OpenSSL (about 4 ms of the server's start)
    from _blake2 import blake2b
except ImportError:  # another Python
    from hashlib import blake2b

from ..syntax import ast
from ..syntax.diagnostics import Diagnostic
from ..syntax.source import SourceText
from .result import CallInfo, FunctionInfo, KernelInfo
from .symbols import KeptSymbol, Symbol, SymbolKind
from .types import Type

# A unit's or the module's tables, as `CheckedModule` has them: symbols, types, values, calls.
SymbolTable = dict[ast.Node, Symbol]
ModuleTables = tuple[SymbolTable, dict[ast.Node, Type], dict[ast.Node, int | bool], dict[ast.Call, CallInfo]]


def fingerprint(module: ast.Module, source: SourceText,
                headers: dict[int, tuple[ast.Item, bytes]] | None = None) -> bytes:
    """A digest of everything an item's analysis may read outside the item. `headers`
    keeps each item's part of it, by id() of the item's node: a node the syntax layer
    reused has the same text (AnalysisCache.headers; 0.4 ms an edit at 5,000 lines)."""
    digest = blake2b(digest_size=16)
    digest.update(module.name.encode())
    data = source.data
    kept = {} if headers is None else headers
    now: dict[int, tuple[ast.Item, bytes]] = {}
    for item in module.items:
        found = kept.get(id(item))
        if found is None or found[0] is not item:
            body = getattr(item, "body", None)
            end = body.span.start_byte if body is not None else item.span.end_byte
            header = data[item.span.start_byte:end]
            found = (item, type(item).__name__.encode() + b"\0" + b" ".join(header.split()) + b"\1")
        now[id(item)] = found
        digest.update(found[1])
    if headers is not None:
        headers.clear()
        headers.update(now)
    for statement in module.statements:
        if isinstance(statement, ast.VarDecl):
            digest.update(b"var " + statement.name.text.encode() + b"\1")
    return digest.digest()


@dataclass(eq=False)
class ItemRecord:
    """What checking one unit (a kernel, a function's body, the entry) wrote."""

    fingerprint: bytes
    nodes: tuple[ast.Node, ...]  # the unit's AST nodes (an item, or the entry's statements)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    symbols: SymbolTable = field(default_factory=dict)
    types: dict[ast.Node, Type] = field(default_factory=dict)
    values: dict[ast.Node, int | bool] = field(default_factory=dict)
    calls: dict[ast.Call, CallInfo] = field(default_factory=dict)
    info: KernelInfo | FunctionInfo | None = None  # None for the entry
    entry_symbols: list[Symbol] = field(default_factory=list)
    declaration: list[Diagnostic] = field(default_factory=list)  # a function's signature diagnostics


REMERGE = 0.25  # above this share of units changed, the tables are merged from scratch


def merge_all(declared: SymbolTable, records: list[ItemRecord]) -> ModuleTables:
    """`declared` then each record's tables, as four new dicts (symbols, types, values,
    calls): the merge from scratch."""
    tables: ModuleTables = (dict(declared), {}, {}, {})
    for record in records:
        _add(tables, record)
    return tables


def _add(tables: ModuleTables, record: ItemRecord) -> None:
    symbols, types, values, calls = tables
    symbols.update(record.symbols)
    types.update(record.types)
    values.update(record.values)
    calls.update(record.calls)


def _remove(tables: ModuleTables, record: ItemRecord) -> None:
    symbols, types, values, calls = tables
    for node in record.symbols:
        symbols.pop(node, None)
    for node in record.types:
        types.pop(node, None)
    for node in record.values:
        values.pop(node, None)
    for call in record.calls:
        calls.pop(call, None)


class Tables:
    """The merged tables of one version: the declarations' symbols, then the units'
    tables in order (their keys are the units' own nodes, disjoint but for a kernel's
    name, which maps to the same symbol in both)."""

    __slots__ = ("declared", "records", "tables")

    def __init__(self, declared: SymbolTable, records: list[ItemRecord], tables: ModuleTables) -> None:
        self.declared = declared
        self.records = records
        self.tables = tables


class AnalysisCache:
    def __init__(self) -> None:
        self.records: dict[int, ItemRecord] = {}  # by id() of the unit's first node
        self.symbols: dict[tuple[SymbolKind, str], Symbol] = {}
        self.tables: Tables | None = None  # the last version's, for the next one
        self.headers: dict[int, tuple[ast.Item, bytes]] = {}  # `fingerprint`'s, of the last version
        # The kept symbols' declarations in the version being checked: its
        # `Placement.fields`, which the caller sets before `check` (a dict of its own otherwise).
        self.fields: dict[object, tuple[object, ...]] = {}

    def merged_tables(self, declared: SymbolTable, records: list[ItemRecord]) -> ModuleTables:
        """`declared` then each record's tables, as the module's four tables (new
        dicts: an older version may still read the last ones). From the last
        version's, when few units changed: a copy, less what went, plus what came."""
        last = self.tables
        kept = {id(r) for r in last.records} if last is not None else set()
        added = [r for r in records if id(r) not in kept]
        if last is None or len(added) > REMERGE * max(1, len(records)):
            tables = merge_all(declared, records)
        else:
            now = {id(r) for r in records}
            gone = [r for r in last.records if id(r) not in now]
            symbols, types, values, calls = last.tables
            tables = (symbols.copy(), types.copy(), values.copy(), calls.copy())
            symbols = tables[0]
            for key in last.declared.keys() - declared.keys():
                symbols.pop(key, None)
            for record in gone:
                _remove(tables, record)
            symbols.update(declared)
            for record in added:
                _add(tables, record)
        self.tables = Tables(dict(declared), list(records), tables)
        return tables

    def lookup(self, nodes: tuple[ast.Node, ...], fingerprint_: bytes) -> ItemRecord | None:
        record = self.records.get(id(nodes[0])) if nodes else None
        if record is None or record.fingerprint != fingerprint_ or len(record.nodes) != len(nodes):
            return None
        if any(a is not b for a, b in zip(record.nodes, nodes)):
            return None
        return record

    def persistent_symbol(self, symbol: Symbol) -> Symbol:
        """The module-level symbol of this kind and name from earlier versions, with the
        new declaration recorded in `fields` (the checking version's `Placement.fields`,
        so the kept symbol itself never changes); the first time, a `KeptSymbol` made of
        `symbol`."""
        key = (symbol.kind, symbol.name)
        kept = self.symbols.get(key)
        if kept is None:
            kept = self.symbols[key] = KeptSymbol(symbol.name, symbol.kind, symbol.type, symbol.span, symbol.node,
                                                  symbol.mode, symbol.owner, symbol.array_extents)
        self.fields[kept] = (symbol.type, symbol.span, symbol.node)
        return kept

    def keep(self, records: dict[int, ItemRecord], names: set[tuple[SymbolKind, str]]) -> None:
        """Forget what the latest version no longer has."""
        self.records = records
        self.symbols = {key: s for key, s in self.symbols.items() if key in names}
