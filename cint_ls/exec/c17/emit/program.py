"""A whole program as one C translation unit (see ../README.md for its layout).

Deterministic [BACK-02]: everything is emitted in the IR's order (functions and kernels
in declaration order, spans numbered at first use), with LF line endings and no time
stamp or path.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from ....analysis.types import I64, Type, VoidType
from ....ir import nodes as ir
from ....ir.walk import walk
from ....syntax.source import Span
from .ctypes import EmitError, c_string, c_type, is_small
from .kernel import KernelEmitter
from .ranges import Ranges
from .unit import COUNT, FAST, FULL, ArraySlot, SlotTypes, UnitEmitter


def _calls(statements: list[ir.Stmt]) -> Iterator[ir.Call | ir.Dispatch]:
    for statement in statements:
        for node in walk(statement):
            if isinstance(node, ir.Call):
                yield node
            elif isinstance(node, ir.Dispatch):
                yield node


class ProgramEmitter:
    def __init__(self, program: ir.Program, also: tuple[str, ...] = ()) -> None:
        self.program = program
        self.also = tuple(also)  # kernels emitted even when the entry does not dispatch them
        self.spans: dict[tuple[int, ...], int] = {}
        self.param_types = self._param_types()
        self.reachable, self.counting = self._reachable()

    # ------------------------------------------------------------------ shared tables

    def span(self, s: Span | None) -> int:
        if s is None:
            return -1
        key = (s.start_byte, s.end_byte, s.line, s.column, s.end_line, s.end_column)
        if key not in self.spans:
            self.spans[key] = len(self.spans)
        return self.spans[key]

    def function(self, name: str) -> ir.Function:
        return self.program.functions[name]

    # C names carry the length of the cint name (`ck5_a_run` for kernel `a_run`), so that
    # the names derived from them (`ck1_a_run` for kernel `a`'s run function) cannot
    # collide: the encoding is injective (issue 13 item 4).
    def function_c_name(self, name: str, counting: bool = False) -> str:
        return f"{'cfc' if counting else 'cf'}{len(name)}_{name}"

    def kernel_c_name(self, kernel: ir.Kernel) -> str:
        return f"ck{len(kernel.name)}_{kernel.name}"

    # ------------------------------------------------------------------ analysis of the IR

    def _param_types(self) -> dict[str, list[Type | None]]:
        """Each function's parameter types (the IR keeps them)."""
        return {name: list(function.param_types) for name, function in self.program.functions.items()}

    def _reachable(self) -> tuple[list[str], list[str]]:
        """Functions reachable from the entry, and those reachable from a kernel body
        (which need a counting variant), each in declaration order."""

        def close(start: list[ir.Stmt]) -> set[str]:
            seen: set[str] = set()
            pending = [start]
            while pending:
                body = pending.pop()
                for node in _calls(body):
                    if isinstance(node, ir.Call) and node.function not in seen:
                        seen.add(node.function)
                        pending.append(self.program.functions[node.function].body)
                    elif isinstance(node, ir.Dispatch):
                        kernel = self.program.kernels[node.kernel]
                        key = "kernel " + kernel.name
                        if key not in seen:
                            seen.add(key)
                            pending.append(kernel.body)
            return seen

        from_entry = close(self.program.entry.body)
        for name in self.also:  # as if the entry dispatched it
            from_entry |= {"kernel " + name} | close(self.program.kernels[name].body)
        from_kernels: set[str] = set()
        for kernel in self.program.kernels.values():
            if "kernel " + kernel.name in from_entry:
                from_kernels |= close(kernel.body)
        order = list(self.program.functions)
        return [n for n in order if n in from_entry], [n for n in order if n in from_kernels]

    def slot_types(self, body: list[ir.Stmt], known: Mapping[int, Type | ArraySlot]) -> SlotTypes:
        types: SlotTypes = dict(known)
        for statement in body:
            for node in walk(statement):
                if isinstance(node, ir.Assign):
                    types.setdefault(node.slot, node.value.type)
                elif isinstance(node, ir.Var):
                    types.setdefault(node.slot, node.type)
                elif isinstance(node, ir.For):
                    types.setdefault(node.slot, I64)
                elif isinstance(node, ir.DeclareArray):
                    types.setdefault(node.slot, ArraySlot(node.element))
                elif isinstance(node, ir.Dispatch):
                    kernel = self.program.kernels[node.kernel]
                    for arg, param in zip(node.args, kernel.params):
                        if isinstance(arg, ir.OutArg):
                            types.setdefault(arg.slot, param.type)
        return types

    # ------------------------------------------------------------------ units

    def declare_locals(self, u: UnitEmitter, types: SlotTypes, skip: set[int]) -> list[str]:
        lines = []
        for slot in sorted(types):
            if slot in skip:
                continue
            t = types[slot]
            name = u.slot_names[slot]
            lines.append(_declaration(name, "cint_view" if isinstance(t, ArraySlot) else c_type(t)))
        for name, ct in u.temps:
            lines.append(_declaration(name, ct))
        return lines

    @staticmethod
    def declared_names(u: UnitEmitter, types: SlotTypes, skip: set[int]) -> list[str]:
        return [u.slot_names[s] for s in sorted(types) if s not in skip] + [n for n, _ in u.temps]

    @staticmethod
    def zero_views(u: UnitEmitter, types: SlotTypes) -> list[str]:
        names = [u.slot_names[s] for s in sorted(types) if isinstance(types[s], ArraySlot)]
        names += [n for n, ct in u.temps if ct == "cint_view"]
        return [f"    memset(&{n}, 0, sizeof {n});" for n in names]

    def names(self, unit: ir.Function | ir.Kernel, types: SlotTypes) -> dict[int, str]:
        names = {}
        labels = _slot_labels(unit)
        for slot in types:
            label = labels.get(slot)
            names[slot] = f"s{slot}_{label}" if label else f"s{slot}"
        return names

    def emit_function(self, function: ir.Function, counting: bool, fast: bool = False, name: str | None = None) -> str:
        """A function in `full` (or `count`) mode; `fast` (for tests of the fast path
        only) returns 1 on a fault without a record."""
        params = self.param_types[function.name]
        known = {slot: (t if t is not None else I64) for slot, t in zip(function.params, params)}
        types = self.slot_types(function.body, known)
        u = UnitEmitter(self, function.name, FAST if fast else COUNT if counting else FULL, types)
        u.ranges = Ranges(function.body)
        u.slot_names = self.names(function, types)
        void = isinstance(function.return_type, VoidType)
        u.ret_type = None if void else function.return_type
        u.block(function.body)
        signature = ["cint_ctx *ctx"] + ([] if void else [f"{c_type(function.return_type)} *ret"])
        signature += [f"{c_type(known[slot])} {u.slot_names[slot]}" for slot in function.params]
        name = name or self.function_c_name(function.name, counting)
        arrays = [u.slot_names[s] for s in sorted(types) if isinstance(types[s], ArraySlot)]
        head = [f"static int {name}({', '.join(signature)}) {{", "    int rc = 1;", "    int crc = 0;"]
        head += ["    " + d for d in self.declare_locals(u, types, set(function.params))]
        head += ["    (void)ctx;", "    (void)crc;"] + ([] if void else ["    (void)ret;"])
        head += [f"    (void){n};" for n in self.declared_names(u, types, set())]
        tail = ["    rc = 0;"]
        if "L_fault" in u.used:
            tail += ["    goto L_out;", "L_fault:", "    rc = 1;"]
            u.used.add("L_out")
        if "L_out" in u.used:
            tail.append("L_out:")
        tail += [f"    cint_array_free(&{a});" for a in arrays] + ["    return rc;", "}"]
        return "\n".join(head + self.zero_views(u, types) + u.lines + tail) + "\n"

    def standalone_function(self, name: str, params: list[Type], body: list[ir.Stmt], return_type: Type,
                            mode: str = FULL) -> str:
        """`static int NAME(cint_ctx *ctx, [R *ret,] P0 s0, ...)` running `body` over
        parameters in slots 0, 1, ... (the differential test of the run-time emits each
        operation this way, so that it tests exactly the C that programs use)."""
        span = Span(0, 0, 1, 1, 1, 1)
        function = ir.Function(name, f"test.{name}", list(range(len(params))), [f"p{k}" for k in range(len(params))],
                               list(params), return_type, body, len(params), span)
        self.param_types[name] = list(params)
        return self.emit_function(function, mode == COUNT, mode == FAST, name)

    def emit_entry(self) -> str:
        entry = self.program.entry
        types = self.slot_types(entry.body, {})
        u = UnitEmitter(self, "<entry>", FULL, types)
        u.ranges = Ranges(entry.body)
        u.slot_names = self.names(entry, types)
        u.block(entry.body)
        arrays = [u.slot_names[s] for s in sorted(types) if isinstance(types[s], ArraySlot)]
        head = ["static int cint_entry(cint_ctx *ctx) {", "    int rc = 1;", "    int crc = 0;"]
        head += ["    " + d for d in self.declare_locals(u, types, set())]
        head += ["    (void)ctx;", "    (void)crc;"] + [f"    (void){n};" for n in self.declared_names(u, types, set())]
        tail = ["    rc = 0;"]
        if "L_out" in u.used:
            tail.append("L_out:")
        tail += [f"    cint_array_free(&{a});" for a in arrays] + ["    return rc;", "}"]
        return "\n".join(head + self.zero_views(u, types) + u.lines + tail) + "\n"

    # ------------------------------------------------------------------ the program

    def emit(self) -> str:
        program = self.program
        kernels = [k for k in program.kernels.values()
                   if k.name in self.also
                   or any(isinstance(n, ir.Dispatch) and n.kernel == k.name
                          for unit in [program.entry, *(program.functions[f] for f in self.reachable)]
                          for s in unit.body for n in walk(s))]
        prototypes = []
        for name in self.reachable:
            prototypes.append(self._prototype(program.functions[name], False))
        for name in self.counting:
            prototypes.append(self._prototype(program.functions[name], True))
        emitters = [KernelEmitter(self, k) for k in kernels]
        for k in emitters:
            prototypes += k.prototypes()
        tables = [k.tables() for k in emitters]
        sections = []
        for k in emitters:
            sections += k.functions()
        for name in self.reachable:
            sections.append(f"/* function {program.functions[name].qualified} */\n")
            sections.append(self.emit_function(program.functions[name], False))
        for name in self.counting:
            sections.append(f"/* function {program.functions[name].qualified}, counting steps (in kernels) */\n")
            sections.append(self.emit_function(program.functions[name], True))
        sections.append(f"/* {program.entry.qualified} */\n")
        sections.append(self.emit_entry())
        spans = sorted(self.spans.items(), key=lambda item: item[1])
        # Every kernel's descriptor, for gpu-cuda's description of a fault (describe.py).
        kernel_table = [f"static const cint_kernel *const cint_kernels[] = {{"
                        f"{', '.join('&' + k.name for k in emitters)}}};", ""] if emitters else []
        span_rows = [f"    {{{', '.join(str(x) for x in key)}}}," for key, _ in spans] or ["    {0, 0, 0, 0, 0, 0},"]
        out = [
            f"/* cpu-c17: the C of module {program.module}, generated by cint-ls. Do not edit. */",
            '#include "cint_rt.h"',
            "",
            "static const cint_span cint_spans[] = {",
            *span_rows,
            "};",
            "",
            *prototypes,
            "",
            *tables,
            *sections,
            *kernel_table,
            f"static const cint_program cint_the_program = {{CINT_ABI_VERSION, {c_string(program.module)}, "
            f"{len(spans)}, cint_spans, cint_entry, {len(emitters)}, {'cint_kernels' if emitters else 'NULL'}}};",
            "",
            "const cint_program *cint_program_info(void) { return &cint_the_program; }",
        ]
        return "\n".join(out) + "\n"

    def _prototype(self, function: ir.Function, counting: bool) -> str:
        void = isinstance(function.return_type, VoidType)
        params = self.param_types[function.name]
        signature = ["cint_ctx *ctx"] + ([] if void else [f"{c_type(function.return_type)} *ret"])
        signature += [c_type(t if t is not None else I64) for t in params]
        return f"static int {self.function_c_name(function.name, counting)}({', '.join(signature)});"


