"""The IR: typed, explicit, the single source of step ordinals.

`nodes` is imported with the package; the lowering from the checked AST
(`lower_program`) when first asked for: a run's child process reads a program its
parent built and lowers nothing (running/isolated.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import nodes

if TYPE_CHECKING:
    from .lower import lower_program


def __getattr__(name: str) -> object:
    if name != "lower_program":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from .lower import lower_program

    globals()["lower_program"] = lower_program
    return lower_program


__all__ = ["lower_program", "nodes"]
