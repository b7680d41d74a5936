"""The built-in names of cint: operations, reductions and rounding modes."""

from __future__ import annotations

# Built-in operations called like functions (LANGUAGE.md "Expressions", "Views").
BUILTIN_FUNCTIONS = {
    "div_round": "div_round(a, b, mode): the exact quotient rounded by mode",
    "min": "min(a, b): the lesser value",
    "max": "max(a, b): the greater value",
    "abs": "abs(a): the absolute value (checked)",
    "reverse": "reverse(v, d): the view v with dimension d reversed",
    "transpose": "transpose(v): the rank-2 view v with its dimensions swapped",
}

VIEW_BUILTINS = ("reverse", "transpose")

# div_round modes; half_trunc rounds ties toward zero.
ROUNDING_MODES = ("floor", "ceil", "trunc", "away", "half_even", "half_away", "half_trunc")

# Reduce operators (LANGUAGE.md "Kernels").
REDUCE_OPERATORS = {
    "sum": "the exact sum, checked once against the target's range",
    "sum_wrap": "the sum modulo 2^width of the target",
    "sum_sat": "the saturating sum, folded from the left in work-item order",
    "min": "the least contribution (E_EMPTY when there is none)",
    "max": "the greatest contribution (E_EMPTY when there is none)",
    "count": "the number of true Bool contributions",
    "fold_checked": "fold_checked(add, init, x): the checked fold from init, faulting at the first overflow",
}

FOLD_OPERATORS = ("add",)

TYPE_PROPERTIES = ("min", "max")
