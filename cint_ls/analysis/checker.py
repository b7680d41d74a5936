"""The analysis of one module: declarations, scopes, statements; expressions and the
kernel rules come from the mixins in `expressions.py` and `kernels.py`.

Every problem is reported and the walk goes on, so a broken file yields every
diagnostic it can (issue: "not only the first").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from functools import partial

from ..syntax import SyntaxResult, ast
from ..syntax.diagnostics import Diagnostic, Related, Severity
from .builtins import BUILTIN_FUNCTIONS
from .cache import AnalysisCache, ItemRecord, fingerprint, merge_all
from .expressions import ERROR, ErrorType
from .kernels import KernelRules
from .result import CheckedModule, FunctionInfo, KernelInfo
from .symbols import Scope, Symbol, SymbolKind
from .types import BOOL, I64, VOID, ArrayType, BoolType, IntType, Type, scalar_type_named

# What a unit's check records of its item (None for the entry).
UnitInfo = KernelInfo | FunctionInfo | None

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


# C's type names → (the cint type that is certainly meant, or None; the message).
C_TYPES = {
    "int": ("I32", "cint's 32-bit integer is `I32`"),
    "long": ("I64", "cint's 64-bit integer is `I64`"),
    "short": ("I16", "cint's 16-bit integer is `I16`"),
    "unsigned": ("U32", "cint's unsigned 32-bit integer is `U32`"),
    "bool": ("Bool", "cint's truth type is `Bool`"),
    "size_t": ("I64", "sizes, extents and indices are `I64` in cint"),
    "char": (None, "cint has no character type: use `I8`, or `U8` for a byte"),
    "float": (None, "cint has no floating point: use a fixed-point type `Qm.n` (`Q16.16`), or an integer"),
    "double": (None, "cint has no floating point: use a fixed-point type `Qm.n` (`Q32.32`), or an integer"),
}


def quiet_in_regions(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Without the diagnostics inside the region a syntax error confuses (its
    `data["region"]`, the statement or item the parser misread): they are its
    consequences, not mistakes of their own (`I64 k = 2` before `scale(a, k, b);` would
    add "a dispatch has no value" and "unknown name `k`" to the missing `;`). Nor an
    unknown name where a broken declaration's names would be visible (its
    `data["declares"]`): `I64  = 2;` meant to declare the `k` used after it."""
    syntax = [d.data for d in diagnostics if d.code.startswith("C1") and d.data]
    regions = [data["region"] for data in syntax if "region" in data]
    scopes = [data["declares"] for data in syntax if "declares" in data]
    if not regions and not scopes:
        return diagnostics

    def consequence(d: Diagnostic) -> bool:
        at = d.span.start_byte
        return (any(a <= at < b for a, b in regions)
                or d.code == "C2001" and any(a <= at < b for a, b in scopes))

    return [d for d in diagnostics if d.code.startswith("C1") or not consequence(d)]


