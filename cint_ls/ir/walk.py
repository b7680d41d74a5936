"""Traversals of the IR shared by its passes and by the tools that read it."""

from __future__ import annotations

from collections.abc import Iterator

from . import nodes as ir

_NODE_TYPES = (ir.Expr, ir.Stmt, ir.ViewExpr, ir.SliceSpec, ir.DispatchArg)
Node = ir.Expr | ir.Stmt | ir.ViewExpr | ir.SliceSpec | ir.DispatchArg
# Fields that hold data, not child nodes.
_DATA_FIELDS = {"type", "span", "steps", "index", "op_id", "operands", "faults", "source", "element", "place",
                "op"}


# Each node class's fields that hold nodes, found once. (A dict, not functools.cache:
# mypy takes a class from `type(node)` for an unhashable argument.)
_FIELDS: dict[type[Node], tuple[str, ...]] = {}


def _fields(cls: type[Node]) -> tuple[str, ...]:
    found = _FIELDS.get(cls)
    if found is None:
        names: list[str] = []
        for klass in reversed(cls.__mro__):
            names.extend(n for n in getattr(klass, "__slots__", ()) if n not in _DATA_FIELDS)
        found = _FIELDS[cls] = tuple(names)
    return found


def children(node: Node) -> Iterator[Node]:
    """The IR nodes directly inside `node`, in evaluation order."""
    if isinstance(node, ir.Store):
        yield node.array
        yield from node.indices
        yield node.place  # the place is counted before the value [F-6]
        yield node.value
        return
    if isinstance(node, ir.Reduce):
        yield node.contribution
        yield node.op
        return
    for name in _fields(type(node)):
        value = getattr(node, name)
        if isinstance(value, list):
            for item in value:
                if isinstance(item, tuple):  # switch cases: (labels, body)
                    yield from item[1]
                elif isinstance(item, _NODE_TYPES):
                    yield item
        elif isinstance(value, _NODE_TYPES):
            yield value


def walk(node: Node) -> Iterator[Node]:
    """`node` and everything inside it, depth first, in evaluation order."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(list(children(current))))


def counted_in(statements: list[ir.Stmt]) -> Iterator[ir.Counted]:
    """Every counted operation inside `statements` (in tree order, not evaluation
    order: sort by `index` for that)."""
    for statement in statements:
        for node in walk(statement):
            if isinstance(node, ir.Counted):
                yield node
