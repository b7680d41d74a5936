"""The intermediate representation: typed, explicit, lowered from the checked AST.

Every counted operation (LANGUAGE.md "Counted operations", SPEC-02P.1 5.4) is a
`Counted` node with its operation identifier, its span, its operand and result types,
the faults it can raise and, in a kernel, the static step ordinals it can take
(`steps`; None where a loop makes the ordinal depend on the iteration). Every fuel
charge point is explicit: `Charge` before a loop iteration and the `charge` span of a
`Call`. The IR is the single source of step ordinals and of what an editor says of an
operation: hovers and inlay hints read `Counted` nodes, and every executor counts the
same nodes at run time.

Variables live in numbered slots of their function's or kernel's frame.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..analysis.types import Type
from ..syntax.source import Span
from ..vocabulary.operations import Fault

# ------------------------------------------------------------------ expressions


@dataclass(eq=False, slots=True)
class Expr:
    type: Type


@dataclass(eq=False, slots=True)
class Const(Expr):
    value: int | bool  # fixed point: the stored integer


@dataclass(eq=False, slots=True)
class Var(Expr):
    """Read of a scalar slot (local, parameter, size symbol, over or loop variable)."""

    slot: int
    name: str


@dataclass(eq=False, slots=True)
class Counted(Expr):
    """Base of the counted operations; a store's place and a reduce are Counted
    themselves. `type` is the result's: for a place the element stored, for a reduce
    its target."""

    op_id: str
    span: Span
    index: int  # position among the counted operations of its body, in source order
    steps: tuple[int, ...] | None  # set by steps.py
    # The operand types (a read's or a place's array, then each index; a reduce's
    # contribution) and the faults the operation can raise (cint_ls.vocabulary).
    operands: tuple[Type, ...] = field(default=(), kw_only=True)
    faults: tuple[Fault, ...] = field(default=(), kw_only=True)


@dataclass(eq=False, slots=True)
class Arith(Counted):
    """add sub mul div rem shl shr in a form (checked, wrap, sat), or min/max/abs."""

    op: str
    form: str | None
    args: list[Expr]


@dataclass(eq=False, slots=True)
class Convert(Counted):
    form: str  # 'checked' or 'wrap'
    source: Type
    value: Expr


@dataclass(eq=False, slots=True)
class DivRound(Counted):
    mode: str
    left: Expr
    right: Expr


@dataclass(eq=False, slots=True)
class Load(Counted):
    """An element read `a[i, j]` (index.checked)."""

    array: ViewExpr
    indices: list[Expr]


@dataclass(eq=False, slots=True)
class Bitwise(Expr):
    """& | ^ on integers, ~ (one argument): not counted."""

    op: str
    args: list[Expr]


@dataclass(eq=False, slots=True)
class Compare(Expr):
    op: str
    left: Expr
    right: Expr


@dataclass(eq=False, slots=True)
class Logic(Expr):
    """`&&`, `||` (short-circuit) and `!` (one argument): not counted."""

    op: str
    args: list[Expr]


@dataclass(eq=False, slots=True)
class Call(Expr):
    function: str
    args: list[Expr]
    span: Span  # the call: its fuel charge (1) and its stack frame


# ------------------------------------------------------------------ views


@dataclass(eq=False, slots=True)
class ViewExpr:
    """An array or a view of one, as dispatch arguments and indexed values take it."""

    rank: int
    span: Span


@dataclass(eq=False, slots=True)
class ArrayVar(ViewExpr):
    slot: int
    name: str


@dataclass(eq=False, slots=True)
class SliceSpec:
    start: Expr | None
    end: Expr | None
    step: int


@dataclass(eq=False, slots=True)
class Select(ViewExpr):
    """`a[lo..hi, j]`: slices keep a dimension, an index drops it; missing trailing
    dimensions are whole."""

    base: ViewExpr
    specs: list[Expr | SliceSpec]


@dataclass(eq=False, slots=True)
class Reverse(ViewExpr):
    base: ViewExpr
    dimension: int


@dataclass(eq=False, slots=True)
class Transpose(ViewExpr):
    base: ViewExpr


# ------------------------------------------------------------------ statements


@dataclass(eq=False, slots=True)
class Stmt:
    span: Span


@dataclass(eq=False, slots=True)
class Assign(Stmt):
    slot: int
    name: str
    value: Expr


@dataclass(eq=False, slots=True)
class DeclareArray(Stmt):
    slot: int
    name: str
    element: Type
    extents: list[Expr]
    init: list[Expr] | None  # row-major elements of a literal initializer


@dataclass(eq=False, slots=True)
class Store(Stmt):
    """`a[i, j] = value`: the place is counted (`place`) before the value is evaluated."""

    array: ViewExpr
    indices: list[Expr]
    value: Expr
    place: Counted  # op_id 'store.checked', the place's span, types and steps


@dataclass(eq=False, slots=True)
class Eval(Stmt):
    value: Expr


@dataclass(eq=False, slots=True)
class Print(Stmt):
    parts: list[str | Expr]


@dataclass(eq=False, slots=True)
class If(Stmt):
    condition: Expr
    then: list[Stmt]
    otherwise: list[Stmt]


@dataclass(eq=False, slots=True)
class Charge(Stmt):
    """One unit of fuel (SPEC-02P.1 8.4): a loop iteration, before its body runs."""


@dataclass(eq=False, slots=True)
class For(Stmt):
    slot: int
    name: str
    start: Expr
    end: Expr
    body: list[Stmt]  # begins with its Charge


@dataclass(eq=False, slots=True)
class While(Stmt):
    condition: Expr
    body: list[Stmt]  # begins with its Charge


@dataclass(eq=False, slots=True)
class Switch(Stmt):
    value: Expr
    cases: list[tuple[list[int], list[Stmt]]]
    default: list[Stmt] | None


@dataclass(eq=False, slots=True)
class Break(Stmt):
    pass


@dataclass(eq=False, slots=True)
class Continue(Stmt):
    pass


@dataclass(eq=False, slots=True)
class Return(Stmt):
    value: Expr | None


@dataclass(eq=False, slots=True)
class Assert(Stmt):
    condition: Expr


@dataclass(eq=False, slots=True)
class Reduce(Stmt):
    """`reduce target = kind(...)`: counted once where it executes (place `op`)."""

    target: int  # the position of the reduction among the kernel's reductions
    kind: str  # sum sum_wrap sum_sat min max count fold_checked
    contribution: Expr
    op: Counted  # op_id such as sum.checked.i32.i64, its span (the operator name) and steps


@dataclass(eq=False, slots=True)
class DispatchArg:
    pass


@dataclass(eq=False, slots=True)
class ArrayArg(DispatchArg):
    view: ViewExpr


@dataclass(eq=False, slots=True)
class ScalarArg(DispatchArg):
    value: Expr


@dataclass(eq=False, slots=True)
class OutArg(DispatchArg):
    slot: int
    name: str


@dataclass(eq=False, slots=True)
class Dispatch(Stmt):
    """`kernel(args);` — its span is the kernel's name in the statement (5.6)."""

    kernel: str
    args: list[DispatchArg]


