"""PTX emission for gpu-cuda (SPEC-02P.1 10.5 paragraphs 2 and 3).

One module per cint module that defines kernels: PTX ISA 6.0, `.target sm_52`, 64-bit
addresses, one `.entry` per kernel, deterministic text (no time stamps, no paths,
stable numbering). The emitter only knows the constructs of Table 3; admission
(`admission.py`, from the one capability profile in `cint_ls.analysis.capabilities`)
runs first, and a construct that reaches the emitter without being admitted is an
internal error (`EmitError`), never a silent lowering.

The code of a work-item (10.5 para 3, 10.6 para 2):

- every cint value lives in a 64-bit register (`%v<slot>` for variables, `%t<n>` for
  temporaries), in its canonical form: sign-extended for signed types, zero-extended for
  unsigned ones, 0 or 1 for Bool;
- a checked operation of 8, 16 or 32 bits is computed exactly in 64 bits and
  range-tested; a 64-bit addition or subtraction is tested by the signs of its operands
  and result (unsigned: by the carry, `r < a`, or `a < b` before subtracting), a 64-bit
  multiplication by the high half from `mul.hi`; div_round tests the divisor for 0 and
  MIN / -1 before any `div`;
- every test branches to `$Lfault` before anything that depends on it is stored; the
  fault path takes `atom.global.min.u64` of the fault word and the work-item index and
  returns without any further write;
- element addresses are formed only after each index has been tested against its
  extent (unsigned compare, so a negative index fails too); elements are read with
  `ld.global.nc` (the read copies are never written during a launch);
- one 64-bit division where a quotient and its remainder are both needed (the index
  tuple of i, div_round): the remainder is a - q * b;
- a work-item first reads the fault word and returns at once when it is below its
  index, and reads it again every POLL_CHARGES fuel charges (loop iterations), so
  that a loop above a fault published meanwhile stops (issue 28);
- a body that charges fuel counts its charges in `%fc` and stops (writing the count)
  once they exceed the allowance F; a finished work-item writes its count to the fuel
  scratch; a reduce writes its contribution and a mark to the reduction's scratch.

The entry's parameters, all `.u64`, are described by `KernelCode.params`, which the
host (rt/gpu_host.c, through c_host.KINDS; the oracle's oracle/params.py) fills by kind.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeAlias

from ...analysis.types import BoolType, IntType, Type
from ...ir import nodes as ir
from ...ir.walk import walk

PTX_VERSION = "6.0"
PTX_TARGET = "sm_52"

M64 = (1 << 64) - 1
PARAM_SPACE = 4096  # bytes of kernel parameters an sm_52 entry takes (PTX ISA 6.0)
POLL_CHARGES = 256  # a work-item that charges reads the fault word again every this many charges
SCAN_PER_POLL = 8  # work-items a poll adds to the fold it watches (KernelEmitter.watch_folds)
MARK_DONE = 2  # a watched fold's mark: bit 0 the work-item contributed, bit 1 it completed


class EmitError(Exception):
    """A construct the emitter does not lower: admission should have refused it."""


ParamKey: TypeAlias = tuple[str | int, ...]  # a parameter's kind and index: ("extent", p, d)


@dataclass(frozen=True)
class Param:
    """One `.param .u64` of an entry. `kind` is what the host puts there:

    first, end: the launch's range of work-item indices [first, end)
    fault: the address of the fault word
    fuel_left: the allowance F after the dispatch charge (all ones: unlimited)
    fuel: the address of the fuel scratch (one U64 per work-item of the launch)
    size (s): the value of size symbol s; over (d): the extent of over dimension d
    scalar (p): the value of scalar parameter p
    read (p) / write (p): the element address of the read view's storage / staging
    origin (p): the read view's origin; extent (p, d), stride (p, d): its extents and
      strides; wstride (p, d): the staging's (row-major) strides
    contrib (r), mark (r): the addresses of reduction r's scratch (U64 and U8 per
      work-item of the launch), for a fold_checked or sum_sat
    slots: the address of the slots of the reductions combined per block
      (`KernelCode.slot_words` U64 per block of the launch, all 0 before it; SLOT_WORDS)
    fold (r): fold_checked r's accumulator before the launch (its canonical pattern), for
      a body with a loop (`KernelEmitter.watched`); it changes from launch to launch
    """

    name: str
    kind: str
    index: tuple[int, ...] = ()


@dataclass
class KernelCode:
    kernel: str  # the cint kernel's name
    entry: str  # the PTX entry's name
    params: list[Param]
    charges: bool  # whether the body charges fuel (writes the fuel scratch)
    reductions: list[int] = field(default_factory=list)  # parameter of each reduction, in order
    # True: `params[2:]` are not entry parameters but the U64 elements of an argument
    # block in device memory, whose address is the entry's third parameter (`args`).
    block: bool = False
    # Reductions combined on the device per block (`SLOT_WORDS`): reduction index -> the
    # offset of its words in a block's slots; `slot_words`: the words of a block.
    slots: dict[int, int] = field(default_factory=dict)
    slot_words: int = 0


@dataclass
class PtxModule:
    module: str
    text: str
    kernels: dict[str, KernelCode]


# The reductions combined on the device, per block of the launch (issue 16; SPEC-02P.1
# 9.2 para 1: sum, sum_wrap, min, max and count do not depend on the order), and the
# U64 words each takes in a block's slots (`slot_words`), all starting at 0:
#   sum, sum_wrap of contributions of 32 bits or fewer: their sum (two's complement:
#     |sum| < 2**31 * 1024 for a block of at most 1024 work-items, exact in 64 bits),
#     the number of contributions;
#   sum, sum_wrap of 64-bit contributions: the sum of their low 32 bits, the sum of their
#     high 32 bits (arithmetic shift for a signed type), the number of contributions:
#     exact in 64 bits for up to 2**31 contributions, so the host forms the exact 128-bit
#     total as high * 2**32 + low;
#   count: the number of true contributions, the number of contributions;
#   min, max: the greatest of the contributions' patterns xor MINMAX_FLIP (an order-
#     preserving map into U64, reversed for min, so that 0 is below every value), the
#     number of contributions.
# fold_checked (its first overflow must be found in ascending order, [R-9]) and sum_sat
# (a left fold, [IM-84]) keep a contribution and a mark per work-item. The combined
# values count only when no work-item faults: a dispatch with a canonical fault
# publishes no reduction (10.6 para 9).
SLOT_WORDS = {"sum": 3, "sum_wrap": 3, "count": 2, "min": 2, "max": 2}  # sums of 64-bit contributions


def slot_words(reduction: ir.Reduction) -> int:
    """The words of `reduction` in a block's slots; 0: not combined (SLOT_WORDS)."""
    words = SLOT_WORDS.get(reduction.kind, 0)
    if reduction.kind in ("sum", "sum_wrap") and _bits(reduction.contribution) <= 32:
        return 2
    return words


