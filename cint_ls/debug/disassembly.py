"""The program's counted operations as a debugger's instructions (issue 30): `disassemble`
shows a unit's operations in evaluation order, each with its step ordinals as `cint
emit-ir` prints them, and stepping by `instruction` goes from one to the next.

An instruction's address packs the unit (its number in `units`) and the operation's
index in the unit: (unit << 24) | index, written in hex as DAP's memory references are.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ir import nodes as ir
from ..ir.printer import format_steps
from ..ir.slots import nodes
from ..syntax.source import Span

UNIT_SHIFT = 24


def units(program: ir.Program) -> list[ir.Function | ir.Kernel]:
    return [program.entry, *program.functions.values(), *program.kernels.values()]


def counted(unit: ir.Function | ir.Kernel) -> list[ir.Counted]:
    """The unit's counted operations in evaluation order (their `index`)."""
    found = unit.counted if isinstance(unit, ir.Kernel) else [n for n in nodes(unit.body) if isinstance(n, ir.Counted)]
    return sorted(found, key=lambda c: c.index)


def address(program: ir.Program, unit: ir.Function | ir.Kernel, operation: ir.Counted) -> str:
    return hex((units(program).index(unit) << UNIT_SHIFT) | operation.index)


def operation_at(unit: ir.Function | ir.Kernel, span: Span) -> ir.Counted | None:
    """The counted operation of `unit` at `span` (where a step by operation stopped)."""
    for c in counted(unit):
        if c.span.start_byte == span.start_byte and c.span.end_byte == span.end_byte:
            return c
    return None


def first_operation(statement: ir.Stmt) -> ir.Counted | None:
    """The statement's first counted operation in evaluation order, if it has one."""
    inside = [n for n in nodes([statement]) if isinstance(n, ir.Counted)]
    return min(inside, key=lambda c: c.index) if inside else None


@dataclass
class Instruction:
    address: str
    text: str  # `#22  mul.checked.i64`, or "" past the unit's operations
    span: Span | None
    symbol: str | None = None  # the unit's name, at its first operation


def disassemble(program: ir.Program, reference: str, offset: int, instruction_offset: int,
                count: int) -> list[Instruction]:
    """`count` instructions from the one `instruction_offset` after the address
    `reference` + `offset`, as DAP's disassemble asks: exactly that many, those past
    either end of the unit as blanks (DAP: presentationHint "invalid"). ValueError for
    a reference that is not one of ours."""
    base = int(reference, 16) + offset
    number, first = base >> UNIT_SHIFT, (base & ((1 << UNIT_SHIFT) - 1)) + instruction_offset
    every = units(program)
    if not 0 <= number < len(every):
        raise ValueError(f"no instructions at {reference}")
    unit = every[number]
    operations = counted(unit)
    width = max([len(format_steps(c.steps)) for c in operations] + [5])
    out = []
    for index in range(first, first + max(0, min(count, 100_000))):
        at = hex(max(0, (number << UNIT_SHIFT) + index))
        if 0 <= index < len(operations):
            c = operations[index]
            out.append(Instruction(at, f"{format_steps(c.steps):<{width}}  {c.op_id}", c.span,
                                   unit.qualified if index == 0 else None))
        else:
            out.append(Instruction(at, "", None))
    return out
