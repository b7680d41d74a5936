"""Uniform and varying values of a kernel body (SPEC-02P.1 8.2), by inference.

Size symbols and scalar in parameters are uniform; the over variables are varying. An
expression is varying when an operand is, or when it reads an array element at a varying
index (or of a local array that is varying). A local variable is varying when a varying
value is assigned to it, or when it is assigned under varying control flow: inside an
`if`, loop or `switch` whose condition is varying, after a `break`/`continue` taken
under varying control (for the rest of that loop), or after a `return` taken under
varying control (for the rest of the body). The walk repeats until nothing changes.

The distinction never changes meaning (8.2 para 2); hovers and semantic tokens show it,
and a GPU code generator may use it.
"""

from __future__ import annotations

from ..analysis.result import CheckedModule, KernelInfo
from ..analysis.symbols import Symbol, SymbolKind
from ..syntax import ast

_ASSIGNABLE = (SymbolKind.LOCAL, SymbolKind.LOOP)


class Uniformity:
    def __init__(self, checked: CheckedModule, info: KernelInfo) -> None:
        self.checked = checked
        self.info = info
        self.varying_symbols: set[Symbol] = set(info.over)
        self._changed = False
        for _ in range(64):  # each round can only add symbols; the bound is a guard
            self._changed = False
            self.block(info.node.body.statements, False)
            if not self._changed:
                break

    # ---- queries

    def symbol_varying(self, symbol: Symbol) -> bool:
        return symbol in self.varying_symbols

    def varying(self, e: ast.Node | None) -> bool:
        """Whether an expression of the body is varying."""
        if e is None:
            return False
        if isinstance(e, ast.Ident):
            symbol = self.checked.symbols.get(e)
            return symbol is not None and symbol in self.varying_symbols
        if isinstance(e, ast.Name):
            symbol = self.checked.symbols.get(e)
            return symbol is not None and symbol in self.varying_symbols
        if isinstance(e, (ast.IntLit, ast.FixedLit, ast.BoolLit, ast.TypeProperty, ast.ErrorExpr)):
            return False
        if isinstance(e, ast.Paren):
            return self.varying(e.expr)
        if isinstance(e, ast.Unary):
            return self.varying(e.operand)
        if isinstance(e, ast.Binary):
            return self.varying(e.left) or self.varying(e.right)
        if isinstance(e, ast.Cast):
            return self.varying(e.value)
        if isinstance(e, ast.Index):
            return self.varying(e.value) or any(self.varying(i) for i in e.indices)
        if isinstance(e, ast.Slice):
            return any(self.varying(p) for p in (e.start, e.end, e.step))
        if isinstance(e, ast.Call):
            info = self.checked.calls.get(e)
            args = e.args[:2] if info is not None and info.name == "div_round" else e.args
            return any(self.varying(a) for a in args)
        if isinstance(e, ast.ArrayLit):
            return any(self.varying(x) for x in e.elements)
        if isinstance(e, ast.Field):
            return self.varying(e.value)
        return False

    # ---- the inference

    def mark(self, node: ast.Node, varying: bool) -> None:
        symbol = self.checked.symbols.get(node)
        if varying and symbol is not None and symbol.kind in _ASSIGNABLE and symbol not in self.varying_symbols:
            self.varying_symbols.add(symbol)
            self._changed = True

    def block(self, statements: list[ast.Stmt], control: bool) -> str | None:
        """Walk statements under `control` (varying control flow). Returns "return" or
        "loop" when a return, or a break/continue, may be taken under varying control."""
        exit_kind: str | None = None
        for s in statements:
            found = self.statement(s, control)
            if found is not None:
                control = True  # whether the rest runs depends on the work-item
                if exit_kind != "return":
                    exit_kind = found
        return exit_kind

    def statement(self, s: ast.Stmt, control: bool) -> str | None:
        if isinstance(s, ast.Block):
            return self.block(s.statements, control)
        if isinstance(s, ast.VarDecl):
            values = [s.value] if s.value is not None else []
            if isinstance(s.type, ast.ArrayTypeRef):
                values += s.type.extents
            self.mark(s.name, control or any(self.varying(v) for v in values))
            return None
        if isinstance(s, ast.Assign):
            target = s.target
            value = self.varying(s.value)
            if isinstance(target, ast.Ident):
                self.mark(target, control or value)
            elif isinstance(target, ast.Index) and isinstance(target.value, ast.Ident):
                self.mark(target.value, control or value or any(self.varying(i) for i in target.indices))
            return None
        if isinstance(s, ast.If):
            inner = control or self.varying(s.condition)
            found = self.block(s.then.statements, inner)
            if s.otherwise is not None:
                other = self.statement(s.otherwise, inner)
                found = "return" if "return" in (found, other) else (found or other)
            return found
        if isinstance(s, ast.For):
            inner = control or self.varying(s.start) or self.varying(s.end)
            return self.loop(s.body.statements, inner, s.variable)
        if isinstance(s, ast.While):
            return self.loop(s.body.statements, control or self.varying(s.condition), None)
        if isinstance(s, ast.Switch):
            inner = control or self.varying(s.value)
            found = None
            for clause in s.clauses:
                if self.block(clause.body, inner) == "return":
                    found = "return"
            return found  # a `break` leaves the switch, not a loop around it
        if isinstance(s, ast.Return):
            return "return" if control else None
        if isinstance(s, (ast.Break, ast.Continue)):
            return "loop" if control else None
        return None

    def loop(self, body: list[ast.Stmt], control: bool, variable: ast.Name | None) -> str | None:
        if variable is not None:
            self.mark(variable, control)
        found = self.block(body, control)
        if found is not None and not control:
            # An exit under varying control: the trip count, and so every iteration
            # after the first, depends on the work-item.
            if variable is not None:
                self.mark(variable, True)
            found = self.block(body, True) or found
        return "return" if found == "return" else None


def uniformity(checked: CheckedModule, info: KernelInfo) -> Uniformity:
    return Uniformity(checked, info)
