"""What a debugger sees of a run on cpu-sir-interp (cint-debug, issue 30).

With an `Observer`, the machine tells it of each unit it enters (the entry, a called
function, each work-item of a dispatch) and leaves, of each statement of the source
before it runs, and of a fault where it is raised (once, at the innermost statement,
before it unwinds). The observer may block in any of these: the run waits, and its
frames and their slots stay as they are for the debugger to read. Without an observer
(every other run) nothing is wrapped: the compiled code is what it always was.
"""

from __future__ import annotations

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
