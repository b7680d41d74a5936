"""The text form of the IR (`cint emit-ir FILE`): deterministic and meant to be read.

Layout: a `module` line, then every kernel (source order), every function (source
order) and the entry, each with its signature and its body, one statement a line,
indented two spaces per nesting level. Expressions are inline: counted operations in
prefix form, the rest (comparisons, `&& || !`, `& | ^ ~`) in infix form.

  %name          a slot; `%name.N` (N the slot number) only where two slots of one
                 unit share a name
  5  1000:I32    a constant: I64 bare, other types suffixed
  %v: I64        a function parameter, typed where its body reads it (the IR keeps
                 no parameter types for functions)
  OP(...) @L:C #S  a counted operation: its operation identifier, its position and its
                 step ordinal(s): `#22`, `#{3,4,5,26}` (one per path), `#?` (depends on
                 the run: in a loop, after a call, outside a kernel), `#{}` (unreachable),
                 `#-` (evaluated at a dispatch's entry checks, in no work-item)
  charge @L:C    one unit of fuel before a loop iteration
  call.charge f(...) @L:C     a call, which charges one unit of fuel
  dispatch.charge k(...) @L:C a dispatch, which charges one unit per work-item

Each kernel ends with its steps table: every counted operation of its body in
evaluation order, `#steps  line:col  operation`, so that the step ordinals of a
work-item (SPEC-02P.1 5.4, the table of 11.2) read straight off the output.
"""

from __future__ import annotations

from collections import defaultdict

from ..analysis.types import I64, Type
from ..syntax.source import Span
from ..vocabulary.values import format_value
from . import nodes as ir
from .walk import walk

INDENT = "  "


def format_steps(steps: tuple[int, ...] | None) -> str:
    if steps is None:
        return "#?"
    if len(steps) == 1:
        return f"#{steps[0]}"
    return "#{" + ",".join(str(s) for s in steps) + "}"


def _at(span: Span) -> str:
    return f"@{span.line}:{span.column}"


def _string(text: str) -> str:
    out = text.replace("\\", "\\\\").replace('"', '\\"').replace("{", "\\{").replace("}", "\\}")
    return out.replace("\n", "\\n").replace("\t", "\\t")


def _chain(e: ir.Logic | ir.Bitwise) -> list[ir.Expr]:
    """The operands of `a && b && c` (left-nested) as one list, so it prints unnested."""
    first = e.args[0]
    if type(first) is type(e) and first.op == e.op and len(first.args) == 2:
        return _chain(first) + e.args[1:]
    return list(e.args)


