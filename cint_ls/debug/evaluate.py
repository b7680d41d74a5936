"""A cint expression evaluated in a stopped frame: `evaluate` (watch, hover, the Debug
Console) and breakpoint conditions.

The expression is checked and lowered as cint, by the analysis and the IR of every other
program: the program's text with one function appended, whose parameters are the
frame's scalar variables and whose local arrays stand for its arrays (their names and
types), and whose body prints the expression
(`"{expression}"`, so any type prints as `cint run` prints it). It is built once per
(unit, expression); each evaluation calls that function with the frame's values on a
machine of its own, with a fuel allowance: the program's state is never touched, an
effect inside (a called function's print) goes nowhere, and a fault is a message.
"""

from __future__ import annotations

from ..exec.interp import Machine
from ..exec.runtime import CintFault, Fuel
from ..ir import nodes as ir
from ..ir.build import build
from ..ir.slots import nodes, slots
from ..syntax import Severity

FUNCTION = "__cint_debug_evaluate"
FUEL = 100_000  # units an evaluation may use (a condition runs at every hit)


class EvaluationError(Exception):
    """Why an expression cannot be evaluated here: a message for the person."""


class Evaluator:
    """`expression` compiled against the variables of `unit`: its scalars are the
    function's parameters, its arrays the function's local arrays (declared with
    extents of 1: only the types are checked; the frame's own views are bound at each
    evaluation), and only the function's last statement, the print, runs."""

    def __init__(self, text: str, path: str, unit: ir.Function | ir.Kernel, expression: str, *,
                 message: bool = False) -> None:
        """With `message`, `expression` is a logpoint's text: printed as a cint string is,
        each `{name}` (any expression in braces) interpolated, a line of its own."""
        if not expression.strip():
            raise EvaluationError("an empty message" if message else "an empty expression")
        if "\n" in expression or "\r" in expression:
            raise EvaluationError("one line: an expression, not statements")
        named = sorted(slots(unit).items())
        scalars = [(slot, s) for slot, s in named if s.rank is None and s.type is not None and _scalar(s.type)]
        arrays = [(slot, s) for slot, s in named if s.rank is not None and s.type is not None
                  and s.name.isidentifier()]
        params = ", ".join(f"{s.type.name} {s.name}" for _, s in scalars if s.type is not None)
        declared = "".join(f"    {s.type.name}[{', '.join('1' * (s.rank or 1))}] {s.name};\n"
                           for _, s in arrays if s.type is not None)
        if message:  # the text inside a string literal: its quotes and backslashes escaped
            head = f"\n\nexport void {FUNCTION}({params}) {{\n{declared}    \""
            body = expression.replace("\\", "\\\\").replace('"', '\\"') + "\\n"
        else:
            head = f"\n\nexport void {FUNCTION}({params}) {{\n{declared}    \"{{"
            body = expression + "}"
        source = f"{text}{head}{body}\";\n}}\n"
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
        # Where each of the frame's variables goes in the function's frame, and whether
        # the print reads it (only those need a value).
        local_slot = {node.name: node.slot for node in function.body if isinstance(node, ir.DeclareArray)}
        printed = function.body[-1]
        assert isinstance(printed, ir.Print), "the function ends with its print"
        read = {n.slot for n in nodes([printed]) if isinstance(n, (ir.Var, ir.ArrayVar))}
        self.bindings = [(slot, to, s.name, to in read) for (slot, s), to in zip(scalars, function.params)]
        self.bindings += [(slot, local_slot[s.name], s.name, local_slot[s.name] in read) for slot, s in arrays]
        self.zeros = {to: False if getattr(s.type, "name", "") == "Bool" else 0
                      for (_, s), to in zip(scalars, function.params)}
        self.slot_count = function.slot_count
        self._out: list[str] = []
        self._machine = Machine(self.program, FUEL, self._out.append)
        self._print = self._machine.compiler.statement(printed)
        parts = [p for p in printed.parts if isinstance(p, ir.Expr)]
        self._value = self._machine.compiler.expr(parts[0]) if parts and not message else None
        parts = [p for p in printed.parts if isinstance(p, ir.Expr)]
        self.type = parts[0].type if parts and not message else None

    def __call__(self, frame: list[object]) -> str:
        """The expression's value as `cint run` prints it (a message: its text)."""
        mine = self._frame(frame)
        self._fresh()
        try:
            self._print(mine)
        except CintFault as error:
            raise EvaluationError(f"{error.fault.code}: the expression faulted ({error.fault.operation})") from None
        return "".join(self._out)

    def value(self, frame: list[object]) -> object:
        """The expression's value itself (`setVariable`'s new value)."""
        assert self._value is not None, "a message has no value"
        mine = self._frame(frame)
        self._fresh()
        try:
            return self._value(mine)
        except CintFault as error:
            raise EvaluationError(f"{error.fault.code}: the expression faulted ({error.fault.operation})") from None

    def _fresh(self) -> None:
        """One machine for every evaluation (the print compiled once), with fresh fuel and
        output each time: a condition is evaluated at every hit."""
        machine = self._machine
        machine.fuel = Fuel(FUEL)
        machine.output.clear()
        del self._out[:]

    def _frame(self, frame: list[object]) -> list[object]:
        from ..exec.interp.compiler import ArrayBinding

        mine: list[object] = [None] * self.slot_count
        for to, zero in self.zeros.items():
            mine[to] = zero
        for slot, to, name, needed in self.bindings:
            value = frame[slot] if slot < len(frame) else None
            if value is None:
                if needed:
                    raise EvaluationError(f"`{name}` has no value here yet")
                continue
            # An array: the view it reads (an out parameter's: its elements before the dispatch).
            mine[to] = ArrayBinding(value.read, None) if isinstance(value, ArrayBinding) else value
        return mine


def _scalar(t: object) -> bool:
    from ..analysis.types import ArrayType

    return not isinstance(t, ArrayType) and hasattr(t, "name")
