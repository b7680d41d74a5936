"""A cint expression evaluated in a stopped frame: `evaluate` (watch, hover, the Debug
Console) and breakpoint conditions.

The expression is checked and lowered as cint, by the analysis and the IR of every other
program: the program's text with one function appended, whose parameters are the
frame's scalar variables (their names and types) and whose body prints the expression
(`"{expression}"`, so any type prints as `cint run` prints it). It is built once per
(unit, expression); each evaluation calls that function with the frame's values on a
machine of its own, with a fuel allowance: the program's state is never touched, an
effect inside (a called function's print) goes nowhere, and a fault is a message.
Arrays are not in scope yet.
"""

from __future__ import annotations

from ..exec.interp import Machine
from ..exec.runtime import CintFault, Fuel
from ..ir import nodes as ir
from ..ir.build import build
from ..syntax import Severity
from .variables import nodes, slots

FUNCTION = "__cint_debug_evaluate"
FUEL = 100_000  # units an evaluation may use (a condition runs at every hit)


class EvaluationError(Exception):
    """Why an expression cannot be evaluated here: a message for the person."""


class Evaluator:
    """`expression` compiled against the scalar variables of `unit`."""

    def __init__(self, text: str, path: str, unit: ir.Function | ir.Kernel, expression: str, *,
                 message: bool = False) -> None:
        """With `message`, `expression` is a logpoint's text: printed as a cint string is,
        each `{name}` (any expression in braces) interpolated, a line of its own."""
        if not expression.strip():
            raise EvaluationError("an empty message" if message else "an empty expression")
        if "\n" in expression or "\r" in expression:
            raise EvaluationError("one line: an expression, not statements")
        named = [(slot, s) for slot, s in sorted(slots(unit).items()) if s.type is not None and _scalar(s.type)]
        params = ", ".join(f"{s.type.name} {s.name}" for _, s in named if s.type is not None)
        if message:  # the text inside a string literal: its quotes and backslashes escaped
            head = f"\n\nexport void {FUNCTION}({params}) {{\n    \""
            source = f"{text}{head}{expression.replace(chr(92), chr(92) * 2).replace(chr(34), chr(92) + chr(34))}\\n\";\n}}\n"
        else:
            head = f"\n\nexport void {FUNCTION}({params}) {{\n    \"{{"
            source = f"{text}{head}{expression}}}\";\n}}\n"
        built = build(source, path)
        start = len((text + head).encode("utf-8"))
        errors = [d for d in built.syntax.diagnostics + built.checked.diagnostics
                  if d.severity == Severity.ERROR and d.span.start_byte >= start - 1]
        if errors or built.program is None:
            first = errors[0] if errors else None
            where = f" (column {first.span.start_byte - start + 1})" if first is not None else ""
            raise EvaluationError(f"{first.message if first is not None else 'cannot evaluate it here'}{where}")
        self.program = built.program
        function = built.program.functions[FUNCTION]
        # The frame's slots, in the order of the function's parameters; only those the
        # expression reads need a value (the others are passed as zeros of their type).
        read = {node.slot for node in nodes(function.body) if isinstance(node, ir.Var)}
        self.slots = [slot for slot, _ in named]
        self.names = [s.name for _, s in named]
        self.needed = [param in read for param in function.params]
        self.zeros = [False if getattr(s.type, "name", "") == "Bool" else 0 for _, s in named]
        self._out: list[str] = []
        self._machine = Machine(self.program, FUEL, self._out.append)
        self._span = function.span
        printed = [p for p in _prints(function.body) if isinstance(p, ir.Expr)]
        self.type = printed[0].type if printed else None

    def __call__(self, frame: list[object]) -> str:
        args: list[int | bool] = []
        for slot, name, needed, zero in zip(self.slots, self.names, self.needed, self.zeros):
            value = frame[slot] if slot < len(frame) else None
            if value is None and needed:
                raise EvaluationError(f"`{name}` has no value here yet")
            args.append(zero if not isinstance(value, (int, bool)) else value)
        # One machine for every evaluation (its compiled function kept), with fresh fuel
        # and output each time: a condition is evaluated at every hit.
        machine = self._machine
        machine.fuel = Fuel(FUEL)
        machine.output.clear()
        del self._out[:]
        try:
            machine.call(FUNCTION, args, self._span)
        except CintFault as error:
            raise EvaluationError(f"{error.fault.code}: the expression faulted ({error.fault.operation})") from None
        return "".join(self._out)


def _scalar(t: object) -> bool:
    from ..analysis.types import ArrayType

    return not isinstance(t, ArrayType) and hasattr(t, "name")


def _prints(statements: list[ir.Stmt]) -> list[str | ir.Expr]:
    for s in statements:
        if isinstance(s, ir.Print):
            return list(s.parts)
    return []
