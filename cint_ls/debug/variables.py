"""What the debugger shows of a stopped run: a frame's name, its variables by name (the
IR's slots named), values written as `cint run` prints them, arrays by rows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..analysis.types import ArrayType, Type
from ..exec.interp.compiler import ArrayBinding
from ..exec.views import View
from ..ir import nodes as ir
from ..vocabulary.values import format_value


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


def frame_name(unit: ir.Function | ir.Kernel, frame: list[Any] | None, work_item: int | None) -> str:
    """`diffuse work-item 20 (y=2, x=4)`, `scale`, `entry`."""
    if isinstance(unit, ir.Kernel) and work_item is not None and frame is not None:
        where = ", ".join(f"{name}={frame[slot]}" for name, slot, _ in unit.over)
        return f"{unit.name} work-item {work_item} ({where})"
    return "entry" if unit.name == "<entry>" else unit.name


def value_text(value: object, t: Type | None) -> str:
    """A value as `cint run` prints it; an array as its element type and extents."""
    if isinstance(value, ArrayBinding):
        view = value.read
        return f"{view.element.name}[{', '.join(map(str, view.extents))}]"
    if isinstance(value, bool) or isinstance(value, int):
        if t is not None and not isinstance(t, ArrayType):
            try:
                return format_value(t, value)
            except TypeError:
                pass
        return ("true" if value else "false") if isinstance(value, bool) else str(value)
    return repr(value)


def rows(view: View, first: int = 0, last: int | None = None) -> list[tuple[str, list[int] | None, object]]:
    """An array's children `first` to `last` (a page): its rows (a view of one index
    less) or, for one dimension, its elements: (name, the indices so far, the element's
    value or None for a row)."""
    end = view.extents[0] if last is None else min(last, view.extents[0])
    if len(view.extents) == 1:
        return [(f"[{i}]", None, view.read([i])) for i in range(first, end)]
    return [(f"[{i}]", [i], None) for i in range(first, end)]
