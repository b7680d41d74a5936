"""Hover, in Markdown.

- On a counted operation of a kernel (an operator, an element read, the place of a
  store, a reduce): what its IR node says, its step ordinal(s) (SPEC-02P.1 5.4),
  operation identifier, operand and result types and the faults it can raise; and
  whether it is uniform or varying (8.2). In a function the step depends on the
  caller; in the entry there is none.
- On a kernel's name: signature, iteration space, the work-item index formula and the
  fuel of a dispatch; where gpu-cuda refuses the kernel, the first refusal.
- On the kernel's name in a dispatch: the parameters with their modes and arguments,
  and the entry checks (Table 1) this dispatch makes.
- On any other name: what it is, its type, and in a kernel, uniform or varying.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..analysis.builtins import BUILTIN_FUNCTIONS, REDUCE_OPERATORS, ROUNDING_MODES
from ..analysis.capabilities import kernel_refusals
from ..analysis.result import CheckedModule, KernelInfo
from ..analysis.symbols import Symbol, SymbolKind
from ..analysis.types import ArrayType, BoolType, FixedType, IntType, Type, scalar_type_named
from ..syntax import ast
from ..syntax.source import Span
from . import declaration_text
from .find import clamp, contains, kernel_at, path_at, total
from .ops import Operation, counted_of, operation_of
from .results import HoverResult
from .uniform import Uniformity

if TYPE_CHECKING:
    from ..ir import nodes as ir
    from .document import DocumentLike

# ------------------------------------------------------------------ steps

def steps_text(steps: tuple[int, ...] | None, in_loop: bool = True) -> str:
    """`step 22`; `step 26 (or 3, 4, 5, by path)`; for `#?` the step depends on the run."""
    if steps is None:
        return "step depends on the iteration" if in_loop else \
            "step depends on the run (a loop or a call before it counts operations)"
    if not steps:
        return "unreachable: no work-item evaluates it"
    ordered = sorted(steps, reverse=True)
    if len(ordered) == 1:
        return f"step {ordered[0]}"
    others = ", ".join(str(s) for s in sorted(ordered[1:]))
    return f"step {ordered[0]} (or {others}, by path)"


# ------------------------------------------------------------------ the request

@total(lambda: None)
def hover(doc: DocumentLike, offset: int) -> HoverResult | None:
    offset = clamp(doc, offset)
    checked = doc.checked
    module = checked.module
    path = path_at(module, offset)
    if not path:
        return None
    # The cursor just after a name is on that name (editors hover at the last char too).
    node = path[-1]
    parent = path[-2] if len(path) > 1 else None
    kernel = kernel_at(checked, offset)
    in_kernel_body = kernel is not None and contains(kernel.node.body.span, offset)

    # Names
    if isinstance(node, (ast.Ident, ast.Name)):
        if isinstance(parent, ast.KernelDef) and parent.name is node:
            info = checked.kernels.get(node.text)
            return _result(kernel_markdown(doc, info), node) if info is not None and info.node is parent else None
        if isinstance(parent, ast.Call) and parent.callee is node:
            call = checked.calls.get(parent)
            if call is not None and call.kind == "dispatch":
                info = checked.kernels.get(call.name)
                return _result(dispatch_markdown(doc, parent, info), node) if info is not None else None
            if call is not None and call.kind == "builtin":
                op = operation_of(checked, parent)
                markdown = operation_markdown(doc, op, kernel if in_kernel_body else None, path) if op else None
                return _result(markdown or _builtin_markdown(call.name), node)
        if isinstance(parent, ast.Reduce) and parent.op is node:
            op = operation_of(checked, parent)
            markdown = operation_markdown(doc, op, kernel if in_kernel_body else None, path) if op else None
            if markdown is not None:
                return _result(markdown, node)
            doc_text = REDUCE_OPERATORS.get(node.text)
            return _result(f"reduction `{node.text}`: {doc_text}", node) if doc_text else None
        if isinstance(node, ast.Ident) and node.name in ROUNDING_MODES and node not in checked.symbols:
            return _result(f"rounding mode `{node.name}` of `div_round`", node)
        symbol = checked.symbols.get(node)
        if symbol is not None:
            return _result(symbol_markdown(doc, symbol, kernel), node)
        return None

    if isinstance(node, ast.ScalarTypeRef):
        return _result(type_markdown(node.text), node) if node.text else None
    if isinstance(node, ast.KernelDef):
        # On `kernel`, `over` or `where`: the kernel.
        info = checked.kernels.get(node.name.text)
        if info is not None and info.node is node and offset < node.body.span.start_byte:
            return _result(kernel_markdown(doc, info), node.name)
        return None

    # Operations: the innermost node that is one, the cursor not inside an operand.
    op = operation_of(checked, node, parent)
    markdown = operation_markdown(doc, op, kernel if in_kernel_body else None, path) if op else None
    if op is None or markdown is None:
        return None
    on_token = op.kind in ("arith", "uncounted") or isinstance(op.node, (ast.Assign, ast.Reduce))
    return _result(markdown, op.node, op.anchor if on_token else None)


def _result(markdown: str, node: ast.Node, span: Span | None = None) -> HoverResult:
    return HoverResult(markdown, (span or node.span).freeze())


# ------------------------------------------------------------------ operations

def operation_markdown(doc: DocumentLike, op: Operation, kernel: KernelInfo | None, path: list[ast.Node]) -> str | None:
    """What the IR says of a counted operation (None when it has no IR node), or the
    checker's types of an uncounted one."""
    if op.kind == "uncounted":
        lines = [f"{op.label}: not counted (no step ordinal)", "", _what(op), _uncounted_types(doc.checked, op)]
    else:
        counted, own = counted_of(doc, op, kernel)
        if counted is None:
            return None
        if own:
            in_loop = any(isinstance(n, (ast.For, ast.While)) for n in path)
            where = f"**{steps_text(counted.steps, in_loop)}**"
        elif kernel is not None:
            where = "**step unknown** (the kernel has errors)"
        elif any(isinstance(n, ast.FunctionDef) for n in path):
            where = "**step depends on the caller: a call's operations join the work-item's sequence**"
        else:
            where = "**no step ordinal: outside any kernel**"
        lines = [f"{where} · `{counted.op_id}`", "", _what(op), _counted_types(op, counted),
                 f"- faults: {', '.join(map(str, counted.faults)) or 'none'}"]
    if kernel is not None:
        lines.append(f"- {_uniform_text(Uniformity(doc.checked, kernel), op)}")
    return "\n".join(lines)


