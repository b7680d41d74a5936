"""Value ranges that prove a checked operation cannot overflow, so that its check can be
left out (SPEC-02P.1 8.3 allows it: the result, and which fault occurs first, are
unchanged because there is no fault to occur).

Known ranges: a constant; a kernel's over variable, in [0, MAX(I64) - 1] (it is below
its extent, an I64); a size symbol, in [0, MAX(I64)] (an extent); an element read or a
conversion, the range of its type; a local assigned exactly once in its unit (and never
the scalar `out` argument of a dispatch, which writes it too), the range of that value;
a loop variable, [start, end - 1] of its bounds' ranges (when it runs at all its value
lies there); a checked + - * of operands with known ranges whose every result fits
its type, the range of those results; a div_round whose dividend lies in [-A, A], the
same range (|b| >= 1, so the rounded quotient is at most |a|); a scalar parameter the
fast path's `common` variant tested at the dispatch (`assumed`). Anything else is its
type's whole range.
"""

from __future__ import annotations

from ....analysis.types import FixedType, IntType, Type
from ....ir import nodes as ir
from ....ir.walk import walk

I64_MAX = (1 << 63) - 1

Range = tuple[int, int]


def _type_range(t: Type) -> Range | None:
    if isinstance(t, IntType):
        return t.min, t.max
    return None


class Ranges:
    def __init__(self, body: list[ir.Stmt], kernel: ir.Kernel | None = None,
                 assumed: dict[int, Range] | None = None) -> None:
        self.fixed: dict[int, Range] = dict(assumed or {})
        if kernel is not None:
            for slot in kernel.size_slots:
                self.fixed[slot] = (0, I64_MAX)
            for _, slot, _ in kernel.over:
                self.fixed[slot] = (0, I64_MAX - 1)
        assigned: dict[int, list[ir.Expr]] = {}
        loops: dict[int, list[ir.For]] = {}
        published: set[int] = set()  # scalar `out`/`inout` arguments: a dispatch writes them
        for statement in body:
            for node in walk(statement):
                if isinstance(node, ir.Assign):
                    assigned.setdefault(node.slot, []).append(node.value)
                elif isinstance(node, ir.For):
                    loops.setdefault(node.slot, []).append(node)
                elif isinstance(node, ir.Dispatch):
                    published.update(arg.slot for arg in node.args if isinstance(arg, ir.OutArg))
        self.single = {slot: values[0] for slot, values in assigned.items()
                       if len(values) == 1 and slot not in loops and slot not in self.fixed
                       and slot not in published}
        # A loop variable (never assigned in its body, C3006) lies in [start, end - 1].
        self.loops = {slot: found[0] for slot, found in loops.items()
                      if len(found) == 1 and slot not in assigned and slot not in self.fixed}
        self.memo: dict[int, Range | None] = {}
        self.active: set[int] = set()

    def of(self, e: ir.Expr) -> Range | None:
        """The range of `e`'s values (None: not an integer)."""
        key = id(e)
        if key in self.memo:
            return self.memo[key]
        if key in self.active:  # a cycle cannot happen for single assignments; be safe
            return _type_range(e.type)
        self.active.add(key)
        try:
            result = self._of(e)
        finally:
            self.active.discard(key)
        self.memo[key] = result
        return result

    def _of(self, e: ir.Expr) -> Range | None:
        whole = _type_range(e.type)
        if whole is None:
            return None
        if isinstance(e, ir.Const):
            return int(e.value), int(e.value)
        if isinstance(e, ir.Var):
            if e.slot in self.fixed:
                return self.fixed[e.slot]
            if e.slot in self.single:
                return self.of(self.single[e.slot]) or whole
            if e.slot in self.loops:
                start, end = self.of(self.loops[e.slot].start), self.of(self.loops[e.slot].end)
                if start is not None and end is not None and start[0] <= end[1] - 1:
                    return start[0], end[1] - 1
            return whole
        if isinstance(e, ir.Convert):
            source = self.of(e.value)
            if e.form == "checked" and source is not None:
                lo, hi = max(source[0], whole[0]), min(source[1], whole[1])
                return (lo, hi) if lo <= hi else whole
            return whole
        if isinstance(e, ir.Arith) and e.form == "checked" and len(e.args) == 2:
            exact = self.exact(e)
            if exact is not None and whole[0] <= exact[0] and exact[1] <= whole[1]:
                return exact
        if isinstance(e, ir.DivRound) and not isinstance(e.type, FixedType):
            a = self.of(e.left)
            if a is not None:
                bound = max(-a[0], a[1])
                return max(-bound, whole[0]), min(bound, whole[1])
        return whole

    def exact(self, e: ir.Arith) -> Range | None:
        """The range of the exact results of an add, sub or mul on integers."""
        if e.op not in ("add", "sub", "mul") or isinstance(e.type, FixedType):
            return None
        a, b = self.of(e.args[0]), self.of(e.args[1])
        if a is None or b is None:
            return None
        if e.op == "add":
            return a[0] + b[0], a[1] + b[1]
        if e.op == "sub":
            return a[0] - b[1], a[1] - b[0]
        products = [x * y for x in a for y in b]
        return min(products), max(products)

    def cannot_overflow(self, e: ir.Arith) -> bool:
        """A checked + - * on an integer type whose every exact result fits the type."""
        whole = _type_range(e.type)
        if whole is None or e.form != "checked":
            return False
        exact = self.exact(e)
        return exact is not None and whole[0] <= exact[0] and exact[1] <= whole[1]