def _declaration(name: str, ct: str) -> str:
    if ct == "cint_view":
        return f"cint_view {name};"
    if ct == "bool":
        return f"bool {name} = false;"
    if ct.startswith("cint_w"):
        return f"{ct} {name} = {{{{0}}}};"
    return f"{ct} {name} = 0;"


def _slot_labels(unit: ir.Function | ir.Kernel) -> dict[int, str]:
    """Slot -> the variable's name, for readable C."""
    labels: dict[int, str] = {}
    if isinstance(unit, ir.Kernel):
        for name, slot in zip(unit.sizes, unit.size_slots):
            labels[slot] = name
        for name, slot, _ in unit.over:
            labels[slot] = name
        for param in unit.params:
            labels[param.slot] = param.name
    else:
        for slot, name in zip(unit.params, unit.param_names):
            labels[slot] = name
    for statement in unit.body:
        for node in walk(statement):
            if isinstance(node, (ir.Assign, ir.DeclareArray, ir.For)):
                labels.setdefault(node.slot, node.name)
            elif isinstance(node, (ir.Var, ir.ArrayVar)):
                labels.setdefault(node.slot, node.name)
            elif isinstance(node, ir.OutArg):
                labels.setdefault(node.slot, node.name)
    return labels


def emit_program(program: ir.Program, also: tuple[str, ...] = ()) -> str:
    """The C17 text of `program` (one translation unit that includes cint_rt.h). The
    kernels it dispatches are emitted, and those named in `also` (gpu-cuda describes a
    fault of a kernel that a host dispatched directly): with every kernel dispatched,
    `also` changes nothing."""
    return ProgramEmitter(program, also).emit()


__all__ = ["emit_program", "EmitError", "is_small"]