def _type_text(t: Type | None) -> str:
    return f"`{t.name}`" if t is not None else "none"


def _counted_types(op: Operation, counted: ir.Counted) -> str:
    operands = ", ".join(map(_type_text, counted.operands)) or "none"
    result = _type_text(counted.type)
    if op.kind == "store":
        return f"- operands: {operands} (the array, then each index); value: {result}"
    if op.kind == "read":
        return f"- operands: {operands} (the array, then each index); result: {result}"
    if op.kind == "reduce":
        return f"- contribution: {operands}; target: {result}"
    return f"- operands: {operands}; result: {result}"


def _uncounted_types(checked: CheckedModule, op: Operation) -> str:
    node = op.node
    operands = [node.left, node.right] if isinstance(node, ast.Binary) else [node.operand]  # type: ignore[attr-defined]
    types = [checked.types.get(o) for o in operands]
    return (f"- operands: {', '.join(_type_text(t) for t in types if t is not None) or 'none'}; "
            f"result: {_type_text(checked.types.get(node))}")


def _what(op: Operation) -> str:
    if op.kind == "read":
        return "element read (bounds-checked)"
    if op.kind == "store":
        return "the place of an element store, counted before its value"
    if op.kind == "reduce":
        return f"{op.label}, counted once where the work-item executes it"
    if op.kind == "div_round":
        return "`div_round`: the exact quotient, rounded by its mode"
    return f"operator {op.label}"