# ------------------------------------------------------------------ units


@dataclass(eq=False, slots=True)
class Function:
    name: str
    qualified: str
    params: list[int]  # slots
    param_names: list[str]
    param_types: list[Type]
    return_type: Type
    body: list[Stmt]
    slot_count: int
    span: Span


@dataclass(eq=False, slots=True)
class Extent:
    """An array parameter's extent: `S`, `S + c`, `S - c` or a constant."""

    size: int | None  # the size symbol's index, or None for a constant
    offset: int  # the constant, or the c of S + c (negative for S - c)
    span: Span


@dataclass(eq=False, slots=True)
class KernelParam:
    name: str
    mode: str
    type: Type  # element type for arrays
    extents: list[Extent] | None  # None for a scalar
    slot: int
    span: Span


@dataclass(eq=False, slots=True)
class Reduction:
    param: int  # the scalar out parameter's position
    kind: str
    contribution: Type
    target: Type
    op: Counted
    init: int = 0  # fold_checked's initial value: a constant of the target type


@dataclass(eq=False, slots=True)
class WhereConstraint:
    op: str
    left: Expr
    right: Expr
    span: Span


@dataclass(eq=False, slots=True)
class Kernel:
    name: str
    qualified: str
    sizes: list[str]
    size_slots: list[int]
    params: list[KernelParam]
    over: list[tuple[str, int, Expr]]  # (name, slot, extent over the size slots)
    where: list[WhereConstraint]
    reductions: list[Reduction]  # in declaration order of their targets
    body: list[Stmt]
    slot_count: int
    counted: list[Counted]  # every counted operation of the body, in source order
    span: Span


@dataclass(eq=False, slots=True)
class Program:
    module: str
    path: str
    functions: dict[str, Function]
    kernels: dict[str, Kernel]
    entry: Function  # the top-level statements
