"""The IR: typed, explicit, the single source of step ordinals."""

from . import nodes
from .lower import lower_program

__all__ = ["lower_program", "nodes"]