# Uniform and varying (SPEC-02P.1 8.2), in words.
UNIFORM_VALUE = "uniform: every work-item computes the same value"
VARYING_VALUE = "varying: each work-item computes its own value (it depends on an over variable)"
UNIFORM_NAME = "uniform: the same value for every work-item"
VARYING_NAME = "varying: each work-item has its own value (it depends on an over variable)"


def _uniform_text(u: Uniformity, op: Operation) -> str:
    node = op.node
    if op.kind == "store":
        node = node.target  # type: ignore[attr-defined]
        varying = any(u.varying(i) for i in node.indices)
        return "varying (the place is the work-item's owned block)" if varying else "uniform"
    if op.kind == "reduce":
        contribution = node.args[-1] if node.args else None  # type: ignore[attr-defined]
        return "varying contribution" if u.varying(contribution) else "uniform contribution"
    # SPEC-02P.1 8.2's terms, said in words (a clause number means nothing in a hover)
    return (VARYING_VALUE if u.varying(node) else UNIFORM_VALUE)


# ------------------------------------------------------------------ kernels and dispatches

def kernel_markdown(doc: DocumentLike, info: KernelInfo) -> str:
    checked = doc.checked
    lines = [
        "```cint",
        declaration_text.kernel_signature(checked, info),
        declaration_text.over_text(checked, info) + (f" where {declaration_text.where_text(checked, info)}"
                                             if info.node.where else ""),
        "```",
        f"- work-item index: `{declaration_text.index_formula(checked, info)}` (row-major; "
        f"`{declaration_text.decomposition(checked, info)}`)",
        f"- fuel: {declaration_text.fuel_text(checked, info)}",
    ]
    kernel_ir = doc.kernel_ir(info.symbol.name)
    if kernel_ir is not None:
        longest = max((max(c.steps) + 1 for c in kernel_ir.counted if c.steps), default=0)
        lines.append(f"- counted operations: {len(kernel_ir.counted)} in the body"
                     + (f"; the longest static path evaluates {longest}" if longest else ""))
    refusals = kernel_refusals(checked, info)
    if refusals:
        first = refusals[0]
        lines.append(f"- gpu-cuda: refused, first at {first.span.line}:{first.span.column}: capability "
                     f"`{first.capability}` ({first.what}); {len(refusals)} refused construct"
                     f"{'s' if len(refusals) != 1 else ''}. cpu-c17 and cpu-sir-interp run it.")
    else:
        lines.append("- runs on cpu-sir-interp, cpu-c17 and gpu-cuda (every construct is in the gpu-cuda profile)")
    return "\n".join(lines)


def _bare_size(checked: CheckedModule, e: ast.Expr) -> Symbol | None:
    if isinstance(e, ast.Ident):
        s = checked.symbols.get(e)
        if s is not None and s.kind is SymbolKind.SIZE:
            return s
    return None


def _arg_text(checked: CheckedModule, e: ast.Expr) -> str:
    return declaration_text.text(checked, e.span)


def _static_extents(checked: CheckedModule, arg: ast.Expr) -> list[int] | None:
    """The extents of an argument that is a whole array with constant extents."""
    if isinstance(arg, ast.Paren):
        return _static_extents(checked, arg.expr)
    if not isinstance(arg, ast.Ident):
        return None
    symbol = checked.symbols.get(arg)
    if symbol is None or not symbol.array_extents or symbol.kind not in (SymbolKind.LOCAL, SymbolKind.ENTRY_LOCAL):
        return None
    values = [checked.values.get(e) for e in symbol.array_extents]
    if any(not isinstance(v, int) or isinstance(v, bool) for v in values):
        return None
    return values  # type: ignore[return-value]


def _evaluate(checked: CheckedModule, e: ast.Expr, sizes: dict[str, int]) -> int | None:
    if isinstance(e, ast.Paren):
        return _evaluate(checked, e.expr, sizes)
    if isinstance(e, ast.IntLit):
        v = checked.values.get(e)
        return v if isinstance(v, int) and not isinstance(v, bool) else None
    if isinstance(e, ast.Ident):
        return sizes.get(e.name)
    if isinstance(e, ast.Binary) and e.op in ("+", "-", "*", "/", "%"):
        a, b = _evaluate(checked, e.left, sizes), _evaluate(checked, e.right, sizes)
        if a is None or b is None:
            return None
        if e.op == "+":
            return a + b
        if e.op == "-":
            return a - b
        if e.op == "*":
            return a * b
        if b == 0:
            return None
        q = abs(a) // abs(b) * (1 if (a >= 0) == (b > 0) else -1)
        return q if e.op == "/" else a - q * b
    return None


