"""Static step ordinals (SPEC-02P.1 5.4) of a kernel body's counted operations.

A work-item numbers the counted operations it evaluates from 0. Which number an
operation gets depends on the path taken to it: in the heat kernel of SPEC-02P.1 11.2,
the place `v[y, x]` is step 26 for an interior work-item and step 3 in row 0, because
`&&` and `if` skip operations. This pass propagates the set of possible counts through
the body and gives each `Counted` node the sorted tuple of ordinals it can have. Inside
a loop, or after a loop or a call that evaluates counted operations, the ordinal
depends on the run: `steps` is None there.
"""

from __future__ import annotations

from . import nodes as ir
from .walk import walk

# More possible ordinals than this and the answer is "depends on the run".
MAX_PATHS = 32

Counts = frozenset[int] | None  # None: not known statically


def _advance(counts: Counts, by: int = 1) -> Counts:
    return None if counts is None else frozenset(c + by for c in counts)


def _union(a: Counts, b: Counts) -> Counts:
    if a is not None and not a:  # an unreachable path adds nothing
        return b
    if b is not None and not b:
        return a
    if a is None or b is None:
        return None
    merged = a | b
    return merged if len(merged) <= MAX_PATHS else None


class StepAssigner:
    def __init__(self) -> None:
        self.dead: frozenset[int] = frozenset()  # the empty set: no path reaches here (after `return`)

    # ---- expressions

    def expr(self, e: ir.Expr, counts: Counts) -> Counts:
        if isinstance(e, (ir.Const, ir.Var)):
            return counts
        if isinstance(e, ir.Logic):
            when_true, when_false = self.condition(e, counts)
            return _union(when_true, when_false)
        if isinstance(e, ir.Compare):
            return self.expr(e.right, self.expr(e.left, counts))
        if isinstance(e, ir.Bitwise):
            for arg in e.args:
                counts = self.expr(arg, counts)
            return counts
        if isinstance(e, ir.Call):
            for arg in e.args:
                counts = self.expr(arg, counts)
            return None  # the callee's operations are counted in this sequence too
        if isinstance(e, ir.Load):
            counts = self.view(e.array, counts)
            for index in e.indices:
                counts = self.expr(index, counts)
            return self.count(e, counts)
        if isinstance(e, ir.Arith):
            for arg in e.args:
                counts = self.expr(arg, counts)
            return self.count(e, counts)
        if isinstance(e, ir.Convert):
            return self.count(e, self.expr(e.value, counts))
        if isinstance(e, ir.DivRound):
            return self.count(e, self.expr(e.right, self.expr(e.left, counts)))
        raise TypeError(f"no step rule for {type(e).__name__}")

    def condition(self, e: ir.Expr, counts: Counts) -> tuple[Counts, Counts]:
        """The counts after `e` when it is true and when it is false: `&&` and `||`
        skip their right side on one of the two outcomes only."""
        if not isinstance(e, ir.Logic):
            after = self.expr(e, counts)
            return after, after
        if e.op == "!":
            when_true, when_false = self.condition(e.args[0], counts)
            return when_false, when_true
        left_true, left_false = self.condition(e.args[0], counts)
        if e.op == "&&":
            right_true, right_false = self.condition(e.args[1], left_true)
            return right_true, _union(left_false, right_false)
        right_true, right_false = self.condition(e.args[1], left_false)
        return _union(left_true, right_true), right_false

    def view(self, v: ir.ViewExpr, counts: Counts) -> Counts:
        if isinstance(v, ir.Select):
            counts = self.view(v.base, counts)
            for spec in v.specs:
                if isinstance(spec, ir.SliceSpec):
                    for part in (spec.start, spec.end):
                        if part is not None:
                            counts = self.expr(part, counts)
                else:
                    counts = self.expr(spec, counts)
            return counts
        if isinstance(v, (ir.Reverse, ir.Transpose)):
            return self.view(v.base, counts)
        return counts

    def count(self, node: ir.Counted, counts: Counts) -> Counts:
        node.steps = None if counts is None else tuple(sorted(counts))
        return _advance(counts)

    # ---- statements

    def block(self, statements: list[ir.Stmt], counts: Counts) -> Counts:
        for s in statements:
            counts = self.statement(s, counts)
        return counts

    def loop(self, body: list[ir.Stmt], counts: Counts, condition: ir.Expr | None = None) -> Counts:
        """Inside a loop the ordinal depends on the iteration; after it too, unless
        neither the body nor the condition (evaluated once more) counts anything."""
        before = counts
        if condition is not None:
            self.expr(condition, None)
        self.block(body, None)
        parts = body + ([ir.Eval(body[0].span, condition)] if condition is not None and body else [])
        return before if not _counts_anything(parts) else None

    def statement(self, s: ir.Stmt, counts: Counts) -> Counts:
        if isinstance(s, ir.Assign):
            return self.expr(s.value, counts)
        if isinstance(s, ir.Eval):
            return self.expr(s.value, counts)
        if isinstance(s, ir.Store):
            counts = self.view(s.array, counts)
            for index in s.indices:
                counts = self.expr(index, counts)
            return self.expr(s.value, self.count(s.place, counts))
        if isinstance(s, ir.Reduce):
            return self.count(s.op, self.expr(s.contribution, counts))
        if isinstance(s, ir.DeclareArray):
            for e in s.extents + (s.init or []):
                counts = self.expr(e, counts)
            return counts
        if isinstance(s, ir.If):
            when_true, when_false = self.condition(s.condition, counts)
            return _union(self.block(s.then, when_true), self.block(s.otherwise, when_false))
        if isinstance(s, ir.For):
            counts = self.expr(s.end, self.expr(s.start, counts))
            return self.loop(s.body, counts)
        if isinstance(s, ir.While):
            return self.loop(s.body, counts, s.condition)
        if isinstance(s, ir.Switch):
            counts = self.expr(s.value, counts)
            out: Counts = self.block(s.default, counts) if s.default is not None else counts
            for _, body in s.cases:
                out = _union(out, self.block(body, counts))
            return out
        if isinstance(s, ir.Return):
            if s.value is not None:
                self.expr(s.value, counts)
            return self.dead
        if isinstance(s, ir.Assert):
            return self.expr(s.condition, counts)
        if isinstance(s, (ir.Charge, ir.Break, ir.Continue, ir.Print)):
            return counts
        raise TypeError(f"no step rule for {type(s).__name__}")


def _counts_anything(statements: list[ir.Stmt]) -> bool:
    """Whether running `statements` may evaluate a counted operation: one of its own,
    or a callee's (a call's operations join the caller's step sequence)."""
    return any(isinstance(node, (ir.Counted, ir.Call)) for s in statements for node in walk(s))


def assign_steps(body: list[ir.Stmt]) -> None:
    """Set `steps` on every counted operation of a kernel body."""
    StepAssigner().block(body, frozenset({0}))
