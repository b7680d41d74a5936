"""cpu-sir-interp compiles each IR unit once into Python closures, then runs them.

The closures are the IR run as it stands: one closure per node, counted operations
numbered at run time (the machine's `step`), fuel charged where the IR says. A
statement closure returns None to go on, BREAK or CONTINUE, or a `Returned` value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeAlias

from ...analysis.types import BOOL, I64, Type
from ...ir import nodes as ir
from ...vocabulary.values import format_value
from ..arith import FoldChecked, OperationFault, binary_fn, convert_fn, div_round_fn, make_reducer, unary_fn
from ..dispatch import Argument, Results
from ..runtime import CintFault, Fuel
from ..views import IndexSpec, SliceSpec, Storage, Value, View

if TYPE_CHECKING:
    from ...syntax.source import Span
    from .observer import Observer

BREAK = object()
CONTINUE = object()

# A unit's frame: a slot per variable (a scalar's value, an array's ArrayBinding; None
# until set). The slots' types are the IR's, checked by the analysis, not by the closures.
Frame: TypeAlias = list[Any]
# The closures: an expression's gives its value (an integer or a bool, as the IR types
# it; a call of a function without a value, in an `Eval`, gives None); a statement's its
# signal (Signal); a view expression's the ArrayBinding it denotes.
ExprFn: TypeAlias = Callable[[Frame], Any]
# None to go on, BREAK or CONTINUE (the sentinels above), or a `Returned` value.
Signal: TypeAlias = object
StmtFn: TypeAlias = Callable[[Frame], Signal]
ViewFn: TypeAlias = Callable[[Frame], "ArrayBinding"]
# A dispatch's arguments as compiled: an array's view, a scalar's value, an out scalar's slot.
DispatchArgFn: TypeAlias = (tuple[Literal["array"], ViewFn] | tuple[Literal["scalar"], ExprFn]
                            | tuple[Literal["out"], int])
# A Print's parts: its text, or an expression's closure and the expression's type.
PrintPart: TypeAlias = tuple[str, None] | tuple[ExprFn, Type]


class MachineLike(Protocol):
    """What the compiled code needs of the machine it runs on (machine.py's Machine):
    the step counter of the counted operations, the fuel, the output, calls,
    dispatches and a work-item's reduce contributions."""

    step: int
    fuel: Fuel

    def write(self, text: str) -> None: ...

    def call(self, name: str, args: list[Value], span: Span) -> Value | None: ...

    def dispatch(self, name: str, args: list[Argument], span: Span) -> Results: ...

    def contribute(self, target: int, value: Value, span: Span, step: int) -> None: ...

MAX_ARRAY_ELEMENTS = 1 << 28  # a local array larger than this is refused (E_UNSUPPORTED)


class Returned:
    __slots__ = ("value",)

    def __init__(self, value: Value | None) -> None:
        self.value = value


class ArrayBinding:
    """An array variable or kernel parameter: the view reads go to and the view
    writes go to (an out or inout kernel parameter writes its staging)."""

    __slots__ = ("read", "write")

    def __init__(self, read: View, write: View | None) -> None:
        self.read = read
        self.write = write


def _compare(op: str) -> Callable[[Value, Value], bool]:
    return {
        "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
        "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
    }[op]


class Compiler:
    """Compiles the units of one program against one machine (`m`: step, fuel,
    output, calls and dispatches)."""

    def __init__(self, machine: MachineLike, observer: Observer | None = None) -> None:
        self.m = machine
        self.observer = observer

    # ------------------------------------------------------------------ expressions

    def expr(self, e: ir.Expr) -> ExprFn:
        fn: ExprFn = getattr(self, "expr_" + type(e).__name__)(e)
        return fn

    def expr_Const(self, e: ir.Const) -> ExprFn:
        value = e.value
        return lambda f: value

    def expr_Var(self, e: ir.Var) -> ExprFn:
        slot = e.slot
        return lambda f: f[slot]

    def expr_Arith(self, e: ir.Arith) -> ExprFn:
        m, span = self.m, e.span
        args = [self.expr(a) for a in e.args]
        if len(args) == 1:
            unary = unary_fn(e.op, e.type)
            (a,) = args

            def run_unary(f: Frame) -> int:
                x = a(f)
                step = m.step
                m.step = step + 1
                try:
                    return unary(x)
                except OperationFault as fault:
                    raise CintFault(fault, span, step) from None
            return run_unary
        binary = binary_fn(e.op, e.form, e.type)
        left, right = args

        def run_binary(f: Frame) -> int:
            x = left(f)
            y = right(f)
            step = m.step
            m.step = step + 1
            try:
                return binary(x, y)
            except OperationFault as fault:
                raise CintFault(fault, span, step) from None
        return run_binary

    def expr_Convert(self, e: ir.Convert) -> ExprFn:
        m, span = self.m, e.span
        fn = convert_fn(e.source, e.type, e.form)
        value = self.expr(e.value)

        def run(f: Frame) -> int:
            x = value(f)
            step = m.step
            m.step = step + 1
            try:
                return fn(x)
            except OperationFault as fault:
                raise CintFault(fault, span, step) from None
        return run

    def expr_DivRound(self, e: ir.DivRound) -> ExprFn:
        m, span = self.m, e.span
        fn = div_round_fn(e.type, e.mode)
        left, right = self.expr(e.left), self.expr(e.right)

        def run(f: Frame) -> int:
            x = left(f)
            y = right(f)
            step = m.step
            m.step = step + 1
            try:
                return fn(x, y)
            except OperationFault as fault:
                raise CintFault(fault, span, step) from None
        return run

    def expr_Load(self, e: ir.Load) -> ExprFn:
        m, span = self.m, e.span
        array = self.view(e.array)
        indices = [self.expr(i) for i in e.indices]

        def run(f: Frame) -> Value:
            view = array(f).read
            position = [i(f) for i in indices]
            step = m.step
            m.step = step + 1
            try:
                return view.read(position)
            except OperationFault as fault:
                raise CintFault(fault, span, step) from None
        return run

    def expr_Bitwise(self, e: ir.Bitwise) -> ExprFn:
        args = [self.expr(a) for a in e.args]
        if e.op == "~":
            unary = unary_fn("not", e.type)
            (a,) = args
            return lambda f: unary(a(f))
        binary = binary_fn({"&": "and", "|": "or", "^": "xor"}[e.op], None, e.type)
        left, right = args
        return lambda f: binary(left(f), right(f))

    def expr_Compare(self, e: ir.Compare) -> ExprFn:
        compare = _compare(e.op)
        left, right = self.expr(e.left), self.expr(e.right)
        return lambda f: compare(left(f), right(f))

    def expr_Logic(self, e: ir.Logic) -> ExprFn:
        args = [self.expr(a) for a in e.args]
        if e.op == "!":
            (a,) = args
            return lambda f: not a(f)
        left, right = args
        if e.op == "&&":
            return lambda f: left(f) and right(f)
        return lambda f: left(f) or right(f)

    def expr_Call(self, e: ir.Call) -> ExprFn:
        m, span, name = self.m, e.span, e.function
        args = [self.expr(a) for a in e.args]
        return lambda f: m.call(name, [a(f) for a in args], span)

    # ------------------------------------------------------------------ views

    def view(self, v: ir.ViewExpr) -> ViewFn:
        """A closure giving the ArrayBinding of a view expression."""
        if isinstance(v, ir.ArrayVar):
            slot = v.slot
            return lambda f: f[slot]
        assert isinstance(v, (ir.Select, ir.Reverse, ir.Transpose)), f"not a view expression: {v!r}"
        base = self.view(v.base)
        m, span = self.m, v.span
        if isinstance(v, ir.Select):
            specs: list[tuple[ExprFn | None, ExprFn | None, int] | ExprFn] = [
                (self.bound(s.start), self.bound(s.end), s.step) if isinstance(s, ir.SliceSpec) else self.expr(s)
                for s in v.specs
            ]

            def select(f: Frame) -> ArrayBinding:
                binding = base(f)
                made: list[IndexSpec] = []
                for spec in specs:
                    if isinstance(spec, tuple):
                        start, end, step = spec
                        made.append(SliceSpec(start(f) if start else None, end(f) if end else None, step))
                    else:
                        made.append(spec(f))
                made += [SliceSpec()] * (binding.read.rank - len(made))
                try:
                    return ArrayBinding(binding.read.select(made), None)
                except OperationFault as fault:
                    raise CintFault(fault, span, m.step) from None
            return select
        if isinstance(v, ir.Reverse):
            d = v.dimension
            return lambda f: ArrayBinding(base(f).read.reverse(d), None)
        return lambda f: ArrayBinding(base(f).read.transpose(), None)

    def bound(self, e: ir.Expr | None) -> ExprFn | None:
        """A slice's start or end: its closure, None where it is left out."""
        return None if e is None else self.expr(e)

    # ------------------------------------------------------------------ statements

    def block(self, statements: list[ir.Stmt]) -> StmtFn:
        runs = [self.statement(s) for s in statements]
        if len(runs) == 1:
            return runs[0]

        def run(f: Frame) -> Signal:
            for statement in runs:
                signal = statement(f)
                if signal is not None:
                    return signal
            return None
        return run

    def statement(self, s: ir.Stmt) -> StmtFn:
        fn: StmtFn = getattr(self, "stmt_" + type(s).__name__)(s)
        if self.observer is not None and not isinstance(s, ir.Charge):  # a Charge is no statement of the source
            return observed(self.observer, s, fn)
        return fn

    def stmt_Assign(self, s: ir.Assign) -> StmtFn:
        slot, value = s.slot, self.expr(s.value)

        def run(f: Frame) -> None:
            f[slot] = value(f)
        return run

    def stmt_Eval(self, s: ir.Eval) -> StmtFn:
        value = self.expr(s.value)

        def run(f: Frame) -> None:
            value(f)
        return run

    def stmt_DeclareArray(self, s: ir.DeclareArray) -> StmtFn:
        m, span, slot, element = self.m, s.span, s.slot, s.element
        extents = [self.expr(e) for e in s.extents]
        init = [self.expr(e) for e in s.init] if s.init is not None else None
        zero = False if element == BOOL else 0

        def run(f: Frame) -> None:
            shape = [e(f) for e in extents]
            for d, extent in enumerate(shape):
                if extent < 0:
                    raise CintFault(OperationFault("E_SHAPE", "array.make", [(I64, d), (I64, extent)], None, (I64, 0)),
                                    span, m.step)
            count = 1
            for extent in shape:
                count *= extent
            if count > MAX_ARRAY_ELEMENTS:
                raise CintFault(OperationFault("E_UNSUPPORTED", "array.limit", [(I64, count)], None,
                                               (I64, MAX_ARRAY_ELEMENTS)), span, m.step)
            if init is None:
                values = [zero] * count
            else:
                values = [e(f) for e in init]
                if len(values) != count:
                    raise CintFault(OperationFault("E_SHAPE", "array.init", [(I64, len(values))], None,
                                                   (I64, count)), span, m.step)
            view = View.whole(Storage(element, values), shape)
            f[slot] = ArrayBinding(view, view)
        return run

    def stmt_Store(self, s: ir.Store) -> StmtFn:
        m, span = self.m, s.place.span
        array = self.view(s.array)
        indices = [self.expr(i) for i in s.indices]
        value = self.expr(s.value)

        def run(f: Frame) -> None:
            binding = array(f)
            position = [i(f) for i in indices]
            step = m.step
            m.step = step + 1
            target = binding.write
            assert target is not None, "a store into a read-only view (the analysis refuses it: C5005)"
            try:
                offset = target.offset(position)
            except OperationFault as fault:
                raise CintFault(OperationFault("E_BOUNDS", "store.checked", fault.operands, None, fault.limit),
                                span, step) from None
            target.storage.values[offset] = value(f)
        return run

    def stmt_Print(self, s: ir.Print) -> StmtFn:
        write = self.m.write
        parts: list[PrintPart] = [(p, None) if isinstance(p, str) else (self.expr(p), p.type) for p in s.parts]

        def run(f: Frame) -> None:
            write("".join(part[0] if part[1] is None else format_value(part[1], part[0](f)) for part in parts))
        return run

    def stmt_If(self, s: ir.If) -> StmtFn:
        condition, then = self.expr(s.condition), self.block(s.then)
        otherwise = self.block(s.otherwise) if s.otherwise else None

        def run(f: Frame) -> Signal:
            if condition(f):
                return then(f)
            if otherwise is not None:
                return otherwise(f)
            return None
        return run

    def stmt_Charge(self, s: ir.Charge) -> StmtFn:
        m, span = self.m, s.span

        def run(f: Frame) -> None:
            fuel = m.fuel
            if fuel.budget is not None and fuel.consumed >= fuel.budget:
                raise CintFault(fuel.exhausted(), span, m.step)
            fuel.consumed += 1
        return run

    def stmt_For(self, s: ir.For) -> StmtFn:
        slot, start, end, body = s.slot, self.expr(s.start), self.expr(s.end), self.block(s.body)

        def run(f: Frame) -> Signal:
            for value in range(start(f), end(f)):
                f[slot] = value
                signal = body(f)
                if signal is not None:
                    if signal is BREAK:
                        break
                    if signal is CONTINUE:
                        continue
                    return signal
            return None
        return run

    def stmt_While(self, s: ir.While) -> StmtFn:
        condition, body = self.expr(s.condition), self.block(s.body)

        def run(f: Frame) -> Signal:
            while condition(f):
                signal = body(f)
                if signal is not None:
                    if signal is BREAK:
                        break
                    if signal is CONTINUE:
                        continue
                    return signal
            return None
        return run

    def stmt_Switch(self, s: ir.Switch) -> StmtFn:
        value = self.expr(s.value)
        table: dict[int, StmtFn] = {}
        for labels, body in s.cases:
            compiled: StmtFn = self.block(body) if body else (lambda f: None)
            for label in labels:
                table.setdefault(label, compiled)
        default = self.block(s.default) if s.default else None

        def run(f: Frame) -> Signal:
            chosen = table.get(value(f), default)
            if chosen is None:
                return None
            signal = chosen(f)
            return None if signal is BREAK else signal  # `break` ends the switch, as in C
        return run

    def stmt_Break(self, s: ir.Break) -> StmtFn:
        return lambda f: BREAK

    def stmt_Continue(self, s: ir.Continue) -> StmtFn:
        return lambda f: CONTINUE

    def stmt_Return(self, s: ir.Return) -> StmtFn:
        if s.value is None:
            nothing = Returned(None)
            return lambda f: nothing
        value = self.expr(s.value)
        return lambda f: Returned(value(f))

    def stmt_Assert(self, s: ir.Assert) -> StmtFn:
        m, span, condition = self.m, s.span, self.expr(s.condition)

        def run(f: Frame) -> None:
            if not condition(f):
                raise CintFault(OperationFault("E_ASSERT", "assert", (), None, None), span, m.step)
        return run

    def stmt_Reduce(self, s: ir.Reduce) -> StmtFn:
        m, span, target = self.m, s.op.span, s.target
        contribution = self.expr(s.contribution)

        def run(f: Frame) -> None:
            value = contribution(f)
            step = m.step
            m.step = step + 1
            m.contribute(target, value, span, step)
        return run

    def stmt_Dispatch(self, s: ir.Dispatch) -> StmtFn:
        m = self.m
        args: list[DispatchArgFn] = []
        for arg in s.args:
            if isinstance(arg, ir.ArrayArg):
                view = self.view(arg.view)
                args.append(("array", view))
            elif isinstance(arg, ir.ScalarArg):
                args.append(("scalar", self.expr(arg.value)))
            else:
                assert isinstance(arg, ir.OutArg), f"not a dispatch argument: {arg!r}"
                args.append(("out", arg.slot))
        name, span = s.kernel, s.span

        def run(f: Frame) -> None:
            values: list[Argument] = []
            for arg in args:
                if arg[0] == "array":
                    values.append(arg[1](f).read)
                elif arg[0] == "scalar":
                    values.append(arg[1](f))
                else:
                    values.append(None)
            results = m.dispatch(name, values, span)
            for arg, result in zip(args, results):
                if arg[0] == "out":
                    f[arg[1]] = result
        return run


def observed(observer: Observer, s: ir.Stmt, fn: StmtFn) -> StmtFn:
    """`fn`, the compiled statement `s`, telling `observer` before it runs and where a
    fault is raised inside it (observer.py)."""

    def run(f: Frame) -> Signal:
        observer.statement(s, f)
        try:
            return fn(f)
        except CintFault as error:
            if not getattr(error, "observed", False):
                error.observed = True  # type: ignore[attr-defined]  # the innermost statement tells
                observer.fault(s, f, error)
            raise
    return run


def new_fold(reduction: ir.Reduction) -> FoldChecked:
    """The live accumulator of a fold_checked reduction."""
    fold = make_reducer(reduction.kind, reduction.contribution, reduction.target, reduction.init)
    assert isinstance(fold, FoldChecked), "a fold of a reduction that is not fold_checked"
    return fold