def dispatch_markdown(doc: DocumentLike, call: ast.Call, info: KernelInfo) -> str:
    checked = doc.checked
    node = info.node
    lines = ["```cint", declaration_text.kernel_signature(checked, info),
             declaration_text.over_text(checked, info), "```",
             f"dispatch of `{node.name.text}`", "", "| # | parameter | mode | argument |", "|---|---|---|---|"]
    args = call.args
    for k, (param, _symbol) in enumerate(zip(node.params, info.params)):
        arg = f"`{_arg_text(checked, args[k])}`" if k < len(args) else "(missing)"
        lines.append(f"| {k} | `{declaration_text.type_ref_text(checked, param.type)} {param.name.text}` | "
                     f"{param.effective_mode} | {arg} |")
    lines += ["", "what the dispatch checks before its first work-item, in order:"]
    arrays = [(k, s) for k, s in enumerate(info.params) if isinstance(s.type, ArrayType)]
    if arrays:
        lines.append("1. the storage of " + ", ".join(f"`{s.name}`" for _, s in arrays)
                     + " is not stale (bind.stale)")
    writable = [(k, s) for k, s in arrays if s.mode in ("out", "inout")]
    if writable:
        lines.append("2. " + ", ".join(f"`{s.name}`" for _, s in writable) + " may be written (bind.permission)")
    # Check 5: the size binding, two passes.
    bound: dict[str, str] = {}
    sizes: dict[str, int] = {}
    compared: list[str] = []
    computed: list[str] = []
    for k, symbol in arrays:
        argument = args[k] if k < len(args) else None
        static = _static_extents(checked, argument) if argument is not None else None
        for d, extent in enumerate(symbol.array_extents):
            size = _bare_size(checked, extent)
            where = f"dimension {d} of `{_arg_text(checked, argument)}`" if argument is not None else f"dimension {d}"
            if size is not None and size.name not in bound:
                bound[size.name] = f"`{size.name}` ← {where} (`{symbol.name}`)"
                if static is not None and d < len(static):
                    sizes[size.name] = static[d]
                    bound[size.name] += f" = {static[d]}"
            elif size is not None:
                compared.append(f"{where} (`{symbol.name}`) must equal `{size.name}`")
            else:
                required = declaration_text.text(checked, extent.span)
                computed.append(f"{where} (`{symbol.name}`) must equal `{required}`")
    check5 = [f"   - binds {b}" for b in bound.values()] + [f"   - {c}" for c in compared + computed]
    for j, constraint in enumerate(node.where):
        check5.append(f"   - where constraint {j}: `{declaration_text.text(checked, constraint.span)}` (bind.where)")
    if check5:
        lines.append("5. sizes and extents (bind.shape), two passes:")
        lines += check5
    if writable:
        lines.append("6. " + ", ".join(f"`{s.name}`" for _, s in writable)
                     + " must address each element once (bind.injective)")
        pairs = []
        for k, s in writable:
            for j, other in arrays:
                if j != k and not (other.mode in ("out", "inout") and j < k):
                    pairs.append(f"(`{s.name}`, `{other.name}`)")
        if pairs:
            lines.append("7. alias test of the pairs " + ", ".join(pairs)
                         + ": no output shares an element with another argument (bind.alias)")
    n = declaration_text.work_items(checked, info)
    values = [_evaluate(checked, b.extent, sizes) for b in node.space]
    if values and all(v is not None for v in values):
        total_items = 1
        for v in values:
            total_items *= v  # type: ignore[operator]
        n = f"{n} = {total_items}" if n != str(total_items) else n
    lines.append("8. within the executor's limits (bind.limit)")
    lines.append(f"9. fuel: charges N = `{n}` units (fuel.charge)")
    if declaration_text.body_has_loops_or_calls(checked, info):
        lines.append("   then every work-item charges its loop iterations and calls")
    return "\n".join(lines)