class Checker(KernelRules):
    def __init__(self, syntax: SyntaxResult, cache: AnalysisCache | None = None) -> None:
        self.result = CheckedModule(syntax.module, syntax.source, list(syntax.diagnostics))
        # Where the syntax errors are: a body with one is read from tree-sitter's guess.
        self.syntax_errors = [d.span.start_byte for d in syntax.diagnostics if d.code.startswith("C1")]
        self.cache = cache
        self.fingerprint = b""
        self.records: dict[int, ItemRecord] = {}  # this version's units, for the cache
        self.declarations: dict[int, list[Diagnostic]] = {}  # a function's signature diagnostics
        self.module_scope = Scope()
        self.scope = self.module_scope
        self.entry_names: set[str] = set()  # `run` fills it
        self.kernel: KernelInfo | None = None
        self.function: FunctionInfo | None = None
        self.owner: str | None = None
        self.loops = 0
        self.breakable = 0
        self.store_base: ast.Expr | None = None

    # ------------------------------------------------------------------ module

    def run(self) -> CheckedModule:
        module = self.result.module
        source = self.result.source
        if source.path and not source.path.startswith("<") and not _IDENTIFIER.fullmatch(module.name):
            self.error("C2004", f"the file name makes the module name `{module.name}`, which is not an "
                       "identifier; rename the file (letters, digits and `_`)", source.span(0, 0))
        if self.cache is not None:
            self.fingerprint = fingerprint(module, source, self.cache.headers)
        self.declare_items(module)
        # The top-level statements' variables, which functions and kernels cannot read.
        self.entry_names = {s.name.text for s in module.statements if isinstance(s, ast.VarDecl)}
        # Kernels first: a function may dispatch a kernel defined after it.
        for item in module.items:
            if isinstance(item, ast.KernelDef):
                self.unit((item,), partial(self.check_kernel, item))
        for item in module.items:
            if isinstance(item, ast.FunctionDef):
                self.unit((item,), partial(self.check_function, item))
        if module.statements:
            self.unit(tuple(module.statements), lambda: self.check_entry(module.statements))
        self.merge_tables()
        if self.cache is not None:
            names = {(s.kind, s.name) for s in self.module_scope.names.values()}
            self.cache.keep(self.records, names)
        self.result.diagnostics = quiet_in_regions(self.result.diagnostics)
        self.result.diagnostics.sort(key=lambda d: (d.span.start_byte, d.code))
        return self.result

    # ------------------------------------------------------------------ units and the cache

    def unit(self, nodes: tuple[ast.Node, ...], check_unit: Callable[[], None]) -> None:
        """Check one unit (a kernel, a function, the entry), or merge its recorded
        results when nothing it depends on changed (cache.py)."""
        record = self.cache.lookup(nodes, self.fingerprint) if self.cache is not None else None
        if record is None:
            r = self.result
            saved = (r.symbols, r.types, r.values, r.calls, r.diagnostics, r.entry_symbols)
            first = nodes[0]
            seed: dict[ast.Node, Symbol] = {first.name: r.symbols[first.name]} if isinstance(first, ast.KernelDef) and \
                first.name in r.symbols else {}
            r.symbols, r.types, r.values, r.calls, r.diagnostics, r.entry_symbols = seed, {}, {}, {}, [], []
            try:
                check_unit()
            finally:
                record = ItemRecord(self.fingerprint, nodes, r.diagnostics, r.symbols, r.types, r.values, r.calls,
                                    None, r.entry_symbols)
                r.symbols, r.types, r.values, r.calls, r.diagnostics, r.entry_symbols = saved
            record.info = self.unit_info(first)
            record.declaration = self.declarations.get(id(first), [])
        self.merge(record)
        self.records[id(nodes[0])] = record

    def unit_info(self, first: ast.Node) -> UnitInfo:
        info: UnitInfo
        if isinstance(first, ast.KernelDef):
            info = self.result.kernels.get(first.name.text)
        elif isinstance(first, ast.FunctionDef):
            info = self.result.functions.get(first.name.text)
        else:
            return None
        return info if info is not None and info.node is first else None

    def merge(self, record: ItemRecord) -> None:
        """A unit's results into the module's; its tables (symbols, types, values,
        calls) at the end, all units at once (`merge_tables`): no unit's check reads
        another's."""
        r = self.result
        r.diagnostics.extend(record.diagnostics)
        r.entry_symbols.extend(record.entry_symbols)
        info = record.info
        if isinstance(info, KernelInfo):
            r.kernels[info.symbol.name] = info

    def merge_tables(self) -> None:
        """The module's tables: the declarations' symbols, then every unit's tables.
        With a cache, from the last version's tables when few units changed (`cache.
        merged_tables`): at 50,000 lines, 2,600 units' updates of tables of 240,000
        entries cost 45-80 ms an edit, a copy and the changed units' entries 15."""
        r = self.result
        records = list(self.records.values())
        merged = self.cache.merged_tables if self.cache is not None else merge_all
        r.symbols, r.types, r.values, r.calls = merged(r.symbols, records)

    def module_symbol(self, symbol: Symbol) -> Symbol:
        """The symbol of a kernel or function: kept across versions by the cache, so
        reused units' references to it stay valid (a clash gets a fresh one)."""
        if self.cache is None or symbol.name in self.module_scope.names:
            return symbol
        return self.cache.persistent_symbol(symbol)

    def declare(self, symbol: Symbol, node: ast.Node | None = None) -> None:
        clash = self.scope.declare(symbol)
        if clash is not None:
            self.error("C2002", f"`{symbol.name}` is already declared in this scope", symbol.span,
                       [Related(clash.span, f"the first `{symbol.name}`")])
        elif node is not None:
            self.result.symbols[node] = symbol

    def declare_items(self, module: ast.Module) -> None:
        """Kernels and functions are visible everywhere in the module (recursion too)."""
        for item in module.items:
            if isinstance(item, ast.StructDef):
                self.error("C9001", "structs are not implemented", item.name.span)
                continue
            if isinstance(item, ast.Import):
                self.error("C9004", "imports are not implemented: a program is one module for now", item.span)
                continue
            assert isinstance(item, (ast.KernelDef, ast.FunctionDef))  # the items that remain
            if not item.name.text:
                continue
            if item.name.text in BUILTIN_FUNCTIONS:
                self.error("C2003", f"`{item.name.text}` is a built-in operation; choose another name",
                           item.name.span)
                continue
            if isinstance(item, ast.KernelDef):
                symbol = self.module_symbol(Symbol(item.name.text, SymbolKind.KERNEL, VOID, item.name.span, item))
                self.declare(symbol, item.name)
            else:
                record = self.cache.lookup((item,), self.fingerprint) if self.cache is not None else None
                before = len(self.result.diagnostics)
                return_type = self.resolve_type(item.return_type, scalar_only=True, allow_void=True)
                symbol = self.module_symbol(
                    Symbol(item.name.text, SymbolKind.FUNCTION, return_type, item.name.span, item))
                self.declare(symbol, item.name)
                if self.result.symbols.get(item.name) is symbol:
                    # Signatures first: kernels and earlier functions may call this one.
                    if record is not None and isinstance(record.info, FunctionInfo):
                        info = record.info  # its parameters are the symbols the reused body refers to
                        if info.symbol is not symbol:  # a copy: the record's stays as an older version has it
                            info = replace(info, symbol=symbol)
                        # The record's signature diagnostics include what resolving the
                        # return type and declaring the name just reported again: keep one copy.
                        del self.result.diagnostics[before:]
                        self.result.diagnostics.extend(record.declaration)
                    else:
                        params = [self.function_param(item.name.text, p) for p in item.params]
                        info = FunctionInfo(item, symbol, params, return_type)
                    self.result.functions[symbol.name] = info
                self.declarations[id(item)] = self.result.diagnostics[before:]

    # ------------------------------------------------------------------ types

    def resolve_type(self, ref: ast.TypeRef, *, scalar_only: bool = False, allow_void: bool = False) -> Type:
        if isinstance(ref, ast.VoidTypeRef):
            if allow_void:
                return VOID
            self.error("C3001", "`void` is only a function's return type", ref.span)
            return ERROR
        if isinstance(ref, ast.NamedTypeRef):
            habit = C_TYPES.get(ref.name.text)
            if habit is not None:
                # A C type name (a habit, not a struct): say what cint writes instead.
                replacement, message = habit
                self.report("C3019", Severity.ERROR, f"`{ref.name.text}` is C; {message}", ref.span,
                            data={"replacement": replacement} if replacement else {})
                return ERROR
            self.error("C9001", f"`{ref.name.text}`: structs are not implemented", ref.span)
            return ERROR
        if isinstance(ref, ast.ArrayTypeRef):
            if scalar_only:
                self.error("C9005", "array parameters and results of functions are not implemented; "
                           "pass arrays to kernels", ref.span)
                return ERROR
            element = self.resolve_type(ref.element, scalar_only=True)
            if isinstance(element, ErrorType):
                return ERROR
            return ArrayType(element, len(ref.extents))
        assert isinstance(ref, ast.ScalarTypeRef)
        if not ref.text:
            return ERROR  # missing: a syntax error already says so
        t = scalar_type_named(ref.text)
        if t is None:
            self.error("C3001", f"unknown type `{ref.text}`: the types are Bool, I8 to I1024, U8 to U512, and "
                       "Qm.n with m + n of 8, 16, 32, 64 or 128", ref.span)
            return ERROR
        return t

    # ------------------------------------------------------------------ functions and the entry

    def check_function(self, node: ast.FunctionDef) -> None:
        info = self.result.functions.get(node.name.text)
        if info is None or info.node is not node:
            return
        self.function, self.owner = info, node.name.text
        self.scope = Scope(self.module_scope, barrier=True)
        for param, symbol in zip(node.params, info.params):
            self.declare(symbol, param.name)
        self.block(node.body, new_scope=False)
        # Not where a syntax error is in the body: its paths are the parser's guess (a
        # missing `}` moves the final `return` into an `else`), not the program's.
        if info.return_type not in (VOID, ERROR) and not self.guessed(node.body) and self.may_complete(node.body.statements):
            self.error("C3009", f"`{node.name.text}` must return a {info.return_type.name} value on every path; "
                       "add a `return`", node.body.span)
        self.function, self.owner = None, None
        self.scope = self.module_scope

    def function_param(self, owner: str, param: ast.Param) -> Symbol:
        if param.mode is not None:
            self.error("C5015", f"`{param.mode}` is a kernel parameter mode; a function's parameters are values",
                       param.span)
        t = self.resolve_type(param.type, scalar_only=True)
        return Symbol(param.name.text, SymbolKind.PARAM, t, param.name.span, param, "in", owner)

    def check_entry(self, statements: list[ast.Stmt]) -> None:
        """The top-level statements: one entry, run in order (LANGUAGE.md)."""
        self.scope = Scope(self.module_scope)
        for statement in statements:
            self.statement(statement)
        self.scope = self.module_scope

    def may_complete(self, statements: list[ast.Stmt]) -> bool:
        """Whether control can reach the end of a statement list."""
        for statement in statements:
            if not self.statement_may_complete(statement):
                return False
        return True

    def statement_may_complete(self, s: ast.Stmt) -> bool:
        if isinstance(s, ast.Return):
            return False
        if isinstance(s, ast.Block):
            return self.may_complete(s.statements)
        if isinstance(s, ast.If):
            return s.otherwise is None or self.statement_may_complete(s.then) or \
                self.statement_may_complete(s.otherwise)
        if isinstance(s, ast.Switch):
            has_default = any(c.label is None for c in s.clauses)
            return not has_default or any(self.may_complete(c.body) for c in s.clauses)
        if isinstance(s, ast.While):
            literal_true = isinstance(s.condition, ast.BoolLit) and s.condition.value
            return not literal_true or self.contains_break(s.body.statements)
        return True

    def contains_break(self, statements: list[ast.Stmt]) -> bool:
        for s in statements:
            if isinstance(s, ast.Break):
                return True
            if isinstance(s, ast.Block) and self.contains_break(s.statements):
                return True
            if isinstance(s, ast.If):
                branches = [s.then] + ([s.otherwise] if s.otherwise else [])
                if any(self.contains_break([b]) for b in branches):
                    return True
        return False

    # ------------------------------------------------------------------ statements

    def block(self, block: ast.Block, new_scope: bool = True) -> None:
        outer = self.scope
        if new_scope:
            self.scope = Scope(outer)
        for statement in block.statements:
            self.statement(statement)
        self.scope = outer

    def statement(self, s: ast.Stmt) -> None:
        method: Callable[[ast.Stmt], None] = getattr(self, "stmt_" + type(s).__name__)
        method(s)

    def stmt_ErrorStmt(self, s: ast.ErrorStmt) -> None:
        pass

    def stmt_Block(self, s: ast.Block) -> None:
        self.block(s)

    def local_kind(self) -> SymbolKind:
        return SymbolKind.LOCAL if self.owner is not None else SymbolKind.ENTRY_LOCAL

    def stmt_VarDecl(self, s: ast.VarDecl) -> None:
        t = self.resolve_type(s.type)
        extents: list[ast.Expr] = []
        if isinstance(s.type, ast.ArrayTypeRef):
            extents = s.type.extents
            for extent in extents:
                self.expect_type(extent, I64, "an array extent")
            self.check_local_array(s)
            if s.value is not None and isinstance(t, ArrayType):
                self.array_initializer(s.value, t, extents)
        elif s.value is not None:
            value_type = self.expr(s.value, None if isinstance(t, ErrorType) else t)
            if not isinstance(t, ErrorType) and not isinstance(value_type, ErrorType) and value_type != t:
                self.error("C3003", f"`{s.name.text}` is {t.name} but the value is {value_type.name}; "
                           "convert it with `as`", s.value.span)
        symbol = Symbol(s.name.text, self.local_kind(), t, s.name.span, s, owner=self.owner,
                        array_extents=list(extents))
        if s.name.text:
            self.declare(symbol, s.name)
            if symbol.kind is SymbolKind.ENTRY_LOCAL:
                self.result.entry_symbols.append(symbol)

    def check_local_array(self, s: ast.VarDecl) -> None:
        """Overridden by the kernel rules (local arrays in kernel bodies)."""

    def array_initializer(self, value: ast.Expr, t: ArrayType, extents: list[ast.Expr]) -> None:
        if not isinstance(value, ast.ArrayLit):
            self.error("C3011", "an array is initialized by an array literal such as `[1, 2]`, or not at all "
                       "(every element is then 0)", value.span)
            self.expr(value, None, view_ok=True)
            return
        constant = [self.constant_extent(e) for e in extents]
        self.array_literal(value, t.element, constant, 0)

    def constant_extent(self, e: ast.Expr) -> int | None:
        value = self.result.values.get(e)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def array_literal(self, lit: ast.Expr, element: Type, extents: list[int | None], depth: int) -> None:
        if depth == len(extents):
            if isinstance(lit, ast.ArrayLit):
                self.error("C3011", "this array literal is nested deeper than the array has dimensions", lit.span)
                return
            self.expect_type(lit, element, "an element")
            return
        if not isinstance(lit, ast.ArrayLit):
            self.error("C3011", f"expected a nested array literal for dimension {depth}", lit.span)
            self.expr(lit, None)
            return
        self.result.types[lit] = ArrayType(element, len(extents) - depth)
        want = extents[depth]
        if want is not None and len(lit.elements) != want:
            self.error("C3011", f"dimension {depth} has extent {want} but the literal has "
                       f"{len(lit.elements)} element{'s' if len(lit.elements) != 1 else ''}", lit.span)
        for item in lit.elements:
            self.array_literal(item, element, extents, depth + 1)

    def stmt_Assign(self, s: ast.Assign) -> None:
        target = s.target
        if isinstance(target, ast.Ident):
            symbol = self.lookup(target.name, target)
            if symbol is None:
                self.expr(s.value, None)
                return
            self.result.types[target] = symbol.type
            if self.reduce_without_its_keyword(symbol, target, s.value):
                return
            self.check_assignable(symbol, target)
            if isinstance(symbol.type, ArrayType):
                self.error("C3006", f"`{target.name}` is an array; assign its elements (`{target.name}[i] = ...`)",
                           target.span)
                self.expr(s.value, None, view_ok=True)
                return
            t = symbol.type
        elif isinstance(target, ast.Index):
            self.store_base = target.value  # the base of a store is not a read (kernels.py)
            try:
                t = self.expr(target, None)
            finally:
                self.store_base = None
            base = target.value
            if isinstance(base, ast.Ident) and base in self.result.symbols:
                self.check_element_store(self.result.symbols[base], target, typed=not isinstance(t, ErrorType))
            elif not isinstance(t, ErrorType):
                self.error("C3006", "only an element of an array variable can be assigned", target.span)
        elif isinstance(target, ast.ArrayLit):
            # `[i] = a[i] * k;`: the array's name lost before its index (no C3011 for the
            # "array literal" the parser read: it is the same mistake).
            for element in target.elements:
                self.expr(element, None)
            self.error("C3006", "only a variable or an array element can be assigned; name the array "
                       "before the index (`a[i] = ...`)", target.span)
            self.expr(s.value, None)
            return
        else:
            self.expr(target, None)
            self.error("C3006", "only a variable or an array element can be assigned", target.span)
            self.expr(s.value, None)
            return
        value_type = self.expr(s.value, None if isinstance(t, ErrorType) else t)
        if not isinstance(t, ErrorType) and not isinstance(value_type, ErrorType) and value_type != t:
            self.error("C3003", f"the target is {t.name} but the value is {value_type.name}; convert it with `as`",
                       s.value.span)

    def stmt_ExprStmt(self, s: ast.ExprStmt) -> None:
        self.expr(s.expr, None, statement=True)
        if not isinstance(s.expr, (ast.Call, ast.ErrorExpr)):
            self.warning("C3018", "this expression's value is not used", s.expr.span)

    def stmt_Print(self, s: ast.Print) -> None:
        self.check_print(s)
        for part in s.string.parts:
            if isinstance(part, ast.Expr):
                t = self.expr(part, None)
                if isinstance(t, ArrayType):
                    self.error("C3007", "an array cannot be printed; print its elements", part.span)

    def condition(self, e: ast.Expr, what: str) -> None:
        self.expect_type(e, BOOL, f"the condition of `{what}`")

    def stmt_If(self, s: ast.If) -> None:
        self.condition(s.condition, "if")
        self.block(s.then)
        if s.otherwise is not None:
            self.statement(s.otherwise)

    def loop_body(self, body: ast.Block, variable: Symbol | None = None) -> None:
        self.loops += 1
        self.breakable += 1
        outer = self.scope
        self.scope = Scope(outer)
        if variable is not None:
            self.declare(variable, variable.node)
        self.block(body)
        self.scope = outer
        self.loops -= 1
        self.breakable -= 1

    def stmt_For(self, s: ast.For) -> None:
        self.expect_type(s.start, I64, "the start of a `for` range")
        self.expect_type(s.end, I64, "the end of a `for` range")
        variable = Symbol(s.variable.text, SymbolKind.LOOP, I64, s.variable.span, s.variable, owner=self.owner)
        self.loop_body(s.body, variable if s.variable.text else None)

    def stmt_While(self, s: ast.While) -> None:
        self.condition(s.condition, "while")
        self.loop_body(s.body)

    def stmt_Switch(self, s: ast.Switch) -> None:
        value_type = self.expr(s.value, None)
        t: IntType | ErrorType = value_type if isinstance(value_type, IntType) else ERROR
        if not isinstance(value_type, (ErrorType, IntType)):
            self.error("C3007", f"`switch` takes an integer value, not {value_type.name}", s.value.span)
        seen: dict[int, ast.Expr] = {}
        defaults = 0
        self.breakable += 1
        for clause in s.clauses:
            if clause.label is None:
                defaults += 1
                if defaults > 1:
                    self.error("C3013", "a `switch` has at most one `default`", clause.span)
            else:
                self.case_label(clause.label, t, seen)
            outer = self.scope
            self.scope = Scope(outer)
            for statement in clause.body:
                self.statement(statement)
            self.scope = outer
        self.breakable -= 1

    def case_label(self, label: ast.Expr, t: IntType | ErrorType, seen: dict[int, ast.Expr]) -> None:
        inner = label.operand if isinstance(label, ast.Unary) and label.op == "-" else label
        if not isinstance(inner, (ast.IntLit, ast.TypeProperty)):
            self.error("C3014", "a case label is an integer constant (a literal, `-` a literal, or `T.min`/`T.max`)",
                       label.span)
            return
        lt = self.expr(label, None if isinstance(t, ErrorType) else t)
        if isinstance(lt, ErrorType) or isinstance(t, ErrorType):
            return
        value = self.result.values.get(inner)
        if isinstance(label, ast.Unary) and isinstance(value, int):
            value = -value
            if not t.contains(value):
                self.error("C3002", f"the case label {value} does not fit {t.name}", label.span)
                return
            self.result.values[label] = value
        if value in seen:
            self.error("C3013", f"the case {value} appears twice", label.span,
                       [Related(seen[value].span, "the first one")])
        elif isinstance(value, int):
            seen[value] = label

    def stmt_Break(self, s: ast.Break) -> None:
        if not self.breakable:
            self.error("C3010", "`break` is only allowed in a loop or a `switch`", s.span)

    def stmt_Continue(self, s: ast.Continue) -> None:
        if not self.loops:
            self.error("C3010", "`continue` is only allowed in a loop", s.span)

    def stmt_Return(self, s: ast.Return) -> None:
        if self.kernel is not None:
            if s.value is not None:
                self.error("C5018", "a kernel returns no value; its results are its out parameters", s.value.span)
                self.expr(s.value, None)
            return
        if self.function is None:
            self.error("C3009", "`return` is only allowed in a function or a kernel", s.span)
            if s.value is not None:
                self.expr(s.value, None)
            return
        want = self.function.return_type
        if s.value is None:
            if want not in (VOID, ERROR):
                self.error("C3009", f"`{self.function.symbol.name}` returns {want.name}: give `return` a value",
                           s.span)
            return
        if want == VOID:
            self.error("C3009", f"`{self.function.symbol.name}` is `void`; `return` takes no value here",
                       s.value.span)
            self.expr(s.value, None)
            return
        self.expect_type(s.value, want, "the returned value")

    def stmt_Assert(self, s: ast.Assert) -> None:
        self.condition(s.condition, "assert")

    def stmt_Reduce(self, s: ast.Reduce) -> None:
        self.check_reduce(s)


def check(syntax: SyntaxResult, cache: AnalysisCache | None = None) -> CheckedModule:
    """Analyse a parsed module: every diagnostic, and what the IR needs. With a cache
    (the language server's), units unchanged since the last version are reused."""
    return Checker(syntax, cache).run()


def is_bool(t: Type) -> bool:
    return isinstance(t, BoolType)
