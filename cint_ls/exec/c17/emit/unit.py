"""One C function from one IR unit (a function, the entry, a kernel's body).

Every expression is emitted in the IR's evaluation order as statements that leave its
value in an *atom* (a slot variable, a temporary or a constant); a counted operation
always gets a temporary. Each unit is emitted in one of three modes:

- `full`: sequential code. A failing operation fills the complete fault record
  (`cint_fail_*` or a run-time function) and the function returns 1 (`goto L_out`); a
  caller adds its stack frame. No step counting.
- `fast`: a kernel's work-items. A failing operation leaves the work-item at once
  (`goto L_fault`) without a record; the dispatch then runs that work-item again in
  `count` mode to describe the fault (SPEC-02P.1 10.6 paragraph 6).
- `count`: as `full`, and every counted operation advances `ctx->step` after it
  succeeds, so a fault records the step ordinal it was raised at (SPEC-02P.1 5.4).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from ....analysis.types import BOOL, I64, BoolType, FixedType, IntType, Type
from ....ir import nodes as ir
from ....syntax.source import Span
from .ctypes import (
    EmitError,
    c_bytes,
    c_string,
    c_type,
    constant,
    is_fixed,
    is_narrow,
    is_small,
    signed,
    suffix,
    type_code,
)
from .facts import Facts
from .ranges import Ranges

FULL, FAST, COUNT = "full", "fast", "count"

_PROMOTED_UNSIGNED = ("uint8_t", "uint16_t")  # unsigned types C promotes to int

OPS = {"add": "CINT_OP_ADD", "sub": "CINT_OP_SUB", "mul": "CINT_OP_MUL", "div": "CINT_OP_DIV",
       "rem": "CINT_OP_REM", "shl": "CINT_OP_SHL", "shr": "CINT_OP_SHR", "min": "CINT_OP_MIN",
       "max": "CINT_OP_MAX", "and": "CINT_OP_AND", "or": "CINT_OP_OR", "xor": "CINT_OP_XOR",
       "neg": "CINT_OP_NEG", "abs": "CINT_OP_ABS", "not": "CINT_OP_NOT"}
FORMS = {None: "CINT_FORM_NONE", "checked": "CINT_FORM_CHECKED", "wrap": "CINT_FORM_WRAP", "sat": "CINT_FORM_SAT"}
MODES = {"floor": "CINT_ROUND_FLOOR", "ceil": "CINT_ROUND_CEIL", "trunc": "CINT_ROUND_TRUNC",
         "away": "CINT_ROUND_AWAY", "half_even": "CINT_ROUND_HALF_EVEN", "half_away": "CINT_ROUND_HALF_AWAY",
         "half_trunc": "CINT_ROUND_HALF_TRUNC"}
COMPARE = {"==": "eq", "!=": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge"}
REDUCTIONS = {"sum": "CINT_RED_SUM", "sum_wrap": "CINT_RED_SUM_WRAP", "sum_sat": "CINT_RED_SUM_SAT",
              "min": "CINT_RED_MIN", "max": "CINT_RED_MAX", "count": "CINT_RED_COUNT",
              "fold_checked": "CINT_RED_FOLD"}
MAX_RANK = 8


@dataclass(frozen=True)
class Atom:
    text: str
    lvalue: bool = False


@dataclass(frozen=True)
class ArraySlot:
    """A slot that holds an array (a `cint_view`)."""

    element: Type


SlotTypes = dict[int, Type | ArraySlot]  # a unit's slots: a scalar's type, or an array's


@dataclass
class KernelParamAccess:
    """How a kernel body reaches an array parameter: the read view (its argument) and,
    for an output, the write view (its staging), each by pointer and extracted locals."""

    param: int
    element: Type
    rank: int
    mode: str


class ProgramTables(Protocol):
    """What a unit's and a kernel's emitters ask of the whole program's (program.py
    ProgramEmitter, which imports them): the IR, the span and name tables, the slots."""

    program: ir.Program

    def span(self, s: Span | None) -> int: ...

    def function(self, name: str) -> ir.Function: ...

    def function_c_name(self, name: str, counting: bool = False) -> str: ...

    def kernel_c_name(self, kernel: ir.Kernel) -> str: ...

    def slot_types(self, body: list[ir.Stmt], known: Mapping[int, Type | ArraySlot]) -> SlotTypes: ...

    def names(self, unit: ir.Function | ir.Kernel, types: SlotTypes) -> dict[int, str]: ...

    def declare_locals(self, u: UnitEmitter, types: SlotTypes, skip: set[int]) -> list[str]: ...

    def declared_names(self, u: UnitEmitter, types: SlotTypes, skip: set[int]) -> list[str]: ...

    def zero_views(self, u: UnitEmitter, types: SlotTypes) -> list[str]: ...


class UnitEmitter:
    def __init__(self, program: ProgramTables, name: str, mode: str, slot_types: SlotTypes,
                 kernel: ir.Kernel | None = None) -> None:
        self.p = program  # spans, function names
        self.name = name
        self.mode = mode
        self.slot_types = slot_types
        self.slot_names: dict[int, str] = {}  # slot -> C name
        self.kernel = kernel
        self.params: dict[int, KernelParamAccess] = {}  # kernel array parameter slots
        self.lines: list[str] = []
        self.depth = 1
        self.temps: list[tuple[str, str]] = []
        self.counter = 0
        self.used: set[str] = set()
        self.loops: list[tuple[str, str | None]] = []  # (break label, continue label)
        self.return_label: str | None = None  # a kernel body's `return`: end of the work-item
        self.dense = False  # the fast path's variant for row-major dense views (kernel.py)
        self.item = "cint_item"  # the C expression of the work-item's index
        self.counted_sums: set[int] = set()  # fast-path sums whose contributions are counted one by one
        self.safe_divisors: set[int] = set()  # uniform slots the fast variant knows are not 0 or -1
        self.ranges: Ranges | None = None  # value ranges that prove operations cannot overflow
        self.facts = Facts(kernel)  # what over variables are known to be (index checks)
        self.ret_type: Type | None = None  # a function's return type (None: void)

    # ------------------------------------------------------------------ output

    def line(self, text: str) -> None:
        self.lines.append("    " * self.depth + text)

    def open(self, text: str) -> None:
        self.line(text + " {")
        self.depth += 1

    def close(self, text: str = "}") -> None:
        self.depth -= 1
        self.line(text)

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def temp(self, t: Type | str) -> str:
        name = self.fresh("t")
        self.temps.append((name, t if isinstance(t, str) else c_type(t)))
        return name

    def label(self, prefix: str) -> str:
        return self.fresh("L_" + prefix)

    def goto(self, label: str) -> str:
        self.used.add(label)
        return f"goto {label};"

    def place_label(self, label: str) -> None:
        if label in self.used:
            self.lines.append("    " * max(self.depth - 1, 0) + f"{label}:;")

    def span(self, s: Span | None) -> int:
        return self.p.span(s)

    # ------------------------------------------------------------------ faults

    def fail(self, record: str | None = None) -> str:
        """The statement that leaves on a fault. `record` fills the record (not on the
        fast path); None when the call that failed filled it already."""
        if self.mode == FAST:
            return self.goto("L_fault")
        if record is None:
            return self.goto("L_out")
        return "{ " + record + "; " + self.goto("L_out") + " }"

    def check(self, condition: str, record: str | None) -> None:
        self.line(f"if (CINT_UNLIKELY({condition})) {self.fail(record)}")

    def counted(self) -> None:
        if self.mode == COUNT:
            self.line("ctx->step++;")

    def lvalue(self, atom: Atom, t: Type) -> Atom:
        if atom.lvalue:
            return atom
        name = self.temp(t)
        self.line(f"{name} = {atom.text};")
        return Atom(name, True)

    # ------------------------------------------------------------------ slots

    def slot(self, slot: int) -> str:
        return self.slot_names[slot]

    # ------------------------------------------------------------------ expressions

    def expr(self, e: ir.Expr) -> Atom:
        emit: Callable[[ir.Expr], Atom] = getattr(self, "expr_" + type(e).__name__)
        return emit(e)

    def expr_Const(self, e: ir.Const) -> Atom:
        return Atom(constant(e.type, e.value))

    def expr_Var(self, e: ir.Var) -> Atom:
        return Atom(self.slot(e.slot), True)

    def expr_Arith(self, e: ir.Arith) -> Atom:
        args = [self.expr(a) for a in e.args]
        t = e.type
        r = self.temp(t)
        op, form = e.op, e.form
        where = f"{c_string(e.op_id)}, {self.span(e.span)}"
        small_int = is_small(t) and isinstance(t, IntType)
        small_num = is_small(t) and isinstance(t, (IntType, FixedType))
        sfx = suffix(t) if is_small(t) else ""
        if len(args) == 1:
            (a,) = args
            if small_num:
                record = f"cint_fail_unary64(ctx, {OPS[op]}, {type_code(t)}, (uint64_t)({a.text}), {where})"
                self.check(f"cint_{op}_{sfx}({a.text}, &{r})", record)
            else:
                a = self.lvalue(a, t)
                self.check(f"cint_unary(ctx, {OPS[op]}, {type_code(t)}, &{r}, &{a.text}, {where})", None)
            self.counted()
            return Atom(r, True)
        a, b = args
        if op in ("div", "rem") and small_int and self.safe_divisor(e.args[1]):
            # a uniform divisor tested once, in the variant's choice: neither 0 nor -1
            self.line(f"{r} = ({c_type(t)})({a.text} {'/' if op == 'div' else '%'} {b.text});")
            self.counted()
            return Atom(r, True)
        if op in ("add", "sub", "mul"):
            inline = small_num and not (is_fixed(t) and op == "mul")
        elif op in ("div", "shl", "shr"):
            inline = small_int
        else:  # rem, min, max
            inline = small_num
        if inline and self.ranges is not None and form == "checked" and self.ranges.cannot_overflow(e):
            self.line(f"{r} = ({c_type(t)})({a.text} {'+-*'[('add', 'sub', 'mul').index(op)]} {b.text});")
        elif inline:
            if op in ("min", "max"):
                self.line(f"{r} = cint_{op}_{sfx}({a.text}, {b.text});")
            elif form in ("wrap", "sat"):
                self.line(f"{r} = cint_{op}_{form}_{sfx}({a.text}, {b.text});")
            else:
                name = f"cint_{op}_checked_{sfx}" if op in ("add", "sub", "mul", "div", "rem") else f"cint_{op}_{sfx}"
                record = (f"cint_fail_binary64(ctx, {OPS[op]}, {FORMS[form]}, {type_code(t)}, "
                          f"(uint64_t)({a.text}), (uint64_t)({b.text}), {where})")
                self.check(f"{name}({a.text}, {b.text}, &{r})", record)
        else:
            a, b = self.lvalue(a, t), self.lvalue(b, t)
            call = f"cint_binary(ctx, {OPS[op]}, {FORMS[form]}, {type_code(t)}, &{r}, &{a.text}, &{b.text}, {where})"
            if op in ("min", "max") or form in ("wrap", "sat"):
                self.line(f"(void){call};")
            else:
                self.check(call, None)
        self.counted()
        return Atom(r, True)

    def expr_Convert(self, e: ir.Convert) -> Atom:
        value = self.expr(e.value)
        src, dst = e.source, e.type
        r = self.temp(dst)
        where = f"{c_string(e.op_id)}, {self.span(e.span)}"
        if isinstance(src, IntType) and isinstance(dst, IntType) and is_small(src) and is_small(dst):
            if e.form == "wrap":
                self.line(f"{r} = cint_to_{suffix(dst)}((uint64_t)({value.text}));")
            else:
                condition = _narrowing_test(value.text, src, dst)
                if condition is not None:
                    record = (f"cint_fail_convert64(ctx, CINT_FORM_CHECKED, {type_code(src)}, {type_code(dst)}, "
                              f"(uint64_t)({value.text}), {where})")
                    self.check(condition, record)
                self.line(f"{r} = ({c_type(dst)})({value.text});")
        else:
            value = self.lvalue(value, src)
            call = (f"cint_convert(ctx, {FORMS[e.form]}, {type_code(src)}, {type_code(dst)}, &{r}, &{value.text}, "
                    f"{where})")
            if e.form == "wrap":
                self.line(f"(void){call};")
            else:
                self.check(call, None)
        self.counted()
        return Atom(r, True)

    def expr_DivRound(self, e: ir.DivRound) -> Atom:
        a, b = self.expr(e.left), self.expr(e.right)
        t = e.type
        r = self.temp(t)
        where = f"{c_string(e.op_id)}, {self.span(e.span)}"
        mode = MODES[e.mode]
        if is_small(t) and self.safe_divisor(e.right):
            sign = "s64" if signed(t) else "u64"
            cast = "int64_t" if signed(t) else "uint64_t"
            self.line(f"{r} = ({c_type(t)})cint_div_round_nz_{sign}({mode}, ({cast})({a.text}), ({cast})({b.text}));")
        elif is_small(t):
            record = (f"cint_fail_div_round64(ctx, {mode}, {type_code(t)}, (uint64_t)({a.text}), "
                      f"(uint64_t)({b.text}), {where})")
            if signed(t):
                q = self.temp(I64)
                lo = constant(t, t.min)  # type: ignore[attr-defined]
                self.check(f"cint_div_round_s64({mode}, (int64_t)({a.text}), (int64_t)({b.text}), (int64_t){lo}, &{q})",
                           record)
            else:
                q = self.temp("uint64_t")
                self.check(f"cint_div_round_u64({mode}, (uint64_t)({a.text}), (uint64_t)({b.text}), &{q})", record)
            self.line(f"{r} = ({c_type(t)}){q};")
        else:
            a, b = self.lvalue(a, t), self.lvalue(b, t)
            self.check(f"cint_div_round(ctx, {mode}, {type_code(t)}, &{r}, &{a.text}, &{b.text}, {where})", None)
        self.counted()
        return Atom(r, True)

    def safe_divisor(self, e: ir.Expr) -> bool:
        return isinstance(e, ir.Var) and e.slot in self.safe_divisors and isinstance(e.type, IntType) \
            and is_small(e.type)

    def expr_Load(self, e: ir.Load) -> Atom:
        t = e.type
        r = self.temp(t)
        access = self.param_access(e.array)
        view = None if access is not None else self.view(e.array)
        indices = [self.expr(i) for i in e.indices]
        offset = self.offset(access, "p", view, indices, "index.checked", e.span, e.indices)
        if view is not None and self.kernel is None:  # sequential code: a cluster's kept elements (cint_rt.h)
            self.check(f"CINT_FETCHED({view})", None)
        data = f"p{access.param}_d" if access is not None else f"{view}.data"
        self.line(f"{r} = (({'const ' if access is not None else ''}{c_type(t)} *){data})[{offset}];")
        self.counted()
        return Atom(r, True)

    def expr_Bitwise(self, e: ir.Bitwise) -> Atom:
        args = [self.expr(a) for a in e.args]
        t = e.type
        if is_small(t):
            ct = c_type(t)
            if e.op == "~":
                if ct in _PROMOTED_UNSIGNED:
                    # `~` of a U8 or U16 is taken in (signed) int, and GCC's -Wsign-compare
                    # refuses a comparison of that with a constant, through the cast back
                    # and through `^ UINT16_MAX` alike (seeds 306:4699, 306:5078): a
                    # temporary keeps the complement out of any comparison.
                    r = self.temp(t)
                    self.line(f"{r} = (({ct})~{args[0].text});")
                    return Atom(r, True)
                return Atom(f"(({ct})~{args[0].text})")
            return Atom(f"(({ct})({args[0].text} {e.op} {args[1].text}))")
        r = self.temp(t)
        args = [self.lvalue(a, t) for a in args]
        if e.op == "~":
            self.line(f"(void)cint_unary(ctx, CINT_OP_NOT, {type_code(t)}, &{r}, &{args[0].text}, \"\", -1);")
        else:
            op = OPS[{"&": "and", "|": "or", "^": "xor"}[e.op]]
            self.line(f"(void)cint_binary(ctx, {op}, CINT_FORM_NONE, {type_code(t)}, &{r}, &{args[0].text}, "
                      f"&{args[1].text}, \"\", -1);")
        return Atom(r, True)

    def expr_Compare(self, e: ir.Compare) -> Atom:
        a, b = self.expr(e.left), self.expr(e.right)
        t = e.left.type
        if isinstance(t, BoolType):
            if a.text == b.text:  # `x == x`: its value, without C's self-comparison (a warning)
                return Atom("true" if e.op in ("==", "<=", ">=") else "false")
            return Atom(f"({a.text} {e.op} {b.text})")
        if is_small(t):
            return Atom(f"cint_{COMPARE[e.op]}_{suffix(t)}({a.text}, {b.text})")
        a, b = self.lvalue(a, t), self.lvalue(b, t)
        return Atom(f"(cint_compare({type_code(t)}, &{a.text}, &{b.text}) {e.op} 0)")

    def expr_Logic(self, e: ir.Logic) -> Atom:
        if e.op == "!":
            return Atom(f"(!{self.expr(e.args[0]).text})")
        left = self.expr(e.args[0])
        mark = len(self.lines)
        self.depth += 1
        right = self.expr(e.args[1])
        self.depth -= 1
        if len(self.lines) == mark:  # the right side is a plain expression
            return Atom(f"({left.text} {e.op} {right.text})")
        body = self.lines[mark:]
        del self.lines[mark:]
        r = self.temp(BOOL)
        self.line(f"{r} = {left.text};")
        self.open(f"if ({'' if e.op == '&&' else '!'}{r})")
        self.lines.extend(body)
        self.line(f"{r} = {right.text};")
        self.close()
        return Atom(r, True)

    def expr_Call(self, e: ir.Call) -> Atom:
        args = [self.expr(a) for a in e.args]
        function = self.p.function(e.function)
        void = function.return_type.name == "void"
        r = None if void else self.temp(function.return_type)
        span = self.span(e.span)
        self.check(f"cint_call_enter(ctx, {span})", None)
        target = self.p.function_c_name(e.function, counting=self.mode == COUNT)
        call_args = ["ctx"] + ([] if void else [f"&{r}"]) + [a.text for a in args]
        self.line(f"crc = {target}({', '.join(call_args)});")
        self.line("ctx->depth--;")
        frame = f"cint_push_frame(ctx, {c_string(function.qualified)}, {span})"
        self.line(f"if (CINT_UNLIKELY(crc != 0)) {self.fail(frame)}")
        return Atom(r if r is not None else "0", r is not None)

    # ------------------------------------------------------------------ views

    def param_access(self, v: ir.ViewExpr) -> KernelParamAccess | None:
        if isinstance(v, ir.ArrayVar) and v.slot in self.params:
            return self.params[v.slot]
        return None

    def view(self, v: ir.ViewExpr) -> str:
        """A C lvalue of type cint_view for a view expression (reads)."""
        if isinstance(v, ir.ArrayVar):
            access = self.params.get(v.slot)
            if access is not None:
                return f"plan->args[{access.param}].view"
            return self.slot(v.slot)
        assert isinstance(v, (ir.Select, ir.Reverse, ir.Transpose)), f"a view expression {type(v).__name__}"
        base = self.view(v.base)
        r = self.temp("cint_view")
        if isinstance(v, ir.Select):
            specs = []
            for s in v.specs:
                if isinstance(s, ir.SliceSpec):
                    lo = self.expr(s.start).text if s.start is not None else "0"
                    hi = self.expr(s.end).text if s.end is not None else "0"
                    specs.append(f"{{true, {'true' if s.start is not None else 'false'}, "
                                 f"{'true' if s.end is not None else 'false'}, {lo}, {hi}, {s.step}}}")
                else:
                    specs.append(f"{{false, false, false, {self.expr(s).text}, 0, 0}}")
            array = self.fresh("sp")
            self.open("")
            self.line(f"cint_select_spec {array}[{len(specs)}] = {{{', '.join(specs)}}};")
            self.check(f"cint_view_select(ctx, &{r}, &{base}, {len(specs)}, {array}, {self.span(v.span)})", None)
            self.close()
        elif isinstance(v, ir.Reverse):
            self.line(f"cint_view_reverse(&{r}, &{base}, {v.dimension});")
        else:
            self.line(f"cint_view_transpose(&{r}, &{base});")
        return r

    def offset(self, access: KernelParamAccess | None, side: str, view: str | None, indices: list[Atom],
               operation: str, span: Span | None, nodes: list[ir.Expr]) -> str:
        """Bounds-check `indices` and give the element's offset (an expression).
        A kernel parameter is checked inline on its extracted extents (except where
        Facts.in_range proves the index); any other view through cint_view_at."""
        s = self.span(span)
        if access is not None:
            prefix = f"{side}{access.param}"
            checked = [(d, i) for d, (i, node) in enumerate(zip(indices, nodes))
                       if not self.facts.in_range(access.param, d, node)]
            if self.mode == FAST:
                tests = " || ".join(f"(uint64_t)({i.text}) >= (uint64_t){prefix}_e{d}" for d, i in checked)
                if tests:
                    self.check(tests, None)
            else:
                for d, i in checked:
                    record = f"cint_fail_index(ctx, {c_string(operation)}, {i.text}, {d}, {prefix}_e{d}, {s})"
                    self.check(f"(uint64_t)({i.text}) >= (uint64_t){prefix}_e{d}", record)
            if side == "w" or self.dense:  # a staging is dense with origin 0
                offset = f"({indices[0].text})"
                for d in range(1, len(indices)):
                    offset = f"({offset} * {prefix}_e{d} + ({indices[d].text}))"
                return offset if side == "w" else f"{prefix}_o + {offset}"
            terms = [f"{prefix}_o"] + [f"({i.text}) * {prefix}_s{d}" for d, i in enumerate(indices)]
            return " + ".join(terms)
        ix = self.fresh("ix")
        off = self.temp(I64)
        values = ", ".join(i.text for i in indices)
        self.open("")
        self.line(f"int64_t {ix}[{len(indices)}] = {{{values}}};")
        record = f"cint_fail_view_index(ctx, &{view}, {ix}, {c_string(operation)}, {s})"
        self.check(f"cint_view_at(&{view}, {len(indices)}, {ix}, &{off})", record)
        self.close()
        return off

    # ------------------------------------------------------------------ statements

    def block(self, statements: list[ir.Stmt]) -> None:
        for s in statements:
            getattr(self, "stmt_" + type(s).__name__)(s)

    def stmt_Assign(self, s: ir.Assign) -> None:
        value = self.expr(s.value)
        self.line(f"{self.slot(s.slot)} = {value.text};")

    def stmt_Eval(self, s: ir.Eval) -> None:
        self.expr(s.value)

    def stmt_DeclareArray(self, s: ir.DeclareArray) -> None:
        if len(s.extents) > MAX_RANK:
            raise EmitError(f"cpu-c17 supports arrays of rank up to {MAX_RANK}")
        extents = [self.expr(e).text for e in s.extents]
        name = self.slot(s.slot)
        span = self.span(s.span)
        ex = self.fresh("ex")
        self.open("")
        self.line(f"int64_t {ex}[{len(extents)}] = {{{', '.join(extents)}}};")
        self.check(f"cint_array_make(ctx, &{name}, {type_code(s.element)}, {len(extents)}, {ex}, {span})", None)
        self.close()
        if s.init is not None:
            values = [self.expr(e) for e in s.init]
            self.check(f"cint_array_init_count(ctx, &{name}, {len(values)}, {span})", None)
            ct = c_type(s.element)
            for k, v in enumerate(values):
                self.line(f"(({ct} *){name}.data)[{k}] = {v.text};")

    def stmt_Store(self, s: ir.Store) -> None:
        access = self.param_access(s.array)
        view = None if access is not None else self.view(s.array)
        indices = [self.expr(i) for i in s.indices]
        offset = self.offset(access, "w", view, indices, "store.checked", s.place.span, s.indices)
        off = self.temp(I64)
        self.line(f"{off} = {offset};")
        self.counted()
        value = self.expr(s.value)
        if view is not None and self.kernel is None:  # sequential code: a cluster's kept elements (cint_rt.h)
            self.check(f"CINT_FETCHED({view})", None)
        t = s.value.type
        data = f"w{access.param}_d" if access is not None else f"{view}.data"
        self.line(f"(({c_type(t)} *){data})[{off}] = {value.text};")
        if view is not None and self.kernel is None:  # sequential code: gpu-cuda's host counts it (cint_rt.h)
            self.line(f"CINT_STORED({view});")

    def stmt_Print(self, s: ir.Print) -> None:
        parts = [p if isinstance(p, str) else (self.expr(p), p.type) for p in s.parts]
        for part in parts:  # every part is evaluated before anything prints
            if isinstance(part, str):
                data = part.encode("utf-8")
                for k in range(0, len(data), 2000):  # ISO C's 4095-byte limit on literals
                    chunk = data[k:k + 2000]
                    self.line(f"cint_print(ctx, {c_bytes(chunk)}, {len(chunk)});")
                continue
            atom, t = part
            if isinstance(t, BoolType):
                self.line(f"cint_print_bool(ctx, {atom.text});")
            elif is_small(t) and isinstance(t, IntType):
                if t.signed:
                    self.line(f"cint_print_i64(ctx, (int64_t)({atom.text}));")
                else:
                    self.line(f"cint_print_u64(ctx, (uint64_t)({atom.text}));")
            else:
                atom = self.lvalue(atom, t)
                self.line(f"cint_print_value(ctx, {type_code(t)}, &{atom.text});")
        self.line(f"if (CINT_UNLIKELY(ctx->status != CINT_OK)) {self.fail()}")

    def stmt_If(self, s: ir.If) -> None:
        condition = self.expr(s.condition)
        self.open(f"if ({condition.text})")
        self.facts.push(s.condition)
        self.block(s.then)
        self.facts.pop()
        if s.otherwise:
            self.close("} else {")
            self.depth += 1
            self.block(s.otherwise)
        self.close()

    def stmt_Charge(self, s: ir.Charge) -> None:
        self.line(f"if (CINT_FUEL_EMPTY(ctx) && cint_fuel_out(ctx, {self.span(s.span)})) {self.fail()}")
        self.line("ctx->fuel_left--;")

    def stmt_For(self, s: ir.For) -> None:
        start, end = self.expr(s.start), self.expr(s.end)
        lo, hi = self.temp(I64), self.temp(I64)
        self.line(f"{lo} = {start.text};")
        self.line(f"{hi} = {end.text};")
        var = self.slot(s.slot)
        brk, cont = self.label("brk"), self.label("cont")
        self.loops.append((brk, cont))
        self.open(f"for ({var} = {lo}; {var} < {hi}; {var}++)")
        self.block(s.body)
        self.place_label(cont)
        self.close()
        self.loops.pop()
        self.place_label(brk)

    def stmt_While(self, s: ir.While) -> None:
        brk, cont = self.label("brk"), self.label("cont")
        self.loops.append((brk, cont))
        self.open("for (;;)")
        condition = self.expr(s.condition)
        self.line(f"if (!({condition.text})) {self.goto(brk)}")
        self.block(s.body)
        self.place_label(cont)
        self.close()
        self.loops.pop()
        self.place_label(brk)

    def stmt_Switch(self, s: ir.Switch) -> None:
        value = self.expr(s.value)
        t = s.value.type
        v = self.temp(t)  # evaluated once, before any case runs
        self.line(f"{v} = {value.text};")
        tests = [" || ".join(self.equals(v, t, label) for label in labels) for labels, _ in s.cases]
        brk = self.label("brk")
        inherited = self.loops[-1][1] if self.loops else None
        self.loops.append((brk, inherited))  # `break` ends the switch, as in C
        for k, ((_, body), test) in enumerate(zip(s.cases, tests)):
            self.open(f"{'if' if k == 0 else 'else if'} ({test})")
            self.block(body)
            self.close()
        if s.default is not None:
            self.open("else" if s.cases else "")
            self.block(s.default)
            self.close()
        self.loops.pop()
        self.place_label(brk)

    def equals(self, v: str, t: Type, label: int) -> str:
        if is_small(t):
            return f"cint_eq_{suffix(t)}({v}, {constant(t, label)})"
        k = self.temp(t)
        self.line(f"{k} = {constant(t, label)};")
        return f"(cint_compare({type_code(t)}, &{v}, &{k}) == 0)"

    def stmt_Break(self, s: ir.Break) -> None:
        self.line(self.goto(self.loops[-1][0]))

    def stmt_Continue(self, s: ir.Continue) -> None:
        for _, cont in reversed(self.loops):
            if cont is not None:
                self.line(self.goto(cont))
                return
        raise EmitError("`continue` outside a loop")

    def stmt_Return(self, s: ir.Return) -> None:
        if self.return_label is not None:  # a kernel body: the work-item ends
            self.line(self.goto(self.return_label))
            return
        if s.value is not None and self.ret_type is not None:
            value = self.expr(s.value)
            self.line(f"*ret = {value.text};")
        self.line("rc = 0;")
        self.line(self.goto("L_out"))

    def stmt_Assert(self, s: ir.Assert) -> None:
        condition = self.expr(s.condition)
        self.line(f"if (CINT_UNLIKELY(!({condition.text}))) {self.fail(f'cint_fail_assert(ctx, {self.span(s.span)})')}")

    def stmt_Reduce(self, s: ir.Reduce) -> None:
        kernel = self.kernel
        assert kernel is not None
        index = next(k for k, r in enumerate(kernel.reductions) if r.param == s.target)
        reduction = kernel.reductions[index]
        x = self.expr(s.contribution)
        c = reduction.contribution
        if self.mode == FAST and s.kind in ("sum", "sum_wrap") and is_small(c):
            # The fast path keeps this accumulator in locals (see emit_kernel_run): a
            # 64-bit partial sum, folded into the 128-bit total when it would overflow.
            # A narrow contribution cannot make it overflow (`is_narrow`; the run
            # function takes at most NARROW_ITEMS work-items at a time): a plain add,
            # which took the heat kernel's 1-thread time from 1.24x to 1.06x the
            # hand-written C's (CPU time, benchmarks/heat.py's program).
            kind = "s64" if signed(c) else "u64"
            value = f"({'int64_t' if signed(c) else 'uint64_t'})({x.text})"
            if is_narrow(c):
                self.line(f"cint_p{index} += {value};")
            else:
                self.line(f"cint_part_{kind}(&cint_p{index}, &cint_lo{index}, &cint_hi{index}, {value});")
            if index in self.counted_sums:
                self.line(f"cint_n{index}++;")
            return
        state = f"&plan->reductions[{index}]"
        desc = f"&{self.p.kernel_c_name(kernel)}_reductions[{index}]"
        self.contribute(s.kind, c, state, desc, x, self.item)
        self.counted()

    def contribute(self, kind: str, c: Type, state: str, desc: str, x: Atom, item: str) -> None:
        """One contribution x to the reduction state `state` (a cint_reduction *):
        sums of up to 64-bit contributions and counts inline, the rest through
        cint_red_add; only fold_checked can fault."""
        if kind in ("sum", "sum_wrap") and is_small(c):
            kind_ = "s64" if signed(c) else "u64"
            self.line(f"cint_red_sum_{kind_}({state}, ({'int64_t' if signed(c) else 'uint64_t'})({x.text}));")
        elif kind == "count":
            self.line(f"cint_red_count({state}, {x.text});")
        else:
            x = self.lvalue(x, c)
            call = f"cint_red_add(ctx, {state}, {desc}, &{x.text}, {item})"
            if kind == "fold_checked":
                self.check(call, None)
            else:
                self.line(f"(void){call};")

    def stmt_Dispatch(self, s: ir.Dispatch) -> None:
        kernel = self.p.program.kernels[s.kernel]
        args = []
        for arg, param in zip(s.args, kernel.params):
            if isinstance(arg, ir.ArrayArg):
                args.append(("view", self.view(arg.view)))
            elif isinstance(arg, ir.ScalarArg):
                args.append(("in", self.lvalue(self.expr(arg.value), param.type).text))
            else:
                assert isinstance(arg, ir.OutArg), f"a dispatch argument {type(arg).__name__}"
                args.append(("out", self.slot(arg.slot)))
        name = self.fresh("args")
        self.open("")
        self.line(f"cint_arg {name}[{len(args)}];")
        self.line(f"memset({name}, 0, sizeof {name});")
        for k, (kind, value) in enumerate(args):
            if kind == "view":
                self.line(f"{name}[{k}].view = {value};")
            elif kind == "in":
                self.line(f"{name}[{k}].in = &{value};")
            else:
                self.line(f"{name}[{k}].out = &{value};")
        kernel_name = self.p.kernel_c_name(kernel)
        self.check(f"ctx->host->dispatch(ctx, &{kernel_name}, {name}, {self.span(s.span)})", None)
        self.close()


def _narrowing_test(value: str, src: IntType, dst: IntType) -> str | None:
    """The C condition under which `value` (of src) does not fit dst, or None."""
    slo, shi = src.min, src.max
    dlo, dhi = dst.min, dst.max
    tests = []
    if slo < dlo:
        tests.append(f"({value}) < 0" if dlo == 0 else f"({value}) < {constant(src, dlo)}")
    if shi > dhi:
        tests.append(f"({value}) > {constant(src, dhi)}")
    return " || ".join(tests) if tests else None