def _bits(t: Type) -> int:
    return 1 if isinstance(t, BoolType) else _int_type(t, "a contribution").bits


def minmax_flip(kind: str, signed: bool) -> int:
    return (1 << 63 if signed else 0) ^ (M64 if kind == "min" else 0)


def slot_layout(kernel: ir.Kernel) -> tuple[dict[int, int], int]:
    """(reduction index -> offset in a block's slots, words per block)."""
    offsets, words = {}, 0
    for r, red in enumerate(kernel.reductions):
        if slot_words(red):
            offsets[r] = words
            words += slot_words(red)
    return offsets, words


def entry_name(kernel: str) -> str:
    return f"cint_{kernel}"


def literal(value: int) -> str:
    """A 64-bit immediate: decimal below 2**31, else the 64-bit pattern in hex."""
    pattern = value & M64
    if pattern < (1 << 31):
        return str(pattern)
    return f"0x{pattern:016X}"


def canonical(t: Type, value: int | bool) -> int:
    """The 64-bit register pattern of a value of a native type."""
    if isinstance(t, BoolType):
        return 1 if value else 0
    return int(value) & M64


def _int_type(t: Type, what: str) -> IntType:
    if isinstance(t, IntType) and t.bits <= 64:
        return t
    if isinstance(t, BoolType):
        raise EmitError(f"{what} of Bool is not in the gpu-cuda profile")
    raise EmitError(f"{what} of {t} is not in the gpu-cuda profile")


def element_bytes(t: Type) -> int:
    if isinstance(t, BoolType):
        return 1
    return _int_type(t, "an element").bits // 8


# --------------------------------------------------------------------- the emitter


class _Loop:
    __slots__ = ("head", "exit")

    def __init__(self, head: str, exit: str) -> None:
        self.head = head  # where `continue` goes
        self.exit = exit  # where `break` goes


