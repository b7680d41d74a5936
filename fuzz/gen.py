"""Random well-typed cint programs for the differential fuzzer (`fuzz/exec.py`).

`generate(seed)` returns a `Program`: the text of one module (kernels over 1-D and 2-D
spaces with in, out and inout arrays and scalar reductions, helper functions, and an
entry that dispatches the kernels several times on arrays and views of arrays and prints
what they computed) and what the generator knows about it. The same seed gives the same
text on every machine (only `random.Random(str)` is used).

Well typed: the generator follows the typing rules (LANGUAGE.md, `cint_ls/analysis`):
every expression is built for a type, a bare literal only where the context gives it
that type, kernel bodies keep the kernel rules (owned stores, reads of in and inout
arrays only, one reduce per scalar out parameter and not in a loop), dispatch arguments
have their parameter's element type and rank, and no two arguments are provably the
same view (C5010). A program the checker rejects is a bug of this file.

Meaningful: a program that faults in its first statements tests little, so every
expression carries an interval of the values it can take (arrays their elements',
kernels assume their inputs in `data_range`), and an operation that could fault
(a checked operation whose exact result may leave its type, a divisor that may be 0,
a shift count out of range, a narrowing `as`, an index out of range, a reduction that
may be empty or overflow) is written only with the program's probability `risk`; a
program runs several dispatches, and usually ends with a *finale* that provokes one fault
kind on purpose: hostile data (edge values in several work-items of one dispatch),
overlapping views (E_ALIAS), a wrong extent (E_SHAPE), a failing where clause, a view
past its array (E_BOUNDS), an empty reduction (E_EMPTY), a negative over extent, or a
sequential fault (division by zero, shift, narrowing, assertion, negative local extent,
overflow, bounds), or a fault found late (`late`, issue 28): a dispatch of a kernel of its
own in which a low work-item certainly faults (a fold_checked's first overflow, a
division by zero, an overflow) while higher work-items loop for ever without a fuel
budget, with or without a fold; a loop never ends except above a certain fault, so the
reference stops, and an executor that finds the fault too late hangs (a `hang`). Fuel
budgets are the runner's business.

About half the programs keep their kernels inside gpu-cuda's capability profile
(`gpu=True`: native types, `+ - *` checked and wrapping, `as`, div_round, reads, 32/64-bit
stores, if/for/while, reduce), so that gpu-cuda runs them; the others use the whole
language, and gpu-cuda refuses most of them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from fractions import Fraction
from math import ceil, floor

PATH = "fuzz.ci"  # every program is run as this file (module `fuzz`)


# ---------------------------------------------------------------- types and literals

@dataclass(frozen=True)
class Ty:
    name: str
    kind: str  # "int", "fixed", "bool"
    bits: int = 0
    signed: bool = True
    frac: int = 0

    @property
    def lo(self) -> int:  # the least stored value
        if self.kind == "bool":
            return 0
        return -(1 << (self.bits - 1)) if self.signed else 0

    @property
    def hi(self) -> int:  # the greatest stored value
        if self.kind == "bool":
            return 1
        return (1 << (self.bits - 1)) - 1 if self.signed else (1 << self.bits) - 1

    @property
    def top(self) -> tuple[int, int]:
        return (self.lo, self.hi)

    @property
    def native(self) -> bool:  # a type gpu-cuda runs (Table 3)
        return self.kind == "bool" or (self.kind == "int" and self.bits <= 64)

    @property
    def numeric(self) -> bool:
        return self.kind in ("int", "fixed")

    def fits(self, iv: tuple[int, int]) -> bool:
        return self.lo <= iv[0] and iv[1] <= self.hi


def _int(bits: int, signed: bool) -> Ty:
    return Ty(f"{'I' if signed else 'U'}{bits}", "int", bits, signed)


def _fixed(m: int, n: int) -> Ty:
    return Ty(f"Q{m}.{n}", "fixed", m + n, True, n)


BOOL = Ty("Bool", "bool")
I8, I16, I32, I64 = (_int(b, True) for b in (8, 16, 32, 64))
U8, U16, U32, U64 = (_int(b, False) for b in (8, 16, 32, 64))
I128, U128, I256, U256 = _int(128, True), _int(128, False), _int(256, True), _int(256, False)
NATIVE_INTS = [I8, I16, I32, I64, U8, U16, U32, U64]
WIDE_INTS = [I128, U128, I256, U256]
FIXEDS = [_fixed(8, 8), _fixed(16, 16), _fixed(4, 4), _fixed(32, 32)]
STORE_OK_GPU = [I32, I64, U32, U64]  # element types gpu-cuda stores natively
ROUNDING = ("floor", "ceil", "trunc", "away", "half_even", "half_away", "half_trunc")
MAX_ITEMS = 300  # the most work-items of a generated dispatch (1-D); 2-D: 16 by 24

# Names that could collide in the emitted C or PTX (kernel `a` emits ck1_a, ck1_a_run,
# ck1_a_params, ...; PTX entries are cint_<kernel>), C keywords and library names, and
# cint's own contextual words. None is a cint keyword, type or built-in. (`struct` and
# `import` are left out: they cannot begin a top-level statement.)
ITEM_NAMES = ["a", "a_run", "a_params", "a_x0", "a_over", "a_where", "a_run_common", "a_describe",
              "a_reductions", "f", "f_c", "f_run", "cf1_f", "ck1_a", "cint_a", "cint_entry", "cint_spans",
              "main", "printf", "int", "long", "static", "double", "unsigned", "goto", "ctx",
              "ret", "fuel", "fault", "exit", "memcpy", "reg", "param", "global", "entry", "fuzz", "g", "k",
              "b", "c", "step", "run", "go_", "sum", "count", "add", "floor"]
LOCAL_NAMES = ["x", "y", "z", "t", "v", "w", "q", "r", "acc", "tmp", "int", "long", "char", "short",
               "float", "double", "auto", "register", "volatile", "const", "signed", "sizeof", "typedef",
               "inline", "restrict", "_Bool", "bool", "size_t", "int64_t", "uint8_t", "NULL", "errno",
               "ctx", "ret", "fuel", "s0", "s1_x", "cint_ctx", "fault", "main", "printf", "reg", "param",
               "shared", "local", "pred", "_", "__x", "by", "add", "floor", "half_even", "sum", "count",
               "i8", "u64", "Q1", "self", "new", "class", "enum", "union", "do", "cf1_f", "ck1_a"]
ARRAY_NAMES = ["u", "m", "p", "data", "buf", "grid", "src", "dst", "arr", "vec", "int", "ptr", "a_d",
               "in0", "out_", "view", "plane", "row", "col", "tile", "mem", "heap", "stack_"]


def fixed_decimal(t: Ty, stored: int) -> str:
    """The exact decimal text of stored / 2^frac, at least one fractional digit."""
    neg, a = stored < 0, abs(stored)
    digits = a * 5 ** t.frac
    whole, part = divmod(digits, 10 ** t.frac)
    frac = str(part).rjust(t.frac, "0").rstrip("0") or "0"
    return ("-" if neg else "") + f"{whole}.{frac}"


def data_range(t: Ty) -> tuple[int, int]:
    """The values kernels and functions assume of their inputs (stored values)."""
    if t.kind == "fixed":
        one = 1 << t.frac
        return (max(t.lo, -8 * one), min(t.hi, 8 * one))
    if t.kind == "bool":
        return (0, 1)
    return (max(t.lo, -40), min(t.hi, 40)) if t.signed else (0, min(t.hi, 50))


def hull(a: tuple[int, int] | None, b: tuple[int, int] | None) -> tuple[int, int] | None:
    if a is None or b is None:
        return a if b is None else b
    return (min(a[0], b[0]), max(a[1], b[1]))


def within(iv: tuple[int, int], box: tuple[int, int]) -> bool:
    return box[0] <= iv[0] and iv[1] <= box[1]


# ---------------------------------------------------------------- views (for footprints)

@dataclass
class ViewShape:
    """A view as SPEC-02P.1 6.2 has it: origin, extents, strides in elements of its storage."""

    origin: int
    extents: list[int]
    strides: list[int]

    @staticmethod
    def whole(extents: list[int]) -> ViewShape:
        strides, s = [], 1
        for e in reversed(extents):
            strides.insert(0, s)
            s *= e
        return ViewShape(0, list(extents), strides)

    def footprint(self) -> set[int]:
        out = {self.origin}
        for e, s in zip(self.extents, self.strides):
            if e == 0:
                return set()
            out = {o + k * s for o in out for k in range(e)}
        return out


# ---------------------------------------------------------------- scopes

@dataclass(eq=False)
class Var:
    name: str
    ty: Ty  # the scalar type, or the element type of an array
    role: str  # local, param, loop, over, size, in, inout, out, larr, arr, dyn
    ext: list = field(default_factory=list)  # arrays: ints (known) or ("sym", name, off) / ("const", k)
    writable: bool = False
    rng: tuple[int, int] | None = None  # loop variables with constant bounds: [lo, hi)
    iv: tuple[int, int] | None = None  # the values it can hold (elements, for arrays)
    level: int = 0  # the loop depth of its declaration


class Scope:
    def __init__(self, parent: Scope | None = None) -> None:
        self.parent = parent
        self.vars: dict[str, Var] = {}

    def lookup(self, name: str) -> Var | None:
        s: Scope | None = self
        while s is not None:
            if name in s.vars:
                return s.vars[name]
            s = s.parent
        return None

    def visible(self) -> list[Var]:
        seen: dict[str, Var] = {}
        s: Scope | None = self
        while s is not None:
            for name, v in s.vars.items():
                seen.setdefault(name, v)
            s = s.parent
        return list(seen.values())


@dataclass
class Func:
    name: str
    ret: Ty
    params: list[tuple[str, Ty]]
    recursive: bool = False  # param 0 is a small I64 depth
    ret_iv: tuple[int, int] | None = None


@dataclass
class KParam:
    mode: str  # in, out, inout
    name: str
    ty: Ty
    ext: list | None = None  # arrays: [("sym", name, off) | ("const", k)]
    small: bool = False  # a scalar the dispatch passes as a literal 0..4 (a loop bound)
    reduce: str | None = None  # scalar out: the reduction
    stored: tuple[int, int] | None = None  # out/inout arrays: the values stored; scalar outs: the result's


@dataclass
class Kernel:
    name: str
    dims: int
    gpu: bool
    sizes: list[str]
    over: list[tuple[str, str, int]]  # (variable, size symbol, offset <= 0)
    params: list[KParam]
    where: list[tuple[str, str, str, int]]  # (left symbol, op, right symbol or "", constant)
    text: str = ""


@dataclass
class Ctx:
    where: str  # "kernel", "func", "go"
    gpu: bool
    scope: Scope
    kernel: Kernel | None = None
    func: Func | None = None
    callable: list[Func] = field(default_factory=list)
    loops: int = 0
    breakable: int = 0
    nest: int = 0
    mult: int = 1
    budget: int = 12
    pending: list[KParam] = field(default_factory=list)  # reductions not yet written
    allowed: set = field(default_factory=set)  # ids of outer variables this loop may assign
    returns: tuple[int, int] | None = None  # a function's returned values


@dataclass
class Ex:
    """An expression: its text and the interval of its values (None: Bool)."""

    text: str
    iv: tuple[int, int] | None


@dataclass
class Program:
    seed: str
    text: str
    gpu: bool  # kernels kept inside gpu-cuda's profile
    finale: str
    dispatches: int
    risk: float


class Gen:
    def __init__(self, seed: str) -> None:
        self.seed = seed
        self.r = random.Random(seed)
        self.item_names: set[str] = set()
        self.late_items: list[str] = []  # kernels a finale adds (Entry.late)
        self.funcs: list[Func] = []
        self.kernels: list[Kernel] = []
        self.gpu = self.r.random() < 0.5
        self.fresh = 0
        self.deep = self.r.random() < 0.15  # a program with tens of levels of nesting
        self.risk = self.pick([0.0, 0.003, 0.01, 0.03, 0.08])

    # ------------------------------------------------------------ helpers
    def chance(self, p: float) -> bool:
        return self.r.random() < p

    def risky(self, scale: float = 1.0) -> bool:
        """Whether to write an operation that may fault."""
        return self.r.random() < self.risk * scale

    def pick(self, seq):
        return seq[self.r.randrange(len(seq))]

    def weighted(self, options: list[tuple[float, object]]):
        total = sum(w for w, _ in options if w > 0)
        x = self.r.random() * total
        for w, o in options:
            if w <= 0:
                continue
            x -= w
            if x < 0:
                return o
        return [o for w, o in options if w > 0][-1]

    def item_name(self) -> str:
        free = [n for n in ITEM_NAMES if n not in self.item_names]
        name = self.pick(free) if free and self.chance(0.8) else f"k{len(self.item_names)}"
        while name in self.item_names:
            name += "_"
        self.item_names.add(name)
        return name

    def local_name(self, ctx: Ctx, pool=LOCAL_NAMES) -> str:
        """A name for a new variable of the innermost scope: it may shadow a scalar local of
        an outer scope, never anything else, and never an item."""
        for _ in range(20):
            name = self.pick(pool)
            if self.chance(0.3):
                name = f"{name}{self.r.randrange(10)}"
            if name in self.item_names or name in ctx.scope.vars:
                continue
            outer = ctx.scope.lookup(name)
            if outer is None or (outer.role == "local" and self.chance(0.5)):
                return name
        self.fresh += 1
        return f"v_{self.fresh}"

    def scalar_types(self, ctx: Ctx) -> list[Ty]:
        if ctx.gpu:
            return NATIVE_INTS + [I32, I64, I64]
        return NATIVE_INTS + NATIVE_INTS + [I64, I64] + WIDE_INTS[:2] + FIXEDS[:2] + [self.pick(WIDE_INTS + FIXEDS)]

    def some_type(self, ctx: Ctx) -> Ty:
        # Prefer types of variables in scope (more reads, fewer casts).
        vs = [v.ty for v in ctx.scope.visible() if v.ty.numeric and (not ctx.gpu or v.ty.native)
              and v.role not in ("out", "dyn")]
        if vs and self.chance(0.6):
            return self.pick(vs)
        return self.pick(self.scalar_types(ctx))

    # ------------------------------------------------------------ values and literals
    def int_value(self, t: Ty, small_bias: float = 0.6) -> int:
        x = self.r.random()
        if x < small_bias:
            v = self.r.randint(-6 if t.signed else 0, 12)
        elif x < small_bias + 0.2:
            v = self.r.randint(-300 if t.signed else 0, 300)
        elif x < small_bias + 0.32:
            v = self.pick([t.lo, t.hi, t.lo + 1, t.hi - 1, 0, 1, -1 if t.signed else 2, t.hi // 2 + 1])
        else:
            v = self.r.randint(t.lo, t.hi)
        return max(t.lo, min(t.hi, v))

    def fixed_value(self, t: Ty) -> int:
        x = self.r.random()
        one = 1 << t.frac
        if x < 0.6:
            v = self.r.randint(-12, 20) * (one >> min(t.frac, 2))
        elif x < 0.8:
            v = self.r.randint(-4 * one, 4 * one)
        elif x < 0.9:
            v = self.pick([t.lo, t.hi, t.lo + 1, 0, one, -one, 1])
        else:
            v = self.r.randint(t.lo, t.hi)
        return max(t.lo, min(t.hi, v))

    def value(self, t: Ty) -> int:
        if t.kind == "bool":
            return self.r.randrange(2)
        return self.fixed_value(t) if t.kind == "fixed" else self.int_value(t)

    def data_value(self, t: Ty) -> int:
        lo, hi = data_range(t)
        if t.kind == "fixed" and self.chance(0.7):
            one = 1 << t.frac
            return max(lo, min(hi, self.r.randint(-32, 32) * (one >> min(t.frac, 2))))
        return self.r.randint(lo, hi)

    def int_spelling(self, v: int) -> str:
        x = self.r.random()
        if v > 9 and x < 0.08:
            return hex(v)
        if v > 1 and x < 0.11:
            return bin(v)
        if v > 9999 and x < 0.2:
            return f"{v:_}"
        return str(v)

    def literal(self, t: Ty, v: int, ctx: Ctx | None = None) -> str:
        """The literal of stored value v, for a place whose context gives it type t
        (`T.min` where the positive literal would not fit; `0 - k` in a gpu kernel,
        which refuses unary minus)."""
        if t.kind == "bool":
            return "true" if v else "false"
        if v == t.lo and t.signed:
            return f"{t.name}.min"
        if v == t.hi and self.chance(0.3):
            return f"{t.name}.max"
        gpu = ctx is not None and ctx.gpu and ctx.where == "kernel"
        text = fixed_decimal(t, abs(v)) if t.kind == "fixed" else self.int_spelling(abs(v))
        if v < 0:
            return f"(0 - {text})" if gpu else f"(-{text})"
        return text

    def typed_constant(self, t: Ty, v: int, ctx: Ctx) -> str:
        """A constant whose type is t without context."""
        if t.kind == "bool":
            return "true" if v else "false"
        if v == t.lo and t.signed:
            return f"{t.name}.min"
        if v == t.hi:
            return f"{t.name}.max"
        if t.kind == "fixed" and v % (1 << t.frac) == 0 and abs(v >> t.frac) < (1 << 62):
            return f"({self.literal(I64, v >> t.frac, ctx)} as {t.name})"
        if t.kind == "int" and I64.lo <= v <= I64.hi:
            return f"({self.literal(I64, v, ctx)} as {t.name})"
        return f"({t.name}.max - {t.name}.max + {self.literal(t, v, ctx)})"

    # ------------------------------------------------------------ expressions
    def readable_scalars(self, ctx: Ctx, t: Ty) -> list[Var]:
        return [v for v in ctx.scope.visible()
                if v.ty == t and v.role in ("local", "param", "loop", "over", "size")]

    def readable_arrays(self, ctx: Ctx, t: Ty) -> list[Var]:
        return [v for v in ctx.scope.visible() if v.ty == t and v.role in ("in", "inout", "larr", "arr")]

    def index_for(self, ctx: Ctx, arr: Var, d: int, risky: bool) -> str:
        """An I64 index into dimension d of arr: in range unless `risky`."""
        spec = arr.ext[d]
        loops = [v for v in ctx.scope.visible() if v.role == "loop" and v.rng is not None]
        gpu = ctx.gpu and ctx.where == "kernel"
        if isinstance(spec, int):  # a known extent
            if risky:
                return self.pick([str(spec), "(0 - 1)" if gpu else "(-1)", str(spec + 3)])
            good = [v.name for v in loops if v.rng[0] >= 0 and v.rng[1] <= spec]
            if good and self.chance(0.5):
                return self.pick(good)
            return str(self.r.randrange(spec)) if spec > 0 else "0"
        if spec[0] == "const":
            k = spec[1]
            if risky:
                return str(k)
            good = [v.name for v in loops if v.rng[0] >= 0 and v.rng[1] <= k]
            if good and self.chance(0.6):
                return self.pick(good)
            return str(self.r.randrange(k))
        _, sym, off = spec
        kern = ctx.kernel
        assert kern is not None
        bound = [(var, oo) for var, s, oo in kern.over if s == sym]
        if not bound:  # a symbol no over variable runs over (m): where n <= m or m >= 1
            if risky:
                return sym
            if self.where_le(kern, sym):
                return self.pick([kern.over[0][0], "0"])
            return "0"
        var, oo = bound[0]
        slack = off - oo  # var + j is in range for 0 <= j <= slack
        if risky:
            return self.pick([f"({var} + {slack + 1})", f"({var} - 1)", f"({sym} + {off})"])
        return self.pick([var, var, f"({var} + {self.r.randint(0, slack)})" if slack > 0 else var,
                          f"(({sym} - {1 - oo}) - {var})"])

    @staticmethod
    def where_le(kern: Kernel, sym: str) -> bool:
        """`where n <= sym` with n the symbol of the first over dimension."""
        return any(w[0] == kern.over[0][1] and w[1] == "<=" and w[2] == sym and w[3] == 0 for w in kern.where)

    def array_read(self, ctx: Ctx, arr: Var) -> str:
        risky = self.risky(0.5)
        last = self.r.randrange(len(arr.ext))
        idx = [self.index_for(ctx, arr, d, risky and d == last) for d in range(len(arr.ext))]
        return f"{arr.name}[{', '.join(idx)}]"

    def leaf(self, ctx: Ctx, t: Ty, typed: bool) -> Ex:
        opts: list[tuple[float, object]] = []
        scalars = self.readable_scalars(ctx, t)
        arrays = self.readable_arrays(ctx, t) if t.kind != "bool" else []
        if scalars:
            opts.append((4, "var"))
        if arrays:
            opts.append((4, "read"))
        opts.append((1.5 if typed else 3, "const"))
        kind = self.weighted(opts)
        if kind == "var":
            v = self.pick(scalars)
            return Ex(v.name, v.iv or t.top)
        if kind == "read":
            a = self.pick(arrays)
            return Ex(self.array_read(ctx, a), a.iv or t.top)
        v = self.value(t)
        return Ex(self.typed_constant(t, v, ctx) if typed else self.literal(t, v, ctx), (v, v))

    def safe_leaf(self, ctx: Ctx, t: Ty, typed: bool, box: tuple[int, int] | None = None) -> Ex:
        box = box or data_range(t)
        for _ in range(3):
            e = self.leaf(ctx, t, typed)
            if within(e.iv, box):
                return e
        v = self.r.randint(box[0], box[1]) if self.chance(0.5) else max(box[0], min(box[1], 1))
        return Ex(self.typed_constant(t, v, ctx) if typed else self.literal(t, v, ctx), (v, v))

    def expr(self, ctx: Ctx, t: Ty, depth: int, typed: bool = False) -> Ex:
        """An expression of type t. `typed`: its type is t without context (it goes
        where the checker gives no expected type: a cast's source, a comparison's left
        side, a printed value). Operations that may fault are written only at the
        program's risk."""
        if t.kind == "bool":
            return Ex(self.bool_expr(ctx, depth), None)
        if depth <= 0 or self.chance(0.2):
            return self.leaf(ctx, t, typed)
        for _ in range(4):
            e = self.operation(ctx, t, depth, typed)
            if e is not None:
                return e
        return self.leaf(ctx, t, typed)

    def in_expr(self, ctx: Ctx, t: Ty, box: tuple[int, int], depth: int = 2, typed: bool = False) -> Ex:
        """An expression whose values lie in box (function and kernel arguments)."""
        if t.kind == "bool":
            return self.expr(ctx, t, depth, typed)
        for _ in range(4):
            e = self.expr(ctx, t, depth, typed)
            if within(e.iv, box) or self.risky(0.3):
                return e
        return self.safe_leaf(ctx, t, typed, box)

    def operation(self, ctx: Ctx, t: Ty, depth: int, typed: bool) -> Ex | None:
        gpu = ctx.gpu and ctx.where == "kernel"
        is_int = t.kind == "int"
        ops: list[tuple[float, object]] = [
            (6, "checked"), (2.5, "wrap"), (1.2, "cast"), (0.8 if is_int else 0, "div_round"),
        ]
        if not gpu:
            ops += [(1.2 if is_int else 0, "sat"), (1.5, "div"), (0.8, "minmax"), (0.3, "abs"),
                    (0.3 if t.signed else 0.05, "neg"), (0.8 if is_int else 0, "wcast"),
                    (0.8 if is_int else 0, "shift"), (0.8 if is_int else 0, "bits"), (0.2 if is_int else 0, "not"),
                    (0.1 if not is_int else 0, "fixed_odd")]
            if any(f.ret == t for f in ctx.callable):
                ops.append((1.2, "call"))
        op = self.weighted(ops)
        d = depth - 1
        top = t.top
        if op in ("checked", "wrap", "sat", "bits", "fixed_odd"):
            sym = self.pick({"checked": ["+", "-", "*", "+", "-"], "wrap": ["+%", "-%", "*%"],
                             "sat": ["+|", "-|", "*|"], "bits": ["&", "|", "^"],
                             "fixed_odd": ["%", "+%", "*|", "-|"]}[op])
            a = self.expr(ctx, t, d, typed)
            b = self.expr(ctx, t, d, False)
            text = f"({a.text} {sym} {b.text})"
            if sym in ("&", "|", "^"):
                return Ex(text, bits_iv(sym, a.iv, b.iv, t))
            if sym == "%":  # fixed-point remainder: a divisor of 0 faults
                if b.iv[0] <= 0 <= b.iv[1] and not self.risky():
                    return None
                return Ex(text, top)
            exact = arith_iv(sym[0], a.iv, b.iv, t)
            if sym in ("+|", "-|", "*|"):
                return Ex(text, (max(t.lo, min(t.hi, exact[0])), max(t.lo, min(t.hi, exact[1]))))
            if sym in ("+%", "-%", "*%"):
                return Ex(text, exact if t.fits(exact) else top)
            if not t.fits(exact) and not self.risky():
                return None
            return Ex(text, exact if t.fits(exact) else top)
        if op == "div":
            a = self.expr(ctx, t, d, typed)
            b = self.divisor(ctx, t, d)
            sym = self.pick(["/", "%", "/"])
            iv = div_iv(sym, a.iv, b.iv, t)
            if iv is None and not self.risky():
                return None
            return Ex(f"({a.text} {sym} {b.text})", iv or top)
        if op == "shift":
            a = self.expr(ctx, t, d, typed)
            sym = self.pick(["<<", ">>"])
            c, civ = self.shift_count(ctx, t)
            iv = shift_iv(sym, a.iv, civ, t)
            if iv is None and not self.risky():
                return None
            return Ex(f"({a.text} {sym} {c})", iv or top)
        if op == "not":
            a = self.expr(ctx, t, d, typed)
            iv = (~a.iv[1], ~a.iv[0]) if t.signed else (t.hi - a.iv[1], t.hi - a.iv[0])
            return Ex(f"(~{a.text})", iv)
        if op == "neg":
            a = self.expr(ctx, t, d, True)
            iv = (-a.iv[1], -a.iv[0])
            if not t.fits(iv) and not self.risky():
                return None
            return Ex(f"(-{a.text})", iv if t.fits(iv) else top)
        if op == "div_round":
            a = self.expr(ctx, t, d, typed)
            b = self.divisor(ctx, t, d)
            iv = div_iv("dr", a.iv, b.iv, t)
            if iv is None and not self.risky():
                return None
            return Ex(f"div_round({a.text}, {b.text}, {self.pick(ROUNDING)})", iv or top)
        if op == "minmax":
            a = self.expr(ctx, t, d, typed)
            b = self.expr(ctx, t, d, False)
            which = self.pick(["min", "max"])
            f = min if which == "min" else max
            return Ex(f"{which}({a.text}, {b.text})", (f(a.iv[0], b.iv[0]), f(a.iv[1], b.iv[1])))
        if op == "abs":
            a = self.expr(ctx, t, d, typed)
            lo, hi = a.iv
            iv = (lo, hi) if lo >= 0 else (-hi, -lo) if hi <= 0 else (0, max(-lo, hi))
            if not t.fits(iv) and not self.risky():
                return None
            return Ex(f"abs({a.text})", iv if t.fits(iv) else top)
        if op == "wcast":
            src = self.pick([s for s in (NATIVE_INTS + WIDE_INTS[:2]) if s != t])
            a = self.expr(ctx, src, d, True)
            return Ex(f"({a.text} as% {t.name})", a.iv if t.fits(a.iv) else top)
        if op == "cast":
            pool = NATIVE_INTS if gpu else NATIVE_INTS + WIDE_INTS[:2] + FIXEDS[:2]
            src = self.pick([s for s in pool if s != t])
            a = self.expr(ctx, src, d, True)
            iv = cast_iv(a.iv, src, t)
            if iv is None and not self.risky():
                return None
            return Ex(f"({a.text} as {t.name})", iv or top)
        if op == "call":
            f = self.pick([f for f in ctx.callable if f.ret == t])
            return Ex(self.call(ctx, f, d), f.ret_iv or top)
        return None

    def divisor(self, ctx: Ctx, t: Ty, depth: int) -> Ex:
        """A divisor: nonzero unless the program takes the risk."""
        e = self.leaf(ctx, t, False) if self.chance(0.6) else self.expr(ctx, t, depth, False)
        lo, hi = e.iv
        if lo > 0 or hi < 0 or self.risky():
            return e
        # move the interval off 0 with a checked addition that cannot overflow
        shift = 1 - lo
        if hi + shift <= t.hi:
            return Ex(f"({e.text} + {self.literal(t, shift, ctx)})", (lo + shift, hi + shift))
        v = self.pick([1, 2, 3, 7]) << (t.frac if t.kind == "fixed" else 0)
        return Ex(self.literal(t, v, ctx), (v, v))

    def shift_count(self, ctx: Ctx, t: Ty) -> tuple[str, tuple[int, int]]:
        if self.risky():
            if self.chance(0.5):
                c = t.bits + self.r.randrange(3)
                return str(c), (c, c)
            e = self.leaf(ctx, t, False)
            return e.text, e.iv
        c = self.r.randrange(min(t.bits, 12)) if self.chance(0.85) else self.r.randrange(t.bits)
        return str(c), (c, c)

    def call(self, ctx: Ctx, f: Func, depth: int) -> str:
        args = []
        for k, (_, pt) in enumerate(f.params):
            if f.recursive and k == 0:
                args.append(str(self.r.randint(0, 6)))
            else:
                args.append(self.in_expr(ctx, pt, data_range(pt), min(depth, 2)).text)
        return f"{f.name}({', '.join(args)})"

    def bool_expr(self, ctx: Ctx, depth: int) -> str:
        x = self.r.random()
        bools = self.readable_scalars(ctx, BOOL)
        if depth <= 0 or x < 0.1:
            if bools and self.chance(0.6):
                return self.pick(bools).name
            if self.chance(0.3):
                return self.pick(["true", "false"])
        if x < 0.7 or depth <= 0:
            t = self.some_type(ctx)
            op = self.pick(["==", "!=", "<", "<=", ">", ">="])
            left = self.expr(ctx, t, min(depth - 1, 2), True).text
            return f"({left} {op} {self.expr(ctx, t, min(depth - 1, 1), False).text})"
        if x < 0.8 and bools:
            return f"({self.pick(bools).name} {self.pick(['==', '!='])} {self.bool_expr(ctx, depth - 1)})"
        if x < 0.9:
            return f"({self.bool_expr(ctx, depth - 1)} {self.pick(['&&', '||'])} {self.bool_expr(ctx, depth - 1)})"
        return f"(!{self.bool_expr(ctx, depth - 1)})"

    # ------------------------------------------------------------ statements
    def ind(self, ctx: Ctx) -> str:
        return "    " * (ctx.nest + 1)

    def tracked(self, ctx: Ctx) -> list[Var]:
        return [v for v in ctx.scope.visible() if v.writable and v.role in ("local", "larr", "arr")]

    def snapshot(self, ctx: Ctx) -> dict[Var, tuple[int, int] | None]:
        return {v: v.iv for v in self.tracked(ctx)}

    @staticmethod
    def restore(state: dict) -> None:
        for v, iv in state.items():
            v.iv = iv

    def assignable(self, ctx: Ctx, roles: tuple[str, ...]) -> list[Var]:
        """Writable variables of these roles that this place may assign: those declared
        at this loop depth, and those the enclosing loop let through (their intervals
        are the whole type inside it)."""
        return [v for v in ctx.scope.visible() if v.writable and v.role in roles
                and (v.level == ctx.loops or v in ctx.allowed)]

    def block(self, ctx: Ctx, n: int, extra: list[Var] = (), loop: bool = False) -> list[str]:
        """A nested block of about n statements, in a new scope."""
        scope = Scope(ctx.scope)
        saved = (ctx.scope, ctx.nest, ctx.allowed)
        if loop:
            # the outer variables this loop may assign hold anything inside it
            outer = self.assignable(ctx, ("local", "larr", "arr"))
            allowed = set(self.r.sample(outer, min(len(outer), self.r.randint(0, 2))))
            for v in allowed:
                v.iv = v.ty.top
            ctx.allowed = allowed
            ctx.loops += 1
            ctx.breakable += 1
        for v in extra:
            v.level = ctx.loops
            scope.vars[v.name] = v
        ctx.scope, ctx.nest = scope, ctx.nest + 1
        lines: list[str] = []
        for _ in range(n):
            if ctx.budget <= 0:
                break
            lines += self.stmt(ctx)
        if loop:
            ctx.loops -= 1
            ctx.breakable -= 1
        ctx.scope, ctx.nest, ctx.allowed = saved
        return lines

    def branches(self, ctx: Ctx, bodies: list, exhaustive: bool) -> list[list[str]]:
        """Blocks that run one or none of them: intervals become the hull of all paths."""
        before = self.snapshot(ctx)
        outs, merged = [], {}
        for make in bodies:
            self.restore(before)
            outs.append(make())
            for v in before:
                merged[v] = hull(merged.get(v), v.iv) if v in merged else v.iv
        if not exhaustive:
            for v, iv in before.items():
                merged[v] = hull(merged.get(v), iv) if v in merged else iv
        self.restore(merged)
        return outs

    def declare(self, ctx: Ctx, v: Var) -> None:
        v.level = ctx.loops
        ctx.scope.vars[v.name] = v

    def stmt(self, ctx: Ctx) -> list[str]:
        ctx.budget -= 1
        i = self.ind(ctx)
        k = ctx.where == "kernel"
        gpu = ctx.gpu and k
        can_nest = ctx.nest < 10
        locals_ = self.assignable(ctx, ("local",))
        larrs = self.assignable(ctx, ("larr", "arr"))
        owned = [p for p in (ctx.kernel.params if ctx.kernel else []) if p.mode in ("out", "inout") and p.ext]
        opts: list[tuple[float, object]] = [(3, "decl"), (2.5 if locals_ else 0, "assign")]
        if can_nest:
            opts += [(2, "if"), (1.2 if ctx.mult <= 8 else 0, "for"), (0.6 if ctx.mult <= 8 else 0, "while")]
        if ctx.loops:
            opts.append((0.6, "break"))
        if not gpu:
            opts += [(0.4 if can_nest else 0, "switch"), (0.3, "assert"), (0.5, "larr"),
                     (1.5 if larrs else 0, "lstore"), (0.4 if ctx.callable else 0, "callstmt")]
        if k and owned:
            opts.append((2.5, "ostore"))
        if ctx.where == "go":
            opts.append((2, "print"))
        # a reduce in a branch may see no contribution: min and max only at the top (or at risk)
        reducible = [p for p in ctx.pending if ctx.nest == 0 or p.reduce not in ("min", "max")]
        if k and reducible and ctx.loops == 0:
            opts.append((2, "reduce"))
        if k and not gpu and ctx.nest > 0:
            # a work-item that returns early contributes nothing: min and max may be empty
            empty = any(p.reduce in ("min", "max") for p in ctx.pending)
            opts.append((0.3 if not empty or self.risky(3) else 0, "return"))
        if ctx.where == "func" and ctx.nest > 0:
            opts.append((0.3, "freturn"))
        what = self.weighted(opts)
        depth = self.r.randint(1, 3)
        if what == "decl":
            t = self.pick(self.scalar_types(ctx) + [BOOL])
            name = self.local_name(ctx)
            if self.chance(0.15):
                text, iv = f"{i}{t.name} {name};", (0, 0)
            else:
                e = self.expr(ctx, t, depth)
                text, iv = f"{i}{t.name} {name} = {e.text};", e.iv
            self.declare(ctx, Var(name, t, "local", writable=True, iv=iv))
            return [text]
        if what == "assign":
            v = self.pick(locals_)
            e = self.expr(ctx, v.ty, depth)
            v.iv = e.iv if v.level == ctx.loops and v not in ctx.allowed else v.ty.top
            return [f"{i}{v.name} = {e.text};"]
        if what == "if":
            arms = [(f"if ({self.bool_expr(ctx, 2)})", self.r.randint(1, 3))]
            if self.chance(0.3):
                arms.append((f"else if ({self.bool_expr(ctx, 2)})", self.r.randint(1, 2)))
            has_else = self.chance(0.4)
            if has_else:
                arms.append(("else", self.r.randint(1, 2)))
            blocks = self.branches(ctx, [lambda n=n: self.block(ctx, n) for _, n in arms], has_else)
            lines = []
            for (head, _), body in zip(arms, blocks):
                if lines:
                    lines[-1] += f" {head} {{"
                else:
                    lines.append(f"{i}{head} {{")
                lines += body + [f"{i}}}"]
            return lines
        if what == "for":
            name = self.local_name(ctx)
            lo = self.pick([0, 0, 0, 1, -2])
            n = self.r.randint(0, 4)
            hi_text = str(lo + n)
            smalls = [p for p in (ctx.kernel.params if ctx.kernel else []) if p.small]
            if smalls and self.chance(0.3):
                hi_text, n = self.pick(smalls).name, 4  # at most 4 (the dispatch passes 0..4)
            var = Var(name, I64, "loop", rng=(lo, lo + n) if hi_text == str(lo + n) else None,
                      iv=(min(lo, lo + n - 1), max(lo, lo + n - 1)))
            ctx.mult *= max(n, 1)
            lo_text = str(lo) if lo >= 0 else ("(0 - 2)" if gpu else "(-2)")
            body = self.branches(ctx, [lambda: self.block(ctx, self.r.randint(1, 3), [var], loop=True)], False)[0]
            ctx.mult //= max(n, 1)
            return [f"{i}for {name} in {lo_text}..{hi_text} {{"] + body + [f"{i}}}"]
        if what == "while":
            c = self.local_name(ctx)
            cap = self.r.randint(1, 5)
            self.declare(ctx, Var(c, I64, "loop", iv=(0, cap)))  # only the loop moves it
            cond = f"{c} < {cap}"
            if self.chance(0.4):
                cond += f" && {self.bool_expr(ctx, 1)}"
            ctx.mult *= cap
            body = self.branches(ctx, [lambda: self.block(ctx, self.r.randint(1, 3), loop=True)], False)[0]
            ctx.mult //= cap
            return [f"{i}I64 {c} = 0;", f"{i}while ({cond}) {{", f"{i}    {c} = {c} + 1;"] + body + [f"{i}}}"]
        if what == "break":
            return [f"{i}if ({self.bool_expr(ctx, 1)}) {{", f"{i}    {self.pick(['break', 'continue'])};", f"{i}}}"]
        if what == "switch":
            t = self.pick(NATIVE_INTS)
            subject = self.expr(ctx, t, 2, True).text
            labels = sorted({self.int_value(t, 0.9) for _ in range(self.r.randint(1, 3))})
            has_default = self.chance(0.6)
            ctx.breakable += 1
            ctx.nest += 1

            def case(n: int):
                return lambda: self.block(ctx, n)
            blocks = self.branches(ctx, [case(self.r.randint(1, 2)) for _ in labels] + ([case(1)] if has_default else []),
                                   has_default)
            ctx.nest -= 1
            ctx.breakable -= 1
            lines = [f"{i}switch ({subject}) {{"]
            for lab, body in zip(labels + ["default"], blocks):
                if lab == "default":
                    lines.append(f"{i}    default:")
                else:
                    label = self.literal(t, lab)
                    lines.append(f"{i}    case {label[1:-1] if label.startswith('(-') else label}:")
                lines += body
            return lines + [f"{i}}}"]
        if what == "assert":
            t = self.some_type(ctx)
            e = self.expr(ctx, t, 1, True).text
            if self.risky(3):
                cond = self.bool_expr(ctx, 2)
            else:
                cond = self.pick([f"({e} == {e})", f"({e} <= {t.name}.max)", f"({e} >= {t.name}.min)"])
            return [f"{i}assert({cond});"]
        if what == "larr":
            t = self.pick(self.scalar_types(ctx))
            n = self.r.randint(1, 5)
            name = self.local_name(ctx, ARRAY_NAMES)
            if self.risky(2):  # an extent computed at run time: E_SHAPE when negative
                e = self.expr(ctx, I64, 1)
                self.declare(ctx, Var(name, t, "dyn", [0]))
                return [f"{i}{t.name}[{e.text}] {name};"]
            if self.chance(0.5):
                elems = [self.expr(ctx, t, 1) for _ in range(n)]
                iv = None
                for e in elems:
                    iv = hull(iv, e.iv)
                text = f"{i}{t.name}[{n}] {name} = [{', '.join(e.text for e in elems)}];"
            else:
                text, iv = f"{i}{t.name}[{n}] {name};", (0, 0)
            self.declare(ctx, Var(name, t, "larr", [n], writable=True, iv=iv))
            return [text]
        if what == "lstore":
            a = self.pick(larrs)
            risky = self.risky(0.5)
            idx = ", ".join(self.index_for(ctx, a, d, risky) for d in range(len(a.ext)))
            e = self.expr(ctx, a.ty, depth)
            a.iv = hull(a.iv, e.iv) if a.level == ctx.loops and a not in ctx.allowed else a.ty.top
            return [f"{i}{a.name}[{idx}] = {e.text};"]
        if what == "callstmt":
            return [f"{i}{self.call(ctx, self.pick(ctx.callable), 2)};"]
        if what == "ostore":
            return self.owned_store(ctx, self.pick(owned))
        if what == "print":
            return [self.print_stmt(ctx)]
        if what == "reduce":
            p = self.pick(reducible) if not self.risky() else self.pick(ctx.pending)
            ctx.pending.remove(p)
            return self.reduce_stmt(ctx, p)
        if what == "return":
            return [f"{i}return;"]
        if what == "freturn":
            e = self.expr(ctx, ctx.func.ret, depth)
            ctx.returns = hull(ctx.returns, e.iv)
            return [f"{i}if ({self.bool_expr(ctx, 1)}) {{", f"{i}    return {e.text};", f"{i}}}"]
        return []

    def print_stmt(self, ctx: Ctx, values: list[str] | None = None) -> str:
        if values is None:
            values = []
            for _ in range(self.r.randint(1, 3)):
                t = self.pick(self.scalar_types(ctx) + [BOOL])
                values.append(self.expr(ctx, t, 2, True).text)
        words = self.pick(["", "v ", "r: ", "[", "\\t", "\\\\ \\\" \\{x\\} "])
        return f"{self.ind(ctx)}\"{words}{' '.join('{' + v + '}' for v in values)}\\n\";"

    def owned_store(self, ctx: Ctx, p: KParam) -> list[str]:
        i = self.ind(ctx)
        kern = ctx.kernel
        idx = [var for var, _, _ in kern.over]
        extra = p.ext[len(kern.over):]
        if extra:
            k = extra[0][1]
            if self.chance(0.5) and ctx.mult * k <= 16:
                name = self.local_name(ctx)
                scope = Scope(ctx.scope)
                scope.vars[name] = Var(name, I64, "loop", rng=(0, k), iv=(0, k - 1))
                saved = ctx.scope
                ctx.scope = scope
                e = self.expr(ctx, p.ty, 2)
                ctx.scope = saved
                p.stored = hull(p.stored, e.iv)
                return [f"{i}for {name} in 0..{k} {{", f"{i}    {p.name}[{', '.join(idx + [name])}] = {e.text};",
                        f"{i}}}"]
            idx = idx + [str(k) if self.risky(0.5) else str(self.r.randrange(k))]
        e = self.expr(ctx, p.ty, self.r.randint(1, 3))
        p.stored = hull(p.stored, e.iv)
        return [f"{i}{p.name}[{', '.join(idx)}] = {e.text};"]

    def reduce_stmt(self, ctx: Ctx, p: KParam) -> list[str]:
        i = self.ind(ctx)
        t = p.ty
        n = MAX_ITEMS
        for _ in range(4):
            op = p.reduce
            if op == "sum":
                pool = [t] if t.kind == "fixed" else (NATIVE_INTS if ctx.gpu else NATIVE_INTS + [t])
                src = self.pick(pool + [t])
                e = self.expr(ctx, src, 2, src != t)
                args, safe = e.text, t.fits((e.iv[0] * n, e.iv[1] * n)) and t.fits((e.iv[0], e.iv[1]))
                p.stored = t.top
            elif op == "count":
                args, safe = self.bool_expr(ctx, 2), t.hi >= n
                p.stored = (0, n)
            elif op == "fold_checked":
                init = self.value(t) if self.chance(0.4) else 0
                if ctx.gpu and init < 0 and init != t.lo:
                    init = -init  # `-k` is unary minus, which gpu-cuda refuses
                e = self.expr(ctx, t, 2)
                args = f"add, {self.literal(t, init)}, {e.text}"
                safe = t.fits((init + min(0, e.iv[0]) * n, init + max(0, e.iv[1]) * n))
                p.stored = t.top
            else:
                e = self.expr(ctx, t, 2)
                args, safe = e.text, True
                p.stored = e.iv if op in ("min", "max") else t.top
            if safe or self.risky():
                break
        else:
            # no safe contribution: a reduction that cannot fault (min and max only at the
            # top of the body, where every work-item contributes)
            p.reduce = op = self.pick(["sum_wrap", "min", "max"]) if ctx.nest == 0 else "sum_wrap"
            e = self.expr(ctx, t, 2)
            args = e.text
            p.stored = e.iv if op in ("min", "max") else t.top
        line = f"reduce {p.name} = {p.reduce}({args});"
        # inside an if: min and max may have no contributions (E_EMPTY)
        if p.reduce not in ("min", "max") and self.chance(0.25) or self.risky(2):
            return [f"{i}if ({self.bool_expr(ctx, 1)}) {{", f"{i}    {line}", f"{i}}}"]
        return [f"{i}{line}"]

    # ------------------------------------------------------------ functions
    def function(self, callable_: list[Func]) -> tuple[Func, str]:
        name = self.item_name()
        ret = self.pick(NATIVE_INTS + NATIVE_INTS + [I64, I64, I128, FIXEDS[0], FIXEDS[1], BOOL])
        recursive = ret.kind == "int" and self.chance(0.2)
        params: list[tuple[str, Ty]] = []
        f = Func(name, ret, params, recursive)
        ctx = Ctx("func", False, Scope(), func=f, callable=list(callable_), budget=self.r.randint(2, 7))
        if recursive:
            params.append(("depth", I64))
            ctx.scope.vars["depth"] = Var("depth", I64, "param", iv=(0, 6))
        for _ in range(self.r.randint(0 if not recursive else 1, 3)):
            pt = self.pick(NATIVE_INTS + [I64, I128, FIXEDS[1], BOOL])
            pn = self.local_name(ctx)
            params.append((pn, pt))
            ctx.scope.vars[pn] = Var(pn, pt, "param", iv=data_range(pt) if pt.kind != "bool" else None)
        sig = f"{ret.name} {name}({', '.join(f'{t.name} {n}' for n, t in params)})"
        lines = [sig + " {"]
        if recursive:
            e = self.expr(ctx, ret, 2)
            ctx.returns = e.iv
            lines += ["    if (depth <= 0) {", f"        return {e.text};", "    }"]
        while ctx.budget > 0:
            lines += self.stmt(ctx)
        if self.deep and self.chance(0.5):
            lines += self.deep_nest(ctx, ret)
        if recursive:
            rest = [self.in_expr(ctx, pt, data_range(pt), 1).text for _, pt in params[1:]]
            rec = f"{name}(depth - 1{''.join(', ' + a for a in rest)})"
            lines.append(f"    return ({rec} {self.pick(['+%', '-%', '*%'])} {self.expr(ctx, ret, 1).text});")
            f.ret_iv = ret.top
        else:
            e = self.expr(ctx, ret, self.r.randint(1, 3))
            lines.append(f"    return {e.text};")
            f.ret_iv = hull(ctx.returns, e.iv) if ret.kind != "bool" else None
        lines.append("}")
        return f, "\n".join(lines)

    def deep_nest(self, ctx: Ctx, t: Ty) -> list[str]:
        """Tens of levels: nested ifs around a deep expression (under C1003's 256)."""
        if t.kind == "bool":
            t = I64
        name = self.local_name(ctx)
        levels = self.r.randint(10, 40)
        chain = self.r.randint(10, 60)
        lines = [f"    {t.name} {name} = {self.expr(ctx, t, 1).text};"]
        self.declare(ctx, Var(name, t, "local", writable=True, iv=t.top))
        for d in range(levels):
            pad = "    " * (d + 1)
            lines.append(f"{pad}if ({name} != {self.literal(t, self.value(t), ctx)} || {d} < {levels}) {{")
            lines.append(f"{pad}    {name} = ({name} {self.pick(['+%', '-%'])} {self.literal(t, 1, ctx)});")
        e = self.leaf(ctx, t, True).text
        for _ in range(chain):
            e = f"({e} {self.pick(['+%', '-%', '*%'])} {self.literal(t, self.r.randint(0, 3), ctx)})"
        lines.append("    " * (levels + 1) + f"{name} = {e};")
        for d in reversed(range(levels)):
            lines.append("    " * (d + 1) + "}")
        return lines

    # ------------------------------------------------------------ kernels
    def kernel(self, gpu: bool) -> Kernel:
        name = self.item_name()
        dims = 1 if self.chance(0.55) else 2
        used: set[str] = set(self.item_names)

        def kname(pool) -> str:
            for _ in range(30):
                n = self.pick(pool)
                if n not in used:
                    used.add(n)
                    return n
            n = f"p{len(used)}"
            used.add(n)
            return n

        size_pool = ["n", "m", "h", "w", "len", "int", "size_t", "N", "count", "a_n", "k_"]
        over_pool = ["i", "j", "y", "x", "idx", "tid", "int", "gid", "row", "col", "_"]
        sizes = [kname(size_pool) for _ in range(dims)]
        over = []
        for s in sizes:
            over.append((kname(over_pool), s, -1 if self.chance(0.12) else 0))
        tys = NATIVE_INTS if gpu else NATIVE_INTS + NATIVE_INTS + WIDE_INTS[:2] + FIXEDS[:2]
        out_tys = STORE_OK_GPU if gpu else tys
        params: list[KParam] = []

        def ext_text(spec) -> str:
            if spec[0] == "const":
                return str(spec[1])
            _, s, off = spec
            return s if off == 0 else (f"{s} + {off}" if off > 0 else f"{s} - {-off}")

        # the primary in array binds every size symbol with a bare extent
        params.append(KParam("in", kname(ARRAY_NAMES + ["a", "b", "src"]), self.pick(tys),
                             [("sym", s, 0) for s in sizes]))
        where: list[tuple[str, str, str, int]] = []
        extra_m = None
        for _ in range(self.r.randint(0, 2)):
            kind = self.r.random()
            t = self.pick(tys)
            if dims == 1:
                if kind < 0.45:
                    ext = [("sym", sizes[0], self.pick([0, 1, 2]))]
                elif kind < 0.7:
                    ext = [("sym", sizes[0], 0), ("const", self.r.randint(1, 3))]
                elif extra_m is None:
                    extra_m = kname(size_pool)
                    sizes.append(extra_m)
                    ext = [("sym", extra_m, 0)]
                    where.append(self.pick([(sizes[0], "<=", extra_m, 0), (extra_m, ">=", "", 1)]))
                else:
                    ext = [("sym", sizes[0], 0)]
            else:
                if kind < 0.35:
                    ext = [("sym", sizes[0], 0), ("sym", sizes[1], 0)]
                elif kind < 0.6:
                    ext = [("sym", sizes[1], 0), ("sym", sizes[0], 0)]  # read transposed
                elif kind < 0.8:
                    ext = [("sym", sizes[0], 1), ("sym", sizes[1], self.pick([0, 2]))]
                else:
                    ext = [("sym", sizes[0], 0), ("sym", sizes[1], 0), ("const", 2)]
            params.append(KParam("in", kname(ARRAY_NAMES), t, ext))
        for _ in range(self.r.randint(0, 2)):
            t = self.pick(tys + [I64, I64])
            params.append(KParam("in", kname(["k", "s", "scale", "bias", "lim", "int", "ret", "ctx"]), t,
                                 small=(t == I64 and self.chance(0.5))))
        owned_ext = [("sym", s, oo) for _, s, oo in over]
        if self.chance(0.3):
            params.append(KParam("inout", kname(ARRAY_NAMES), self.pick(out_tys), list(owned_ext)))
        for _ in range(self.r.randint(1, 2) if self.chance(0.85) else 0):
            ext = list(owned_ext) + ([("const", self.r.randint(2, 3))] if self.chance(0.2) else [])
            params.append(KParam("out", kname(ARRAY_NAMES + ["v", "b", "res"]), self.pick(out_tys), ext))
        for _ in range(self.r.randint(0 if any(p.mode == "out" for p in params) else 1, 3)):
            t = self.pick(out_tys + ([FIXEDS[0]] if not gpu else []))
            ops = ["sum", "sum", "sum_wrap", "sum_sat", "min", "max", "fold_checked"]
            if t.kind == "int":
                ops.append("count")
            if t.kind == "fixed":
                ops = ["sum", "min", "max", "fold_checked"]
            params.append(KParam("out", kname(["s", "total", "lo", "hi", "cnt", "acc", "ret", "sum_", "res"]),
                                 t, reduce=self.pick(ops)))
        rest = params[1:]  # the primary array stays first
        self.r.shuffle(rest)
        params = [params[0]] + rest
        if self.chance(0.25):
            where.append(self.pick([(sizes[0], ">=", "", 0), (sizes[0], "<", "", 100000),
                                    (sizes[-1], "<=", sizes[0], 1000)]))
        if any(oo < 0 for _, _, oo in over) and self.chance(0.5):
            where.append((over[0][1], ">=", "", 1))
        k = Kernel(name, dims, gpu, sizes, over, params, where)
        # the body
        caps = {sizes[0]: MAX_ITEMS} if dims == 1 else {sizes[0]: 16, sizes[1]: MAX_ITEMS}
        scope = Scope()
        for s in sizes:
            scope.vars[s] = Var(s, I64, "size", iv=(0, caps.get(s, MAX_ITEMS + 3)))
        for p in params:
            if p.ext is not None and p.mode in ("in", "inout"):
                scope.vars[p.name] = Var(p.name, p.ty, p.mode, p.ext, iv=data_range(p.ty))
            elif p.ext is None and p.mode == "in":
                scope.vars[p.name] = Var(p.name, p.ty, "param", iv=(0, 4) if p.small else data_range(p.ty))
            else:  # in scope (so that no local shadows it) but not readable
                scope.vars[p.name] = Var(p.name, p.ty, "out", p.ext or [])
        for var, s, oo in over:
            scope.vars[var] = Var(var, I64, "over", iv=(0, max(0, caps[s] - 1 + oo)))
        ctx = Ctx("kernel", gpu, Scope(scope), kernel=k, callable=[] if gpu else list(self.funcs),
                  budget=self.r.randint(3, 10), pending=[p for p in params if p.reduce])
        body: list[str] = []
        while ctx.budget > 0:
            body += self.stmt(ctx)
        if self.deep and self.chance(0.5):
            body += self.deep_nest(ctx, self.pick(NATIVE_INTS))
        for p in params:
            if p.mode == "out" and p.ext and (p.stored is None or self.chance(0.5)):
                body += self.owned_store(ctx, p)
        while ctx.pending:
            body += self.reduce_stmt(ctx, ctx.pending.pop())
        sig_params = []
        for p in params:
            mode = p.mode if (p.mode != "in" or self.chance(0.5)) else ""
            t = p.ty.name + (f"[{', '.join(ext_text(e) for e in p.ext)}]" if p.ext else "")
            sig_params.append(f"{mode + ' ' if mode else ''}{t} {p.name}")
        over_text = ", ".join(f"{v}: {ext_text(('sym', s, oo))}" for v, s, oo in over)
        where_text = ""
        if where:
            parts = []
            for left, op, right, c in where:
                rhs = (f"{right} + {c}" if c else right) if right else str(c)
                parts.append(f"{left} {op} {rhs}")
            where_text = " where " + ", ".join(parts)
        sep = ",\n        " if len(params) > 4 else ", "
        k.text = (f"kernel {name}[{', '.join(sizes)}]({sep.join(sig_params)}) over [{over_text}]{where_text} {{\n"
                  + "\n".join(body) + "\n}")
        return k

    # ------------------------------------------------------------ the program
    def program(self) -> Program:
        items: list[str] = []
        for _ in range(self.r.randint(0, 3)):
            f, text = self.function(list(self.funcs))
            self.funcs.append(f)
            items.append(text)
        for _ in range(self.r.randint(1, 3)):
            k = self.kernel(self.gpu or self.chance(0.15))
            self.kernels.append(k)
            items.append(k.text)
        self.r.shuffle(items)
        name = self.item_name()
        entry = Entry(self)
        body, finale, dispatches = entry.build()
        items += self.late_items
        if self.chance(0.3):  # at the top level: entry locals
            text = "\n\n".join(items) + "\n\n" + "\n".join(line[4:] for line in body) + "\n"
        else:
            text = "\n\n".join(items) + f"\n\nvoid {name}() {{\n" + "\n".join(body) + f"\n}}\n{name}();\n"
        return Program(self.seed, text, self.gpu, finale, dispatches, self.risk)


