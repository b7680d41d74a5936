"""What a debugger sees of a run on cpu-sir-interp (cint-debug, issue 30).

With an `Observer`, the machine tells it of each unit it enters (the entry, a called
function, each work-item of a dispatch) and leaves, of each statement of the source
before it runs, and of a fault where it is raised (once, at the innermost statement,
before it unwinds). The observer may block in any of these: the run waits, and its
frames and their slots stay as they are for the debugger to read. Without an observer
(every other run) nothing is wrapped: the compiled code is what it always was.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ...ir import nodes as ir
    from ...syntax.source import Span
    from ..runtime import CintFault

Frame = list[Any]  # compiler.Frame (the compiler imports this module: not the other way)


class Observer(Protocol):
    def enter(self, unit: ir.Function | ir.Kernel, frame: Frame, call: Span | None,
              work_item: int | None, dispatch: int | None) -> None:
        """A unit starts running in `frame`: the entry (`call` None), a function called
        at `call`, or work-item `work_item` of dispatch `dispatch` of a kernel."""

    def leave(self) -> None:
        """The unit entered last has finished (returned, or unwound by a fault)."""

    def statement(self, s: ir.Stmt, frame: Frame) -> None:
        """Statement `s` of the unit entered last is about to run."""

    def fault(self, s: ir.Stmt, frame: Frame, error: CintFault) -> None:
        """`error` was raised while statement `s` ran (the innermost statement it passes)."""


# ---- stepping by counted operation (DAP's `instruction` granularity)
#
# Every counted operation numbers itself where it is about to apply, after its operands
# (`step = m.step; m.step = step + 1`, compiler.py and resumable.py), with its position
# in a local named `span`. While a debugger steps by operation, the machine's class is
# swapped for one whose `step` is a property: an increment tells `on_operation` the
# operation's position and step ordinal, read from the frame doing the increment. The
# swap costs nothing to any other run, nor to a debugged run between such steps.

_WATCHING: dict[type, type] = {}


def _get_step(machine: Any) -> int:
    return machine.__dict__["step"]  # type: ignore[no-any-return]


def _set_step(machine: Any, value: int) -> None:
    state = machine.__dict__
    before = state.get("step")
    state["step"] = value
    if before is not None and value == before + 1:
        span = sys._getframe(1).f_locals.get("span")
        if span is not None:
            state["_on_operation"](span, before)


def watch_operations(machine: Any, on_operation: Callable[[Span, int], None]) -> None:
    """Tell `on_operation(span, step)` of each counted operation `machine` is about to
    apply, until `unwatch_operations`."""
    kind = type(machine)
    watching = _WATCHING.get(kind)
    if watching is None:
        watching = _WATCHING[kind] = type(f"Watching{kind.__name__}", (kind,),
                                          {"step": property(_get_step, _set_step)})
    machine.__dict__["_on_operation"] = on_operation
    machine.__class__ = watching


def unwatch_operations(machine: Any) -> None:
    base = type(machine)
    if base in _WATCHING.values():
        machine.__class__ = base.__mro__[1]
