"""A unit's slots named as the source names them (the debugger's variables, the
workbench's session variables, a condition's parameters), and every IR node under a
body."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..analysis.types import Type
from . import nodes as ir


@dataclass(frozen=True)
class Slot:
    name: str
    type: Type | None  # a scalar's type, or an array's element type; None where the IR does not say
    kind: str  # parameter, local, size, index (a kernel's over variable)
    mode: str | None = None  # a kernel parameter's: in, out, inout
    rank: int | None = None  # an array's; None for a scalar


def slots(unit: ir.Function | ir.Kernel) -> dict[int, Slot]:
    """The unit's slots by number, named as the source names them."""
    found: dict[int, Slot] = {}
    if isinstance(unit, ir.Kernel):
        for name, slot in zip(unit.sizes, unit.size_slots):
            found[slot] = Slot(name, None, "size")
        for name, slot, _ in unit.over:
            found[slot] = Slot(name, None, "index")
        for param in unit.params:
            found[param.slot] = Slot(param.name, param.type, "parameter", param.mode,
                                     None if param.extents is None else len(param.extents))
    else:
        for slot, name, t in zip(unit.params, unit.param_names, unit.param_types):
            found[slot] = Slot(name, t, "parameter")
    for node in nodes(unit.body):
        number, named = getattr(node, "slot", None), getattr(node, "name", None)
        if isinstance(number, int) and isinstance(named, str) and number not in found:
            found[number] = Slot(named, _type_of(node), "local",
                                 rank=len(node.extents) if isinstance(node, ir.DeclareArray) else None)
        elif isinstance(node, ir.Var) and isinstance(found.get(node.slot), Slot) and found[node.slot].type is None:
            found[node.slot] = Slot(found[node.slot].name, node.type, found[node.slot].kind, found[node.slot].mode)
    return found


def _type_of(node: object) -> Type | None:
    """The type a node that names a slot gives it."""
    if isinstance(node, ir.Var):
        return node.type
    if isinstance(node, ir.Assign):
        return node.value.type
    if isinstance(node, ir.DeclareArray):
        return node.element
    return None


def nodes(statements: list[ir.Stmt]) -> list[object]:
    """Every IR node under `statements`, without recursion."""
    out: list[object] = []
    stack: list[Any] = list(reversed(statements))
    while stack:
        node = stack.pop()
        out.append(node)
        for name in getattr(node, "__slots__", ()):
            value = getattr(node, name, None)
            if isinstance(value, list):
                stack.extend(v for v in reversed(value) if hasattr(v, "__slots__"))
            elif hasattr(value, "__slots__") and not isinstance(value, (Type, str)) and \
                    type(value).__module__ == ir.__name__:
                stack.append(value)
    return out
