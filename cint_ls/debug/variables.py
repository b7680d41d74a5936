"""What the debugger shows of a stopped run: a frame's name, its variables by name (the
IR's slots named), values written as `cint run` prints them, arrays by rows."""

from __future__ import annotations

from typing import Any

from ..analysis.types import ArrayType, Type
from ..exec.interp.compiler import ArrayBinding
from ..exec.views import View
from ..ir import nodes as ir
from ..vocabulary.values import format_value


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