# ---------------------------------------------------------------- intervals of operations

def arith_iv(op: str, a: tuple[int, int], b: tuple[int, int], t: Ty) -> tuple[int, int]:
    """The exact results of + - * on stored values (fixed *: rounded to the type's bits)."""
    if op == "+":
        return (a[0] + b[0], a[1] + b[1])
    if op == "-":
        return (a[0] - b[1], a[1] - b[0])
    corners = [x * y for x in a for y in b]
    if t.kind == "fixed":
        return (floor(Fraction(min(corners), 1 << t.frac)), ceil(Fraction(max(corners), 1 << t.frac)))
    return (min(corners), max(corners))


def div_iv(op: str, a: tuple[int, int], b: tuple[int, int], t: Ty) -> tuple[int, int] | None:
    """The results of / % div_round, or None when one may fault (a divisor of 0, MIN / -1)."""
    if b[0] <= 0 <= b[1]:
        return None
    scale = (1 << t.frac) if t.kind == "fixed" else 1
    if op == "%":
        m = max(abs(b[0]), abs(b[1])) - 1
        iv = (max(min(0, a[0]), -m), min(max(0, a[1]), m))
        return iv if t.kind == "int" else t.top
    qs = [Fraction(x * scale, y) for x in a for y in b]
    iv = (floor(min(qs)), ceil(max(qs)))
    if t.kind == "fixed":
        iv = (iv[0] - 1, iv[1] + 1)
    return iv if t.fits(iv) else None


