"""The operators of the source and the operations they name (LANGUAGE.md "Expressions",
"Counted operations").

One table serves the IR lowering (which node an operator becomes), the gpu-cuda
capability profile (which construct it is) and the editor (counted or not).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Operator:
    operation: str  # an identifier's first part (`add`, `neg`, `as`), or `and`, `compare`, `logic`
    form: str | None  # `checked`, `wrap`, `sat`, `result`; None for an operation without forms
    counted: bool  # each evaluation is a step (SPEC-02P.1 5.4) and may fault

    @property
    def family(self) -> str:
        """The operation in its form, operand types left out: `add.checked`, `as.wrap`,
        `and`, `compare`."""
        return self.operation if self.form is None else f"{self.operation}.{self.form}"


def _counted(operation: str, form: str = "checked") -> Operator:
    return Operator(operation, form, True)


def _uncounted(operation: str) -> Operator:
    return Operator(operation, None, False)


BINARY_OPERATORS: dict[str, Operator] = {
    "+": _counted("add"), "-": _counted("sub"), "*": _counted("mul"),
    "/": _counted("div"), "%": _counted("rem"),
    "+%": _counted("add", "wrap"), "-%": _counted("sub", "wrap"), "*%": _counted("mul", "wrap"),
    "+|": _counted("add", "sat"), "-|": _counted("sub", "sat"), "*|": _counted("mul", "sat"),
    "<<": _counted("shl"), ">>": _counted("shr"),
    "&": _uncounted("and"), "|": _uncounted("or"), "^": _uncounted("xor"),
    "==": _uncounted("compare"), "!=": _uncounted("compare"), "<": _uncounted("compare"),
    "<=": _uncounted("compare"), ">": _uncounted("compare"), ">=": _uncounted("compare"),
    "&&": _uncounted("logic"), "||": _uncounted("logic"),  # short-circuit
}

UNARY_OPERATORS: dict[str, Operator] = {
    "-": _counted("neg"), "~": _uncounted("not"), "!": _uncounted("logic"),
}

# Every `as` form is counted; the result form `as?` is refused (C9003) and has no identifier.
CONVERSION_OPERATORS: dict[str, Operator] = {
    "as": _counted("as"), "as%": _counted("as", "wrap"), "as?": _counted("as", "result"),
}
