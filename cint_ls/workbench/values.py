"""What the session holds (its variables, declarations, answers) and how it writes them:
values as `cint run` prints them, a variable's declaration, an array's elements, a
report with its stack lines."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..analysis.types import BoolType, FixedType, Type
from ..exec.views import View
from ..ir import nodes as ir
from ..syntax import Severity
from ..syntax.report import render_diagnostic
from ..syntax.source import SourceText
from ..vocabulary.values import format_value
from .program import Assembly, Piece, Source


@dataclass
class Answer:
    """What an input gives back: text as the transcripts show it, and whether it was an
    error (a fault, a diagnostic, a bad command). `counted`: the input took a number."""

    text: str = ""
    error: bool = False
    counted: bool = True
    quit: bool = False
    value: Any = None  # an expression's value, for a notebook's rich display (a View for an array)


@dataclass
class Variable:
    name: str
    type: Type  # a scalar's type, or the element type of an array
    value: Any  # int / bool, or a View
    rank: int | None = None


@dataclass
class Declared:
    name: str
    piece: Piece



def _expression_like(text: str) -> bool:
    """An input that is no statement: no `;` or `}` at its end."""
    stripped = text.strip()
    return bool(stripped) and not stripped.endswith(("}", ";"))


def _errors(built: Any) -> list[Any]:
    """The build's errors: the checker's diagnostics, which hold the syntax ones too
    (each of a broken expression input was shown twice when both lists were read)."""
    return [d for d in built.checked.diagnostics if d.severity == Severity.ERROR]


def _diagnostics(source: Source, errors: list[Any]) -> str:
    shown = SourceText(source.text, source.label)
    return "".join(render_diagnostic(shown, d) for d in errors[:5])


def _entry_slots(entry: ir.Function) -> dict[str, int]:
    """The entry's named variables (the session's and the input's) by name."""
    from ..ir.slots import slots

    return {s.name: slot for slot, s in slots(entry).items() if s.kind == "local"}


def _zero(t: Type) -> str:
    if isinstance(t, BoolType):
        return "false"
    if isinstance(t, FixedType):
        return "0.0"
    return "0"


def _declaration(variable: Variable, with_value: bool = False) -> str:
    """The declaration that gives the session's variable its slot (its value is bound
    in the frame, not by this statement, unless `with_value`: a program run elsewhere)."""
    if isinstance(variable.value, View):
        view = variable.value
        head = f"{variable.type}[{', '.join(map(str, view.extents))}] {variable.name}"
        if not with_value:
            return head + ";"
        values = [_literal(variable.type, v) for _, v in _elements(view)]
        return f"{head} = [{', '.join(values)}];"
    value = _literal(variable.type, variable.value) if with_value else _zero(variable.type)
    return f"{variable.type} {variable.name} = {value};"


def _literal(t: Type, value: Any) -> str:
    if isinstance(t, BoolType):
        return "true" if value else "false"
    if isinstance(t, FixedType):
        return f"({value} as {t})" if False else _value(t, value)
    return str(value)


def _value(t: Type, value: Any) -> str:
    try:
        return format_value(t, value)
    except TypeError:
        return str(value)


def _elements(view: View) -> Any:
    """(index tuple, value) of each element of `view`, row-major."""
    from itertools import product

    for index in product(*(range(e) for e in view.extents)):
        yield index, view.read(list(index))


def assemble(declared: dict[str, Declared], variables: dict[str, Variable], statements: Source | Piece | None,
             names: set[str] | None = None, with_values: bool = False) -> Assembly:
    """The session's program text: the declarations (`names` of them, else every one), the
    variables' declarations (`with_values`: initialized with their values, for a program
    run elsewhere than in the session), then `statements`."""
    assembly = Assembly()
    for name, item in declared.items():
        if names is None or name in names:
            assembly.add(item.piece)
    for variable in variables.values():
        assembly.add_text(_declaration(variable, with_value=with_values))
    if isinstance(statements, Source):
        statements = Piece(statements, 0, len(statements.text.encode("utf-8")))
    if statements is not None:
        assembly.add(statements)
    return assembly