def shift_iv(op: str, a: tuple[int, int], c: tuple[int, int], t: Ty) -> tuple[int, int] | None:
    if c[0] < 0 or c[1] >= t.bits:
        return None
    if op == "<<":
        corners = [x << k for x in a for k in c]
        iv = (min(corners), max(corners))
        return iv if t.fits(iv) else None
    corners = [x >> k for x in a for k in c]
    return (min(corners), max(corners))


def bits_iv(op: str, a: tuple[int, int], b: tuple[int, int], t: Ty) -> tuple[int, int]:
    if a[0] < 0 or b[0] < 0:
        return t.top
    if op == "&":
        return (0, min(a[1], b[1]))
    return (0, (1 << max(a[1], b[1]).bit_length()) - 1)


def cast_iv(a: tuple[int, int], src: Ty, dst: Ty) -> tuple[int, int] | None:
    """The values of `a as dst`, or None when the conversion may narrow."""
    sf = src.frac if src.kind == "fixed" else 0
    df = dst.frac if dst.kind == "fixed" else 0
    if df >= sf:
        iv = (a[0] << (df - sf), a[1] << (df - sf))
    else:
        if a[0] != a[1] or a[0] % (1 << (sf - df)):
            return None  # a fraction may be lost
        iv = (a[0] >> (sf - df), a[1] >> (sf - df))
    return iv if dst.fits(iv) else None


