"""A kernel in C: its entry-phase functions (over extents, where sides), its fast path
(`run`, every work-item without counting steps), its counting variant (`describe`, one
work-item with the complete fault record) and its tables (cint_kernel of cint_rt.h).

The fast path is tuned without changing any outcome:
- an array parameter's extent that is a bare size symbol is that size (entry check 5
  made them equal), and so is an over extent that is a bare size symbol: one variable;
- an index that is an over variable ranging over the dimension's own size symbol is
  not checked (it cannot be out of range; unit.py `in_range`);
- two variants, chosen at each dispatch: `common` when every view read is row-major
  dense (offsets by Horner's rule over the extents, like hand-written `y * w + x`),
  every uniform divisor (a scalar in parameter) is neither 0 nor -1 (its division needs
  no test) and every uniform factor (a scalar in parameter multiplied by a value of
  known range) lies within a bound that keeps its products, and what they flow into,
  provably in range (their checks are left out), and `general` for every other case; a
  staging is always dense;
- a sum of contributions of up to 64 bits is held in locals, as a 64-bit partial sum
  folded into the 128-bit total when it would overflow; its count is the number of
  work-items when the reduce statement is unconditional;
- the work-item index is computed from the over variables only at a fault;
- `run` takes a range of work-items [first, end) (a chunk, when a pool of threads runs
  the dispatch: rt/pool.c): the index tuple of `first` is computed once, and the
  innermost over variable runs along each row of the range, the outer ones carried.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ....analysis.types import I64, IntType, Type
from ....ir import nodes as ir
from ....ir.walk import walk
from .ctypes import (
    NARROW_ITEMS,
    EmitError,
    bits,
    c_string,
    c_type,
    constant,
    initializer,
    is_narrow,
    is_small,
    signed,
    type_code,
)
from .ranges import Ranges
from .unit import (
    COUNT,
    FAST,
    FULL,
    MAX_RANK,
    REDUCTIONS,
    ArraySlot,
    KernelParamAccess,
    ProgramTables,
    SlotTypes,
    UnitEmitter,
)

MAX_PARAMS = 64
MAX_SIZES = 16
COMPARE_OPS = {"==": "CINT_CMP_EQ", "!=": "CINT_CMP_NE", "<": "CINT_CMP_LT", "<=": "CINT_CMP_LE",
               ">": "CINT_CMP_GT", ">=": "CINT_CMP_GE"}


def charges(kernel: ir.Kernel) -> bool:
    return any(isinstance(n, (ir.Charge, ir.Call)) for s in kernel.body for n in walk(s))


def _unconditional(kernel: ir.Kernel, match: Callable[[ir.Stmt], bool]) -> bool:
    """Whether a top-level statement of the body matches, with no `return` before it:
    every work-item that completes executes it."""
    for statement in kernel.body:
        if match(statement):
            return True
        if any(isinstance(node, ir.Return) for node in walk(statement)):
            return False
    return False


def overwritten(kernel: ir.Kernel, param: ir.KernelParam) -> bool:
    """Whether every work-item that completes stores `param` at its own index tuple: an
    out array of the over clause's rank, stored at exactly the over variables by an
    unconditional statement."""
    if param.mode != "out" or param.extents is None or len(param.extents) != len(kernel.over):
        return False
    over = [slot for _, slot, _ in kernel.over]
    return _unconditional(kernel, lambda s: isinstance(s, ir.Store) and isinstance(s.array, ir.ArrayVar)
                          and s.array.slot == param.slot
                          and [i.slot if isinstance(i, ir.Var) else None for i in s.indices] == over)


def _factor_type(param: ir.KernelParam) -> IntType:
    """A uniform factor's type: `_uniform_factors` takes integer parameters only."""
    t = param.type
    assert isinstance(t, IntType), "a uniform factor is an integer"
    return t


def _reduces(target: int) -> Callable[[ir.Stmt], bool]:
    """Whether a statement is the `reduce` of parameter `target`."""
    return lambda s: isinstance(s, ir.Reduce) and s.target == target


