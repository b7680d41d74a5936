"""The resumable form of a function body: deep recursion without Python's stack.

The closures of `compiler.py` call a function by calling the machine, which calls the
callee's closures: one cint call nests a few Python frames. That is the fast form, and
the machine uses it for the first `NATIVE_CALLS` nested calls (machine.py). Deeper calls
run in the form compiled here, where a call does not nest at all: every closure that
contains a call is a generator, and a call *yields* a `CallRequest` to the machine's
driver loop (`Machine.run_frames`), which keeps the calls in progress in a list (an
explicit frame stack), runs the callee's resumable body, and sends its value back into
the caller. Python's stack then holds one function's statement nesting, never the
chain of calls, so the depth of a recursion is bounded by fuel and by the executors'
limit (`MAX_CALL_DEPTH`, docs/semantics.md), not by Python's recursion limit or its C
stack.

Both forms run the same operations in the same order: a closure without a call is the
plain one of `compiler.py`, wrapped; a closure with a call evaluates its parts as its
plain twin does, with `yield from` where a part contains a call. The conformance cases
run in this form too (tests/exec/test_deep_recursion.py, `native_calls=0`).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import fields, is_dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, TypeVar

from ...analysis.types import BOOL, I64, Type
from ...ir import nodes as ir
from ...vocabulary.values import format_value
from ..arith import OperationFault, binary_fn, convert_fn, div_round_fn, unary_fn
from ..dispatch import Argument
from ..runtime import CintFault
from ..views import IndexSpec, SliceSpec, Storage, Value, View
from .compiler import (
    BREAK,
    CONTINUE,
    MAX_ARRAY_ELEMENTS,
    ArrayBinding,
    Compiler,
    Frame,
    MachineLike,
    Returned,
    Signal,
    _compare,
)

if TYPE_CHECKING:
    from ...syntax.source import Span
    from .observer import Observer


class CallRequest:
    """What a resumable body yields to call a function: the machine runs it and sends
    back its value."""

    __slots__ = ("args", "name", "span")

    def __init__(self, name: str, args: list[Value], span: Span) -> None:
        self.name = name
        self.args = args
        self.span = span


T = TypeVar("T")
# The resumable closures: generators that yield a CallRequest for each call, are sent the
# call's value (None for a function without one) and return what their plain twins do
# (compiler.py: an expression's value, a statement's Signal, a view's ArrayBinding).
Resumes: TypeAlias = Generator[CallRequest, Value | None, T]
ExprGen: TypeAlias = Callable[[Frame], Resumes[Any]]
StmtGen: TypeAlias = Callable[[Frame], Resumes[Signal]]
ViewGen: TypeAlias = Callable[[Frame], Resumes[ArrayBinding]]
# A unit's resumable body running (Machine.run_frames's stack).
Body: TypeAlias = Resumes[Signal]
DispatchArgGen: TypeAlias = (tuple[Literal["array"], ViewGen] | tuple[Literal["scalar"], ExprGen]
                             | tuple[Literal["out"], int])
PrintPart: TypeAlias = tuple[str, None] | tuple[ExprGen, Type]


def nodes_with_calls(statements: list[ir.Stmt]) -> set[int]:
    """The ids of the IR nodes (statements, expressions, views, dispatch arguments,
    slice specs) under `statements` that contain a Call, found without recursion."""
    with_calls: set[int] = set()
    # Post-order over an explicit stack: (node, parent id or None, children pushed?).
    stack: list[tuple[object, int | None, bool]] = [(s, None, False) for s in statements]
    while stack:
        node, parent, expanded = stack.pop()
        if expanded:
            if isinstance(node, ir.Call) or id(node) in with_calls:
                with_calls.add(id(node))
                if parent is not None:
                    with_calls.add(parent)
            continue
        stack.append((node, parent, True))
        for child in _children(node):
            stack.append((child, id(node), False))
    return with_calls


_NOT_PARTS = frozenset({"type", "span", "operands", "faults", "steps", "place", "op", "element", "source"})


def _children(node: object) -> list[object]:
    """The parts of an IR node that may hold a call (a Store's place and a Reduce's
    operation are descriptions, types are not parts)."""
    out: list[object] = []
    for f in fields(node):  # type: ignore[arg-type]
        if f.name in _NOT_PARTS:
            continue
        value = getattr(node, f.name)
        if isinstance(value, (list, tuple)):
            for item in value:
                if isinstance(item, tuple):  # Switch cases: (labels, body)
                    out.extend(x for part in item if isinstance(part, list) for x in part if is_dataclass(x))
                elif is_dataclass(item):
                    out.append(item)
        elif is_dataclass(value):
            out.append(value)
    return out


def _lift(plain: Callable[[Frame], T]) -> Callable[[Frame], Resumes[T]]:
    """A generator function that runs a plain closure (a part without a call)."""

    def run(f: Frame) -> Resumes[T]:
        return plain(f)
        yield

    return run


def _observed(observer: Observer, s: ir.Stmt, fn: StmtGen) -> StmtGen:
    """compiler.observed for a resumable statement (one with a call)."""

    def run(f: Frame) -> Resumes[Signal]:
        observer.statement(s, f)
        try:
            return (yield from fn(f))
        except CintFault as error:
            if not getattr(error, "observed", False):
                error.observed = True  # type: ignore[attr-defined]  # the innermost statement tells
                observer.fault(s, f, error)
            raise
    return run


class ResumableCompiler:
    """Compiles a unit's body to generator closures (see the module's text); the
    parts without a call are `plain`'s closures."""

    def __init__(self, machine: MachineLike, plain: Compiler) -> None:
        self.m = machine
        self.plain = plain
        self.calls: set[int] = set()

    def unit(self, body: list[ir.Stmt]) -> StmtGen:
        self.calls = nodes_with_calls(body)
        return self.block(body)

    # ------------------------------------------------------------------ helpers

    def _counted(self, fn: Callable[..., int], span: Span) -> Callable[..., int]:
        m = self.m

        def apply(*values: int) -> int:
            step = m.step
            m.step = step + 1
            try:
                return fn(*values)
            except OperationFault as fault:
                raise CintFault(fault, span, step) from None
        return apply

    @staticmethod
    def _then(parts: Sequence[ExprGen], apply: Callable[..., T]) -> Callable[[Frame], Resumes[T]]:
        """Evaluate `parts` in order, then `apply` to their values."""
        if len(parts) == 1:
            (a,) = parts

            def run1(f: Frame) -> Resumes[T]:
                return apply((yield from a(f)))
            return run1
        if len(parts) == 2:
            left, right = parts

            def run2(f: Frame) -> Resumes[T]:
                x = yield from left(f)
                return apply(x, (yield from right(f)))
            return run2

        def run(f: Frame) -> Resumes[T]:
            values = []
            for part in parts:
                values.append((yield from part(f)))
            return apply(*values)
        return run

    # ------------------------------------------------------------------ expressions

    def expr(self, e: ir.Expr) -> ExprGen:
        if id(e) not in self.calls:
            return _lift(self.plain.expr(e))
        fn: ExprGen = getattr(self, "expr_" + type(e).__name__)(e)
        return fn

    def expr_Arith(self, e: ir.Arith) -> ExprGen:
        fn: Callable[..., int]
        if len(e.args) == 1:
            fn = unary_fn(e.op, e.type)
        else:
            fn = binary_fn(e.op, e.form, e.type)
        return self._then([self.expr(a) for a in e.args], self._counted(fn, e.span))

    def expr_Convert(self, e: ir.Convert) -> ExprGen:
        return self._then([self.expr(e.value)], self._counted(convert_fn(e.source, e.type, e.form), e.span))

    def expr_DivRound(self, e: ir.DivRound) -> ExprGen:
        return self._then([self.expr(e.left), self.expr(e.right)],
                          self._counted(div_round_fn(e.type, e.mode), e.span))

    def expr_Load(self, e: ir.Load) -> ExprGen:
        m, span = self.m, e.span
        array = self.view(e.array)
        indices = [self.expr(i) for i in e.indices]

        def run(f: Frame) -> Resumes[Value]:
            view = (yield from array(f)).read
            position = []
            for i in indices:
                position.append((yield from i(f)))
            step = m.step
            m.step = step + 1
            try:
                return view.read(position)
            except OperationFault as fault:
                raise CintFault(fault, span, step) from None
        return run

    def expr_Bitwise(self, e: ir.Bitwise) -> ExprGen:
        fn: Callable[..., int]
        if e.op == "~":
            fn = unary_fn("not", e.type)
        else:
            fn = binary_fn({"&": "and", "|": "or", "^": "xor"}[e.op], None, e.type)
        return self._then([self.expr(a) for a in e.args], fn)

    def expr_Compare(self, e: ir.Compare) -> ExprGen:
        return self._then([self.expr(e.left), self.expr(e.right)], _compare(e.op))

    def expr_Logic(self, e: ir.Logic) -> ExprGen:
        args = [self.expr(a) for a in e.args]
        if e.op == "!":
            return self._then(args, lambda x: not x)
        left, right = args
        if e.op == "&&":
            def run_and(f: Frame) -> Resumes[Any]:
                return (yield from left(f)) and (yield from right(f))
            return run_and

        def run_or(f: Frame) -> Resumes[Any]:
            return (yield from left(f)) or (yield from right(f))
        return run_or

    def expr_Call(self, e: ir.Call) -> ExprGen:
        name, span = e.function, e.span
        args = [self.expr(a) for a in e.args]

        def run(f: Frame) -> Resumes[Value | None]:
            values = []
            for a in args:
                values.append((yield from a(f)))
            return (yield CallRequest(name, values, span))
        return run

    # ------------------------------------------------------------------ views

    def view(self, v: ir.ViewExpr) -> ViewGen:
        if id(v) not in self.calls:
            return _lift(self.plain.view(v))
        assert isinstance(v, (ir.Select, ir.Reverse, ir.Transpose)), f"a call in a view expression {v!r}"
        base = self.view(v.base)
        m, span = self.m, v.span
        if isinstance(v, ir.Select):
            specs: list[tuple[ExprGen | None, ExprGen | None, int] | ExprGen] = [
                (self.bound(s.start), self.bound(s.end), s.step) if isinstance(s, ir.SliceSpec) else self.expr(s)
                for s in v.specs
            ]

            def select(f: Frame) -> Resumes[ArrayBinding]:
                binding = yield from base(f)
                made: list[IndexSpec] = []
                for spec in specs:
                    if isinstance(spec, tuple):
                        start, end, step = spec
                        lo = (yield from start(f)) if start else None
                        hi = (yield from end(f)) if end else None
                        made.append(SliceSpec(lo, hi, step))
                    else:
                        made.append((yield from spec(f)))
                made += [SliceSpec()] * (binding.read.rank - len(made))
                try:
                    return ArrayBinding(binding.read.select(made), None)
                except OperationFault as fault:
                    raise CintFault(fault, span, m.step) from None
            return select
        if isinstance(v, ir.Reverse):
            d = v.dimension
            return self._then([base], lambda b: ArrayBinding(b.read.reverse(d), None))
        return self._then([base], lambda b: ArrayBinding(b.read.transpose(), None))

    def bound(self, e: ir.Expr | None) -> ExprGen | None:
        """A slice's start or end: its closure, None where it is left out."""
        return None if e is None else self.expr(e)

    # ------------------------------------------------------------------ statements

    def block(self, statements: list[ir.Stmt]) -> StmtGen:
        runs = [self.statement(s) for s in statements]
        if len(runs) == 1:
            return runs[0]

        def run(f: Frame) -> Resumes[Signal]:
            for statement in runs:
                signal = yield from statement(f)
                if signal is not None:
                    return signal
            return None
        return run

    def statement(self, s: ir.Stmt) -> StmtGen:
        if id(s) not in self.calls:
            return _lift(self.plain.statement(s))  # told to the observer by the plain compiler
        fn: StmtGen = getattr(self, "stmt_" + type(s).__name__)(s)
        observer = self.plain.observer
        if observer is not None and not isinstance(s, ir.Charge):
            return _observed(observer, s, fn)
        return fn

    def stmt_Assign(self, s: ir.Assign) -> StmtGen:
        slot, value = s.slot, self.expr(s.value)

        def run(f: Frame) -> Resumes[None]:
            f[slot] = yield from value(f)
        return run

    def stmt_Eval(self, s: ir.Eval) -> StmtGen:
        value = self.expr(s.value)

        def run(f: Frame) -> Resumes[None]:
            yield from value(f)
        return run

    def stmt_DeclareArray(self, s: ir.DeclareArray) -> StmtGen:
        m, span, slot, element = self.m, s.span, s.slot, s.element
        extents = [self.expr(e) for e in s.extents]
        init = [self.expr(e) for e in s.init] if s.init is not None else None
        zero = False if element == BOOL else 0

        def run(f: Frame) -> Resumes[None]:
            shape = []
            for e in extents:
                shape.append((yield from e(f)))
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
                values = []
                for e in init:
                    values.append((yield from e(f)))
                if len(values) != count:
                    raise CintFault(OperationFault("E_SHAPE", "array.init", [(I64, len(values))], None,
                                                   (I64, count)), span, m.step)
            view = View.whole(Storage(element, values), shape)
            f[slot] = ArrayBinding(view, view)
        return run

    def stmt_Store(self, s: ir.Store) -> StmtGen:
        m, span = self.m, s.place.span
        array = self.view(s.array)
        indices = [self.expr(i) for i in s.indices]
        value = self.expr(s.value)

        def run(f: Frame) -> Resumes[None]:
            binding = yield from array(f)
            position = []
            for i in indices:
                position.append((yield from i(f)))
            step = m.step
            m.step = step + 1
            target = binding.write
            assert target is not None, "a store into a read-only view (the analysis refuses it: C5005)"
            try:
                offset = target.offset(position)
            except OperationFault as fault:
                raise CintFault(OperationFault("E_BOUNDS", "store.checked", fault.operands, None, fault.limit),
                                span, step) from None
            target.storage.values[offset] = yield from value(f)
        return run

    def stmt_Print(self, s: ir.Print) -> StmtGen:
        write = self.m.write
        parts: list[PrintPart] = [(p, None) if isinstance(p, str) else (self.expr(p), p.type) for p in s.parts]

        def run(f: Frame) -> Resumes[None]:
            text = []
            for part in parts:
                text.append(part[0] if part[1] is None else format_value(part[1], (yield from part[0](f))))
            write("".join(text))
        return run

    def stmt_If(self, s: ir.If) -> StmtGen:
        condition, then = self.expr(s.condition), self.block(s.then)
        otherwise = self.block(s.otherwise) if s.otherwise else None

        def run(f: Frame) -> Resumes[Signal]:
            if (yield from condition(f)):
                return (yield from then(f))
            if otherwise is not None:
                return (yield from otherwise(f))
            return None
        return run

    def stmt_For(self, s: ir.For) -> StmtGen:
        slot, start, end, body = s.slot, self.expr(s.start), self.expr(s.end), self.block(s.body)

        def run(f: Frame) -> Resumes[Signal]:
            low = yield from start(f)
            for value in range(low, (yield from end(f))):
                f[slot] = value
                signal = yield from body(f)
                if signal is not None:
                    if signal is BREAK:
                        break
                    if signal is CONTINUE:
                        continue
                    return signal
            return None
        return run

    def stmt_While(self, s: ir.While) -> StmtGen:
        condition, body = self.expr(s.condition), self.block(s.body)

        def run(f: Frame) -> Resumes[Signal]:
            while (yield from condition(f)):
                signal = yield from body(f)
                if signal is not None:
                    if signal is BREAK:
                        break
                    if signal is CONTINUE:
                        continue
                    return signal
            return None
        return run

    def stmt_Switch(self, s: ir.Switch) -> StmtGen:
        value = self.expr(s.value)
        table: dict[int, StmtGen] = {}
        for labels, body in s.cases:
            compiled = self.block(body) if body else _lift(lambda f: None)
            for label in labels:
                table.setdefault(label, compiled)
        default = self.block(s.default) if s.default else None

        def run(f: Frame) -> Resumes[Signal]:
            chosen = table.get((yield from value(f)), default)
            if chosen is None:
                return None
            signal = yield from chosen(f)
            return None if signal is BREAK else signal  # `break` ends the switch, as in C
        return run

    def stmt_Return(self, s: ir.Return) -> StmtGen:
        assert s.value is not None, "a return without a value holds no call"
        value = self.expr(s.value)

        def run(f: Frame) -> Resumes[Signal]:
            return Returned((yield from value(f)))
        return run

    def stmt_Assert(self, s: ir.Assert) -> StmtGen:
        m, span, condition = self.m, s.span, self.expr(s.condition)

        def run(f: Frame) -> Resumes[None]:
            if not (yield from condition(f)):
                raise CintFault(OperationFault("E_ASSERT", "assert", (), None, None), span, m.step)
        return run

    def stmt_Reduce(self, s: ir.Reduce) -> StmtGen:
        m, span, target = self.m, s.op.span, s.target
        contribution = self.expr(s.contribution)

        def run(f: Frame) -> Resumes[None]:
            value = yield from contribution(f)
            step = m.step
            m.step = step + 1
            m.contribute(target, value, span, step)
        return run

    def stmt_Dispatch(self, s: ir.Dispatch) -> StmtGen:
        m = self.m
        args: list[DispatchArgGen] = []
        for arg in s.args:
            if isinstance(arg, ir.ArrayArg):
                args.append(("array", self.view(arg.view)))
            elif isinstance(arg, ir.ScalarArg):
                args.append(("scalar", self.expr(arg.value)))
            else:
                assert isinstance(arg, ir.OutArg), f"not a dispatch argument: {arg!r}"
                args.append(("out", arg.slot))
        name, span = s.kernel, s.span

        def run(f: Frame) -> Resumes[None]:
            values: list[Argument] = []
            for arg in args:
                if arg[0] == "array":
                    values.append((yield from arg[1](f)).read)
                elif arg[0] == "scalar":
                    values.append((yield from arg[1](f)))
                else:
                    values.append(None)
            results = m.dispatch(name, values, span)
            for arg, result in zip(args, results):
                if arg[0] == "out":
                    f[arg[1]] = result
        return run