class KernelEmitter:
    def __init__(self, kernel: ir.Kernel, param_space: int = PARAM_SPACE) -> None:
        self.k = kernel
        self.param_space = param_space
        self.lines: list[str] = []
        self.temps = 0
        self.words = 3
        self.preds = 0
        self.labels = 0
        self.loops: list[_Loop] = []
        self.params: list[Param] = []
        self.param_of_slot = {p.slot: i for i, p in enumerate(kernel.params)}
        self.uniform: dict[ParamKey, str] = {}  # (kind, index...) -> register holding the param
        self.charges = any(isinstance(n, ir.Charge) for s in kernel.body for n in walk(s))
        self.fault_label = "$Lfault"  # where fault_if goes
        # The folds a looping body watches (issue 28, finding 9): a fold_checked whose
        # first overflow lies below a work-item that loops for ever must stop that loop,
        # as the reference stops at the overflow. Each poll of the fault word also adds
        # the contributions of up to SCAN_PER_POLL more work-items, from the launch's first,
        # to the fold's accumulator before the launch (a cursor kept in registers), past
        # work-items that completed only (their marks say so, MARK_DONE), and up to this
        # work-item's own contribution: an overflow found so is certain, and it is
        # published in the fault word like any fault of that work-item (10.6 para 5).
        looping = any(isinstance(n, (ir.For, ir.While)) for s in kernel.body for n in walk(s))
        offsets, _ = slot_layout(kernel)
        self.watched = [r for r, red in enumerate(kernel.reductions)
                        if looping and red.kind == "fold_checked" and r not in offsets and ".add." in red.op.op_id
                        and red.contribution == red.target and isinstance(red.target, IntType)]
        self.contributed: dict[int, str] = {}  # watched r -> the register of its mark (1: contributed)

    # ---- registers, labels, text

    def temp(self) -> str:
        self.temps += 1
        return f"%t{self.temps}"

    def word(self) -> str:
        """A 32-bit register (%r1 to %r3 hold the special registers of the index)."""
        self.words += 1
        return f"%r{self.words}"

    def pred(self) -> str:
        self.preds += 1
        return f"%p{self.preds}"

    def label(self, hint: str) -> str:
        self.labels += 1
        return f"$L{self.labels}_{hint}"

    def emit(self, text: str) -> None:
        self.lines.append("\t" + text)

    def place(self, label: str) -> None:
        self.lines.append(f"{label}:")

    def comment(self, text: str) -> None:
        self.lines.append(f"\t// {text}")

    def param(self, kind: str, *index: int) -> str:
        """Declare a parameter and load it once, in the prologue, into a register."""
        key: ParamKey = (kind, *index)
        if key in self.uniform:
            return self.uniform[key]
        name = "_".join(["p", kind, *(str(i) for i in index)])
        self.params.append(Param(name, kind, tuple(index)))
        reg = f"%u{len(self.params)}"
        self.uniform[key] = reg
        self.prologue.append(f"\tld.param.u64 {reg}, [{name}];")
        return reg

    def fault_if(self, pred: str, negate: bool = False) -> None:
        self.emit(f"@{'!' if negate else ''}{pred} bra {self.fault_label};")

    def const(self, value: int) -> str:
        r = self.temp()
        self.emit(f"mov.b64 {r}, {literal(value)};")
        return r

    # ---- the entry

    def emit_kernel(self) -> tuple[list[str], KernelCode]:
        k = self.k
        self.prologue: list[str] = []
        self.param("first")
        self.param("end")
        self.param("fault")
        if self.charges:
            self.param("fuel_left")
            self.param("fuel")
        # Work-item index i = ctaid.x * ntid.x + tid.x + first (10.5 para 4).
        body_start = len(self.lines)
        self.comment("work-item i = blockIdx.x * blockDim.x + threadIdx.x + first")
        self.emit("mov.u32 %r1, %ctaid.x;")
        self.emit("mov.u32 %r2, %ntid.x;")
        self.emit("mov.u32 %r3, %tid.x;")
        self.emit("mul.wide.u32 %li, %r1, %r2;")
        self.emit("cvt.u64.u32 %t0, %r3;")
        self.emit("add.u64 %li, %li, %t0;")
        self.emit(f"add.u64 %i, %li, {self.uniform[('first',)]};")
        p = self.pred()
        self.emit(f"setp.ge.u64 {p}, %i, {self.uniform[('end',)]};")
        self.emit(f"@{p} bra $Lexit;")
        self.comment("the fault word: a work-item above a recorded fault cannot be canonical (10.6 para 3)")
        self.emit(f"ld.volatile.global.u64 %t0, [{self.uniform[('fault',)]}];")
        p = self.pred()
        self.emit(f"setp.lt.u64 {p}, %t0, %i;")
        self.emit(f"@{p} bra $Lexit;")
        # Uniform values: size symbols, scalar parameters; the over variables from i.
        for s, slot in enumerate(k.size_slots):
            self.emit(f"mov.b64 %v{slot}, {self.param('size', s)};")
        for position, param in enumerate(k.params):
            if param.extents is None and param.mode == "in":
                self.emit(f"mov.b64 %v{param.slot}, {self.param('scalar', position)};")
        if k.over:
            self.index_tuple()
        if self.charges:
            self.emit("mov.b64 %fc, 0;")
        if self.watched:
            self.comment("the watched folds: the cursor, each accumulator before the launch, each mark")
            self.cursor = self.temp()
            self.emit(f"mov.b64 {self.cursor}, 0;")
            self.accumulators = {}
            for r in self.watched:
                self.accumulators[r] = self.temp()
                self.emit(f"mov.b64 {self.accumulators[r]}, {self.param('fold', r)};")
                self.contributed[r] = self.temp()
                self.emit(f"mov.b64 {self.contributed[r]}, 0;")
        self.block(k.body)
        # Completion: the writes are in staging; the fuel count goes to scratch.
        self.emit("bra $Ldone;")
        self.place("$Ldone")
        if self.charges:
            self.store_fuel()
        if self.watched:
            self.comment("completed: the marks of the watched folds say so, after every write (membar)")
            self.emit("membar.gl;")
            for r in self.watched:
                mark = self.temp()
                self.emit(f"or.b64 {mark}, {self.contributed[r]}, {MARK_DONE};")
                address = self.temp()
                self.emit(f"add.u64 {address}, %li, {self.param('mark', r)};")
                self.emit(f"st.global.u8 [{address}], {mark};")
        self.emit("ret;")
        if self.charges:
            self.place("$Lfuel")
            self.comment("the work-item's charges exceed F: its prefix does too (10.5 para 6)")
            self.store_fuel()
            self.emit("ret;")
        self.place("$Lfault")
        self.comment("a fault: the least faulting index wins; nothing else is written (10.6 para 5)")
        self.emit(f"atom.global.min.u64 %t0, [{self.uniform[('fault',)]}], %i;")
        self.emit("ret;")
        self.place("$Lexit")
        self.emit("ret;")
        body = self.lines[body_start:]
        self.lines = self.lines[:body_start]

        entry = entry_name(k.name)
        # Parameters beyond the entry's parameter space go through an argument block in
        # device memory: the entry then takes first, end and the block's address.
        block = 8 * len(self.params) > self.param_space
        declared = self.params[:2] + [Param("p_args", "args")] if block else self.params
        if block:
            self.prologue = self.prologue[:2] + ["\tld.param.u64 %args, [p_args];"] + [
                f"\tld.global.u64 %u{j + 3}, [%args+{8 * j}];" for j in range(len(self.params) - 2)]
        out = [f"// kernel {k.qualified} ({k.span.line}:{k.span.column})"]
        out.append(f".visible .entry {entry}(")
        out.append(",\n".join(f"\t.param .u64 {p.name}" for p in declared))
        out.append(")")
        out.append("{")
        out.append(f"\t.reg .pred %p<{self.preds + 1}>;")
        out.append(f"\t.reg .b32 %r<{self.words + 1}>;")
        out.append(f"\t.reg .b64 %t<{self.temps + 1}>;")
        out.append(f"\t.reg .b64 %u<{len(self.params) + 1}>;")
        out.append(f"\t.reg .b64 %v<{max(k.slot_count, 1)}>;")
        out.append("\t.reg .b64 %i, %li, %fc" + (", %args;" if block else ";"))
        out.append("")
        out.extend(self.prologue)
        out.extend(body)
        out.append("}")
        code = KernelCode(k.name, entry, list(self.params), self.charges, [r.param for r in k.reductions], block,
                          *slot_layout(k))
        return out, code

    def index_tuple(self) -> None:
        """The over variables from i, row-major (8.2): for each dimension but the first,
        one division (the remainder from the quotient, rest - q * extent). When the
        launch's `end` and every extent divided by are below 2**32 (the test is on the
        launch's parameters, so every thread of a launch takes the same path), the
        divisions are 32-bit: exact, as i < end < 2**32, and much cheaper than ptxas's
        64-bit division subroutine. Otherwise the 64-bit path."""
        k = self.k
        self.comment("the index tuple of i, row-major (8.2)")
        if len(k.over) == 1:
            self.emit(f"mov.b64 %v{k.over[0][1]}, %i;")
            return
        extents = {d: self.param("over", d) for d in range(len(k.over) - 1, 0, -1)}
        wide, done = self.label("index64"), self.label("indexed")
        fits, p = self.temp(), self.pred()
        self.comment("the 32-bit path when end and the extents are below 2**32 (chosen per launch)")
        self.emit(f"or.b64 {fits}, {self.uniform[('end',)]}, {extents[len(k.over) - 1]};")
        for d in range(len(k.over) - 2, 0, -1):
            self.emit(f"or.b64 {fits}, {fits}, {extents[d]};")
        self.emit(f"shr.u64 {fits}, {fits}, 32;")
        self.emit(f"setp.ne.u64 {p}, {fits}, 0;")
        self.emit(f"@{p} bra {wide};")
        rest = self.word()
        self.emit(f"cvt.u32.u64 {rest}, %i;")
        for d in range(len(k.over) - 1, 0, -1):
            extent, quotient, remainder = self.word(), self.word(), self.word()
            self.emit(f"cvt.u32.u64 {extent}, {extents[d]};")
            self.emit(f"div.u32 {quotient}, {rest}, {extent};")
            self.emit(f"mul.lo.u32 {remainder}, {quotient}, {extent};")
            self.emit(f"sub.u32 {remainder}, {rest}, {remainder};")
            self.emit(f"cvt.u64.u32 %v{k.over[d][1]}, {remainder};")
            rest = quotient
        self.emit(f"cvt.u64.u32 %v{k.over[0][1]}, {rest};")
        self.emit(f"bra {done};")
        self.place(wide)
        rest = "%i"
        for d in range(len(k.over) - 1, 0, -1):
            quotient, product = self.temp(), self.temp()
            self.emit(f"div.u64 {quotient}, {rest}, {extents[d]};")
            self.emit(f"mul.lo.u64 {product}, {quotient}, {extents[d]};")
            self.emit(f"sub.u64 %v{k.over[d][1]}, {rest}, {product};")
            rest = quotient
        self.emit(f"mov.b64 %v{k.over[0][1]}, {rest};")
        self.place(done)

    def store_fuel(self) -> None:
        address = self.temp()
        self.emit(f"shl.b64 {address}, %li, 3;")
        self.emit(f"add.u64 {address}, {address}, {self.uniform[('fuel',)]};")
        self.emit(f"st.global.u64 [{address}], %fc;")

    # ---- statements

    def block(self, statements: list[ir.Stmt]) -> None:
        for s in statements:
            method = getattr(self, "stmt_" + type(s).__name__, None)
            if method is None:
                raise EmitError(f"{_what(s)} at {s.span.line}:{s.span.column} is not in the gpu-cuda profile")
            method(s)

    def stmt_Assign(self, s: ir.Assign) -> None:
        value = self.expr(s.value)
        self.emit(f"mov.b64 %v{s.slot}, {value};")

    def stmt_Eval(self, s: ir.Eval) -> None:
        self.expr(s.value)

    def stmt_If(self, s: ir.If) -> None:
        condition = self.expr(s.condition)
        p = self.pred()
        otherwise = self.label("else")
        end = self.label("endif")
        self.emit(f"setp.ne.u64 {p}, {condition}, 0;")
        self.emit(f"@!{p} bra {otherwise if s.otherwise else end};")
        self.block(s.then)
        if s.otherwise:
            self.emit(f"bra {end};")
            self.place(otherwise)
            self.block(s.otherwise)
        self.place(end)

    def stmt_Charge(self, s: ir.Charge) -> None:
        self.comment(f"fuel charge {s.span.line}:{s.span.column}")
        p = self.pred()
        self.emit("add.u64 %fc, %fc, 1;")
        self.emit(f"setp.gt.u64 {p}, %fc, {self.uniform[('fuel_left',)]};")
        self.emit(f"@{p} bra $Lfuel;")
        # The stop (issue 28, finding 9): every POLL_CHARGES charges, the fault word again,
        # so that a loop above a fault published since this work-item started, one that
        # might never end, does not run on (10.6 para 3 at each loop charge, not only at
        # the start). One mask test per charge; the load only every POLL_CHARGES.
        later, word, q = self.label("polled"), self.temp(), self.pred()
        self.emit(f"and.b64 {word}, %fc, {POLL_CHARGES - 1};")
        self.emit(f"setp.ne.u64 {q}, {word}, 0;")
        self.emit(f"@{q} bra {later};")
        self.emit(f"ld.volatile.global.u64 {word}, [{self.uniform[('fault',)]}];")
        q = self.pred()
        self.emit(f"setp.lt.u64 {q}, {word}, %i;")
        self.emit(f"@{q} bra $Lexit;")
        self.watch_folds()
        self.place(later)

    def watch_folds(self) -> None:
        """At a poll: up to SCAN_PER_POLL more work-items of the launch added to each
        watched fold, from the cursor, while they completed; this work-item's own
        contribution last. An overflow at work-item j (launch-relative) is a fold fault
        there, certain because every work-item below j completed: the fault word takes
        j (this work-item then stops, being above it), or this work-item's own fault."""
        if not self.watched:
            return
        k = self.k
        self.comment("the watched folds: more completed work-items added from the cursor")
        head, end, over = self.label("watch"), self.label("watched"), self.label("overflow")
        budget = self.temp()
        self.emit(f"mov.b64 {budget}, {SCAN_PER_POLL};")
        self.place(head)
        p = self.pred()
        self.emit(f"setp.gt.u64 {p}, {self.cursor}, %li;")
        self.emit(f"@{p} bra {end};")
        p = self.pred()
        self.emit(f"setp.eq.u64 {p}, {budget}, 0;")
        self.emit(f"@{p} bra {end};")
        self.emit(f"sub.u64 {budget}, {budget}, 1;")
        # Below this work-item the cursor takes only a work-item that completed (each
        # once: it then moves on); this work-item's own contribution, the last, is
        # tested but not kept, since it may be tested again at the next poll. The
        # completion is read from the first watched fold's mark; after a membar.gl the
        # other marks and the contributions, which the work-item wrote before the
        # membar.gl that precedes that mark, are seen too.
        marks = {}
        first = self.watched[0]
        address, marks[first] = self.temp(), self.temp()
        self.emit(f"add.u64 {address}, {self.cursor}, {self.param('mark', first)};")
        self.emit(f"ld.volatile.global.u8 {marks[first]}, [{address}];")
        own, bit, q, take = self.pred(), self.temp(), self.pred(), self.label("take")
        self.emit(f"setp.eq.u64 {own}, {self.cursor}, %li;")
        self.emit(f"@{own} bra {take};")
        self.emit(f"and.b64 {bit}, {marks[first]}, {MARK_DONE};")
        self.emit(f"setp.eq.u64 {q}, {bit}, 0;")
        self.emit(f"@{q} bra {end};")
        self.place(take)
        self.emit("membar.gl;")
        for r in self.watched[1:]:
            address, marks[r] = self.temp(), self.temp()
            self.emit(f"add.u64 {address}, {self.cursor}, {self.param('mark', r)};")
            self.emit(f"ld.volatile.global.u8 {marks[r]}, [{address}];")
        for r in self.watched:
            skip, bit, q = self.label("uncounted"), self.temp(), self.pred()
            self.emit(f"and.b64 {bit}, {marks[r]}, 1;")
            self.emit(f"setp.eq.u64 {q}, {bit}, 0;")
            self.emit(f"@{q} bra {skip};")
            address, value = self.temp(), self.temp()
            self.emit(f"shl.b64 {address}, {self.cursor}, 3;")
            self.emit(f"add.u64 {address}, {address}, {self.param('contrib', r)};")
            self.emit(f"ld.volatile.global.u64 {value}, [{address}];")
            self.fault_label = over
            total = self.checked_add(self.accumulators[r], value, _int_type(k.reductions[r].target, "a fold"))
            self.fault_label = "$Lfault"
            self.emit(f"@!{own} mov.b64 {self.accumulators[r]}, {total};")
            self.place(skip)
        self.emit(f"@{own} bra {end};")
        self.emit(f"add.u64 {self.cursor}, {self.cursor}, 1;")
        self.emit(f"bra {head};")
        self.place(over)
        self.comment("a fold overflows at the cursor: this work-item's fault, or the stop of one above it")
        q = self.pred()
        self.emit(f"setp.eq.u64 {q}, {self.cursor}, %li;")
        self.emit(f"@{q} bra $Lfault;")
        item, old = self.temp(), self.temp()
        self.emit(f"add.u64 {item}, {self.cursor}, {self.uniform[('first',)]};")
        self.emit(f"atom.global.min.u64 {old}, [{self.uniform[('fault',)]}], {item};")
        self.emit("bra $Lexit;")
        self.place(end)

    def checked_add(self, a: str, b: str, t: IntType) -> str:
        """a + b of type t, to fault_if's label when it leaves t (as expr_Arith)."""
        r, p = self.temp(), self.pred()
        if t.bits < 64:
            self.emit(f"add.s64 {r}, {a}, {b};")
            self.range_test(r, t, signed_value=t.signed)
        elif t.signed:
            x, y = self.temp(), self.temp()
            self.emit(f"add.s64 {r}, {a}, {b};")
            self.emit(f"xor.b64 {x}, {a}, {r};")
            self.emit(f"xor.b64 {y}, {b}, {r};")
            self.emit(f"and.b64 {x}, {x}, {y};")
            self.emit(f"setp.lt.s64 {p}, {x}, 0;")
            self.fault_if(p)
        else:
            self.emit(f"add.u64 {r}, {a}, {b};")
            self.emit(f"setp.lt.u64 {p}, {r}, {a};")
            self.fault_if(p)
        return r

    def stmt_For(self, s: ir.For) -> None:
        start = self.expr(s.start)
        end_value = self.expr(s.end)
        counter, end = self.temp(), self.temp()
        self.emit(f"mov.b64 {counter}, {start};")
        self.emit(f"mov.b64 {end}, {end_value};")
        head, step, exit = self.label("for"), self.label("next"), self.label("endfor")
        self.place(head)
        p = self.pred()
        self.emit(f"setp.ge.s64 {p}, {counter}, {end};")
        self.emit(f"@{p} bra {exit};")
        self.emit(f"mov.b64 %v{s.slot}, {counter};")
        self.loops.append(_Loop(step, exit))
        self.block(s.body)
        self.loops.pop()
        self.place(step)
        self.emit(f"add.s64 {counter}, {counter}, 1;")  # counter < end <= MAX(I64): no overflow
        self.emit(f"bra {head};")
        self.place(exit)

    def stmt_While(self, s: ir.While) -> None:
        head, exit = self.label("while"), self.label("endwhile")
        self.place(head)
        condition = self.expr(s.condition)
        p = self.pred()
        self.emit(f"setp.eq.u64 {p}, {condition}, 0;")
        self.emit(f"@{p} bra {exit};")
        self.loops.append(_Loop(head, exit))
        self.block(s.body)
        self.loops.pop()
        self.emit(f"bra {head};")
        self.place(exit)

    def stmt_Break(self, s: ir.Break) -> None:
        self.emit(f"bra {self.loops[-1].exit};")

    def stmt_Continue(self, s: ir.Continue) -> None:
        self.emit(f"bra {self.loops[-1].head};")

    def stmt_Store(self, s: ir.Store) -> None:
        param = self._array_param(s.array)
        element = self.k.params[param].type
        size = element_bytes(element)
        if size not in (4, 8) or not isinstance(element, IntType):
            raise EmitError(f"a store of {element} at {s.place.span.line}:{s.place.span.column} "
                            "is not in the gpu-cuda profile")
        indices = [self.expr(i) for i in s.indices]
        self.comment(f"{s.place.op_id} {_at(s.place)}")
        self.bounds(param, indices)  # the place is counted, and checked, before the value
        value = self.expr(s.value)
        offset = None
        for d, index in enumerate(indices):
            term = self.temp()
            self.emit(f"mul.lo.s64 {term}, {index}, {self.param('wstride', param, d)};")
            if offset is None:
                offset = term
            else:
                self.emit(f"add.s64 {term}, {offset}, {term};")
                offset = term
        address = self.temp()
        base = self.param("write", param)
        if offset is None:
            self.emit(f"mov.b64 {address}, {base};")
        else:
            self.emit(f"shl.b64 {address}, {offset}, {size.bit_length() - 1};")
            self.emit(f"add.s64 {address}, {base}, {address};")
        self.emit(f"st.global.u{size * 8} [{address}], {value};")

    def stmt_Reduce(self, s: ir.Reduce) -> None:
        value = self.expr(s.contribution)
        r = next(i for i, red in enumerate(self.k.reductions) if red.param == s.target)
        offsets, words = slot_layout(self.k)
        if r in offsets:
            self.combine(self.k.reductions[r], value, offsets[r], words)
            return
        self.comment(f"{s.op.op_id} {_at(s.op)}: contribution and mark to scratch (10.5 para 7)")
        address = self.temp()
        self.emit(f"shl.b64 {address}, %li, 3;")
        self.emit(f"add.u64 {address}, {address}, {self.param('contrib', r)};")
        self.emit(f"st.global.u64 [{address}], {value};")
        mark, one = self.temp(), self.temp()
        self.emit(f"add.u64 {mark}, %li, {self.param('mark', r)};")
        self.emit(f"mov.b64 {one}, 1;")
        if r in self.contributed:  # watched: the contribution is seen before its mark
            self.emit("membar.gl;")
            self.emit(f"mov.b64 {self.contributed[r]}, 1;")
        self.emit(f"st.global.u8 [{mark}], {one};")

    def combine(self, reduction: ir.Reduction, value: str, offset: int, words: int) -> None:
        """A contribution combined into its block's slots by atomic reductions (see
        SLOT_WORDS): exact whatever the order of the block's work-items."""
        op = reduction.op
        self.comment(f"{op.op_id} {_at(op)}: combined in the block's slots (SLOT_WORDS)")
        base, one = self.temp(), self.temp()
        self.emit(f"mul.wide.u32 {base}, %r1, {8 * words};")  # %r1: the block's index in the launch
        self.emit(f"add.u64 {base}, {base}, {self.param('slots')};")
        at = f"{base}+{8 * offset}" if offset else base
        if reduction.kind in ("sum", "sum_wrap") and slot_words(reduction) == 2:
            self.emit(f"red.global.add.u64 [{at}], {value};")  # the canonical pattern: exact (SLOT_WORDS)
            count = 8 * offset + 8
        elif reduction.kind in ("sum", "sum_wrap"):
            low, high = self.temp(), self.temp()
            signed = isinstance(reduction.contribution, IntType) and reduction.contribution.signed
            self.emit(f"and.b64 {low}, {value}, {literal(0xFFFFFFFF)};")
            self.emit(f"shr.{'s' if signed else 'u'}64 {high}, {value}, 32;")
            self.emit(f"red.global.add.u64 [{at}], {low};")
            self.emit(f"red.global.add.u64 [{base}+{8 * offset + 8}], {high};")
            count = 8 * offset + 16
        elif reduction.kind == "count":
            self.emit(f"red.global.add.u64 [{at}], {value};")
            count = 8 * offset + 8
        else:
            t = _int_type(reduction.contribution, reduction.kind)
            flipped = self.temp()
            self.emit(f"xor.b64 {flipped}, {value}, {literal(minmax_flip(reduction.kind, t.signed))};")
            self.emit(f"red.global.max.u64 [{at}], {flipped};")
            count = 8 * offset + 8
        self.emit(f"mov.b64 {one}, 1;")
        self.emit(f"red.global.add.u64 [{base}+{count}], {one};")

    # ---- expressions: each returns the register holding its value

    def expr(self, e: ir.Expr) -> str:
        method: Callable[[ir.Expr], str] | None = getattr(self, "expr_" + type(e).__name__, None)
        if method is None:
            raise EmitError(f"{_what(e)} is not in the gpu-cuda profile")
        return method(e)

    def expr_Const(self, e: ir.Const) -> str:
        if not isinstance(e.type, (IntType, BoolType)) or (isinstance(e.type, IntType) and e.type.bits > 64):
            raise EmitError(f"a constant of {e.type} is not in the gpu-cuda profile")
        return self.const(canonical(e.type, e.value))

    def expr_Var(self, e: ir.Var) -> str:
        if isinstance(e.type, IntType):
            _int_type(e.type, "a value")
        elif not isinstance(e.type, BoolType):
            raise EmitError(f"a value of {e.type} is not in the gpu-cuda profile")
        return f"%v{e.slot}"

    def expr_Compare(self, e: ir.Compare) -> str:
        left, right = self.expr(e.left), self.expr(e.right)
        t = e.left.type
        kind = "s64" if isinstance(t, IntType) and t.signed else "u64"
        cmp = {"==": "eq", "!=": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge"}[e.op]
        p, r = self.pred(), self.temp()
        self.emit(f"setp.{cmp}.{kind} {p}, {left}, {right};")
        self.emit(f"selp.b64 {r}, 1, 0, {p};")
        return r

    def expr_Logic(self, e: ir.Logic) -> str:
        if e.op == "!":
            value = self.expr(e.args[0])
            r = self.temp()
            self.emit(f"xor.b64 {r}, {value}, 1;")
            return r
        # && and || short-circuit: the right side, which may fault, runs only when needed.
        r = self.temp()
        left = self.expr(e.args[0])
        self.emit(f"mov.b64 {r}, {left};")
        end = self.label("and" if e.op == "&&" else "or")
        p = self.pred()
        self.emit(f"setp.{'eq' if e.op == '&&' else 'ne'}.u64 {p}, {r}, 0;")
        self.emit(f"@{p} bra {end};")
        right = self.expr(e.args[1])
        self.emit(f"mov.b64 {r}, {right};")
        self.place(end)
        return r

    def expr_Arith(self, e: ir.Arith) -> str:
        t = _int_type(e.type, e.op_id)
        if e.op not in ("add", "sub", "mul") or e.form not in ("checked", "wrap"):
            raise EmitError(f"{e.op_id} at {_at(e)} is not in the gpu-cuda profile")
        a, b = (self.expr(x) for x in e.args)
        self.comment(f"{e.op_id} {_at(e)}")
        r = self.temp()
        native = {"add": "add.s64", "sub": "sub.s64", "mul": "mul.lo.s64"}[e.op]
        if e.form == "wrap":
            self.emit(f"{native} {r}, {a}, {b};")
            self.wrap_to(t, r)
            return r
        if t.bits < 64:
            # Exact in 64 bits (|a op b| < 2**64 for operands of 32 bits or fewer), then
            # the range test of the type [B-16].
            self.emit(f"{native} {r}, {a}, {b};")
            self.range_test(r, t, signed_value=t.signed)
            return r
        p = self.pred()
        if t.signed:
            if e.op == "mul":
                high, sign = self.temp(), self.temp()
                self.emit(f"mul.hi.s64 {high}, {a}, {b};")
                self.emit(f"mul.lo.s64 {r}, {a}, {b};")
                self.emit(f"shr.s64 {sign}, {r}, 63;")
                self.emit(f"setp.ne.s64 {p}, {high}, {sign};")
                self.fault_if(p)
                return r
            self.emit(f"{native} {r}, {a}, {b};")
            x, y = self.temp(), self.temp()
            if e.op == "add":  # overflow iff a and b agree in sign and r does not
                self.emit(f"xor.b64 {x}, {a}, {r};")
                self.emit(f"xor.b64 {y}, {b}, {r};")
            else:  # sub: overflow iff a and b differ in sign and r differs from a
                self.emit(f"xor.b64 {x}, {a}, {b};")
                self.emit(f"xor.b64 {y}, {a}, {r};")
            self.emit(f"and.b64 {x}, {x}, {y};")
            self.emit(f"setp.lt.s64 {p}, {x}, 0;")
            self.fault_if(p)
            return r
        if e.op == "add":
            self.emit(f"add.u64 {r}, {a}, {b};")
            self.emit(f"setp.lt.u64 {p}, {r}, {a};")  # the carry
            self.fault_if(p)
        elif e.op == "sub":
            self.emit(f"setp.lt.u64 {p}, {a}, {b};")  # the borrow, before subtracting
            self.fault_if(p)
            self.emit(f"sub.u64 {r}, {a}, {b};")
        else:
            high = self.temp()
            self.emit(f"mul.hi.u64 {high}, {a}, {b};")
            self.emit(f"setp.ne.u64 {p}, {high}, 0;")
            self.fault_if(p)
            self.emit(f"mul.lo.u64 {r}, {a}, {b};")
        return r

    def wrap_to(self, t: IntType, r: str) -> None:
        """Reduce a 64-bit result modulo 2**bits into the canonical form of `t`."""
        if t.bits == 64:
            return
        shift = 64 - t.bits
        if t.signed:
            self.emit(f"shl.b64 {r}, {r}, {shift};")
            self.emit(f"shr.s64 {r}, {r}, {shift};")
        else:
            self.emit(f"and.b64 {r}, {r}, {literal((1 << t.bits) - 1)};")

    def range_test(self, r: str, t: IntType, *, signed_value: bool) -> None:
        """Branch to the fault path unless the 64-bit value in `r` lies in `t`.
        `signed_value`: whether `r` holds a signed (s64) or an unsigned (u64) value."""
        if signed_value:
            if t.min > -(1 << 63):
                p = self.pred()
                self.emit(f"setp.lt.s64 {p}, {r}, {literal(t.min)};")
                self.fault_if(p)
            if t.max < (1 << 63) - 1:
                p = self.pred()
                self.emit(f"setp.gt.s64 {p}, {r}, {literal(t.max)};")
                self.fault_if(p)
            return
        if t.max < M64:  # an unsigned value can cross only the maximum
            p = self.pred()
            self.emit(f"setp.gt.u64 {p}, {r}, {literal(t.max)};")
            self.fault_if(p)

    def expr_Convert(self, e: ir.Convert) -> str:
        if e.form != "checked":
            raise EmitError(f"{e.op_id} at {_at(e)} is not in the gpu-cuda profile")
        source, target = _int_type(e.source, e.op_id), _int_type(e.type, e.op_id)
        value = self.expr(e.value)
        self.comment(f"{e.op_id} {_at(e)}")
        if target.min <= source.min and source.max <= target.max:
            return value  # every value fits: the step counts, nothing to test
        self.range_test(value, target, signed_value=source.signed)
        return value

    def expr_DivRound(self, e: ir.DivRound) -> str:
        t = _int_type(e.type, e.op_id)
        a, b = self.expr(e.left), self.expr(e.right)
        self.comment(f"{e.op_id} {_at(e)}")
        p = self.pred()
        self.emit(f"setp.eq.u64 {p}, {b}, 0;")  # the divisor first, whatever the dividend [IM-124]
        self.fault_if(p)
        kind = "s64" if t.signed else "u64"
        if t.signed and t.bits == 64:  # MIN / -1, before any division
            ok = self.label("divok")
            p = self.pred()
            self.emit(f"setp.ne.s64 {p}, {a}, {literal(t.min)};")
            self.emit(f"@{p} bra {ok};")
            p = self.pred()
            self.emit(f"setp.eq.s64 {p}, {b}, {literal(-1)};")
            self.fault_if(p)
            self.place(ok)
        q, r = self.temp(), self.temp()
        self.divide(q, a, b, kind)  # truncated toward 0
        # The truncated remainder a - q * b, exact modulo 2**64 since |r| < |b|: one
        # division, not two (ptxas calls a subroutine for each 64-bit div or rem).
        self.emit(f"mul.lo.{kind} {r}, {q}, {b};")
        self.emit(f"sub.{kind} {r}, {a}, {r};")
        done = self.label("rounded")
        if e.mode != "trunc":
            p = self.pred()
            self.emit(f"setp.eq.u64 {p}, {r}, 0;")  # exact: nothing to round
            self.emit(f"@{p} bra {done};")
            # s: the step away from zero (+1, or -1 for a negative exact quotient);
            # negative: whether the exact quotient is negative.
            # (An unsigned quotient is never negative.)
            s = self.temp()
            negative = None
            if t.signed:
                x, negative = self.temp(), self.pred()
                self.emit(f"xor.b64 {x}, {a}, {b};")
                self.emit(f"setp.lt.s64 {negative}, {x}, 0;")
                self.emit(f"shr.s64 {s}, {x}, 63;")
                self.emit(f"or.b64 {s}, {s}, 1;")
            else:
                self.emit(f"mov.b64 {s}, 1;")
            mode = e.mode
            if mode == "floor":  # truncation already floors a positive quotient
                if negative is not None:
                    self.emit(f"@!{negative} bra {done};")
                    self.emit(f"add.s64 {q}, {q}, {s};")
            elif mode == "ceil":
                if negative is not None:
                    self.emit(f"@{negative} bra {done};")
                self.emit(f"add.s64 {q}, {q}, {s};")
            elif mode == "away":
                self.emit(f"add.s64 {q}, {q}, {s};")
            elif mode in ("half_even", "half_away", "half_trunc"):
                # Compare |r| with |b| - |r| (no overflow: |r| < |b| <= 2**64 - 1).
                ar, ab = self.magnitude(r, t), self.magnitude(b, t)
                rest = self.temp()
                self.emit(f"sub.u64 {rest}, {ab}, {ar};")
                p = self.pred()
                self.emit(f"setp.lt.u64 {p}, {ar}, {rest};")  # below the half
                self.emit(f"@{p} bra {done};")
                up = self.label("away")
                p = self.pred()
                self.emit(f"setp.gt.u64 {p}, {ar}, {rest};")  # above the half
                self.emit(f"@{p} bra {up};")
                if mode == "half_trunc":  # a tie goes toward zero
                    self.emit(f"bra {done};")
                elif mode == "half_even":  # a tie goes to the even neighbour
                    odd = self.temp()
                    self.emit(f"and.b64 {odd}, {q}, 1;")
                    p = self.pred()
                    self.emit(f"setp.eq.u64 {p}, {odd}, 0;")
                    self.emit(f"@{p} bra {done};")
                self.place(up)
                self.emit(f"add.s64 {q}, {q}, {s};")
            else:
                raise EmitError(f"unknown rounding mode {mode!r}")
        self.place(done)
        if t.bits < 64 and t.signed:
            # Only MIN / -1 leaves the type; it is exact in 64 bits.
            self.range_test(q, t, signed_value=True)
        return q

    def divide(self, q: str, a: str, b: str, kind: str) -> None:
        """q = a / b truncated (b != 0, not MIN / -1), with a 32-bit path when both
        64-bit patterns are below 2**32: then both values are non-negative and fit 32
        bits, so the unsigned 32-bit quotient is the exact one, signed or not (what
        nvcc's front end does for a 64-bit division; ptxas inlines div.u32 and calls a
        subroutine for div.{s,u}64)."""
        wide, done = self.label("div64"), self.label("divided")
        both, p = self.temp(), self.pred()
        self.emit(f"or.b64 {both}, {a}, {b};")
        self.emit(f"shr.u64 {both}, {both}, 32;")
        self.emit(f"setp.ne.u64 {p}, {both}, 0;")
        self.emit(f"@{p} bra {wide};")
        x, y = self.word(), self.word()
        self.emit(f"cvt.u32.u64 {x}, {a};")
        self.emit(f"cvt.u32.u64 {y}, {b};")
        self.emit(f"div.u32 {x}, {x}, {y};")
        self.emit(f"cvt.u64.u32 {q}, {x};")
        self.emit(f"bra {done};")
        self.place(wide)
        self.emit(f"div.{kind} {q}, {a}, {b};")
        self.place(done)

    def magnitude(self, x: str, t: IntType) -> str:
        """|x| as an unsigned 64-bit value (|MIN(I64)| = 2**63 fits)."""
        if not t.signed:
            return x
        mask, r = self.temp(), self.temp()
        self.emit(f"shr.s64 {mask}, {x}, 63;")
        self.emit(f"xor.b64 {r}, {x}, {mask};")
        self.emit(f"sub.u64 {r}, {r}, {mask};")
        return r

    def expr_Load(self, e: ir.Load) -> str:
        param = self._array_param(e.array)
        element = self.k.params[param].type
        size = element_bytes(element)
        indices = [self.expr(i) for i in e.indices]
        self.comment(f"{e.op_id} {_at(e)}")
        self.bounds(param, indices)
        offset = self.param("origin", param)
        for d, index in enumerate(indices):
            term = self.temp()
            self.emit(f"mul.lo.s64 {term}, {index}, {self.param('stride', param, d)};")
            self.emit(f"add.s64 {term}, {offset}, {term};")
            offset = term
        address = self.temp()
        self.emit(f"shl.b64 {address}, {offset}, {size.bit_length() - 1};")
        self.emit(f"add.s64 {address}, {self.param('read', param)}, {address};")
        r = self.temp()
        # Through the non-coherent (read-only) cache: every view is read from the
        # dispatch's copy of its storage, which no work-item writes (outputs are staged
        # apart), so the data is read-only for the whole launch, as .nc requires.
        self.emit(f"ld.global.nc.u{size * 8} {r}, [{address}];")
        if isinstance(element, IntType) and element.signed and element.bits < 64:
            self.wrap_to(element, r)  # sign-extend
        return r

    def bounds(self, param: int, indices: list[str]) -> None:
        """index.checked / store.checked: each index within its extent, in dimension
        order; one unsigned compare also rejects a negative index."""
        for d, index in enumerate(indices):
            p = self.pred()
            self.emit(f"setp.ge.u64 {p}, {index}, {self.param('extent', param, d)};")
            self.fault_if(p)

    def _array_param(self, view: ir.ViewExpr) -> int:
        if not isinstance(view, ir.ArrayVar) or view.slot not in self.param_of_slot:
            raise EmitError(f"a view formed in the body at {view.span.line}:{view.span.column} "
                            "is not in the gpu-cuda profile")
        return self.param_of_slot[view.slot]


def _at(node: ir.Counted) -> str:
    return f"{node.span.line}:{node.span.column}"


def _what(node: object) -> str:
    return type(node).__name__


def emit_module(program: ir.Program, param_space: int = PARAM_SPACE) -> PtxModule:
    """The PTX module of `program`'s kernels, in declaration order. A kernel whose
    parameters need more than `param_space` bytes takes them in an argument block."""
    lines = [
        f"// gpu-cuda device code of the cint module {program.module}",
        "// generated by cint-ls (SPEC-02P.1 10.5); every value in a 64-bit register",
        f".version {PTX_VERSION}",
        f".target {PTX_TARGET}",
        ".address_size 64",
    ]
    kernels: dict[str, KernelCode] = {}
    for name, kernel in program.kernels.items():
        body, code = KernelEmitter(kernel, param_space).emit_kernel()
        lines.append("")
        lines.extend(body)
        kernels[name] = code
    return PtxModule(program.module, "\n".join(lines) + "\n", kernels)


__all__ = ["EmitError", "KernelCode", "PARAM_SPACE", "Param", "PtxModule", "canonical", "element_bytes",
           "SLOT_WORDS", "emit_module", "entry_name", "literal", "minmax_flip", "slot_layout", "slot_words"]