# ---------------------------------------------------------------- the entry: dispatches

@dataclass(eq=False)
class Arr:
    name: str
    ty: Ty
    ext: list[int]
    var: Var | None = None

    @property
    def iv(self):
        return self.var.iv

    @iv.setter
    def iv(self, value):
        self.var.iv = value
class Entry:
    """The body of the entry: arrays, dispatches of the kernels on arrays and views,
    prints, sequential statements, and a finale that provokes one fault kind."""

    def __init__(self, g: Gen) -> None:
        self.g = g
        self.r = g.r
        self.lines: list[str] = []
        self.arrays: list[Arr] = []
        self.ctx = Ctx("go", False, Scope(), callable=list(g.funcs), budget=10 ** 9)
        self.names: set[str] = set()
        self.dispatches = 0

    def name(self, pool) -> str:
        for _ in range(30):
            n = self.g.pick(pool)
            if self.g.chance(0.4):
                n += str(self.r.randrange(100))
            if n not in self.names and n not in self.g.item_names and self.ctx.scope.lookup(n) is None:
                self.names.add(n)
                return n
        n = f"e_{len(self.names)}"
        self.names.add(n)
        return n

    def emit(self, line: str) -> None:
        self.lines.append("    " + line)

    # arrays
    def new_array(self, t: Ty, ext: list[int], hostile: bool = False) -> Arr:
        a = Arr(self.name(ARRAY_NAMES), t, list(ext))
        count = 1
        for e in ext:
            count *= e
        decl = f"{t.name}[{', '.join(map(str, ext))}] {a.name}"
        g = self.g
        if hostile:
            vals = [g.pick([t.lo, t.hi, 0, t.hi // 2 + 1, t.lo // 2 - 1 if t.signed else 1, 1]) if g.chance(0.5)
                    else g.value(t) for _ in range(count)]
            vals = [max(t.lo, min(t.hi, v)) for v in vals]
        iv = (0, 0)
        if count <= 40 and (hostile or g.chance(0.6)) and count > 0:
            if not hostile:
                vals = [g.data_value(t) for _ in range(count)]
            self.emit(f"{decl} = {self.nested(t, vals, ext)};")
            iv = (min(vals), max(vals))
        elif count == 0 or g.chance(0.2):
            self.emit(f"{decl};")
        else:
            self.emit(f"{decl};")
            iv = self.fill(a, hostile)
        self.arrays.append(a)
        a.var = Var(a.name, t, "arr", list(ext), writable=True, iv=iv)
        self.ctx.scope.vars[a.name] = a.var
        return a

    def nested(self, t: Ty, vals: list[int], ext: list[int]) -> str:
        if not ext:
            return self.g.literal(t, vals[0])
        step = len(vals) // ext[0] if ext[0] else 0
        return "[" + ", ".join(self.nested(t, vals[k * step:(k + 1) * step], ext[1:]) for k in range(ext[0])) + "]"

    def fill(self, a: Arr, hostile: bool) -> tuple[int, int]:
        """Fill with a formula of the flat index (loops: fuel); returns the interval."""
        t = a.ty
        lo, hi = data_range(t)
        if t.kind == "fixed":
            lo, hi = lo >> t.frac, hi >> t.frac
        span = hi - lo + 1
        mul, add = self.r.randint(1, 997), self.r.randint(0, 1000)
        vars_ = [self.name(["q", "r2", "ix", "jx", "kx"]) for _ in a.ext]
        flat = vars_[0]
        for d in range(1, len(a.ext)):
            flat = f"({flat} * {a.ext[d]} + {vars_[d]})"
        low = f"{lo}" if lo >= 0 else f"(0 - {-lo})"
        value = f"((({flat} * {mul} + {add}) % {span} + {low}) as {t.name})"
        idx = ", ".join(vars_)
        for d, (v, e) in enumerate(zip(vars_, a.ext)):
            self.emit("    " * d + f"for {v} in 0..{e} {{")
        pad = "    " * len(a.ext)
        self.emit(pad + f"{a.name}[{idx}] = {value};")
        if hostile:
            edge = self.g.pick([f"{t.name}.max", f"{t.name}.min", self.g.literal(t, 0)])
            self.emit(pad + f"if (({flat} * {mul} + {add}) % {self.r.randint(2, 5)} == 0) {{")
            self.emit(pad + f"    {a.name}[{idx}] = {edge};")
            self.emit(pad + "}")
        for d in reversed(range(len(a.ext))):
            self.emit("    " * d + "}")
        if hostile:
            return t.top
        return (lo << t.frac, hi << t.frac) if t.kind == "fixed" else (lo, hi)

    # views
    def view_of(self, a: Arr, need: list[int]) -> tuple[str, ViewShape, tuple] | None:
        """A view of a with extents `need`: its text, its shape and its key (the normal
        form the checker's C5010 test compares: equal keys are provably the same view)."""
        g = self.g
        rank = len(need)
        whole = ("all",)
        if len(a.ext) == rank + 1 and g.chance(0.7):  # fix one dimension with an integer
            d = self.r.randrange(len(a.ext))
            if a.ext[d] == 0:
                return None
            k = self.r.randrange(a.ext[d])
            rest = a.ext[:d] + a.ext[d + 1:]
            if any(r < n for r, n in zip(rest, need)):
                return None
            shape = ViewShape.whole(a.ext)
            shape.origin += k * shape.strides[d]
            shape.extents.pop(d)
            shape.strides.pop(d)
            parts, keys = [], []
            j = 0
            for dd in range(len(a.ext)):
                if dd == d:
                    parts.append(str(k))
                    keys.append(("at", k))
                else:
                    text, key = self.slice_dim(shape, j, rest[j], need[j])
                    parts.append(text)
                    keys.append(key)
                    j += 1
            while parts and parts[-1] == ".." and g.chance(0.5):
                parts.pop()
            return f"{a.name}[{', '.join(parts)}]", shape, (a.name, tuple(keys))
        if len(a.ext) != rank:
            return None
        transpose = rank == 2 and g.chance(0.2)
        want = list(reversed(need)) if transpose else list(need)
        if any(p < n for p, n in zip(a.ext, want)):
            return None
        shape = ViewShape.whole(a.ext)
        if all(p == n for p, n in zip(a.ext, want)) and g.chance(0.5):
            text = a.name if g.chance(0.7) else f"{a.name}[{', '.join('..' for _ in want)}]"
            key = (a.name, (whole,) * rank)
        else:
            pairs = [self.slice_dim(shape, d, a.ext[d], want[d]) for d in range(rank)]
            text = f"{a.name}[{', '.join(t for t, _ in pairs)}]"
            key = (a.name, tuple(k for _, k in pairs))
        if g.chance(0.2):
            d = self.r.randrange(rank)
            if shape.extents[d] > 0:
                shape.origin += (shape.extents[d] - 1) * shape.strides[d]
                shape.strides[d] = -shape.strides[d]
            text = f"reverse({text}, {d})"
            key = ("reverse", key, d)
        if transpose:
            shape.extents.reverse()
            shape.strides.reverse()
            text = f"transpose({text})"
            key = ("transpose", key)
        return text, shape, key

    def slice_dim(self, shape: ViewShape, d: int, have: int, need: int) -> tuple[str, tuple]:
        """Slice dimension d of shape (extent have) down to `need`: the text and key."""
        g = self.g
        if have == need and g.chance(0.6):
            return "..", ("all",)
        step = 1
        if need > 1 and g.chance(0.3):
            step = self.r.randint(2, 3)
            if (need - 1) * step + 1 > have:
                step = 1
        span = (need - 1) * step + 1 if need > 0 else 0
        lo = self.r.randint(0, have - span)
        hi = lo + span
        if step > 1 and hi + step - 1 <= have and g.chance(0.5):
            hi += self.r.randint(0, step - 1)  # extent ceil((hi - lo) / s) is still need
        shape.origin += lo * shape.strides[d]
        shape.extents[d] = need
        shape.strides[d] *= step
        return f"{lo}..{hi}" + (f" by {step}" if step > 1 else ""), ("slice", lo, hi, step)

    # dispatches
    def sizes_for(self, k: Kernel, fault: str | None) -> dict[str, int] | None:
        """Values of the size symbols: the kernel's where clauses hold, no extent is
        negative, and a min or max has a contribution, unless `fault` asks otherwise
        (empty, over, where) or the program takes the risk."""
        g = self.g
        minmax = any(p.reduce in ("min", "max") for p in k.params)
        for _ in range(30):
            vals: dict[str, int] = {}
            if k.dims == 1:
                x = self.r.random()
                n = 0 if x < 0.03 else self.r.randint(1, 8) if x < 0.45 else self.r.randint(9, 40) if x < 0.85 \
                    else self.r.randint(41, MAX_ITEMS)
                vals[k.sizes[0]] = n
            else:
                h = self.r.randint(0 if g.chance(0.03) else 1, 16)
                w = self.r.randint(1, max(1, min(24, MAX_ITEMS // max(h, 1))))
                vals[k.sizes[0]], vals[k.sizes[1]] = h, w
            for s in k.sizes[k.dims:]:
                vals[s] = vals[k.sizes[0]] + self.r.randint(0, 3)
                if fault == "where":
                    vals[s] = max(0, vals[k.sizes[0]] - self.r.randint(1, 3)) if g.chance(0.7) else 0
            if fault == "where" and g.chance(0.3):
                vals[k.sizes[0]] = 0
            if fault == "empty":
                vals[k.sizes[0]] = 0
            if fault == "over":  # an over extent below 0: E_SHAPE (bind.over)
                bad = [s for _, s, oo in k.over if oo < 0]
                if not bad:
                    return None
                vals[bad[0]] = 0
                return vals
            if any(vals[e[1]] + e[2] < 0 for p in k.params if p.ext for e in p.ext if e[0] == "sym"):
                continue  # no negative extents
            if any(vals[s] + oo < 0 for _, s, oo in k.over):
                continue
            items = 1
            for _, s, oo in k.over:
                items *= vals[s] + oo
            ok = True
            for left, op, right, c in k.where:
                rhs = (vals[right] if right else 0) + c
                ok = ok and {"<=": vals[left] <= rhs, ">=": vals[left] >= rhs, "<": vals[left] < rhs}[op]
            if fault == "where":
                if not ok:
                    return vals
                continue
            if fault == "empty":
                return vals
            if ok and (items > 0 or not minmax or g.risky(3)):
                return vals
        return None

    def extents(self, p: KParam, vals: dict[str, int]) -> list[int]:
        return [e[1] if e[0] == "const" else vals[e[1]] + e[2] for e in p.ext]

    def dispatch(self, k: Kernel, fault: str | None = None, hostile: bool = False) -> bool:
        g = self.g
        vals = self.sizes_for(k, fault)
        if vals is None:
            return False
        args: list[str] = []
        used: list[tuple[str, str, set[int], tuple]] = []  # (array, mode, footprint, key)
        outs: list[tuple[str, Ty]] = []
        published: list[tuple[str, KParam]] = []
        scalar_outs: list[str] = []
        shape_victim = None
        if fault == "shape":
            arrays = [j for j, p in enumerate(k.params) if p.ext]
            shape_victim = g.pick(arrays[1:]) if len(arrays) > 1 and g.chance(0.7) else g.pick(arrays)
        alias_done = False
        for j, p in enumerate(k.params):
            if p.ext is None:
                if p.mode == "out":
                    var = self.scalar_out(p.ty, scalar_outs)
                    scalar_outs.append(var)
                    args.append(var)
                    outs.append((var, p.ty))
                    published.append((var, p))
                elif p.small:
                    args.append(str(self.r.randint(0, 4)))
                elif hostile and p.ty.kind != "bool" and g.chance(0.5):
                    args.append(g.literal(p.ty, g.pick([p.ty.lo, p.ty.hi, p.ty.hi // 2 + 1])))
                else:
                    args.append(g.in_expr(self.ctx, p.ty, data_range(p.ty), 2).text)
                continue
            need = self.extents(p, vals)
            if j == shape_victim:
                d = self.r.randrange(len(need))
                need[d] = need[d] + 1 if need[d] <= 0 or g.chance(0.6) else need[d] - 1
            if any(e < 0 for e in need):
                need = [max(e, 0) for e in need]
            chosen = None
            if fault == "alias" and not alias_done and used and p.mode in ("out", "inout"):
                chosen = self.alias_view(p, need, used)
                alias_done = chosen is not None
            if fault == "bounds" and chosen is None and g.chance(0.5):
                chosen = self.bad_view(p, need)
                if chosen is not None:
                    fault = None  # one is enough
            if chosen is None and not (hostile and p.mode == "in"):
                # inputs in the kernel's data range, unless the program takes the risk
                candidates = [a for a in self.arrays if a.ty == p.ty and (
                    p.mode == "out" or within(a.iv, data_range(p.ty)) or g.risky(3))]
                self.r.shuffle(candidates)
                for a in candidates[:6]:
                    v = self.view_of(a, need)
                    if v is None:
                        continue
                    text, shape, key = v
                    foot = shape.footprint()
                    clash = False
                    for (name, mode, f2, k2) in used:
                        if name != a.name:
                            continue
                        if k2 == key or (not foot and not f2):
                            clash = True  # provably the same view (C5010), or perhaps so
                        elif (p.mode != "in" or mode != "in") and foot & f2:
                            clash = True  # overlapping views: E_ALIAS
                    if not clash:
                        chosen = (a.name, text, foot, key)
                        break
            if chosen is None or (g.chance(0.15) and not alias_done):
                a = self.new_array(p.ty, need, hostile and p.mode == "in")
                text = a.name if g.chance(0.8) else f"{a.name}[{', '.join('..' for _ in need)}]"
                chosen = (a.name, text, ViewShape.whole(need).footprint(), (a.name, (("all",),) * len(need)))
            name, text, foot, key = chosen
            used.append((name, p.mode, foot, key))
            args.append(text)
            if p.mode != "in":
                outs.append((name, p.ty))
                published.append((name, p))
        # a scalar out variable passed again as a plain argument would be C5010
        for j, p in enumerate(k.params):
            if p.ext is None and p.mode != "out" and args[j] in scalar_outs:
                args[j] = f"({args[j]} +% {g.literal(p.ty, 0)})" if p.ty.kind == "int" else g.literal(p.ty, 0)
        call = f"{k.name}({', '.join(args)});"
        if fault is None and g.chance(0.15):
            t = self.name(["t", "rep", "it"])
            self.emit(f"for {t} in 0..{self.r.randint(1, 3)} {{")
            self.emit("    " + call)
            self.emit("}")
        else:
            self.emit(call)
        self.dispatches += 1
        for name, p in published:  # what the variables hold now
            var = self.ctx.scope.lookup(name)
            if p.ext is None:
                var.iv = p.stored or p.ty.top
            else:
                var.iv = hull(var.iv, p.stored or p.ty.top)
        self.print_after(outs)
        return True

    def scalar_out(self, t: Ty, taken: list[str]) -> str:
        old = [v for v in self.ctx.scope.vars.values() if v.role == "local" and v.ty == t and v.name not in taken]
        if old and self.g.chance(0.5):
            return self.g.pick(old).name
        name = self.name(["s", "total", "res", "lo", "hi", "acc", "int", "ret"])
        v = self.g.value(t)
        self.emit(f"{t.name} {name} = {self.g.literal(t, v)};")
        self.ctx.scope.vars[name] = Var(name, t, "local", writable=True, iv=(v, v))
        return name

    def alias_view(self, p: KParam, need: list[int], used) -> tuple[str, str, set[int], tuple] | None:
        """An out view overlapping an earlier argument's, not provably the same (E_ALIAS)."""
        for (name, _mode, foot, _key) in used:
            a = next((x for x in self.arrays if x.name == name), None)
            if a is None or a.ty != p.ty or not foot:
                continue
            for _ in range(8):
                v = self.view_of(a, need)
                if v is None:
                    break
                t2, shape, k2 = v
                f2 = shape.footprint()
                if f2 & foot and all(k2 != kk for (n2, _, _, kk) in used if n2 == name):
                    return name, t2, f2, k2
        return None

    def bad_view(self, p: KParam, need: list[int]) -> tuple[str, str, set[int], tuple] | None:
        """A slice past the end of its array: the view cannot be formed (E_BOUNDS)."""
        cands = [a for a in self.arrays if a.ty == p.ty and len(a.ext) == len(need)]
        if not cands:
            return None
        a = self.g.pick(cands)
        d = self.r.randrange(len(need))
        parts = []
        for dd in range(len(need)):
            if dd == d:
                lo = self.r.randint(0, 2)
                parts.append(f"{lo}..{a.ext[dd] + self.r.randint(1, 2)}")
            else:
                parts.append("..")
        return a.name, f"{a.name}[{', '.join(parts)}]", set(), ("bad", a.name, tuple(parts))

    def print_after(self, outs: list[tuple[str, Ty]]) -> None:
        g = self.g
        values = []
        for name, _t in outs:
            a = next((x for x in self.arrays if x.name == name), None)
            if a is None:
                values.append(name)
            elif all(e > 0 for e in a.ext):
                for _ in range(self.r.randint(1, 2)):
                    values.append(f"{name}[{', '.join(str(self.r.randrange(e)) for e in a.ext)}]")
        if values:
            self.emit(f"\"d{self.dispatches}: {' '.join('{' + v + '}' for v in values)}\\n\";")
        arrays = [x for x in (next((a for a in self.arrays if a.name == n), None) for n, _ in outs) if x]
        if arrays and g.chance(0.25):
            a = g.pick(arrays)
            count = 1
            for e in a.ext:
                count *= e
            if 0 < count <= 64:
                vs = [self.name(["q", "ix", "jx"]) for _ in a.ext]
                for d, (v, e) in enumerate(zip(vs, a.ext)):
                    self.emit("    " * d + f"for {v} in 0..{e} {{")
                self.emit("    " * len(a.ext) + f"\"{{{a.name}[{', '.join(vs)}]}} \";")
                for d in reversed(range(len(a.ext))):
                    self.emit("    " * d + "}")
                self.emit("\"\\n\";")

    def sequential(self) -> None:
        """A few statements of plain code between dispatches."""
        ctx = self.ctx
        ctx.budget = self.r.randint(1, 4)
        ctx.nest = 0
        while ctx.budget > 0:
            for line in self.g.stmt(ctx):
                self.lines.append(line)

    def finale(self, kind: str) -> str:
        """Provoke one fault kind at the end of the entry; returns the kind written (a
        kind no kernel of the program allows becomes `hostile`)."""
        g = self.g

        def failable_where(k: Kernel) -> bool:
            return any((w[1] == ">=" and not w[2] and w[3] >= 1) or (w[1] == "<=" and w[2] and w[3] == 0)
                       for w in k.where)

        def pairable(k: Kernel) -> bool:  # an out or inout array after an array of its type
            arrays = [p for p in k.params if p.ext]
            return any(p.mode != "in" and q.ty == p.ty for j, p in enumerate(arrays) for q in arrays[:j])

        applies = {
            "where": failable_where,
            "alias": pairable,
            "over": lambda k: any(oo < 0 for _, _, oo in k.over),
            "empty": lambda k: any(p.reduce in ("min", "max") for p in k.params),
        }
        if kind in ("alias", "shape", "bounds", "empty", "where", "hostile", "over"):
            ks = [k for k in g.kernels if applies.get(kind, lambda k: True)(k)]
            if not ks:
                kind, ks = "hostile", list(g.kernels)
            k = g.pick(ks)
            self.dispatch(k, fault=kind if kind != "hostile" else None, hostile=kind == "hostile")
            return kind
        if kind == "late":
            self.late()
            return kind
        if kind == "seq":
            t = g.pick(NATIVE_INTS + [I128])
            x = self.name(["x", "z", "int", "val"])
            self.emit(f"{t.name} {x} = {g.literal(t, g.int_value(t))};")
            y = self.name(["y", "zero", "d", "cnt"])
            self.emit(f"{t.name} {y} = {g.literal(t, self.r.choice([0, 0, 1, t.hi, t.lo]) if t.signed else 0)};")
            sub = g.pick(["div", "rem", "dr", "shift", "narrow", "assert", "neg", "abs", "array", "read", "mul"])
            e = {"div": f"{x} / {y}", "rem": f"{x} % {y}", "dr": f"div_round({x}, {y}, {g.pick(ROUNDING)})",
                 "shift": f"{x} << ({y} +% {g.literal(t, t.bits)})", "narrow": f"({x} *% {x}) as I8",
                 "neg": f"-({y} -% {x})", "abs": f"abs({t.name}.min +% {y})" if t.signed else f"{x} - ({y} +% 1)",
                 "mul": f"{t.name}.max * ({x} +% 2)"}.get(sub)
            if e is not None:
                self.emit(f"\"{{{e}}}\\n\";")
            elif sub == "assert":
                self.emit(f"assert({x} != {x});")
            elif sub == "array":
                self.emit(f"I64[({y} as% I64) - 1] tmp_arr;")
            else:
                a = g.pick(self.arrays) if self.arrays else None
                if a is not None:
                    idx = [str(e) if d == len(a.ext) - 1 else "0" for d, e in enumerate(a.ext)]
                    self.emit(f"\"{{{a.name}[{', '.join(idx)}]}}\\n\";")
        return kind

    def late(self) -> None:
        """A fault found late (issue 28, finding 9): a kernel of its own, within gpu-cuda's
        profile, whose work-item f certainly faults (`fold`: a fold_checked's first
        overflow; `div`: div_round by 0; `mul`: a checked product out of range) while some
        work-items above f loop for ever (`while` on an element of `spin`, no fuel
        budget). Every work-item below f completes without a fault and no loop there
        spins, so the reference stops at f; the fault statement and the loop come in
        either order, with a fold beside them or not."""
        g, r = self.g, self.r
        n = r.choice([r.randint(3, 40), r.randint(33, 300)])
        kind = g.pick(["fold", "div", "mul"])
        f = r.randint(1 if kind == "fold" else 0, min(n - 2, 40))
        loops = sorted({f + 1 + r.randrange(n - f - 1) for _ in range(r.randint(1, 3))})
        t = g.pick(NATIVE_INTS) if kind == "fold" else I64
        vals: list[int]
        if kind == "fold":  # in range up to f - 1, out of it at f
            vals = [t.hi - r.randint(0, 3)] + [r.randint(0, 1) for _ in range(f - 1)]
            vals[0] -= sum(vals[1:])
            vals.append(t.hi - sum(vals) + 1 + r.randint(0, 2))
            vals += [g.int_value(t) for _ in range(n - f - 1)]
        elif kind == "div":
            vals = [r.choice([1, 2, 3, -5, 7]) for _ in range(n)]
            vals[f] = 0
        else:
            vals = [r.randint(-1000, 1000) for _ in range(n)]
            vals[f] = r.choice([1 << 32, -(1 << 32), (1 << 62) + 1, t.lo])
        fold = kind == "fold" or g.chance(0.5)
        name = g.item_name()
        while name in self.names or self.ctx.scope.lookup(name) is not None:  # an entry variable's name
            name = g.item_name()
        size, idx = self.name(["n", "len", "m"]), self.name(["i", "w", "j"])
        spin_var, cnt = self.name(["spin", "busy", "hold"]), self.name(["t", "c", "cnt"])
        params = [f"in {t.name}[{size}] a", f"in I64[{size}] {spin_var}"]
        fault_stmt = {"fold": f"reduce s = fold_checked(add, 0, a[{idx}]);",
                      "div": f"b[{idx}] = div_round({r.choice([100, -7, 1])}, a[{idx}], {g.pick(ROUNDING)});",
                      "mul": f"b[{idx}] = a[{idx}] * a[{idx}];"}[kind]
        loop_stmt = f"while ({spin_var}[{idx}] > 0) {{ {cnt} = {cnt} +% 1; }}"
        body = [fault_stmt, loop_stmt]
        r.shuffle(body)
        if kind != "fold":
            params.append(f"out I64[{size}] b")
        if fold:
            params.append(f"out {t.name} s")
        if fold and kind != "fold":  # a fold that never overflows beside the other fault
            body.insert(r.randrange(3), f"reduce s = fold_checked(add, 0, {spin_var}[{idx}] +% 0);")
        g.late_items.append(f"kernel {name}[{size}]({', '.join(params)}) over [{idx}: {size}] {{\n"
                            f"    I64 {cnt} = 0;\n" + "".join(f"    {line}\n" for line in body) + "}")
        a, spin = self.name(ARRAY_NAMES), self.name(ARRAY_NAMES)
        self.emit(f"{t.name}[{n}] {a} = [{', '.join(g.literal(t, v) for v in vals)}];")
        self.emit(f"I64[{n}] {spin};")
        for k in loops:
            self.emit(f"{spin}[{k}] = 1;")
        args = [a, spin]
        if kind != "fold":
            b = self.name(ARRAY_NAMES)
            self.emit(f"I64[{n}] {b};")
            args.append(b)
        if fold:
            out = self.name(["total", "acc", "sum"])
            self.emit(f"{t.name} {out} = 0;")
            args.append(out)
        self.emit(f"{name}({', '.join(args)});")
        self.dispatches += 1

    def build(self) -> tuple[list[str], str, int]:
        g = self.g
        finale = g.weighted([(25, "none"), (18, "hostile"), (9, "alias"), (9, "shape"), (6, "where"),
                             (6, "bounds"), (15, "seq"), (5, "empty"), (3, "over"), (8, "late")])
        for _ in range(self.r.randint(0, 2)):
            k = g.pick(g.kernels)
            p = k.params[0]
            self.new_array(p.ty, [self.r.randint(1, 12) for _ in p.ext])
        rounds = self.r.randint(3, 7)
        for _ in range(rounds):
            if g.chance(0.5):
                self.sequential()
            self.dispatch(g.pick(g.kernels))
        if finale != "none":
            finale = self.finale(finale)
        self.emit("\"end\\n\";")
        return self.lines, finale, self.dispatches


def g_risky_empty(g: Gen, k: Kernel) -> bool:
    return any(p.reduce in ("min", "max") for p in k.params) and g.risky(3)


def generate(seed: str | int) -> Program:
    return Gen(str(seed)).program()


if __name__ == "__main__":  # print one program: python -m fuzz.gen SEED
    import sys

    print(generate(sys.argv[1] if len(sys.argv) > 1 else "0").text)