class _UnitPrinter:
    """Prints one unit: owns its slot names and its output lines."""

    def __init__(self, named_slots: list[tuple[int, str]], body: list[ir.Stmt], in_kernel: bool) -> None:
        self.in_kernel = in_kernel
        slots_of: dict[str, set[int]] = defaultdict(set)
        self.types: dict[int, Type] = {}
        for slot, name in named_slots:
            slots_of[name].add(slot)
        for statement in body:
            for node in walk(statement):
                named_slot, named = getattr(node, "slot", None), getattr(node, "name", None)
                if isinstance(named_slot, int) and isinstance(named, str):
                    slots_of[named].add(named_slot)
                if isinstance(node, ir.Var):
                    self.types.setdefault(node.slot, node.type)
        self.ambiguous = {name for name, slots in slots_of.items() if len(slots) > 1}
        self.lines: list[str] = []
        self.header = False  # printing over/where: counted ops belong to no work-item
        self.targets: dict[int, tuple[str, ir.Reduction]] = {}  # a kernel's reductions by target

    # ---- names and operations

    def slot(self, slot: int, name: str) -> str:
        return f"%{name}.{slot}" if name in self.ambiguous else f"%{name}"

    def counted(self, node: ir.Counted, args: str) -> str:
        steps = "#-" if self.header else format_steps(node.steps) if self.in_kernel else "#?"
        return f"{node.op_id}({args}) {_at(node.span)} {steps}"

    # ---- expressions

    def exprs(self, items: list[ir.Expr]) -> str:
        return ", ".join(self.expr(e) for e in items)

    def expr(self, e: ir.Expr) -> str:
        if isinstance(e, ir.Const):
            text = format_value(e.type, e.value)
            return text if e.type == I64 or isinstance(e.value, bool) else f"{text}:{e.type}"
        if isinstance(e, ir.Var):
            return self.slot(e.slot, e.name)
        if isinstance(e, ir.Load):
            return self.counted(e, f"{self.view(e.array)}[{self.exprs(e.indices)}]")
        if isinstance(e, ir.Arith):
            return self.counted(e, self.exprs(e.args))
        if isinstance(e, ir.Convert):
            return self.counted(e, self.expr(e.value))
        if isinstance(e, ir.DivRound):
            return self.counted(e, f"{self.expr(e.left)}, {self.expr(e.right)}")
        if isinstance(e, (ir.Logic, ir.Bitwise)):
            if len(e.args) == 1:
                return f"{e.op}{self.expr(e.args[0])}"
            return "(" + f" {e.op} ".join(self.expr(a) for a in _chain(e)) + ")"
        if isinstance(e, ir.Compare):
            return f"({self.expr(e.left)} {e.op} {self.expr(e.right)})"
        if isinstance(e, ir.Call):
            return f"call.charge {e.function}({self.exprs(e.args)}) {_at(e.span)}"
        raise TypeError(f"no text for {type(e).__name__}")

    def view(self, v: ir.ViewExpr) -> str:
        if isinstance(v, ir.ArrayVar):
            return self.slot(v.slot, v.name)
        if isinstance(v, ir.Select):
            specs = []
            for spec in v.specs:
                if isinstance(spec, ir.SliceSpec):
                    lo = self.expr(spec.start) if spec.start is not None else ""
                    hi = self.expr(spec.end) if spec.end is not None else ""
                    specs.append(f"{lo}..{hi}" + (f" by {spec.step}" if spec.step != 1 else ""))
                else:
                    specs.append(self.expr(spec))
            return f"{self.view(v.base)}[{', '.join(specs)}]"
        if isinstance(v, ir.Reverse):
            return f"reverse({self.view(v.base)}, {v.dimension})"
        if isinstance(v, ir.Transpose):
            return f"transpose({self.view(v.base)})"
        raise TypeError(f"no text for {type(v).__name__}")

    # ---- statements

    def emit(self, depth: int, text: str) -> None:
        self.lines.append(INDENT * depth + text)

    def block(self, statements: list[ir.Stmt], depth: int) -> None:
        for s in statements:
            self.statement(s, depth)

    def statement(self, s: ir.Stmt, depth: int) -> None:
        if isinstance(s, ir.Assign):
            self.emit(depth, f"{self.slot(s.slot, s.name)} = {self.expr(s.value)}")
        elif isinstance(s, ir.DeclareArray):
            init = f" = [{self.exprs(s.init)}]" if s.init is not None else ""
            self.emit(depth, f"{self.slot(s.slot, s.name)} = array {s.element}[{self.exprs(s.extents)}]{init}")
        elif isinstance(s, ir.Store):
            place = self.counted(s.place, f"{self.view(s.array)}[{self.exprs(s.indices)}]")
            self.emit(depth, f"{place} = {self.expr(s.value)}")
        elif isinstance(s, ir.Eval):
            self.emit(depth, self.expr(s.value))
        elif isinstance(s, ir.Print):
            parts = "".join(_string(p) if isinstance(p, str) else "{" + self.expr(p) + "}" for p in s.parts)
            self.emit(depth, f'print "{parts}"')
        elif isinstance(s, ir.If):
            self.emit(depth, f"if {self.expr(s.condition)} {{")
            self.block(s.then, depth + 1)
            if s.otherwise:
                self.emit(depth, "} else {")
                self.block(s.otherwise, depth + 1)
            self.emit(depth, "}")
        elif isinstance(s, ir.Charge):
            self.emit(depth, f"charge {_at(s.span)}")
        elif isinstance(s, ir.For):
            self.emit(depth, f"for {self.slot(s.slot, s.name)} in {self.expr(s.start)}..{self.expr(s.end)} {{")
            self.block(s.body, depth + 1)
            self.emit(depth, "}")
        elif isinstance(s, ir.While):
            self.emit(depth, f"while {self.expr(s.condition)} {{")
            self.block(s.body, depth + 1)
            self.emit(depth, "}")
        elif isinstance(s, ir.Switch):
            self.emit(depth, f"switch {self.expr(s.value)} {{")
            for labels, body in s.cases:
                self.emit(depth, f"case {', '.join(str(k) for k in labels)}:")
                self.block(body, depth + 1)
            if s.default is not None:
                self.emit(depth, "default:")
                self.block(s.default, depth + 1)
            self.emit(depth, "}")
        elif isinstance(s, ir.Break):
            self.emit(depth, "break")
        elif isinstance(s, ir.Continue):
            self.emit(depth, "continue")
        elif isinstance(s, ir.Return):
            self.emit(depth, "return" + (f" {self.expr(s.value)}" if s.value is not None else ""))
        elif isinstance(s, ir.Assert):
            self.emit(depth, f"assert {self.expr(s.condition)} {_at(s.span)}")
        elif isinstance(s, ir.Reduce):
            name, reduction = self.targets[s.target]
            args = self.expr(s.contribution)
            if s.kind == "fold_checked":  # its initial value is a constant of the target type
                args = f"{format_value(reduction.target, reduction.init)}, {args}"
            self.emit(depth, f"reduce {name} = {self.counted(s.op, args)}")
        elif isinstance(s, ir.Dispatch):
            self.emit(depth, f"dispatch.charge {s.kernel}({', '.join(self.argument(a) for a in s.args)}) "
                             f"{_at(s.span)}")
        else:
            raise TypeError(f"no text for {type(s).__name__}")

    def argument(self, a: ir.DispatchArg) -> str:
        if isinstance(a, ir.ArrayArg):
            return self.view(a.view)
        if isinstance(a, ir.OutArg):
            return "out " + self.slot(a.slot, a.name)
        assert isinstance(a, ir.ScalarArg)
        return self.expr(a.value)


