"""The kernel rules (LANGUAGE.md "Kernels", SPEC-02P.1 5.3 and 6.5): signatures, size
symbols, over clauses, where clauses, the body rules, reduce statements, dispatches,
and C5010.
"""

from __future__ import annotations

from dataclasses import replace

from ..syntax import ast
from ..syntax.diagnostics import Diagnostic, Related, Severity
from .builtins import REDUCE_OPERATORS
from .expressions import COMPARISONS, ERROR, ErrorType, ExpressionChecker
from .result import CallInfo, KernelInfo
from .symbols import Scope, Symbol, SymbolKind
from .types import BOOL, I64, VOID, ArrayType, FixedType, IntType, Type

# LANGUAGE.md and the spec's example print exactly this message for C5010.
C5010_MESSAGE = "parameter mode, alias, or ABI rule"


# A normal form of a dispatch argument (`argument_key`): a tag ("var", "view",
# "indexed", "reverse", "transpose"), what it is of (a variable's id(), or the inner
# key), and its parts. Equal keys are provably the same view or variable.
ArgumentKey = tuple[str, object, tuple[object, ...]]
# An index expression's normal form (`canonical`): ("value", v), ("text", source
# without spaces), or None for a bound left out.
Canonical = tuple[str, object] | None
WHOLE = ("slice", None, None, 1)  # a dimension taken whole


