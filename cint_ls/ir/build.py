"""The front half of every tool: text -> syntax -> analysis -> IR."""

from __future__ import annotations

from dataclasses import dataclass

from ..analysis import CheckedModule, check
from ..syntax import SyntaxResult, parse_source
from . import nodes as ir
from .lower import lower_program


@dataclass
class Build:
    syntax: SyntaxResult
    checked: CheckedModule
    program: ir.Program | None  # None when the module has translation errors


def build(text: str, path: str = "<input>") -> Build:
    syntax = parse_source(text, path)
    checked = check(syntax)
    program = None if checked.has_errors else lower_program(checked)
    return Build(syntax, checked, program)
