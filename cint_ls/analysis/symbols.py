"""Symbols and scopes: what a name means at a place."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from ..syntax import ast
from ..syntax.source import Span, reading
from .types import Type


class SymbolKind(Enum):
    LOCAL = "local variable"
    PARAM = "parameter"
    SIZE = "size symbol"
    OVER = "over variable"
    LOOP = "loop variable"
    FUNCTION = "function"
    KERNEL = "kernel"
    STRUCT = "struct"
    ENTRY_LOCAL = "top-level variable"


@dataclass(eq=False)
class Symbol:
    """One declared thing. Identity matters: every reference resolves to the object."""

    name: str
    kind: SymbolKind
    type: Type
    span: Span  # the declaring name
    node: ast.Node | None = None  # the declaration
    mode: str | None = None  # a parameter's mode: in, out, inout
    owner: str | None = None  # the function or kernel that declares it; None at top level
    array_extents: list[ast.Expr] = field(default_factory=list)  # declared extents, arrays only

    @property
    def is_array(self) -> bool:
        return bool(self.array_extents) or type(self.type).__name__ == "ArrayType"

    def __repr__(self) -> str:
        return f"Symbol({self.kind.name} {self.name}: {self.type})"


def _versioned(index: int, name: str) -> property:
    """A field of a `KeptSymbol`: the version being read has its own, else the one it
    was made with."""

    def get(self: Symbol) -> Any:
        placement = reading()
        if placement is not None:
            found = placement.fields.get(self)
            if found is not None:
                return found[index]
        return self.__dict__[name]

    def set(self: Symbol, value: Any) -> None:
        self.__dict__[name] = value

    return property(get, set)


class KeptSymbol(Symbol):
    """A module-level symbol kept across versions of a document (`AnalysisCache.
    kept_symbol`), so that reused units' references to it stay valid. Its declaration
    (type, span, node) may differ between versions: each version records its own in its
    `Placement`, and the symbol itself is never changed after it is made."""

    type = _versioned(0, "_type")
    span = _versioned(1, "_span")
    node = _versioned(2, "_node")


class Scope:
    """A block scope; lookups go outward."""

    def __init__(self, parent: Scope | None = None, *, barrier: bool = False) -> None:
        self.parent = parent
        self.names: dict[str, Symbol] = {}
        # A barrier scope (a function body) hides the top-level statements' variables:
        # reading them would be module state (C9002).
        self.barrier = barrier

    def lookup(self, name: str) -> tuple[Symbol | None, bool]:
        """The symbol for `name`, and whether the lookup crossed a barrier to find it."""
        scope: Scope | None = self
        crossed = False
        while scope is not None:
            found = scope.names.get(name)
            if found is not None:
                return found, crossed
            crossed = crossed or scope.barrier
            scope = scope.parent
        return None, crossed

    def declare(self, symbol: Symbol) -> Symbol | None:
        """Declare `symbol`; returns the symbol it clashes with in this scope, if any."""
        existing = self.names.get(symbol.name)
        if existing is not None:
            return existing
        self.names[symbol.name] = symbol
        return None

    def visible_names(self) -> dict[str, Symbol]:
        """Every name visible here, innermost first (for completion and suggestions)."""
        out: dict[str, Symbol] = {}
        scope: Scope | None = self
        crossed = False
        while scope is not None:
            for name, symbol in scope.names.items():
                if crossed and symbol.kind is SymbolKind.ENTRY_LOCAL:
                    continue
                out.setdefault(name, symbol)
            crossed = crossed or scope.barrier
            scope = scope.parent
        return out
