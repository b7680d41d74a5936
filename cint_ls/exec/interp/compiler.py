"""cpu-sir-interp compiles each IR unit once into Python closures, then runs them.

The closures are the IR run as it stands: one closure per node, counted operations
numbered at run time (the machine's `step`), fuel charged where the IR says. A
statement closure returns None to go on, BREAK or CONTINUE, or a `Returned` value.
"""

from __future__ import annotations

from ...analysis.types import BOOL, I64
from ...ir import nodes as ir
from ...vocabulary.values import format_value
from ..arith import FoldChecked, OperationFault, binary_fn, convert_fn, div_round_fn, make_reducer, unary_fn
from ..runtime import CintFault
from ..views import SliceSpec, Storage, View

BREAK = object()
CONTINUE = object()

MAX_ARRAY_ELEMENTS = 1 << 28  # a local array larger than this is refused (E_UNSUPPORTED)


class Returned:
    __slots__ = ("value",)

    def __init__(self, value) -> None:
        self.value = value


class ArrayBinding:
    """An array variable or kernel parameter: the view reads go to and the view
    writes go to (an out or inout kernel parameter writes its staging)."""

    __slots__ = ("read", "write")

    def __init__(self, read: View, write: View | None) -> None:
        self.read = read
        self.write = write


def _compare(op: str):
    return {
        "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
        "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
    }[op]