def _kernel(k: ir.Kernel) -> list[str]:
    named = [(slot, name) for slot, name in zip(k.size_slots, k.sizes)]
    named += [(p.slot, p.name) for p in k.params] + [(slot, name) for name, slot, _ in k.over]
    p = _UnitPrinter(named, k.body, in_kernel=True)
    sizes = [p.slot(slot, name) for slot, name in zip(k.size_slots, k.sizes)]

    def extent(x: ir.Extent) -> str:
        if x.size is None:
            return str(x.offset)
        sign = " + " if x.offset > 0 else " - "
        return sizes[x.size] + (f"{sign}{abs(x.offset)}" if x.offset else "")

    params = []
    for param in k.params:
        shape = f"[{', '.join(extent(x) for x in param.extents)}]" if param.extents is not None else ""
        params.append(f"{param.mode} {param.type}{shape} {p.slot(param.slot, param.name)}")
    p.emit(0, f"kernel {k.qualified}[{', '.join(sizes)}]({', '.join(params)}) {_at(k.span)}")
    p.header = True
    p.emit(1, "over [" + ", ".join(f"{p.slot(slot, name)}: {p.expr(e)}" for name, slot, e in k.over) + "]")
    if k.where:
        p.emit(1, "where " + ", ".join(f"{p.expr(c.left)} {c.op} {p.expr(c.right)}" for c in k.where))
    p.header = False
    for r in k.reductions:
        param = k.params[r.param]
        p.targets[r.param] = (p.slot(param.slot, param.name), r)
        init = f" from {format_value(r.target, r.init)}" if r.kind == "fold_checked" else ""
        p.emit(1, f"reduce {p.targets[r.param][0]}: {r.kind} of {r.contribution} into {r.target}{init} "
                  f"({r.op.op_id} {_at(r.op.span)})")
    p.emit(0, "{")
    p.block(k.body, 1)
    p.emit(0, "}")
    counted = sorted(k.counted, key=lambda c: c.index)
    p.emit(0, f"steps of {k.qualified}: {len(counted)} counted operations, in evaluation order")
    width = max([len(format_steps(c.steps)) for c in counted] + [5])
    for c in counted:
        p.emit(1, f"{format_steps(c.steps):<{width}}  {str(c.span):<7}  {c.op_id}")
    return p.lines


def _function(f: ir.Function, module: str | None = None) -> list[str]:
    p = _UnitPrinter(list(zip(f.params, f.param_names)), f.body, in_kernel=False)
    params = [f"{p.slot(slot, name)}: {t}" for slot, name, t in zip(f.params, f.param_names, f.param_types)]
    if module is not None:
        p.emit(0, f"entry {module} {{")
    else:
        p.emit(0, f"function {f.qualified}({', '.join(params)}) -> {f.return_type} {_at(f.span)} {{")
    p.block(f.body, 1)
    p.emit(0, "}")
    return p.lines


def format_program(program: ir.Program) -> str:
    """The text of `program`: the same program gives the same text, LF line endings."""
    units = [_kernel(k) for k in program.kernels.values()]
    units += [_function(f) for f in program.functions.values()]
    units.append(_function(program.entry, program.module))
    lines = [f"module {program.module}"]
    for unit in units:
        lines.append("")
        lines.extend(unit)
    return "\n".join(lines) + "\n"


__all__ = ["format_program", "format_steps"]
