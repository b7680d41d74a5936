"""What is at an offset: AST paths, names and their symbols, the enclosing kernel.

Also `total`, the guard every editor feature wears: a request about a half-typed file
must answer (None or []) rather than raise. Tests set `STRICT` so that a bug still
shows as the exception it is.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import fields
from typing import TYPE_CHECKING, ParamSpec, TypeVar, cast

from ..analysis.result import CheckedModule, FunctionInfo, KernelInfo
from ..analysis.symbols import Symbol
from ..syntax import ast
from ..syntax.source import Span

if TYPE_CHECKING:
    from .document import DocumentLike

log = logging.getLogger(__name__)

STRICT = False  # re-raise inside `total` (the tests set it)

T = TypeVar("T")
P = ParamSpec("P")


def total(default: Callable[[], object]) -> Callable[[Callable[P, T]], Callable[P, T]]:
    """Make an editor feature total: an exception is logged and `default()` returned:
    the feature's empty answer (None, [], an empty array), a value of its result type,
    which the type checker cannot see of `list` (to it a `list[Never]`): said by a cast.

    The feature reads its version (`Snapshot.reading`): its spans at that version's
    positions throughout, without a lock, while another thread reads or computes
    another version of the same document."""

    def wrap(fn: Callable[P, T]) -> Callable[P, T]:
        @functools.wraps(fn)
        def guarded(*args: P.args, **kwargs: P.kwargs) -> T:
            reading = getattr(args[0], "reading", None) if args else None
            try:
                if reading is None:
                    return fn(*args, **kwargs)
                with reading():
                    return fn(*args, **kwargs)
            except Exception as error:  # noqa: BLE001 - an editor request never fails
                swallow(fn.__name__, error)
                return cast(T, default())

        return guarded

    return wrap


def swallow(name: str, error: Exception) -> None:
    """What a total feature does with an exception it caught (call it in the `except`
    block): re-raise it when the tests set STRICT, else log it; a RecursionError (an
    input nested deeper than the guards allow) quietly."""
    if STRICT:
        raise error
    if not isinstance(error, RecursionError):
        log.exception("%s failed", name)


# ------------------------------------------------------------------ AST traversal

_SKIP = {"span", "op_span", "bracket_span", "keyword_span"}


_CHILD_FIELDS: dict[type[ast.Node], tuple[str, ...]] = {}  # a dict: mypy refuses a node class to functools.cache


def _child_fields(cls: type[ast.Node]) -> tuple[str, ...]:
    found = _CHILD_FIELDS.get(cls)
    if found is None:
        found = _CHILD_FIELDS[cls] = tuple(f.name for f in fields(cls) if f.name not in _SKIP)
    return found


def children(node: ast.Node) -> Iterator[ast.Node]:
    """The AST nodes directly inside `node`, in source order for every node type but
    Module (whose items and statements are two lists: see `top_level`)."""
    if isinstance(node, ast.Module):
        yield from top_level(node)
        return
    for name in _child_fields(type(node)):
        value = getattr(node, name)
        if isinstance(value, ast.Node):
            yield value
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, ast.Node):
                    yield item


def top_level(module: ast.Module) -> list[ast.Node]:
    """Items and top-level statements, in source order."""
    return sorted([*module.items, *module.statements], key=lambda n: n.span.start_byte)


def walk(node: ast.Node) -> Iterator[ast.Node]:
    """`node` and every node inside it, pre-order (iterative: deep trees are fine)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(list(children(current))))


def contains(span: Span, offset: int, inclusive_end: bool = False) -> bool:
    start, end = span.start_byte, span.end_byte
    return start <= offset < end or (inclusive_end and offset == end) or (start == end == offset)


def path_at(module: ast.Module, offset: int) -> list[ast.Node]:
    """The nodes that contain `offset`, outermost first (the module excluded)."""
    path: list[ast.Node] = []
    candidates = top_level(module)
    while True:
        inner = next((n for n in candidates if contains(n.span, offset)), None)
        if inner is None:
            return path
        path.append(inner)
        candidates = list(children(inner))


def item_at(module: ast.Module, offset: int) -> ast.Node | None:
    """The top-level item or statement that contains `offset`."""
    return next((n for n in top_level(module) if contains(n.span, offset, inclusive_end=True)), None)


def _names_near(doc: DocumentLike, checked: CheckedModule, offset: int) -> Iterator[tuple[ast.Node, Symbol]]:
    """The names of the top-level items around `offset` with their symbols (a name's
    node is inside its item); each item's list kept with it across versions."""
    symbols = checked.symbols
    for part in doc.parts_between(offset, offset):
        if part.node is None:
            continue
        entry = part.entry
        names: list[ast.Node] | None = entry.results.get("names") if entry is not None else None
        if names is None:
            names = [n for n in walk(part.node) if n in symbols]
            if entry is not None:
                entry.results["names"] = names
        for node in names:
            symbol = symbols.get(node)
            if symbol is not None:
                yield node, symbol


def name_at(checked: CheckedModule, offset: int, doc: DocumentLike | None = None) -> tuple[ast.Node, Symbol] | None:
    """The name (declaration or reference) under the cursor and its symbol. The cursor
    just after a name counts as on it (editors place it there after typing). With the
    document (`doc`), only the names of the items around the cursor are looked at."""
    best: tuple[ast.Node, Symbol] | None = None
    found: Iterable[tuple[ast.Node, Symbol]] = (
        _names_near(doc, checked, offset) if doc is not None else checked.symbols.items())
    for node, symbol in found:
        span = node.span
        if span.start_byte <= offset <= span.end_byte and span.end_byte > span.start_byte:
            if best is None or offset < span.end_byte:  # prefer the name the cursor is inside
                best = (node, symbol)
                if offset < span.end_byte:
                    break
    return best


def name_text(node: ast.Node) -> str:
    if isinstance(node, ast.Ident):
        return node.name
    if isinstance(node, ast.Name):
        return node.text
    return ""


def kernel_at(checked: CheckedModule, offset: int) -> KernelInfo | None:
    """The kernel whose definition contains `offset`."""
    for info in checked.kernels.values():
        if contains(info.node.span, offset, inclusive_end=True):
            return info
    return None


def function_at(checked: CheckedModule, offset: int) -> FunctionInfo | None:
    """The FunctionInfo whose definition contains `offset`."""
    for info in checked.functions.values():
        if contains(info.node.span, offset, inclusive_end=True):
            return info
    return None


def clamp(doc: DocumentLike, offset: int) -> int:
    return max(0, min(int(offset), len(doc.source.data)))


def frozen(span: Span) -> Span:
    return span.freeze()


def span_of(doc: DocumentLike, start: int, end: int) -> Span:
    return doc.source.span(start, end)


def ident_at(doc: DocumentLike, offset: int) -> tuple[int, int, str] | None:
    """The identifier-like word around `offset` in the raw text (start, end, text)."""
    data = doc.source.data
    offset = clamp(doc, offset)
    start = offset
    while start > 0 and (chr(data[start - 1]).isalnum() or data[start - 1] == 0x5F) and data[start - 1] < 128:
        start -= 1
    end = offset
    while end < len(data) and data[end] < 128 and (chr(data[end]).isalnum() or data[end] == 0x5F):
        end += 1
    if start == end:
        return None
    return start, end, data[start:end].decode("ascii")