class KernelEmitter:
    def __init__(self, program: ProgramTables, kernel: ir.Kernel) -> None:
        self.p = program
        self.kernel = kernel
        self.name = program.kernel_c_name(kernel)
        if len(kernel.params) > MAX_PARAMS:
            raise EmitError(f"cpu-c17 supports kernels of up to {MAX_PARAMS} parameters")
        if len(kernel.sizes) > MAX_SIZES:
            raise EmitError(f"cpu-c17 supports kernels of up to {MAX_SIZES} size symbols")
        if len(kernel.over) > MAX_RANK:
            raise EmitError(f"cpu-c17 supports iteration spaces of up to {MAX_RANK} dimensions")
        for param in kernel.params:
            if param.extents is not None and len(param.extents) > MAX_RANK:
                raise EmitError(f"cpu-c17 supports arrays of rank up to {MAX_RANK}")

    def prototypes(self) -> list[str]:
        n = self.name
        out = [f"static int {n}_over(cint_ctx *ctx, const int64_t *sizes, int32_t which, int64_t *result);"]
        if self.kernel.where:
            out.append(f"static int {n}_where(cint_ctx *ctx, const int64_t *sizes, int32_t which, "
                       "int64_t *left, int64_t *right);")
        out.append(f"static int {n}_run(cint_ctx *ctx, cint_plan *plan, int64_t cint_first, int64_t cint_end, "
                   "int64_t *item);")
        out.append(f"static int {n}_describe(cint_ctx *ctx, cint_plan *plan, int64_t cint_item);")
        return out

    def functions(self) -> list[str]:
        out = [f"/* kernel {self.kernel.qualified} */\n", self.uniform("over")]
        if self.kernel.where:
            out.append(self.uniform("where"))
        out += [self.run(), self.describe()]
        return out

    # ------------------------------------------------------------------ the entry phase

    def uniform(self, kind: str) -> str:
        """The over extents (kind `over`) or the where sides (kind `where`), evaluated
        at the entry checks from the size values, with full records."""
        kernel = self.kernel
        types: SlotTypes = {slot: I64 for slot in kernel.size_slots}
        exprs = [e for _, _, e in kernel.over] if kind == "over" else [
            x for c in kernel.where for x in (c.left, c.right)]
        for e in exprs:
            for node in walk(e):
                if isinstance(node, ir.Var):
                    types.setdefault(node.slot, node.type)
        u = UnitEmitter(self.p, kernel.name + "." + kind, FULL, types, kernel)
        u.slot_names = self.p.names(kernel, types)
        u.ranges = Ranges([], kernel)
        if kind == "over":
            for d, (_, _, e) in enumerate(kernel.over):
                u.open(f"{'if' if d == 0 else 'else if'} (which == {d})")
                u.line(f"*result = {u.expr(e).text};")
                u.close()
        else:
            for k, c in enumerate(kernel.where):
                u.open(f"{'if' if k == 0 else 'else if'} (which == {k})")
                u.line(f"*left = {u.expr(c.left).text};")
                u.line(f"*right = {u.expr(c.right).text};")
                u.close()
        results = "int64_t *result" if kind == "over" else "int64_t *left, int64_t *right"
        head = [f"static int {self.name}_{kind}(cint_ctx *ctx, const int64_t *sizes, int32_t which, {results}) {{",
                "    int rc = 1;", "    int crc = 0;"]
        for k, slot in enumerate(kernel.size_slots):
            head.append(f"    int64_t {u.slot_names[slot]} = sizes[{k}];")
        head += ["    " + d for d in self.p.declare_locals(u, types, set(kernel.size_slots))]
        head += ["    (void)ctx;", "    (void)crc;", "    (void)sizes;"]
        head += [f"    (void){n};" for n in self.p.declared_names(u, types, set())]
        tail = ["    rc = 0;"] + (["L_out:"] if "L_out" in u.used else []) + ["    return rc;", "}"]
        return "\n".join(head + u.lines + tail) + "\n"

    # ------------------------------------------------------------------ work-items

    def _unit(self, mode: str) -> tuple[UnitEmitter, SlotTypes]:
        kernel = self.kernel
        known: dict[int, Type | ArraySlot] = {slot: I64 for slot in kernel.size_slots}
        for _, slot, _ in kernel.over:
            known[slot] = I64
        for param in kernel.params:
            if param.extents is None and param.mode == "in":
                known[param.slot] = param.type
        types = self.p.slot_types(kernel.body, known)
        u = UnitEmitter(self.p, kernel.name, mode, types, kernel)
        u.ranges = Ranges(kernel.body, kernel)
        u.slot_names = self.p.names(kernel, types)
        for p, param in enumerate(kernel.params):
            if param.extents is not None:
                u.params[param.slot] = KernelParamAccess(p, param.type, len(param.extents), param.mode)
        u.return_label = u.label("end")
        return u, types

    def _size_name(self, u: UnitEmitter, extent: ir.Extent | None) -> str | None:
        if extent is not None and extent.size is not None and extent.offset == 0:
            return u.slot_names[self.kernel.size_slots[extent.size]]
        return None

    def _over_extent(self, u: UnitEmitter, d: int) -> str:
        _, _, e = self.kernel.over[d]
        for slot in self.kernel.size_slots:
            if isinstance(e, ir.Var) and e.slot == slot:
                return u.slot_names[slot]
        return f"plan->over[{d}]"

    def prologue(self, u: UnitEmitter) -> list[str]:
        """Locals from the plan: sizes, scalar in parameters, each array parameter's
        data, origin, extents and strides (p: the argument, w: its staging, dense with
        origin 0), the over extents."""
        kernel = self.kernel
        lines = []
        for k, slot in enumerate(kernel.size_slots):
            lines += [f"int64_t {u.slot_names[slot]} = plan->sizes[{k}];", f"(void){u.slot_names[slot]};"]
        for p, param in enumerate(kernel.params):
            if param.extents is None:
                if param.mode == "in" and param.slot in u.slot_names:
                    ct = c_type(param.type)
                    name = u.slot_names[param.slot]
                    lines += [f"{ct} {name} = *(const {ct} *)plan->args[{p}].in;", f"(void){name};"]
                continue
            ct = c_type(param.type)
            sides = []
            if param.mode in ("in", "inout"):
                sides.append(("p", f"plan->args[{p}].view", "const "))
            if param.mode in ("out", "inout"):
                sides.append(("w", f"plan->writes[{p}]", ""))
            for side, view, const in sides:
                prefix = f"{side}{p}"
                names = [f"{prefix}_d"]
                lines.append(f"{const}{ct} *{prefix}_d = ({const}{ct} *){view}.data;")
                if side == "p":
                    lines.append(f"int64_t {prefix}_o = {view}.origin;")
                    names.append(f"{prefix}_o")
                for d, extent in enumerate(param.extents):
                    size = self._size_name(u, extent)
                    lines.append(f"int64_t {prefix}_e{d} = {size or f'{view}.extents[{d}]'};")
                    names.append(f"{prefix}_e{d}")
                    if side == "p":
                        lines.append(f"int64_t {prefix}_s{d} = {view}.strides[{d}];")
                        names.append(f"{prefix}_s{d}")
                lines += [f"(void){n};" for n in names]
        for d in range(len(kernel.over)):
            lines += [f"int64_t cint_e{d} = {self._over_extent(u, d)};", f"(void)cint_e{d};"]
        return lines

    def _dense_test(self) -> str | None:
        """The run-time test that every view read is row-major dense, or None when no
        array is read."""
        tests = []
        for p, param in enumerate(self.kernel.params):
            if param.extents is None or param.mode == "out":
                continue
            view = f"plan->args[{p}].view"
            stride = "1u"
            for d in reversed(range(len(param.extents))):  # unsigned: no overflow for any view
                tests.append(f"(uint64_t){view}.strides[{d}] == {stride}")
                stride = f"(uint64_t){view}.strides[{d}] * (uint64_t){view}.extents[{d}]"
        return " && ".join(tests) if tests else None

    def _uniform_divisors(self) -> list[tuple[int, ir.KernelParam]]:
        """Scalar in parameters of up to 64 bits that divide (/, %, div_round): uniform,
        since a body never assigns a parameter (C5006)."""
        kernel = self.kernel
        slots = {p.slot: (k, p) for k, p in enumerate(kernel.params)
                 if p.extents is None and p.mode == "in" and is_small(p.type) and isinstance(p.type, IntType)}
        found: dict[int, tuple[int, ir.KernelParam]] = {}
        for statement in kernel.body:
            for node in walk(statement):
                divisor = node.right if isinstance(node, ir.DivRound) else \
                    node.args[1] if isinstance(node, ir.Arith) and node.op in ("div", "rem") else None
                if isinstance(divisor, ir.Var) and divisor.slot in slots:
                    found[divisor.slot] = slots[divisor.slot]
        return [found[s] for s in sorted(found)]

    def _uniform_factors(self) -> list[tuple[int, ir.KernelParam, int]]:
        """Scalar in parameters of up to 64 bits that a checked `*` multiplies by a value
        of known range, each with a bound B (a power of 2): with |p| <= B every such
        product lies within 2^62 in magnitude, so neither it nor a sum with a value
        of up to 62 bits after it can overflow I64."""
        kernel = self.kernel
        slots = {p.slot: (k, p) for k, p in enumerate(kernel.params)
                 if p.extents is None and p.mode == "in" and is_small(p.type) and isinstance(p.type, IntType)}
        ranges = Ranges(kernel.body, kernel)
        bounds: dict[int, int] = {}
        for statement in kernel.body:
            for node in walk(statement):
                if not (isinstance(node, ir.Arith) and node.op == "mul" and node.form == "checked"
                        and isinstance(node.type, IntType) and len(node.args) == 2):
                    continue
                for mine, other in ((node.args[0], node.args[1]), (node.args[1], node.args[0])):
                    if not (isinstance(mine, ir.Var) and mine.slot in slots) or isinstance(other, ir.Var) \
                            and other.slot in slots:
                        continue
                    found = ranges.of(other)
                    if found is None:
                        continue
                    most = max(-found[0], found[1], 1)
                    bound = 1 << max(0, (1 << 62).bit_length() - 1 - most.bit_length())
                    bounds[mine.slot] = min(bound, bounds.get(mine.slot, bound))
        return [(*slots[slot], bound) for slot, bound in sorted(bounds.items())]

    def run(self) -> str:
        """The fast path in up to three variants, chosen at each dispatch: `common`, for
        views read that are row-major dense and uniform divisors that are neither 0 nor
        -1, `bounded`, `common` whose uniform factors also lie within their bounds (when
        that leaves out a check), both tested here, once, and `general` for every other
        case. A kernel with a narrow sum (`is_narrow`) runs them NARROW_ITEMS
        work-items at a time."""
        name = f"{self.name}_run"
        pieces = self._narrow_pieces(name)
        if pieces:
            name = f"{name}_range"
        tests = []
        dense = self._dense_test()
        if dense is not None:
            tests.append(dense)
        divisors = self._uniform_divisors()
        for p, param in divisors:
            ct = c_type(param.type)
            value = f"*(const {ct} *)plan->args[{p}].in"
            tests.append(f"{value} != 0" + (f" && {value} != -1" if signed(param.type) else ""))
        factors = self._uniform_factors()
        bounded = None
        if factors:
            bounded = self._run(f"{name}_bounded", common=True, divisors=divisors, factors=factors)
            if bounded == self._run(f"{name}_bounded", common=True, divisors=divisors):
                bounded = None  # the bounds prove nothing more
        if not tests and bounded is None:
            return self._run(name, common=True, divisors=[]) + pieces
        call = "(ctx, plan, cint_first, cint_end, item)"
        bounds = []
        for p, param, bound in factors if bounded is not None else []:
            # A bound at or past the type's own range tests nothing (and GCC's
            # -Werror=type-limits rejects a comparison that is always true).
            t = _factor_type(param)
            ct = c_type(t)
            value = f"*(const {ct} *)plan->args[{p}].in"
            if bound < t.max:
                bounds.append(f"{value} <= {constant(t, bound)}")
            if signed(t) and -bound > t.min:
                bounds.append(f"{value} >= -{constant(t, bound)}")
        # With every factor within its bound whatever its value, `bounded` is the common case.
        always_bounded = bounded is not None and not bounds
        parts = [bounded] if bounded is not None else []
        if not always_bounded:
            parts.append(self._run(f"{name}_common", common=True, divisors=divisors))
        body = []
        if tests:
            parts.append(self._run(f"{name}_general", common=False, divisors=[]))
            body.append(f"    if (!({' && '.join(tests)})) return {name}_general{call};")
        if bounds:
            body.append(f"    if ({' && '.join(bounds)}) return {name}_bounded{call};")
        body.append(f"    return {name}_{'bounded' if always_bounded else 'common'}{call};")
        return "\n".join([
            *parts,
            f"static int {name}(cint_ctx *ctx, cint_plan *plan, int64_t cint_first, int64_t cint_end, int64_t *item) {{",
            *body,
            "}",
            "",
        ]) + pieces

    def _narrow_pieces(self, name: str) -> str:
        """`name`, which runs a range of work-items NARROW_ITEMS at a time through
        `name`_range, when the kernel has a narrow sum; else nothing."""
        if not any(r.kind in ("sum", "sum_wrap") and is_narrow(r.contribution) for r in self.kernel.reductions):
            return ""
        piece = f"INT64_C({NARROW_ITEMS})"
        return "\n".join([
            f"static int {name}(cint_ctx *ctx, cint_plan *plan, int64_t cint_first, int64_t cint_end, int64_t *item) {{",
            f"    while (cint_end - cint_first > {piece}) {{ /* a narrow sum's partial takes that many */",
            f"        int rc = {name}_range(ctx, plan, cint_first, cint_first + {piece}, item);",
            "        if (rc) return rc;",
            f"        cint_first += {piece};",
            "    }",
            f"    return {name}_range(ctx, plan, cint_first, cint_end, item);",
            "}",
            "",
        ])

    def _run(self, name: str, common: bool, divisors: Sequence[tuple[int, ir.KernelParam]],
             factors: Sequence[tuple[int, ir.KernelParam, int]] = ()) -> str:
        """The work-items cint_first .. cint_end - 1 in ascending order, not counting
        steps (the fast path)."""
        kernel = self.kernel
        u, types = self._unit(FAST)
        if factors:
            assumed = {param.slot: (max(-bound, _factor_type(param).min), min(bound, _factor_type(param).max))
                       for _, param, bound in factors}
            u.ranges = Ranges(kernel.body, kernel, assumed)
        u.dense = common
        u.safe_divisors = {param.slot for _, param in divisors}
        over = [u.slot_names[slot] for _, slot, _ in kernel.over]
        item = over[0]
        for d in range(1, len(over)):
            item = f"({item}) * cint_e{d} + {over[d]}"
        u.item = item
        folds = [(k, r) for k, r in enumerate(kernel.reductions) if r.kind == "fold_checked"]
        sums = [k for k, r in enumerate(kernel.reductions) if r.kind in ("sum", "sum_wrap") and is_small(r.contribution)]
        u.counted_sums = {k for k in sums if not _unconditional(kernel, _reduces(kernel.reductions[k].param))}
        u.depth = 3 if len(over) == 1 else 4
        if charges(kernel):
            u.line("plan->item_fuel = ctx->fuel_left;")
        for k, r in folds:
            u.line(f"memcpy(plan->reductions[{k}].saved, plan->reductions[{k}].acc, {max(1, bits(r.target) // 64) * 8});")
        u.block(kernel.body)
        assert u.return_label is not None, "a kernel body's unit ends at its label (_unit)"
        u.place_label(u.return_label)
        skip = set(kernel.size_slots) | {p.slot for p in kernel.params if p.extents is None and p.mode == "in"}
        skip |= {slot for _, slot, _ in kernel.over}
        arrays = [u.slot_names[s] for s in sorted(types) if isinstance(types[s], ArraySlot)]
        head = [f"static int {name}(cint_ctx *ctx, cint_plan *plan, int64_t cint_first, int64_t cint_end, "
                "int64_t *item) {", "    int crc = 0;"]
        head += ["    " + x for x in self.prologue(u)]
        head += [f"    int64_t {n} = 0;" for n in over]
        head += ["    " + d for d in self.p.declare_locals(u, types, skip)]
        head += ["    (void)ctx;", "    (void)crc;", "    (void)item;"]
        head += [f"    (void){n};" for n in self.p.declared_names(u, types, skip)]
        head += self.p.zero_views(u, types)
        write_back = []  # (a faulted dispatch discards its sums: the fault exit keeps none)
        for k in sums:  # the accumulator of a sum in locals, written back at the end
            sign = "s64" if signed(kernel.reductions[k].contribution) else "u64"
            head += [f"    uint64_t cint_lo{k} = plan->reductions[{k}].acc[0];",
                     f"    uint64_t cint_hi{k} = plan->reductions[{k}].acc[1];",
                     f"    {'int64_t' if sign == 's64' else 'uint64_t'} cint_p{k} = 0;"]
            back = [f"    cint_sum_{sign}(&cint_lo{k}, &cint_hi{k}, cint_p{k});",
                    f"    plan->reductions[{k}].acc[0] = cint_lo{k};",
                    f"    plan->reductions[{k}].acc[1] = cint_hi{k};"]
            if k in u.counted_sums:
                head.append(f"    int64_t cint_n{k} = 0;")
                write_back += back + [f"    plan->reductions[{k}].count += cint_n{k};"]
            else:
                write_back += back + [f"    plan->reductions[{k}].count += cint_end - cint_first;"]
        loops, closing = self._range_loops(over)
        tail = write_back + [f"    cint_array_free(&{a});" for a in arrays] + ["    return 0;"]
        if "L_fault" in u.used:
            tail += ["L_fault:", f"    *item = {item};"]
            tail += [f"    cint_array_free(&{a});" for a in arrays] + ["    return 1;"]
        tail.append("}")
        return "\n".join(head + loops + u.lines + closing + tail) + "\n"

    @staticmethod
    def _range_loops(over: list[str]) -> tuple[list[str], list[str]]:
        """The loops over the work-items cint_first .. cint_end - 1 (cint_end <= N, the
        extents cint_e0, ... are positive when the range is not empty): the index tuple
        of cint_first, then row by row, the innermost variable along its row within the
        range and the outer ones carried, in row-major order (8.2)."""
        inner, r = over[-1], len(over)
        if r == 1:
            return (["    if (cint_first < cint_end) {",
                     f"        for ({inner} = cint_first; {inner} < cint_end; {inner}++) {{",
                     f"            CINT_ASSUME({inner} >= 0 && {inner} < cint_e0);"],
                    ["        }", "    }"])
        lines = ["    if (cint_first < cint_end) {", "        int64_t cint_rest = cint_first;"]
        for d in reversed(range(1, r)):
            lines += [f"        {over[d]} = cint_rest % cint_e{d};", f"        cint_rest /= cint_e{d};"]
        lines += [f"        {over[0]} = cint_rest;",
                  "        for (int64_t cint_i = cint_first; cint_i < cint_end;) {",
                  f"            int64_t cint_stop = cint_e{r - 1} - {inner};",
                  "            if (cint_stop > cint_end - cint_i) cint_stop = cint_end - cint_i;",
                  "            cint_i += cint_stop;",
                  f"            int64_t cint_last = {inner} + cint_stop;",
                  f"            for (; {inner} < cint_last; {inner}++) {{"]
        # Each work-item's index within its extents (cint_ops.h, CINT_ASSUME).
        lines += [f"                CINT_ASSUME({v} >= 0 && {v} < cint_e{d});" for d, v in enumerate(over)]
        closing = ["            }", f"            {inner} = 0;"]
        indent = "            "
        for d in reversed(range(r - 1)):  # carry into the outer variables
            if d == 0:
                closing.append(f"{indent}{over[0]}++;")
            else:
                closing += [f"{indent}if (++{over[d]} == cint_e{d}) {{", f"{indent}    {over[d]} = 0;"]
                indent += "    "
        for _ in range(1, r - 1):
            indent = indent[:-4]
            closing.append(f"{indent}}}")
        closing += ["        }", "    }"]
        return lines, closing

    def describe(self) -> str:
        """Work-item `cint_item` alone, counting steps, with full records."""
        kernel = self.kernel
        u, types = self._unit(COUNT)
        u.dense = False
        u.item = "cint_item"
        over = [u.slot_names[slot] for _, slot, _ in kernel.over]
        u.depth = 1
        u.block(kernel.body)
        skip = set(kernel.size_slots) | {p.slot for p in kernel.params if p.extents is None and p.mode == "in"}
        arrays = [u.slot_names[s] for s in sorted(types) if isinstance(types[s], ArraySlot)]
        head = [f"static int {self.name}_describe(cint_ctx *ctx, cint_plan *plan, int64_t cint_item) {{",
                "    int rc = 1;", "    int crc = 0;", "    int64_t cint_rest = cint_item;"]
        head += ["    " + x for x in self.prologue(u)]
        head += ["    " + d for d in self.p.declare_locals(u, types, skip)]
        head += ["    (void)crc;", "    (void)cint_rest;"]
        head += [f"    (void){n};" for n in self.p.declared_names(u, types, skip)]
        head += self.p.zero_views(u, types)
        for d in reversed(range(len(over))):  # the index tuple of the work-item, row-major
            if d == 0:
                head.append(f"    {over[d]} = cint_rest;")
            else:
                head += [f"    {over[d]} = cint_rest % cint_e{d};", f"    cint_rest /= cint_e{d};"]
        head += [f"    CINT_ASSUME({v} >= 0 && {v} < cint_e{d});" for d, v in enumerate(over)]
        tail = [f"{u.return_label}:"] if u.return_label in u.used else []
        tail.append("    rc = 0;")
        if "L_out" in u.used:
            tail.append("L_out:")
        tail += [f"    cint_array_free(&{a});" for a in arrays] + ["    return rc;", "}"]
        return "\n".join(head + u.lines + tail) + "\n"

    # ------------------------------------------------------------------ tables

    def tables(self) -> str:
        kernel, name = self.kernel, self.name
        lines = []
        params = []
        for p, param in enumerate(kernel.params):
            mode = {"in": "CINT_MODE_IN", "out": "CINT_MODE_OUT", "inout": "CINT_MODE_INOUT"}[param.mode]
            if param.extents is None:
                params.append(f"{{{mode}, {type_code(param.type)}, -1, NULL, false}}")
                continue
            extents = []
            for e in param.extents:
                if not -(1 << 63) < e.offset < (1 << 63):
                    raise EmitError(f"the extent offset {e.offset} does not fit I64")
                extents.append(f"{{{-1 if e.size is None else e.size}, {constant(I64, e.offset)}}}")
            lines.append(f"static const cint_extent {name}_x{p}[] = {{{', '.join(extents)}}};")
            whole = "true" if overwritten(kernel, param) else "false"
            params.append(f"{{{mode}, {type_code(param.type)}, {len(param.extents)}, {name}_x{p}, {whole}}}")
        lines.append(f"static const cint_param {name}_params[] = {{{', '.join(params)}}};")
        if kernel.where:
            ops = ", ".join(COMPARE_OPS[c.op] for c in kernel.where)
            lines.append(f"static const int32_t {name}_where_ops[] = {{{ops}}};")
        reductions = []
        for k, r in enumerate(kernel.reductions):
            init = "NULL"
            if r.kind == "fold_checked":
                lines.append(f"static const {c_type(r.target)} {name}_init{k} = {initializer(r.target, r.init)};")
                init = f"&{name}_init{k}"
            reductions.append(f"{{{r.param}, {REDUCTIONS[r.kind]}, {type_code(r.contribution)}, "
                              f"{type_code(r.target)}, {c_string(r.op.op_id)}, {self.p.span(r.op.span)}, {init}}}")
        if reductions:
            lines.append(f"static const cint_reduction_desc {name}_reductions[] = {{{', '.join(reductions)}}};")
        fields = [
            c_string(kernel.qualified), str(len(kernel.params)), f"{name}_params", str(len(kernel.sizes)),
            str(len(kernel.over)), str(len(kernel.where)), f"{name}_where_ops" if kernel.where else "NULL",
            str(len(kernel.reductions)), f"{name}_reductions" if reductions else "NULL",
            "true" if charges(kernel) else "false", f"{name}_over", f"{name}_where" if kernel.where else "NULL",
            f"{name}_run", f"{name}_describe",
        ]
        lines.append(f"static const cint_kernel {name} = {{{', '.join(fields)}}};")
        return "\n".join(lines) + "\n"