# ------------------------------------------------------------------ names and types

_KIND_LABEL = {
    SymbolKind.LOCAL: "local variable",
    SymbolKind.ENTRY_LOCAL: "top-level variable",
    SymbolKind.PARAM: "parameter",
    SymbolKind.SIZE: "size symbol",
    SymbolKind.OVER: "over variable",
    SymbolKind.LOOP: "loop variable",
    SymbolKind.FUNCTION: "function",
    SymbolKind.KERNEL: "kernel",
    SymbolKind.STRUCT: "struct",
}


def symbol_markdown(doc: DocumentLike, symbol: Symbol, kernel: KernelInfo | None) -> str:
    checked = doc.checked
    if symbol.kind is SymbolKind.KERNEL:
        info = checked.kernels.get(symbol.name)
        return kernel_markdown(doc, info) if info is not None else f"kernel `{symbol.name}`"
    if symbol.kind is SymbolKind.FUNCTION:
        function = checked.functions.get(symbol.name)
        if function is None:
            return f"function `{symbol.name}`"
        return ("```cint\n" + declaration_text.function_signature(checked, function)
                + "\n```\nfunction (each call charges 1 unit of fuel)")
    label = _KIND_LABEL.get(symbol.kind, symbol.kind.value)
    t = symbol.type
    type_name = t.name if t is not None else "?"
    if symbol.array_extents and isinstance(t, ArrayType):
        extents = ", ".join(declaration_text.text(checked, e.span) for e in symbol.array_extents)
        type_name = f"{t.element.name}[{extents}]"
    mode = f", {symbol.mode}" if symbol.kind is SymbolKind.PARAM and symbol.owner in checked.kernels else ""
    lines = [f"({label}{mode}) `{symbol.name}`: `{type_name}`"]
    owner_kernel = checked.kernels.get(symbol.owner) if symbol.owner else None
    if owner_kernel is not None:
        if symbol.kind is SymbolKind.OVER:
            binding = next((b for b in owner_kernel.node.space if b.name.text == symbol.name), None)
            if binding is not None:
                extent = declaration_text.text(checked, binding.extent.span)
                lines.append(f"- ranges over 0 ≤ {symbol.name} < {extent}")
        u = Uniformity(checked, owner_kernel)
        if symbol.kind in (SymbolKind.SIZE,) or (symbol.kind is SymbolKind.PARAM and symbol.mode == "in"):
            lines.append(f"- {UNIFORM_NAME}")
        elif symbol.kind is SymbolKind.OVER:
            lines.append(f"- {VARYING_NAME}")
        elif symbol.kind is SymbolKind.PARAM and isinstance(t, ArrayType):
            lines.append(f"- {symbol.mode} array: each work-item writes its owned block")
        elif symbol.kind is SymbolKind.PARAM:
            lines.append("- scalar out: the target of a reduce statement")
        else:
            lines.append(f"- {VARYING_NAME}" if u.symbol_varying(symbol) else f"- {UNIFORM_NAME}")
    return "\n".join(lines)


def _builtin_markdown(name: str) -> str:
    return f"built-in `{name}`: {BUILTIN_FUNCTIONS.get(name, '')}"


def type_markdown(name: str) -> str:
    t = scalar_type_named(name)
    if t is None:
        return f"`{name}`: not a type of cint"
    if isinstance(t, BoolType):
        return "`Bool`: `true` or `false`"
    if isinstance(t, IntType):
        kind = "signed" if t.signed else "unsigned"
        return f"`{t.name}`: {kind} {t.bits}-bit integer, {t.min} to {t.max}"
    if isinstance(t, FixedType):
        return (f"`{t.name}`: signed fixed point, {t.bits} bits stored, {t.n} fractional bits "
                f"(resolution 2^-{t.n})")
    return f"`{name}`"
