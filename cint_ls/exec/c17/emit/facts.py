"""Facts about a kernel's over variables, to leave out index checks that cannot fail.

An over variable v satisfies 0 <= v < its extent; inside `if (c) { ... }`, every `&&`
conjunct of c that compares v with a constant or with `S`, `S + c`, `S - c` (S a size
symbol) holds too, since over variables and size symbols are never assigned in a body.
An index v, v + k or v - k into a dimension whose extent is S is in range when these
facts bound it within [0, S - 1]: its check can never fail, so the emitter leaves it
out (the operation still counts as a step).
"""

from __future__ import annotations

from ....ir import nodes as ir

Bounds = tuple[int, dict[int, int]]  # lo <= v, and v <= S + c for each (size slot S: c)


class Facts:
    def __init__(self, kernel: ir.Kernel | None) -> None:
        self.kernel = kernel
        self.stack: list[dict[int, Bounds]] = []

    def push(self, condition: ir.Expr) -> None:
        """Enter the `then` block of an `if` on `condition`."""
        self.stack.append(self.condition_facts(condition))

    def pop(self) -> None:
        self.stack.pop()

    def over_bounds(self, slot: int) -> tuple[int, dict[int, int]] | None:
        """(lo, {size slot S: c}) with lo <= v and v <= S + c for each S, for an over
        variable v: 0 <= v < its extent, narrowed by the conditions of the enclosing
        `if`s (over variables and size symbols are never assigned in a body)."""
        kernel = self.kernel
        if kernel is None:
            return None
        for _, over_slot, bound in kernel.over:  # noqa: B007 - the bound is read after the break
            if over_slot == slot:
                break
        else:
            return None
        lo, hi = 0, {}
        if isinstance(bound, ir.Var) and bound.slot in kernel.size_slots:
            hi[bound.slot] = -1
        for facts in self.stack:
            if slot in facts:
                flo, fhi = facts[slot]
                lo = max(lo, flo)
                for size, c in fhi.items():
                    hi[size] = min(hi.get(size, c), c)
        return lo, hi

    def condition_facts(self, e: ir.Expr) -> dict[int, tuple[int, dict[int, int]]]:
        """What a true condition says about over variables: each `&&` conjunct that
        compares an over variable with a constant or with `S`, `S + c`, `S - c`."""
        kernel = self.kernel
        facts: dict[int, tuple[int, dict[int, int]]] = {}
        if kernel is None:
            return facts
        over = {slot for _, slot, _ in kernel.over}
        conjuncts, pending = [], [e]
        while pending:
            c = pending.pop()
            if isinstance(c, ir.Logic) and c.op == "&&":
                pending += c.args
            elif isinstance(c, ir.Compare):
                conjuncts.append(c)
        flip = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
        for c in conjuncts:
            op, left, right = c.op, c.left, c.right
            if not (isinstance(left, ir.Var) and left.slot in over):
                op, left, right = flip[op], right, left
            if not (isinstance(left, ir.Var) and left.slot in over) or op == "!=":
                continue
            lo, hi = facts.get(left.slot, (0, {}))
            hi = dict(hi)
            symbolic = _size_plus_constant(right, kernel.size_slots)
            if isinstance(right, ir.Const):
                k = int(right.value)
                if op in (">", ">=", "=="):
                    lo = max(lo, k + 1 if op == ">" else k)
            elif symbolic is not None:
                size, k = symbolic
                if op in ("<", "<=", "=="):
                    bound = k - 1 if op == "<" else k
                    hi[size] = min(hi.get(size, bound), bound)
            facts[left.slot] = (lo, hi)
        return facts

    def in_range(self, param: int, d: int, index: ir.Expr) -> bool:
        """Whether `index` is provably within dimension d of the parameter, whose extent
        is a bare size symbol S (entry check 5 made them equal): it is an over variable
        v, or v + k or v - k (evaluated exactly, else it would have faulted first), with
        lo(v) + k >= 0 and v + k <= S - 1 by the facts. `u[y, x]` in `over [y: h, x: w]`
        with `u: I32[h, w]`, and `u[y - 1, x]` inside `if (y > 0 && ...)`, qualify. Such
        a check can never fail, so it is left out."""
        kernel = self.kernel
        if kernel is None:
            return False
        extent = kernel.params[param].extents[d]  # type: ignore[index]
        if extent.size is None or extent.offset != 0:
            return False
        size_slot = kernel.size_slots[extent.size]
        delta = 0
        if isinstance(index, ir.Arith) and index.op in ("add", "sub") and index.form == "checked":
            a, b = index.args
            if index.op == "add" and isinstance(a, ir.Const):
                a, b = b, a
            if not (isinstance(a, ir.Var) and isinstance(b, ir.Const)):
                return False
            delta = int(b.value) if index.op == "add" else -int(b.value)
            index = a
        if not isinstance(index, ir.Var):
            return False
        bounds = self.over_bounds(index.slot)
        if bounds is None:
            return False
        lo, hi = bounds
        return lo + delta >= 0 and size_slot in hi and hi[size_slot] + delta <= -1


def _size_plus_constant(e: ir.Expr, size_slots: list[int]) -> tuple[int, int] | None:
    """(S, c) for an expression `S`, `S + c`, `c + S` or `S - c` of a size symbol S."""
    if isinstance(e, ir.Var) and e.slot in size_slots:
        return e.slot, 0
    if isinstance(e, ir.Arith) and e.op in ("add", "sub") and e.form == "checked":
        a, b = e.args
        if e.op == "add" and isinstance(a, ir.Const):
            a, b = b, a
        if isinstance(a, ir.Var) and a.slot in size_slots and isinstance(b, ir.Const):
            return a.slot, int(b.value) if e.op == "add" else -int(b.value)
    return None