class Compiler:
    """Compiles the units of one program against one machine (`m`: step, fuel,
    output, calls and dispatches)."""

    def __init__(self, machine) -> None:
        self.m = machine

    # ------------------------------------------------------------------ expressions

    def expr(self, e: ir.Expr):
        return getattr(self, "expr_" + type(e).__name__)(e)

    def expr_Const(self, e: ir.Const):
        value = e.value
        return lambda f: value

    def expr_Var(self, e: ir.Var):
        slot = e.slot
        return lambda f: f[slot]

    def expr_Arith(self, e: ir.Arith):
        m, span = self.m, e.span
        args = [self.expr(a) for a in e.args]
        if len(args) == 1:
            fn = unary_fn(e.op, e.type)
            (a,) = args

            def run_unary(f):
                x = a(f)
                step = m.step
                m.step = step + 1
                try:
                    return fn(x)
                except OperationFault as fault:
                    raise CintFault(fault, span, step) from None
            return run_unary
        fn = binary_fn(e.op, e.form, e.type)
        left, right = args

        def run_binary(f):
            x = left(f)
            y = right(f)
            step = m.step
            m.step = step + 1
            try:
                return fn(x, y)
            except OperationFault as fault:
                raise CintFault(fault, span, step) from None
        return run_binary

    def expr_Convert(self, e: ir.Convert):
        m, span = self.m, e.span
        fn = convert_fn(e.source, e.type, e.form)
        value = self.expr(e.value)

        def run(f):
            x = value(f)
            step = m.step
            m.step = step + 1
            try:
                return fn(x)
            except OperationFault as fault:
                raise CintFault(fault, span, step) from None
        return run

    def expr_DivRound(self, e: ir.DivRound):
        m, span = self.m, e.span
        fn = div_round_fn(e.type, e.mode)
        left, right = self.expr(e.left), self.expr(e.right)

        def run(f):
            x = left(f)
            y = right(f)
            step = m.step
            m.step = step + 1
            try:
                return fn(x, y)
            except OperationFault as fault:
                raise CintFault(fault, span, step) from None
        return run

    def expr_Load(self, e: ir.Load):
        m, span = self.m, e.span
        array = self.view(e.array)
        indices = [self.expr(i) for i in e.indices]

        def run(f):
            view = array(f).read
            position = [i(f) for i in indices]
            step = m.step
            m.step = step + 1
            try:
                return view.read(position)
            except OperationFault as fault:
                raise CintFault(fault, span, step) from None
        return run

    def expr_Bitwise(self, e: ir.Bitwise):
        args = [self.expr(a) for a in e.args]
        if e.op == "~":
            fn = unary_fn("not", e.type)
            (a,) = args
            return lambda f: fn(a(f))
        fn = binary_fn({"&": "and", "|": "or", "^": "xor"}[e.op], None, e.type)
        left, right = args
        return lambda f: fn(left(f), right(f))

    def expr_Compare(self, e: ir.Compare):
        compare = _compare(e.op)
        left, right = self.expr(e.left), self.expr(e.right)
        return lambda f: compare(left(f), right(f))

    def expr_Logic(self, e: ir.Logic):
        args = [self.expr(a) for a in e.args]
        if e.op == "!":
            (a,) = args
            return lambda f: not a(f)
        left, right = args
        if e.op == "&&":
            return lambda f: left(f) and right(f)
        return lambda f: left(f) or right(f)

    def expr_Call(self, e: ir.Call):
        m, span, name = self.m, e.span, e.function
        args = [self.expr(a) for a in e.args]
        return lambda f: m.call(name, [a(f) for a in args], span)

    # ------------------------------------------------------------------ views

    def view(self, v: ir.ViewExpr):
        """A closure giving the ArrayBinding of a view expression."""
        if isinstance(v, ir.ArrayVar):
            slot = v.slot
            return lambda f: f[slot]
        base = self.view(v.base)
        m, span = self.m, v.span
        if isinstance(v, ir.Select):
            specs = [
                (s.start and self.expr(s.start), s.end and self.expr(s.end), s.step) if isinstance(s, ir.SliceSpec)
                else self.expr(s)
                for s in v.specs
            ]

            def select(f):
                binding = base(f)
                made = []
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

    # ------------------------------------------------------------------ statements

    def block(self, statements: list[ir.Stmt]):
        runs = [self.statement(s) for s in statements]
        if len(runs) == 1:
            return runs[0]

        def run(f):
            for statement in runs:
                signal = statement(f)
                if signal is not None:
                    return signal
            return None
        return run

    def statement(self, s: ir.Stmt):
        return getattr(self, "stmt_" + type(s).__name__)(s)

    def stmt_Assign(self, s: ir.Assign):
        slot, value = s.slot, self.expr(s.value)

        def run(f):
            f[slot] = value(f)
        return run

    def stmt_Eval(self, s: ir.Eval):
        value = self.expr(s.value)

        def run(f):
            value(f)
        return run

    def stmt_DeclareArray(self, s: ir.DeclareArray):
        m, span, slot, element = self.m, s.span, s.slot, s.element
        extents = [self.expr(e) for e in s.extents]
        init = [self.expr(e) for e in s.init] if s.init is not None else None
        zero = False if element == BOOL else 0

        def run(f):
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

    def stmt_Store(self, s: ir.Store):
        m, span = self.m, s.place.span
        array = self.view(s.array)
        indices = [self.expr(i) for i in s.indices]
        value = self.expr(s.value)

        def run(f):
            binding = array(f)
            position = [i(f) for i in indices]
            step = m.step
            m.step = step + 1
            target = binding.write
            try:
                offset = target.offset(position)
            except OperationFault as fault:
                raise CintFault(OperationFault("E_BOUNDS", "store.checked", fault.operands, None, fault.limit),
                                span, step) from None
            target.storage.values[offset] = value(f)
        return run

    def stmt_Print(self, s: ir.Print):
        write = self.m.write
        parts = [(p, None) if isinstance(p, str) else (self.expr(p), p.type) for p in s.parts]

        def run(f):
            write("".join(p if t is None else format_value(t, p(f)) for p, t in parts))
        return run

    def stmt_If(self, s: ir.If):
        condition, then = self.expr(s.condition), self.block(s.then)
        otherwise = self.block(s.otherwise) if s.otherwise else None

        def run(f):
            if condition(f):
                return then(f)
            if otherwise is not None:
                return otherwise(f)
            return None
        return run

    def stmt_Charge(self, s: ir.Charge):
        m, span = self.m, s.span

        def run(f):
            fuel = m.fuel
            if fuel.budget is not None and fuel.consumed >= fuel.budget:
                raise CintFault(fuel.exhausted(), span, m.step)
            fuel.consumed += 1
        return run

    def stmt_For(self, s: ir.For):
        slot, start, end, body = s.slot, self.expr(s.start), self.expr(s.end), self.block(s.body)

        def run(f):
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

    def stmt_While(self, s: ir.While):
        condition, body = self.expr(s.condition), self.block(s.body)

        def run(f):
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

    def stmt_Switch(self, s: ir.Switch):
        value = self.expr(s.value)
        table = {}
        for labels, body in s.cases:
            compiled = self.block(body) if body else (lambda f: None)
            for label in labels:
                table.setdefault(label, compiled)
        default = self.block(s.default) if s.default else None

        def run(f):
            chosen = table.get(value(f), default)
            if chosen is None:
                return None
            signal = chosen(f)
            return None if signal is BREAK else signal  # `break` ends the switch, as in C
        return run

    def stmt_Break(self, s):
        return lambda f: BREAK

    def stmt_Continue(self, s):
        return lambda f: CONTINUE

    def stmt_Return(self, s: ir.Return):
        if s.value is None:
            nothing = Returned(None)
            return lambda f: nothing
        value = self.expr(s.value)
        return lambda f: Returned(value(f))

    def stmt_Assert(self, s: ir.Assert):
        m, span, condition = self.m, s.span, self.expr(s.condition)

        def run(f):
            if not condition(f):
                raise CintFault(OperationFault("E_ASSERT", "assert", (), None, None), span, m.step)
        return run

    def stmt_Reduce(self, s: ir.Reduce):
        m, span, target = self.m, s.op.span, s.target
        contribution = self.expr(s.contribution)

        def run(f):
            value = contribution(f)
            step = m.step
            m.step = step + 1
            m.contribute(target, value, span, step)
        return run

    def stmt_Dispatch(self, s: ir.Dispatch):
        m = self.m
        args = []
        for arg in s.args:
            if isinstance(arg, ir.ArrayArg):
                view = self.view(arg.view)
                args.append(("array", view))
            elif isinstance(arg, ir.ScalarArg):
                args.append(("scalar", self.expr(arg.value)))
            else:
                args.append(("out", arg.slot))
        name, span = s.kernel, s.span

        def run(f):
            values = []
            for kind, get in args:
                if kind == "array":
                    values.append(get(f).read)
                elif kind == "scalar":
                    values.append(get(f))
                else:
                    values.append(None)
            results = m.dispatch(name, values, span)
            for (kind, slot), result in zip(args, results):
                if kind == "out":
                    f[slot] = result
        return run


def new_fold(reduction: ir.Reduction) -> FoldChecked:
    """The live accumulator of a fold_checked reduction."""
    fold = make_reducer(reduction.kind, reduction.contribution, reduction.target, reduction.init)
    assert isinstance(fold, FoldChecked), "a fold of a reduction that is not fold_checked"
    return fold
