"""Typing of expressions: resolution, literal typing, operators, calls, indexing.

Literal typing (LANGUAGE.md "Types and values"): an integer literal takes the type its
context demands — the other operand, the declared or parameter type, the assignment
target — and with no context it is I64. `expected` carries that context down.
An expression that already failed has the type ERROR, which silences every check that
depends on it, so one mistake gives one diagnostic.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..syntax import ast
from ..syntax.diagnostics import Related, Severity
from ..vocabulary.operators import BINARY_OPERATORS
from .builtins import BUILTIN_FUNCTIONS, ROUNDING_MODES, TYPE_PROPERTIES
from .checking import CheckerBase
from .literals import fixed_literal_to_stored, parse_integer_literal
from .result import CallInfo
from .symbols import Symbol, SymbolKind
from .types import BOOL, I64, VOID, ArrayType, BoolType, FixedType, IntType, Type, is_numeric, scalar_type_named


class ErrorType(Type):
    name = "{unknown}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ErrorType)

    def __hash__(self) -> int:
        return 0


ERROR = ErrorType()


def _spellings(*operations: str) -> frozenset[str]:
    """The binary operators that name one of `operations` (the vocabulary's table)."""
    return frozenset(op for op, operator in BINARY_OPERATORS.items() if operator.operation in operations)


# The binary operators by the operand types they take (LANGUAGE.md "Expressions").
ARITHMETIC = _spellings("add", "sub", "mul", "div", "rem")  # integer and fixed types
SHIFTS = _spellings("shl", "shr")  # integer types
BITWISE = _spellings("and", "or", "xor")  # integer types
COMPARISONS = _spellings("compare")
LOGICAL = _spellings("logic")  # Bool
_LITERAL_OPERATORS = ARITHMETIC | SHIFTS | BITWISE  # arithmetic of literals keeps a literal's freedom


def is_literalish(e: ast.Expr) -> bool:
    """A literal, or arithmetic of literals only: it takes its type from context."""
    if isinstance(e, (ast.IntLit, ast.FixedLit)):
        return True
    if isinstance(e, ast.Paren):
        return is_literalish(e.expr)
    if isinstance(e, ast.Unary):
        return e.op == "-" and is_literalish(e.operand)
    if isinstance(e, ast.Binary):
        return e.op in _LITERAL_OPERATORS and is_literalish(e.left) and is_literalish(e.right)
    return False


def type_range(t: IntType | FixedType) -> str:
    if isinstance(t, FixedType):
        return f"{t.name}"
    return f"{t.min}..{t.max}"


_UNKNOWN: Any = object()
# (checker class, node class) -> its `expr_<Node>` function, None for none
_METHODS: dict[tuple[type, type], Callable[..., Type] | None] = {}


class ExpressionChecker(CheckerBase):
    """The expression typing of `Checker`; the kernel rules (kernels.py) override its
    hooks (`check_kernel_read`, `dispatch`)."""

    # ------------------------------------------------------------------ entry point

    def expr(self, e: ast.Expr, expected: Type | None = None, *, view_ok: bool = False,
             statement: bool = False) -> Type:
        key = (type(self), type(e))
        method = _METHODS.get(key, _UNKNOWN)
        if method is _UNKNOWN:  # each checker class's method of a node class, found once
            method = _METHODS[key] = getattr(type(self), "expr_" + type(e).__name__, None)
        t = ERROR if method is None else method(self, e, expected, view_ok, statement)
        self.result.types[e] = t
        return t

    def expr_ErrorExpr(self, e: ast.ErrorExpr, expected: Type | None, view_ok: bool, statement: bool) -> Type:
        return ERROR  # already reported as a syntax error

    def expect_type(self, e: ast.Expr, expected: Type, what: str) -> Type:
        """Check `e` against a required type (a condition, an index, an argument)."""
        t = self.expr(e, expected)
        if t != expected and not isinstance(t, ErrorType):
            self.error("C3003", f"{what} must be {expected.name}, not {t.name}", e.span)
        return t

    # ------------------------------------------------------------------ names

    def lookup(self, name: str, node: ast.Node) -> Symbol | None:
        symbol, _ = self.scope.lookup(name)
        if symbol is None and self.owner is not None and name in self.entry_names:
            self.error(
                "C9002",
                f"`{name}` is a top-level variable: module-level state is not implemented; "
                "pass it as a parameter",
                node.span,
            )
            return None
        if symbol is None:
            # Once per name in a unit, as gcc does ("reported only once for each function
            # it appears in"), the other uses as related information: `k = 2;` that lost
            # its `I64` is one mistake, not one for each use of `k`.
            source = self.result.source.data
            for i, d in enumerate(self.result.diagnostics):
                if (d.code == "C2001" and source[d.span.start_byte:d.span.end_byte] == name.encode()
                        or d.code == "C5001" and d.message.startswith(f"`{name}` is not a size symbol")):
                    self.result.diagnostics[i] = replace(d, related=d.related + (Related(node.span, f"`{name}` used here too"),))
                    return None
            candidates = list(self.scope.visible_names()) + list(BUILTIN_FUNCTIONS)
            close = difflib.get_close_matches(name, candidates, n=1)
            hint = f"; did you mean `{close[0]}`?" if close else ""
            # The suggestion again as data: the editor's quick fix offers the same name.
            data = {"suggestion": close[0]} if close else {}
            self.report("C2001", Severity.ERROR, f"unknown name `{name}`{hint}", node.span, data=data)
            return None
        self.result.symbols[node] = symbol
        return symbol

    def expr_Ident(self, e: ast.Ident, expected: Type | None, view_ok: bool, statement: bool) -> Type:
        symbol = self.lookup(e.name, e)
        if symbol is None:
            return ERROR
        if symbol.kind in (SymbolKind.KERNEL, SymbolKind.FUNCTION):
            self.error("C2005", f"`{e.name}` is a {symbol.kind.value}; call it as `{e.name}(...)`", e.span)
            return ERROR
        if symbol.kind is SymbolKind.STRUCT:
            self.error("C2005", f"`{e.name}` is a type, not a value", e.span)
            return ERROR
        if isinstance(symbol.type, ArrayType) and not view_ok:
            self.error("C3008", f"`{e.name}` is an array; read an element with `{e.name}[...]`", e.span)
            return ERROR
        self.check_kernel_read(symbol, e)
        return symbol.type

    def check_kernel_read(self, symbol: Symbol, node: ast.Node) -> None:
        """Overridden by the kernel rules (out parameters are not read)."""

    # ------------------------------------------------------------------ literals

    def expr_IntLit(self, e: ast.IntLit, expected: Type | None, view_ok: bool, statement: bool) -> Type:
        try:
            value = parse_integer_literal(e.text)
        except ValueError:
            self.error("C3002", f"`{e.text}` is not a valid integer literal", e.span)
            return ERROR
        t = expected if isinstance(expected, (IntType, FixedType)) else I64
        if isinstance(t, FixedType):
            stored = value << t.n
            if not t.contains(stored):
                self.error("C3002", f"the literal {e.text} does not fit {t.name}", e.span)
                return ERROR
            self.result.values[e] = stored
            return t
        if not t.contains(value):
            hint = ""
            if t.signed and value == t.max + 1:
                hint = f"; a minus before a literal is unary minus, so write {t.name}.min for {-value}"
            self.error("C3002", f"the literal {e.text} does not fit {t.name} ({type_range(t)}){hint}", e.span)
            return ERROR
        self.result.values[e] = value
        return t

    def expr_FixedLit(self, e: ast.FixedLit, expected: Type | None, view_ok: bool, statement: bool) -> Type:
        if not isinstance(expected, FixedType):
            context = f"; this context needs {expected.name}" if expected not in (None, ERROR) else ""
            self.error(
                "C3017",
                f"the fixed-point literal {e.text} needs a fixed-point type from its context{context}",
                e.span,
            )
            return ERROR
        stored = fixed_literal_to_stored(e.text, expected)
        if stored is None:
            self.error("C3002", f"{e.text} is not exactly representable in {expected.name}", e.span)
            return ERROR
        self.result.values[e] = stored
        return expected

    def expr_BoolLit(self, e: ast.BoolLit, expected: Type | None, view_ok: bool, statement: bool) -> Type:
        self.result.values[e] = e.value
        return BOOL

    def expr_TypeProperty(self, e: ast.TypeProperty, expected: Type | None, view_ok: bool, statement: bool) -> Type:
        t = scalar_type_named(e.type.text)
        if t is None or isinstance(t, BoolType):
            self.error("C3001", f"`{e.type.text}` has no `.{e.property.text}`", e.type.span)
            return ERROR
        if e.property.text not in TYPE_PROPERTIES:
            self.error("C3007", f"`{e.type.text}.{e.property.text}`: a type has only `.min` and `.max`",
                       e.property.span)
            return ERROR
        self.result.values[e] = t.min if e.property.text == "min" else t.max
        return t

    # ------------------------------------------------------------------ operators

    def expr_Paren(self, e: ast.Paren, expected: Type | None, view_ok: bool, statement: bool) -> Type:
        return self.expr(e.expr, expected)

    def expr_Unary(self, e: ast.Unary, expected: Type | None, view_ok: bool, statement: bool) -> Type:
        if e.op == "!":
            t = self.expect_type(e.operand, BOOL, "the operand of `!`")
            return BOOL if not isinstance(t, ErrorType) else ERROR
        if e.op == "-" and isinstance(e.operand, ast.IntLit) and self.negative_literal_misfits(e, e.operand, expected):
            return ERROR
        t = self.expr(e.operand, expected)
        if isinstance(t, ErrorType):
            return ERROR
        if e.op == "-" and is_numeric(t):
            return t
        if e.op == "~" and isinstance(t, IntType):
            return t
        self.error("C3007", f"`{e.op}` is not defined for {t.name}", e.op_span)
        return ERROR

    def negative_literal_misfits(self, e: ast.Unary, literal: ast.IntLit, expected: Type | None) -> bool:
        """`-129` for an I8 is reported as written, not as "the literal 129"; `-128` is
        unary minus applied to 128, which does not fit: `I8.min` is the spelling, and the
        diagnostic's `data["replacement"]` is the quick fix that writes it."""
        try:
            value = parse_integer_literal(literal.text)
        except ValueError:
            return False  # the literal's own check says so
        if isinstance(expected, FixedType):
            return False
        t = expected if isinstance(expected, IntType) else I64
        if t.contains(value):
            return False
        written = f"-{literal.text}"
        if t.signed and value == t.max + 1:
            self.report("C3002", Severity.ERROR,
                        f"the literal {literal.text} does not fit {t.name} ({type_range(t)}): `{written}` is unary "
                        f"minus applied to it; write {t.name}.min for {-value}", e.span,
                        data={"replacement": f"{t.name}.min"})
        else:
            self.error("C3002", f"the literal {written} does not fit {t.name} ({type_range(t)})", e.span)
        return True

    def operand_pair(self, left: ast.Expr, right: ast.Expr, expected: Type | None) -> tuple[Type, Type]:
        """Type two operands that must agree; a literal side takes the other's type."""
        if is_literalish(left) and not is_literalish(right):
            rt = self.expr(right, expected)
            lt = self.expr(left, None if isinstance(rt, ErrorType) else rt)
        else:
            lt = self.expr(left, expected)
            rt = self.expr(right, None if isinstance(lt, ErrorType) else lt)
        return lt, rt

    def expr_Binary(self, e: ast.Binary, expected: Type | None, view_ok: bool, statement: bool) -> Type:
        op = e.op
        if op in LOGICAL:
            a = self.expect_type(e.left, BOOL, f"an operand of `{op}`")
            b = self.expect_type(e.right, BOOL, f"an operand of `{op}`")
            return BOOL if not (isinstance(a, ErrorType) or isinstance(b, ErrorType)) else ERROR
        if op in COMPARISONS:
            for side in (e.left, e.right):
                if isinstance(side, ast.Binary) and side.op in COMPARISONS:
                    self.error("C3015", "comparisons do not chain; write `a < b && b < c` or add parentheses",
                               side.op_span)
                    return ERROR
            numeric_expected = None
        else:
            numeric_expected = expected if isinstance(expected, (IntType, FixedType)) else None
        lt, rt = self.operand_pair(e.left, e.right, numeric_expected)
        if isinstance(lt, ErrorType) or isinstance(rt, ErrorType):
            return ERROR
        if lt != rt:
            self.error(
                "C3003",
                f"the operands of `{op}` have different types, {lt.name} and {rt.name}; "
                "convert one with `as` (there are no implicit conversions)",
                e.op_span,
            )
            return ERROR
        if op in COMPARISONS:
            if op in ("==", "!=") or is_numeric(lt):
                return BOOL
        elif op in ARITHMETIC and is_numeric(lt):
            return lt
        elif op in SHIFTS | BITWISE and isinstance(lt, IntType):
            return lt
        self.error("C3007", f"`{op}` is not defined for {lt.name}", e.op_span)
        return ERROR

    def expr_Cast(self, e: ast.Cast, expected: Type | None, view_ok: bool, statement: bool) -> Type:
        source = self.expr(e.value, None)
        target = self.resolve_type(e.type, scalar_only=True)
        if e.op == "as?":
            self.error("C9003", "the result form `as?` is not implemented; use `as` (checked) or `as%` (wrapping)",
                       e.op_span)
            return ERROR
        if isinstance(source, ErrorType) or isinstance(target, ErrorType):
            return ERROR
        if e.op == "as%":
            if not (isinstance(source, IntType) and isinstance(target, IntType)):
                self.error("C3007", f"`as%` converts between integer types, not {source.name} to {target.name}",
                           e.op_span)
                return ERROR
            return target
        if not (is_numeric(source) and is_numeric(target)):
            self.error("C3007", f"`as` converts between integer and fixed-point types, not {source.name} "
                       f"to {target.name}", e.op_span)
            return ERROR
        return target

    # ------------------------------------------------------------------ calls

    def expr_Call(self, e: ast.Call, expected: Type | None, view_ok: bool, statement: bool) -> Type:
        if isinstance(e.callee, ast.Field):
            self.error("C9004", "module-qualified calls are not implemented: modules cannot import each other yet",
                       e.callee.span)
            for arg in e.args:
                self.expr(arg, None, view_ok=True)
            return ERROR
        if not isinstance(e.callee, ast.Ident):
            self.error("C3007", "only a named function, kernel or built-in can be called", e.callee.span)
            return ERROR
        name = e.callee.name
        symbol, _ = self.scope.lookup(name)
        if symbol is None and name in BUILTIN_FUNCTIONS:
            return self.builtin_call(e, name, expected, view_ok)
        symbol = self.lookup(name, e.callee)
        if symbol is None:
            for arg in e.args:
                self.expr(arg, None, view_ok=True)
            return ERROR
        if symbol.kind is SymbolKind.KERNEL:
            return self.dispatch(e, symbol, statement)
        if symbol.kind is not SymbolKind.FUNCTION:
            self.error("C3007", f"`{name}` is a {symbol.kind.value}, not a function", e.callee.span)
            return ERROR
        return self.function_call(e, symbol, statement)

    def check_arity(self, e: ast.Call, name: str, count: int) -> bool:
        if len(e.args) != count:
            self.error("C3004", f"`{name}` takes {count} argument{'s' if count != 1 else ''}, "
                       f"{len(e.args)} given", e.span)
            for arg in e.args:
                self.expr(arg, None, view_ok=True)
            return False
        return True

    def function_call(self, e: ast.Call, symbol: Symbol, statement: bool) -> Type:
        info = self.result.functions.get(symbol.name)
        self.result.calls[e] = CallInfo("function", symbol.name, symbol)
        if info is None:
            return ERROR
        if self.guessed_header(info.node):  # a signature with a syntax error: its parameters are a guess
            for arg in e.args:
                self.expr(arg, None, view_ok=True)
            return ERROR
        if not self.check_arity(e, symbol.name, len(info.params)):
            return ERROR
        for arg, param in zip(e.args, info.params):
            self.expect_type(arg, param.type, f"argument `{param.name}` of `{symbol.name}`")
        if info.return_type == VOID and not statement:
            self.error("C3016", f"`{symbol.name}` returns no value (`void`)", e.span)
            return ERROR
        self.note_call(e)
        return info.return_type

    def note_call(self, e: ast.Call) -> None:
        """Overridden by the kernel rules (calls in kernel bodies)."""

    def builtin_call(self, e: ast.Call, name: str, expected: Type | None, view_ok: bool) -> Type:
        if name == "div_round":
            if not self.check_arity(e, name, 3):
                return ERROR
            mode = e.args[2]
            if not isinstance(mode, ast.Ident) or mode.name not in ROUNDING_MODES:
                self.error("C3012", f"the rounding mode of `div_round` is one of {', '.join(ROUNDING_MODES)}",
                           mode.span)
                return ERROR
            self.result.calls[e] = CallInfo("builtin", name, mode=mode.name)
            integer = expected if isinstance(expected, IntType) else None
            a, b = self.operand_pair(e.args[0], e.args[1], integer)
            return self.same_type_result(e, name, a, b, integer_only=True)
        if name in ("min", "max"):
            if not self.check_arity(e, name, 2):
                return ERROR
            self.result.calls[e] = CallInfo("builtin", name)
            numeric = expected if isinstance(expected, (IntType, FixedType)) else None
            a, b = self.operand_pair(e.args[0], e.args[1], numeric)
            return self.same_type_result(e, name, a, b)
        if name == "abs":
            if not self.check_arity(e, name, 1):
                return ERROR
            self.result.calls[e] = CallInfo("builtin", name)
            t = self.expr(e.args[0], expected if isinstance(expected, (IntType, FixedType)) else None)
            if isinstance(t, ErrorType):
                return ERROR
            if not is_numeric(t):
                self.error("C3007", f"`abs` is not defined for {t.name}", e.span)
                return ERROR
            return t
        return self.view_builtin(e, name, view_ok)

    def same_type_result(self, e: ast.Call, name: str, a: Type, b: Type, integer_only: bool = False) -> Type:
        if isinstance(a, ErrorType) or isinstance(b, ErrorType):
            return ERROR
        if a != b:
            self.error("C3003", f"the operands of `{name}` have different types, {a.name} and {b.name}", e.span)
            return ERROR
        if not (isinstance(a, IntType) if integer_only else is_numeric(a)):
            kind = "integer" if integer_only else "integer or fixed-point"
            self.error("C3007", f"`{name}` takes {kind} operands, not {a.name}", e.span)
            return ERROR
        return a

    def view_builtin(self, e: ast.Call, name: str, view_ok: bool) -> Type:
        arity = 2 if name == "reverse" else 1
        if not self.check_arity(e, name, arity):
            return ERROR
        self.result.calls[e] = CallInfo("builtin", name)
        if not view_ok:
            self.error("C9006", f"`{name}(...)` makes a view; views are dispatch arguments or indexed "
                       "values, not stored or computed with", e.span)
            return ERROR
        t = self.expr(e.args[0], None, view_ok=True)
        if isinstance(t, ErrorType):
            return ERROR
        if not isinstance(t, ArrayType):
            self.error("C3007", f"`{name}` takes an array or a view, not {t.name}", e.args[0].span)
            return ERROR
        if name == "transpose":
            if t.rank != 2:
                self.error("C3007", f"`transpose` takes a view of rank 2, not rank {t.rank}", e.args[0].span)
                return ERROR
            return t
        dim = e.args[1]
        if not isinstance(dim, ast.IntLit) or not 0 <= parse_integer_literal(dim.text) < t.rank:
            self.error("C3007", f"the dimension of `reverse` is an integer literal from 0 to {t.rank - 1}",
                       dim.span)
            return ERROR
        self.result.values[dim] = parse_integer_literal(dim.text)
        self.result.types[dim] = I64
        return t

    def dispatch(self, e: ast.Call, symbol: Symbol, statement: bool) -> Type:
        """Overridden by the kernel rules."""
        raise NotImplementedError

    # ------------------------------------------------------------------ indexing

    def expr_Index(self, e: ast.Index, expected: Type | None, view_ok: bool, statement: bool) -> Type:
        base = self.expr(e.value, None, view_ok=True)
        for index in e.indices:
            if isinstance(index, ast.Slice):
                self.check_slice(index)
            else:
                self.expect_type(index, I64, "an index")
        if isinstance(base, ErrorType):
            return ERROR
        if not isinstance(base, ArrayType):
            self.error("C3008", f"only arrays and views can be indexed, not {base.name}", e.bracket_span)
            return ERROR
        if len(e.indices) > base.rank:
            self.error(
                "C3008",
                f"this array has {base.rank} dimension{'s' if base.rank != 1 else ''}: give at most "
                f"{base.rank} ind{'ices' if base.rank != 1 else 'ex'}, not {len(e.indices)}",
                e.bracket_span,
            )
            return ERROR
        # Dimensions left out are taken whole: `p[0]` of a rank-3 `p` is a plane.
        kept = sum(isinstance(i, ast.Slice) for i in e.indices) + base.rank - len(e.indices)
        if kept == 0:
            return base.element
        if not view_ok:
            self.error("C9006", "a slice makes a view; views are dispatch arguments or indexed values, "
                       "not stored in variables", e.span)
            return ERROR
        return ArrayType(base.element, kept)

    def check_slice(self, s: ast.Slice) -> None:
        for part in (s.start, s.end):
            if part is not None:
                self.expect_type(part, I64, "a slice bound")
        if s.step is not None:
            if not isinstance(s.step, ast.IntLit) or parse_integer_literal(s.step.text) < 1:
                self.error("C3007", "the step of a slice (`by s`) is a positive integer literal", s.step.span)
            else:
                self.result.values[s.step] = parse_integer_literal(s.step.text)
                self.result.types[s.step] = I64

    def expr_Field(self, e: ast.Field, expected: Type | None, view_ok: bool, statement: bool) -> Type:
        self.expr(e.value, None, view_ok=True)
        self.error("C9001", f"`.{e.field.text}`: structs and modules are not implemented", e.field.span)
        return ERROR

    def expr_ArrayLit(self, e: ast.ArrayLit, expected: Type | None, view_ok: bool, statement: bool) -> Type:
        self.error("C3011", "an array literal only initializes an array declaration (`I64[2] a = [1, 2];`)",
                   e.span)
        return ERROR
