"""The exact-arithmetic run-time of the reference executor (cpu-sir-interp).

Pure Python on Python ints. It imports the standard library, the types
(`cint_ls.analysis.types`), the vocabulary (`cint_ls.vocabulary`: operation
identifiers, fault codes, value text) and the fault record (`cint_ls.exec.faults`).
Values are ints; a fixed-point Qm.n value is its stored integer value * 2**n. Faults
are raised as `OperationFault` (code, operation, operands, exact, limit); the executor
adds the position and address.

Modules: `fault` (records, bounds), `scalar` (operators), `rounding` (div_round),
`convert` (`as`, `as%`), `reduce` (reductions).

Decisions where LANGUAGE.md and SPEC-02P.1 are silent (each one is tested):

- `%` is checked only for a divisor of 0; `MIN % -1` is 0 (its exact result fits), so
  it is not an overflow. `/` of MIN by -1 is E_OVERFLOW, exact -MIN, limit max.
- Shifts: the count (same type as the left operand) outside [0, width) is E_SHIFT with
  operands [(t, x), (t, count)], exact none and limit the crossed end of the valid
  counts as a value of t: (t, 0) for a negative count, (t, width - 1) for a count of
  width or more. The count is tested before anything else [IM-125]. Shifts, `& | ^ ~`
  and div_round are integer-only.
- Unsigned `-x` of x > 0 is E_OVERFLOW with limit (t, 0); `abs` of unsigned is x.
- Fixed point: `+ -` on the stored integers; `*` and `/` round the exact result
  half-to-even to n fractional bits, then check (checked: E_OVERFLOW), wrap the stored
  integer modulo 2**(m+n) (`*%`, `+%`, `-%`) or clamp to the range (`*|`, `+|`, `-|`).
  Fixed `/` and `%` are checked only; `%` is the truncating remainder of the stored
  integers (exact, like integer `%`); a divisor of 0 is E_DIV_ZERO. In fixed records the
  operands and the limit are (type, stored integer) and exact is the real result as a
  Fraction ((a * b) / 2**(2n) for `*`, a / b for `/`).
- `as`: exact is an int between integer types, else the real value as a Fraction; the
  limit is the destination bound crossed, or None for a value in range that is not a
  multiple of the destination's resolution (a fraction into an integer type or into
  fewer fractional bits), which is E_NARROW. `as%` exists between integer types only.
- `format_exact` (`cint_ls.vocabulary.values`): a Fraction (fixed-point exact) prints
  with at least one fractional digit like fixed value text, or `p/q` when its decimal is
  infinite; an int prints in decimal; None prints `none`.
- Reductions: see `reduce` (min/max of nothing: operands [(I64, 0)]; count:
  `count.checked.<target>`; the fold's index is the caller's, else the position).
"""

from ..faults import OperationFault
from .convert import convert, convert_fn
from .fault import bounds, real
from .reduce import (
    REDUCTIONS,
    Count,
    Extremum,
    FoldChecked,
    Reducer,
    Sum,
    SumSat,
    SumWrap,
    fold_checked_add,
    make_reducer,
    reduce_count,
    reduce_max,
    reduce_min,
    reduce_sum,
    reduce_sum_sat,
    reduce_sum_wrap,
    sum_accumulator_bits,
)
from .rounding import DIV_ROUND_MODES, div_round, div_round_fn, rounded_quotient
from .scalar import (
    ARITH_FORMS,
    ARITH_OPS,
    binary,
    binary_fn,
    saturate,
    truncated_div,
    truncated_rem,
    unary,
    unary_fn,
    wrap,
)

__all__ = [
    "ARITH_FORMS",
    "ARITH_OPS",
    "DIV_ROUND_MODES",
    "REDUCTIONS",
    "OperationFault",
    "Count",
    "Extremum",
    "FoldChecked",
    "Reducer",
    "Sum",
    "SumSat",
    "SumWrap",
    "binary",
    "binary_fn",
    "bounds",
    "convert",
    "convert_fn",
    "div_round",
    "div_round_fn",
    "fold_checked_add",
    "make_reducer",
    "real",
    "reduce_count",
    "reduce_max",
    "reduce_min",
    "reduce_sum",
    "reduce_sum_sat",
    "reduce_sum_wrap",
    "rounded_quotient",
    "saturate",
    "sum_accumulator_bits",
    "truncated_div",
    "truncated_rem",
    "unary",
    "unary_fn",
    "wrap",
]