class KernelRules(ExpressionChecker):
    """The kernel rules of `Checker`: a subclass of the expression typing, so that its
    hooks (`check_kernel_read`, `dispatch`) win."""

    # ------------------------------------------------------------------ the definition

    def check_kernel(self, node: ast.KernelDef) -> None:
        symbol = self.result.symbols.get(node.name)
        if symbol is None or symbol.node is not node:
            return
        info = KernelInfo(node, symbol, [], [], [])
        self.result.kernels[symbol.name] = info
        self.owner = symbol.name
        self.scope = Scope(self.module_scope, barrier=True)
        for size in node.sizes:
            s = Symbol(size.text, SymbolKind.SIZE, I64, size.span, size, owner=self.owner)
            self.declare(s, size)
            info.sizes.append(s)
        bound: set[str] = set()
        for param in node.params:
            info.params.append(self.kernel_param(param, bound))
        for s in info.sizes:
            if s.name not in bound:
                self.error("C5002", f"the size symbol `{s.name}` is bound by no array extent: use it as a bare "
                           f"extent of an array parameter (`I64[{s.name}] a`)", s.span)
        for binding in node.space:
            self.size_expression(binding.extent, "an over extent")
        for binding in node.space:
            s = Symbol(binding.name.text, SymbolKind.OVER, I64, binding.name.span, binding, owner=self.owner)
            self.declare(s, binding.name)
            info.over.append(s)
        if not node.space:
            self.error("C5003", "a kernel's over clause names at least one dimension (`over [i: n]`)", node.name.span)
        for constraint in node.where:
            self.where_constraint(constraint)
        self.kernel = info
        self.block(node.body, new_scope=True)
        self.kernel = None
        # A body with a syntax error may have lost its `reduce` (`reduce  = sum(x[i]);`).
        for param, s in zip(node.params, info.params if not self.guessed(node.body) else ()):
            if s.mode == "out" and not isinstance(s.type, ArrayType) and not isinstance(s.type, ErrorType) \
                    and s.name not in info.reductions and s.name not in info.reduced_by_assignment:
                self.error("C5007", f"the scalar out parameter `{s.name}` must be the target of one "
                           f"`reduce {s.name} = ...;` statement", param.name.span)
        self.owner = None
        self.scope = self.module_scope

    def kernel_param(self, param: ast.Param, bound: set[str]) -> Symbol:
        mode = param.effective_mode
        t = self.resolve_type(param.type)
        extents: list[ast.Expr] = []
        if isinstance(param.type, ast.ArrayTypeRef):
            extents = param.type.extents
            for extent in extents:
                self.array_extent(extent, bound)
        elif mode == "inout" and not isinstance(t, ErrorType):
            self.error("C5015", "a scalar parameter is `in` or `out` (a reduce target), not `inout`",
                       param.span)
        s = Symbol(param.name.text, SymbolKind.PARAM, t, param.name.span, param, mode, self.owner, list(extents))
        self.declare(s, param.name)
        return s

    def array_extent(self, extent: ast.Expr, bound: set[str]) -> None:
        """An extent is a size symbol, `S + c`, `S - c` or an integer constant."""
        self.result.types[extent] = I64
        if isinstance(extent, ast.IntLit):
            self.expr(extent, I64)
            return
        if isinstance(extent, ast.Ident):
            if self.size_symbol(extent):
                bound.add(extent.name)
            return
        if isinstance(extent, ast.Binary) and extent.op in "+-" and isinstance(extent.left, ast.Ident) \
                and isinstance(extent.right, ast.IntLit):
            self.size_symbol(extent.left)
            self.expr(extent.right, I64)
            self.result.types[extent.left] = I64
            return
        self.error("C5001", "an array parameter's extent is a size symbol, `S + c`, `S - c` or an integer "
                   "constant", extent.span)

    def size_symbol(self, ident: ast.Ident) -> bool:
        symbol, _ = self.scope.lookup(ident.name)
        if symbol is None or symbol.kind is not SymbolKind.SIZE:
            if self.not_a_size_again(ident):
                return False
            self.error("C5001", f"`{ident.name}` is not a size symbol of this kernel; declare it in "
                       f"`kernel NAME[{ident.name}, ...]`", ident.span)
            return False
        self.result.symbols[ident] = symbol
        self.result.types[ident] = I64
        return True

    def not_a_size_again(self, ident: ast.Ident) -> bool:
        """Whether `ident` names a size symbol already reported missing in this kernel
        (C5001): the use is added to that diagnostic's related information. A size
        symbol left out of `kernel NAME[...]` is one mistake, not one at each extent
        (and over extent) that names it."""
        said = f"`{ident.name}` is not a size symbol of this kernel"
        for i, d in enumerate(self.result.diagnostics):
            if d.code == "C5001" and d.message.startswith(said):
                self.result.diagnostics[i] = replace(
                    d, related=d.related + (Related(ident.span, f"`{ident.name}` used here too"),))
                self.result.types[ident] = I64
                return True
        return False

    def non_size_name(self, e: ast.Expr) -> tuple[ast.Ident, Symbol] | None:
        """The first name in `e` that is declared but is not a size symbol."""
        for ident in _identifiers(e):
            symbol, _ = self.scope.lookup(ident.name)
            if symbol is not None and symbol.kind is not SymbolKind.SIZE:
                return ident, symbol
        return None

    def size_expression(self, e: ast.Expr, what: str) -> None:
        """Over extents and where sides: I64 expressions of size symbols."""
        found = self.non_size_name(e)
        if found is not None:
            ident, symbol = found
            self.error("C5003", f"{what} uses only size symbols and constants; `{ident.name}` is a "
                       f"{symbol.kind.value}", ident.span)
            return
        missing = [ident for ident in _identifiers(e) if self.scope.lookup(ident.name)[0] is None]
        if missing and all([self.not_a_size_again(ident) for ident in missing]):
            return  # the size symbols the header left out: reported at their first extent
        self.expect_type(e, I64, what)

    def where_constraint(self, e: ast.Expr) -> None:
        found = self.non_size_name(e)
        if found is not None:
            ident, symbol = found
            self.error("C5017", f"a where constraint compares size symbols; `{ident.name}` is a "
                       f"{symbol.kind.value}", ident.span)
            return
        if not (isinstance(e, ast.Binary) and e.op in COMPARISONS):
            self.error("C5017", "a where constraint is a comparison of size expressions (`n >= 2`)", e.span)
            self.expr(e, None)
            return
        self.expect_type(e, BOOL, "a where constraint")

    # ------------------------------------------------------------------ the body

    def check_kernel_read(self, symbol: Symbol, node: ast.Node) -> None:
        if self.kernel is None or symbol.kind is not SymbolKind.PARAM or symbol.mode != "out":
            return
        if node is self.store_base:
            return
        if isinstance(symbol.type, ArrayType):
            self.error("C5014", f"`{symbol.name}` is an out parameter: the body writes it but cannot read it; "
                       "declare it `inout` to read the values from before the dispatch", node.span)
        else:
            self.error("C5014", f"`{symbol.name}` is a scalar out parameter: it receives the reduction's result "
                       "and cannot be read in the body", node.span)

    def check_assignable(self, symbol: Symbol, node: ast.Node) -> None:
        if symbol.kind is SymbolKind.LOOP:
            self.error("C3006", f"`{symbol.name}` is a loop variable; it cannot be assigned", node.span)
        elif self.kernel is not None and symbol.owner == self.owner and symbol.kind in (
                SymbolKind.PARAM, SymbolKind.SIZE, SymbolKind.OVER):
            how = "is given a value by a `reduce` statement" if symbol.mode == "out" else "is read-only"
            self.error("C5006", f"`{symbol.name}` is a {symbol.kind.value} of the kernel and {how}; a body "
                       "assigns only the variables it declares", node.span)

    def reduce_without_its_keyword(self, symbol: Symbol, target: ast.Ident, value: ast.Expr) -> bool:
        """`s = sum(x[i]);` in a kernel whose scalar out parameter is `s`: a reduce
        statement that lost its `reduce`. One C5006 that says so, and neither "`sum` is
        unknown" nor "`s` must be the target of one reduce" (C5007) besides."""
        info = self.kernel
        if info is None or symbol.kind is not SymbolKind.PARAM or symbol.owner != self.owner \
                or symbol.mode not in ("out", "inout") or isinstance(symbol.type, ArrayType):
            return False
        if not (isinstance(value, ast.Call) and isinstance(value.callee, ast.Ident)
                and value.callee.name in REDUCE_OPERATORS) or self.scope.lookup(value.callee.name)[0] is not None:
            return False
        self.error("C5006", f"`{symbol.name}` is a scalar out parameter, given its value by a reduce statement; "
                   f"did you mean `reduce {symbol.name} = {value.callee.name}(...);`?", target.span)
        info.reduced_by_assignment.add(symbol.name)
        for arg in value.args:
            self.expr(arg, None)
        return True

    def check_element_store(self, symbol: Symbol, target: ast.Index, typed: bool = True) -> None:
        """`typed`: the target's indexing checked clean; when it did not (`v[y, ] = r;`,
        a view), which block it writes is not asked as well."""
        if self.kernel is None or symbol.kind is not SymbolKind.PARAM:
            return
        if symbol.mode == "in":
            self.error("C5005", f"`{symbol.name}` is an in parameter and is read-only; declare it `out` or "
                       "`inout` to write it", target.span)
            return
        over = self.kernel.over
        leading = target.indices[:len(over)]
        owned = len(leading) == len(over) and all(
            isinstance(index, ast.Ident) and self.result.symbols.get(index) is variable
            for index, variable in zip(leading, over)
        )
        if not owned and typed:
            names = ", ".join(v.name for v in over)
            self.error("C5004", f"a work-item writes only its owned block: the leading indices of "
                       f"`{symbol.name}` must be the over variables `{names}`, in order", target.span)

    def check_print(self, s: ast.Print) -> None:
        if self.kernel is not None:
            self.error("C9007", "printing inside a kernel body is not implemented; print the results after "
                       "the dispatch", s.span)

    def check_reduce(self, s: ast.Reduce) -> None:
        info = self.kernel
        if info is None:
            self.error("C5012", "`reduce` is a statement of kernel bodies", s.span)
            return
        if self.loops:
            self.error("C5008", "a `reduce` statement cannot be inside a loop: each work-item contributes "
                       "once", s.span)
        symbol = self.lookup(s.target.text, s.target) if s.target.text else None
        target_type: Type = ERROR
        if symbol is not None:
            # A scalar `inout` is already C5015 (a scalar is `in` or `out`): it is taken as
            # the `out` its reduce says it is, without a second diagnostic here.
            if symbol.kind is not SymbolKind.PARAM or symbol.mode not in ("out", "inout") \
                    or isinstance(symbol.type, ArrayType):
                self.error("C5009", f"the target of `reduce` is a scalar out parameter; `{symbol.name}` is not",
                           s.target.span)
            elif symbol.name in info.reductions:
                first = info.reductions[symbol.name]
                self.error("C5007", f"`{symbol.name}` is already the target of a reduce statement; a scalar "
                           "out parameter has exactly one", s.target.span, [Related(first.span, "the first one")])
            else:
                info.reductions[symbol.name] = s
                target_type = symbol.type
        self.reduce_arguments(s, target_type)

    def reduce_arguments(self, s: ast.Reduce, target: Type) -> None:
        op = s.op.text
        if op not in REDUCE_OPERATORS:
            self.error("C5019", f"unknown reduction `{op}`; the reductions are {', '.join(REDUCE_OPERATORS)}",
                       s.op.span)
            for arg in s.args:
                self.expr(arg, None)
            return
        want = 3 if op == "fold_checked" else 1
        if len(s.args) != want:
            form = "fold_checked(add, init, x)" if want == 3 else f"{op}(x)"
            self.error("C3004", f"`{op}` takes {want} argument{'s' if want > 1 else ''}: `{form}`", s.op.span)
            for arg in s.args:
                self.expr(arg, None)
            return
        known = not isinstance(target, ErrorType)
        if op == "fold_checked":
            fold = s.args[0]
            if not (isinstance(fold, ast.Ident) and fold.name == "add"):
                self.error("C5019", "fold_checked folds with `add` (`fold_checked(add, 0, x)`)", fold.span)
            self.expect_type(s.args[1], target, "the initial value") if known else self.expr(s.args[1], None)
            if not _is_constant(s.args[1]):
                self.error("C5019", "the initial value of fold_checked is a constant (a literal or `T.min`)",
                           s.args[1].span)
            x = s.args[2]
        else:
            x = s.args[0]
        if op == "count":
            self.expect_type(x, BOOL, "a count contribution")
            if known and not isinstance(target, IntType):
                self.error("C3007", f"`count` gives an integer; the target is {target.name}", s.target.span)
            return
        if op == "fold_checked" or op != "sum":
            if known:
                self.expect_type(x, target, f"a `{op}` contribution")
                if not isinstance(target, (IntType, FixedType)):
                    self.error("C3007", f"`{op}` is not defined for {target.name}", s.op.span)
            else:
                self.expr(x, None)
            return
        # sum: integer contributions of any width into an integer target; fixed into the same fixed type.
        t = self.expr(x, target if known else None)
        if isinstance(t, ErrorType) or not known:
            return
        if isinstance(target, FixedType) or isinstance(t, FixedType):
            if t != target:
                self.error("C3003", f"a fixed-point sum has contributions of its target's type {target.name}, "
                           f"not {t.name}", x.span)
        elif not (isinstance(t, IntType) and isinstance(target, IntType)):
            self.error("C3007", f"`sum` adds integer or fixed-point contributions, not {t.name}", x.span)

    # ------------------------------------------------------------------ dispatches

    def dispatch(self, e: ast.Call, symbol: Symbol, statement: bool) -> Type:
        self.result.calls[e] = CallInfo("dispatch", symbol.name, symbol)
        if self.kernel is not None:
            self.error("C5013", "a kernel body cannot dispatch a kernel", e.span)
            # Its arguments are checked as at a dispatch site, where passing an out array
            # writes it: with the body's rules they would add "`v` is an out parameter: the
            # body ... cannot read it" (C5014) to the one mistake.
            kernel, self.kernel = self.kernel, None
            try:
                return self.dispatch(e, symbol, True)
            finally:
                self.kernel = kernel
        if not statement:
            self.error("C5016", "a dispatch is a statement of its own; it has no value", e.span)
            for arg in e.args:
                self.expr(arg, None, view_ok=True)
            return ERROR
        info = self.result.kernels.get(symbol.name)
        if info is None or self.guessed_header(info.node):  # a header with a syntax error: its parameters are a guess
            for arg in e.args:
                self.expr(arg, None, view_ok=True)
            return VOID
        if not self.check_arity(e, symbol.name, len(info.params)):
            return VOID
        for arg, param in zip(e.args, info.params):
            self.dispatch_argument(arg, param)
        self.check_same_arguments(e, info)
        return VOID

    def dispatch_argument(self, arg: ast.Expr, param: Symbol) -> None:
        if isinstance(param.type, ErrorType):
            self.expr(arg, None, view_ok=True)
            return
        if isinstance(param.type, ArrayType):
            t = self.expr(arg, None, view_ok=True)
            if isinstance(t, ErrorType):
                return
            if not isinstance(t, ArrayType):
                self.error("C5011", f"`{param.name}` takes an array or a view, not {t.name}", arg.span)
            elif t.element != param.type.element:
                self.error("C5011", f"`{param.name}` takes {param.type.element.name} elements; this argument has "
                           f"{t.element.name} elements", arg.span)
            elif t.rank != param.type.rank:
                self.error("C5011", f"`{param.name}` takes a view of rank {param.type.rank}; this argument has "
                           f"rank {t.rank}", arg.span)
            return
        if param.mode == "out":
            if not isinstance(arg, ast.Ident):
                self.error("C5011", f"the scalar out parameter `{param.name}` takes a variable of type "
                           f"{param.type.name}", arg.span)
                self.expr(arg, None)
                return
            symbol = self.lookup(arg.name, arg)
            if symbol is None:
                return
            self.result.types[arg] = symbol.type
            if symbol.kind in (SymbolKind.KERNEL, SymbolKind.FUNCTION) or symbol.type != param.type:
                self.error("C5011", f"the scalar out parameter `{param.name}` takes a variable of exactly "
                           f"{param.type.name}; `{arg.name}` is {symbol.type.name}", arg.span)
                return
            self.check_assignable(symbol, arg)
            return
        self.expect_type(arg, param.type, f"the argument for `{param.name}`")

    def check_same_arguments(self, e: ast.Call, info: KernelInfo) -> None:
        """C5010 (SPEC-02P.1 6.5, [A-8]): the same variable, or provably the same view
        expression, for two parameters of which one is out or inout. The position is the
        later argument."""
        keys = [self.argument_key(arg) for arg in e.args]
        for j in range(len(e.args)):
            for i in range(j):
                if keys[i] is None or keys[i] != keys[j]:
                    continue
                if {info.params[i].mode, info.params[j].mode} & {"out", "inout"}:
                    self.result.diagnostics.append(self.c5010(e.args[i], e.args[j], info.params[i], info.params[j]))
                    return

    def c5010(self, earlier: ast.Expr, arg: ast.Expr, first: Symbol, second: Symbol) -> Diagnostic:
        detail = (f"the same {'view' if isinstance(first.type, ArrayType) else 'variable'} is passed for "
                  f"`{first.name}` ({first.mode}) and `{second.name}` ({second.mode}); an output shares no "
                  "element with another argument")
        # Both arguments, for the editor (`data`, not `related`: `cint check` prints
        # related notes, and its C5010 output is the spec's, conformance `same_c5010`).
        what = "view" if isinstance(first.type, ArrayType) else "variable"
        see = (Related(earlier.span, f"passed for `{first.name}` ({first.mode})"),
               Related(arg.span, f"the same {what} passed for `{second.name}` ({second.mode})"))
        return Diagnostic("C5010", Severity.ERROR, C5010_MESSAGE, arg.span, data={"detail": detail, "see": see})

    def argument_key(self, arg: ast.Expr) -> ArgumentKey | None:
        """A normal form of an argument such that equal forms are provably the same view
        (or variable), or None. `a` and `a[.., ..]` are the same view."""
        if isinstance(arg, ast.Paren):
            return self.argument_key(arg.expr)
        if isinstance(arg, ast.Ident):
            symbol = self.result.symbols.get(arg)
            if symbol is None:
                return None
            rank = symbol.type.rank if isinstance(symbol.type, ArrayType) else 0
            return ("view", id(symbol), (WHOLE,) * rank) if rank else ("var", id(symbol), ())
        if isinstance(arg, ast.Index):
            base = self.argument_key(arg.value)
            if base is None or base[0] != "view":
                return None
            parts: list[object] = []
            for index in arg.indices:
                if isinstance(index, ast.Slice):
                    step = self.result.values.get(index.step, 1) if index.step is not None else 1
                    parts.append(("slice", self.canonical(index.start), self.canonical(index.end), step))
                else:
                    parts.append(("at", self.canonical(index)))
            parts += [WHOLE] * (len(base[2]) - len(parts))
            # Indexing a whole array: compose only onto the plain array view.
            if all(p == WHOLE for p in base[2]):
                return ("view", base[1], tuple(parts))
            return ("indexed", base, tuple(parts))
        if isinstance(arg, ast.Call) and isinstance(arg.callee, ast.Ident) and arg.callee.name in ("reverse",
                                                                                                     "transpose"):
            inner = self.argument_key(arg.args[0]) if arg.args else None
            if inner is None:
                return None
            extra = tuple(self.canonical(a) for a in arg.args[1:])
            return (arg.callee.name, inner, extra)
        return None

    def canonical(self, e: ast.Expr | None) -> Canonical:
        """Source text without spaces: two index expressions that read the same are the
        same value, since expressions have no side effects."""
        if e is None:
            return None
        value = self.result.values.get(e)
        if value is not None:
            return ("value", value)
        text = self.result.source.data[e.span.start_byte:e.span.end_byte].decode("utf-8", "replace")
        return ("text", "".join(text.split()))


def _is_constant(e: ast.Expr) -> bool:
    if isinstance(e, ast.Paren):
        return _is_constant(e.expr)
    if isinstance(e, ast.Unary) and e.op == "-":
        return isinstance(e.operand, (ast.IntLit, ast.FixedLit))
    return isinstance(e, (ast.IntLit, ast.FixedLit, ast.TypeProperty))


def _identifiers(e: ast.Expr) -> list[ast.Ident]:
    out: list[ast.Ident] = []
    stack: list[ast.Node] = [e]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Ident):
            out.append(node)
        elif isinstance(node, ast.Binary):
            stack += [node.left, node.right]
        elif isinstance(node, ast.Unary):
            stack.append(node.operand)
        elif isinstance(node, ast.Paren):
            stack.append(node.expr)
        elif isinstance(node, ast.Cast):
            stack.append(node.value)
        elif isinstance(node, ast.Call):
            stack += node.args
        elif isinstance(node, ast.Index):
            stack.append(node.value)
            stack += [i for i in node.indices if isinstance(i, ast.Expr)]
    return out
