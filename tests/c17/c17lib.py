"""The library of the differential test (test_runtime_differential.py): every operation
identifier on every type, emitted by the cpu-c17 emitter exactly as programs use it
(inline fast paths for values up to 64 bits, the generic run-time for the rest), in
`full` mode (with fault records) and `fast` mode (a bare fault), plus every reduction
through the run-time's reduction functions, compiled into one shared library.

Operands cross the boundary in their native layout (little-endian two's complement at
the type's size, a fixed value's stored integer).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from cint_ls.analysis.types import (
    BOOL,
    FIXED_WIDTHS,
    SIGNED_WIDTHS,
    UNSIGNED_WIDTHS,
    VOID,
    BoolType,
    FixedType,
    IntType,
    Type,
)
from cint_ls.exec.c17.emit.ctypes import c_type, initializer, is_small, type_code
from cint_ls.exec.c17.emit.program import ProgramEmitter
from cint_ls.exec.c17.emit.unit import FAST, FULL, REDUCTIONS, Atom, UnitEmitter
from cint_ls.ir import nodes as ir
from cint_ls.syntax.source import Span
from cint_ls.vocabulary.operations import conversion_id, div_round_id, op_id, reduction_id

SPAN = Span(0, 0, 1, 1, 1, 1)

INTS: list[Type] = [IntType(b, True) for b in SIGNED_WIDTHS] + [IntType(b, False) for b in UNSIGNED_WIDTHS]
FIXED: list[Type] = [FixedType(4, 4), FixedType(8, 8), FixedType(16, 16), FixedType(32, 32), FixedType(1, 63),
                     FixedType(64, 64), FixedType(1, 127)]
NUMERIC = INTS + FIXED
assert {t.bits for t in FIXED} <= set(FIXED_WIDTHS)

ROUNDING = ("floor", "ceil", "trunc", "away", "half_even", "half_away", "half_trunc")


def size(t: Type) -> int:
    return 1 if isinstance(t, BoolType) else t.bits // 8  # type: ignore[attr-defined]


def pack(t: Type, v: int | bool) -> bytes:
    n = size(t)
    return (int(v) & ((1 << (8 * n)) - 1)).to_bytes(n, "little")


def unpack(t: Type, data: bytes) -> int | bool:
    if isinstance(t, BoolType):
        return data[0] != 0
    signed = isinstance(t, FixedType) or t.signed  # type: ignore[union-attr]
    return int.from_bytes(data[:size(t)], "little", signed=signed)


def edges(t: Type) -> list[int]:
    """Edge values of a type: 0, +-1, MIN, MAX and their neighbours, small counts for
    shifts (width - 1, width, width + 1), and for fixed point +-1.0 and 0.5."""
    lo, hi = t.min, t.max  # type: ignore[attr-defined]
    w = t.bits  # type: ignore[attr-defined]
    values = [0, 1, -1, 2, -2, 3, 7, lo, lo + 1, hi, hi - 1, w - 1, w, w + 1, -w, hi // 2, lo // 2]
    if isinstance(t, FixedType):
        one = 1 << t.n
        values += [one, -one, one // 2, -(one // 2), 3 * one // 2, one + 1]
    out = []
    for v in values:
        if lo <= v <= hi and v not in out:
            out.append(v)
    return out


@dataclass
class Case:
    """One operation on one type: `params` operand types, `result` type (None: prints)."""

    key: str
    params: list[Type]
    result: Type | None
    body: list[ir.Stmt]
    info: dict = field(default_factory=dict)
    index: int = 0


def _var(t: Type, k: int) -> ir.Var:
    return ir.Var(t, k, f"p{k}")


def _ret(e: ir.Expr) -> list[ir.Stmt]:
    return [ir.Return(SPAN, e)]


def operation_cases() -> list[Case]:
    cases: list[Case] = []

    def add(key, params, result, body, **info):
        cases.append(Case(key, params, result, body, info))

    for t in NUMERIC:
        a, b = _var(t, 0), _var(t, 1)
        for op in ("add", "sub", "mul"):
            for form in ("checked", "wrap", "sat"):
                node = ir.Arith(t, op_id(op, form, t), SPAN, 0, None, op, form, [a, b])
                add(f"{op}.{form}.{t.suffix}", [t, t], t, _ret(node), kind="binary", op=op, form=form, t=t)
        for op in ("div", "rem") + (("shl", "shr") if isinstance(t, IntType) else ()):
            node = ir.Arith(t, op_id(op, "checked", t), SPAN, 0, None, op, "checked", [a, b])
            add(f"{op}.checked.{t.suffix}", [t, t], t, _ret(node), kind="binary", op=op, form="checked", t=t)
        for op in ("min", "max"):
            node = ir.Arith(t, op_id(op, None, t), SPAN, 0, None, op, None, [a, b])
            add(f"{op}.{t.suffix}", [t, t], t, _ret(node), kind="binary", op=op, form=None, t=t)
        for op in ("neg", "abs"):
            node = ir.Arith(t, op_id(op, "checked", t), SPAN, 0, None, op, "checked", [a])
            add(f"{op}.checked.{t.suffix}", [t], t, _ret(node), kind="unary", op=op, t=t)
        for cmp in ("==", "!=", "<", "<=", ">", ">="):
            add(f"cmp{cmp}.{t.suffix}", [t, t], BOOL, _ret(ir.Compare(BOOL, cmp, a, b)), kind="compare", op=cmp, t=t)
        add(f"print.{t.suffix}", [t], None, [ir.Print(SPAN, ["<", a, ">"])], kind="print", t=t)
        if isinstance(t, IntType):
            for sym, op in (("&", "and"), ("|", "or"), ("^", "xor")):
                add(f"{op}.{t.suffix}", [t, t], t, _ret(ir.Bitwise(t, sym, [a, b])), kind="binary", op=op,
                    form=None, t=t)
            add(f"not.{t.suffix}", [t], t, _ret(ir.Bitwise(t, "~", [a])), kind="unary", op="not", t=t)
            for mode in ROUNDING:
                node = ir.DivRound(t, div_round_id(t, mode), SPAN, 0, None, mode, a, b)
                add(f"div_round.{t.suffix}.{mode}", [t, t], t, _ret(node), kind="div_round", mode=mode, t=t)
        for dst in NUMERIC:
            forms = ("checked", "wrap") if isinstance(t, IntType) and isinstance(dst, IntType) else ("checked",)
            for form in forms:
                node = ir.Convert(dst, conversion_id(form, t, dst), SPAN, 0, None, form, t, a)
                add(conversion_id(form, t, dst), [t], dst, _ret(node), kind="convert", form=form, src=t, dst=dst)
    add("print.bool", [BOOL], None, [ir.Print(SPAN, ["<", _var(BOOL, 0), ">"])], kind="print", t=BOOL)
    for k, case in enumerate(cases):
        case.index = k
    return cases


@dataclass
class ReductionCase:
    key: str
    kind: str
    contribution: Type
    target: Type
    init: int
    index: int = 0


def reduction_cases() -> list[ReductionCase]:
    cases = []
    for t in NUMERIC:
        for kind in ("sum_wrap", "sum_sat", "min", "max") if isinstance(t, IntType) else ("sum_sat", "min", "max"):
            if kind == "sum_wrap" and not isinstance(t, IntType):
                continue
            cases.append(ReductionCase(f"{kind}.{t.suffix}", kind, t, t, 0))
        for label, init in (("init0", 0), ("init_half_max", t.max // 2)):  # type: ignore[attr-defined]
            cases.append(ReductionCase(f"fold.{t.suffix}.{label}", "fold_checked", t, t, init))
        if isinstance(t, FixedType):
            cases.append(ReductionCase(f"sum.{t.suffix}", "sum", t, t, 0))
    for c in INTS:
        for target in INTS:
            cases.append(ReductionCase(f"sum.{c.suffix}.{target.suffix}", "sum", c, target, 0))
    for target in INTS:
        cases.append(ReductionCase(f"count.{target.suffix}", "count", BOOL, target, 0))
    for k, case in enumerate(cases):
        case.index = k
    return cases


def library_source(cases: list[Case], reductions: list[ReductionCase]) -> str:
    program = ir.Program("difftest", "difftest.ci", {}, {}, ir.Function("<entry>", "difftest entry", [], [], [], VOID,
                                                                           [], 0, SPAN))
    emitter = ProgramEmitter(program)
    out = ['#include "cint_rt.h"', ""]
    dispatch_full, dispatch_fast = [], []
    for case in cases:
        result = case.result if case.result is not None else VOID
        out.append(emitter.standalone_function(f"full_{case.index}", case.params, case.body, result, FULL))
        args = ", ".join(f"v{k}" for k in range(len(case.params)))
        loads = [f"    {c_type(t)} v{k}; memcpy(&v{k}, (const char *)in[{k}], sizeof v{k});"
                 for k, t in enumerate(case.params)]
        fast = case.result is not None and all(is_small(t) for t in case.params + [case.result])
        if fast:
            out.append(emitter.standalone_function(f"fast_{case.index}", case.params, case.body, result, FAST))
        for variant in ("full", "fast") if fast else ("full",):
            lines = [f"static int call_{variant}_{case.index}(cint_ctx *ctx, const void *const *in, void *out) {{"]
            lines += loads
            if case.result is None:
                lines.append("    (void)out;")
                lines.append(f"    return {variant}_{case.index}(ctx, {args});")
            else:
                lines.append(f"    {c_type(case.result)} r; memset(&r, 0, sizeof r);")
                lines.append(f"    int rc = {variant}_{case.index}(ctx, &r{', ' if args else ''}{args});")
                lines.append("    memcpy(out, &r, sizeof r);")
                lines.append("    return rc;")
            lines.append("}")
            out.append("\n".join(lines) + "\n")
            (dispatch_full if variant == "full" else dispatch_fast).append(case.index)
    for variant, indices in (("full", dispatch_full), ("fast", dispatch_fast)):
        out.append(f"int diff_{variant}(int which, cint_ctx *ctx, const void *const *in, void *out);")
        out.append(f"int diff_{variant}(int which, cint_ctx *ctx, const void *const *in, void *out) {{")
        out.append("    switch (which) {")
        out += [f"    case {k}: return call_{variant}_{k}(ctx, in, out);" for k in indices]
        out.append("    default: return -1;")
        out.append("    }")
        out.append("}")
    for r in reductions:
        out.append(_reduction_function(emitter, r))
    out.append("int diff_reduce(int which, cint_ctx *ctx, int64_t n, const void *values, void *result);")
    out.append("int diff_reduce(int which, cint_ctx *ctx, int64_t n, const void *values, void *result) {")
    out.append("    switch (which) {")
    out += [f"    case {r.index}: return red_{r.index}(ctx, n, values, result);" for r in reductions]
    out += ["    default: return -1;", "    }", "}"]
    out += [
        "void diff_reset(cint_ctx *ctx);",
        "void diff_reset(cint_ctx *ctx) { ctx->status = CINT_OK; ctx->step = 0; ctx->out_len = 0; }",
    ]
    return "\n".join(out) + "\n"


def _reduction_function(emitter: ProgramEmitter, r: ReductionCase) -> str:
    u = UnitEmitter(emitter, f"red_{r.index}", FULL, {})
    u.depth = 2
    desc = f"&d{r.index}"
    u.contribute(r.kind, r.contribution, "&state", desc, Atom("x", True), "i")
    c, t = c_type(r.contribution), c_type(r.target)
    init = "NULL"
    lines = [f"static const {t} init{r.index} = {initializer(r.target, r.init)};"]
    init = f"&init{r.index}"
    op = reduction_id(r.kind, r.contribution, r.target)
    lines += [
        f"static const cint_reduction_desc d{r.index} = {{0, {REDUCTIONS[r.kind]}, {type_code(r.contribution)}, "
        f"{type_code(r.target)}, \"{op}\", -1, {init}}};",
        f"static int red_{r.index}(cint_ctx *ctx, int64_t n, const void *values, void *result) {{",
        "    cint_reduction state;",
        f"    cint_red_start(&state, {desc});",
        "    for (int64_t i = 0; i < n; i++) {",
        f"        {c} x;",
        "        memcpy(&x, (const char *)values + (size_t)i * sizeof x, sizeof x);",
        *u.lines,
        "    }",
        f"    return cint_red_finish(ctx, &state, {desc}, result);",
    ]
    if "L_out" in u.used:
        lines += ["L_out:", "    return 1;"]
    lines.append("}")
    return "\n".join(lines) + "\n"


def encode_exact(x) -> object:
    """`exact` as FaultRecord.to_json writes it."""
    if x is None:
        return None
    if isinstance(x, Fraction):
        return [str(x.numerator), str(x.denominator)]
    return str(x)


def encode_fault(fault) -> dict:
    """The fields of an OperationFault that the C record must repeat."""
    return {
        "code": fault.code,
        "operation": fault.operation,
        "operands": [[t.name, str(v)] for t, v in fault.operands],
        "exact": encode_exact(fault.exact),
        "limit": None if fault.limit is None else [fault.limit[0].name, str(fault.limit[1])],
    }
