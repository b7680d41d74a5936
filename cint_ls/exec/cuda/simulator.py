"""The simulated device: it executes the PTX that `ptx.py` emits, so that gpu-cuda runs
and is tested where there is no GPU (issue 6, item 4).

It understands exactly the subset of PTX the emitter writes, and refuses anything else
(`SimulatorError`), so a test run on it also checks that the emitter stays inside that
subset. Each entry is parsed once and translated to one Python function per entry;
a basic block becomes a guarded section of a `while` loop and a register a local
variable holding its bit pattern (a 64-bit register: an int in [0, 2**64); a predicate:
a bool). The semantics are those of the PTX ISA for each instruction:

    mov.u32 (special registers %ctaid.x %ntid.x %tid.x), mov.b64, mov.u64,
    mul.wide.u32, cvt.u64.u32, cvt.u32.u64, mul.lo.u32, sub.u32, div.u32, add/sub.{s64,u64}, mul.lo.{s64,u64}, mul.hi.{s64,u64},
    div/rem.{s64,u64}, and/or/xor.b64, shl.b64, shr.{s64,u64}, setp.CMP.{s64,u64},
    selp.b64, ld.param.u64, ld.global[.nc].u{8,16,32,64}, ld.volatile.global.u{8,64},
    st.global.u{8,16,32,64}, atom.global.min.u64, red.global.{add,max}.u64, membar.gl, bra, ret.

A division by zero or an overflowing signed division, whose PTX result is unspecified,
stops the launch with a `DeviceError` (the emitter tests for both first, so it never
happens), as does an access outside every allocation, a misaligned access or a read of
a register never written.

Schedules. The subset has no barrier and no shared memory, so running threads one at a
time, each to completion, is a legal schedule: blocks, and the threads of each block, run
in the chosen order, `ascending`, `descending`, or `shuffled` by a seed. Such schedules
cannot reveal a race: with the early exit on the fault word, even a plain store in
place of `atom.global.min.u64` leaves the least faulting index. The interleaving
schedules, `interleaved` (seeded random) and `adversarial` (every read before any write),
run all the threads of a launch together, each translated a second time as a generator
that stops before every global memory access (`ld.global`, `st.global`, `atom`, `red`), and
advance them one access at a time (`SimulatedDevice._interleave`): a non-atomic fault
word, a lost update or a read of another work-item's staging then changes the outcome.
Each access itself is indivisible, as an aligned access of at most 8 bytes is on a GPU.
A read of the fault word (`ld.volatile`, at a work-item's start and every
`ptx.POLL_CHARGES` charges of a loop) is a point of its own (2): the adversarial schedule
takes it with the writes, so a thread that loops on cannot keep the others from writing.
An entry with a loop runs on the run-to-completion schedules as a generator that stops
at those reads, set aside after `POLL_QUANTUM` of them and resumed after the others
(`_run_polled`), so that a work-item that loops for ever above a fault stops, as on a
GPU, where it runs beside the work-item that faults (issue 28).
"""

from __future__ import annotations

import bisect
import random
import re
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from .device import INTERLEAVING, ORDERS, Device, DeviceError, Function, Module

M64 = (1 << 64) - 1

# A thread of an entry, translated to Python and compiled by `exec` (`_compile`): called
# with the parameters, the block, the block size, the thread and the memory's closures
# (`Memory`); the interleaved and polled translations give a generator.
Thread = Callable[..., Any]
# A launch's global memory (SimMemory.accessors: load, store, atom_min, red) and helpers
# (_sdiv, _srem, _trap), as a thread is given them.
Accessors = tuple[Callable[[int, int], int], Callable[[int, int, int], None], Callable[[int, int], int],
                  Callable[[str, int, int], None]]
Memory = tuple[Callable[..., Any], ...]
SIGN = 1 << 63
MIN64 = -(1 << 63)
_TARGET = "sm_52"


_STRIDES = (0, 1, 1, 1, 2, 3)  # accesses a thread makes in a round of the `interleaved` schedule


class SimulatorError(DeviceError):
    """PTX outside the simulated subset, or an operation whose result PTX leaves
    unspecified: the launch stops."""


# ------------------------------------------------------------------ parsing


@dataclass
class Instruction:
    guard: str | None  # predicate register, or None
    negate: bool
    opcode: str  # "add.s64"
    operands: list[str]
    line: int


@dataclass
class Entry:
    name: str
    params: list[str]
    registers: list[str]  # every register name declared (after expanding %t<N>)
    code: list[Instruction | str]  # instructions and labels (str)


_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_ENTRY = re.compile(r"\.visible\s+\.entry\s+([A-Za-z_$][\w$]*)\s*\((.*?)\)\s*\{(.*?)\n\}", re.S)
_PARAM = re.compile(r"\.param\s+\.u64\s+([A-Za-z_$][\w$]*)")
_REG_DECL = re.compile(r"\.reg\s+\.(pred|b32|b64)\s+(.*)")
_LABEL = re.compile(r"^(\$?[A-Za-z_][\w$]*):$")
_GUARD = re.compile(r"^@(!?)(%\w+)\s+(.*)$")


def parse_module(text: str) -> dict[str, Entry]:
    """The entries of a PTX module of the emitted subset."""
    clean = _COMMENT.sub("", text)
    header = clean.split(".visible", 1)[0]
    directives = {}
    for line in header.splitlines():
        parts = line.split()
        if parts:
            directives[parts[0]] = parts[1:]
    if directives.get(".version") != ["6.0"] or directives.get(".target") != [_TARGET] \
            or directives.get(".address_size") != ["64"]:
        raise SimulatorError("the simulated device runs PTX 6.0 for sm_52 with 64-bit addresses only")
    entries: dict[str, Entry] = {}
    for match in _ENTRY.finditer(clean):
        name, params_text, body = match.groups()
        params = _PARAM.findall(params_text)
        registers: list[str] = []
        code: list[Instruction | str] = []
        line_base = clean.count("\n", 0, match.start(3))
        for offset, raw in enumerate(body.split("\n")):
            line = raw.strip()
            if not line:
                continue
            number = line_base + offset + 1
            label = _LABEL.match(line)
            if label:
                code.append(label.group(1))
                continue
            if not line.endswith(";"):
                raise SimulatorError(f"line {number}: not a PTX statement of the emitted subset: {line}")
            line = line[:-1].strip()
            decl = _REG_DECL.match(line)
            if decl:
                registers.extend(_expand_registers(decl.group(2)))
                continue
            guard, negate = None, False
            g = _GUARD.match(line)
            if g:
                negate, guard, line = g.group(1) == "!", g.group(2), g.group(3)
            opcode, _, rest = line.partition(" ")
            operands = _split_operands(rest)
            code.append(Instruction(guard, negate, opcode, operands, number))
        entries[name] = Entry(name, params, registers, code)
    if not entries:
        raise SimulatorError("the PTX module has no entry")
    return entries


def _expand_registers(text: str) -> list[str]:
    names: list[str] = []
    for part in text.split(","):
        part = part.strip()
        m = re.fullmatch(r"(%\w+)<(\d+)>", part)
        if m:
            names.extend(f"{m.group(1)}{k}" for k in range(int(m.group(2))))
        else:
            names.append(part)
    return names


def _split_operands(text: str) -> list[str]:
    out, depth, current = [], 0, ""
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        out.append(current.strip())
    return out


# ------------------------------------------------------------------ translation

_SPECIAL = {"%ctaid.x": "ctaid", "%ntid.x": "ntid", "%tid.x": "tid"}
_CMP = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


def signed(x: str) -> str:
    """The expression of the signed value of a 64-bit pattern."""
    return f"(({x} ^ {SIGN:#x}) - {SIGN:#x})"


class _Translator:
    def __init__(self, entry: Entry, interleave: bool = False, polls: bool = False) -> None:
        self.entry = entry
        self.registers = set(entry.registers)
        self.params = set(entry.params)
        # True: the thread is a generator that yields before every global memory access
        # (0 before a load, 1 before a store or an atomic, 2 before a read of the fault
        # word, `ld.volatile`), so a scheduler can interleave the threads of a launch at
        # each of them.
        self.interleave = interleave
        # True: a generator that yields (2) only before each read of the fault word, so
        # that a run-to-completion schedule can set aside a thread that loops on.
        self.polls = polls

    def reg(self, name: str) -> str:
        if name in _SPECIAL:
            return _SPECIAL[name]
        if name not in self.registers:
            raise SimulatorError(f"{self.entry.name}: register {name} is not declared")
        return "R_" + name[1:]

    def value(self, operand: str) -> str:
        """A source operand: a register or an integer immediate (its 64-bit pattern)."""
        if operand.startswith("%"):
            return self.reg(operand)
        try:
            number = int(operand, 0)
        except ValueError:
            raise SimulatorError(f"{self.entry.name}: operand {operand!r} is not in the simulated subset") from None
        return str(number & M64)

    def shift(self, operand: str) -> str:
        """A shift count: PTX clamps counts above 64 (the emitter writes immediates)."""
        if operand.startswith("%"):
            return f"min({self.reg(operand)}, 64)"
        return str(min(int(operand, 0), 64))

    def address(self, operand: str) -> str:
        m = re.fullmatch(r"\[(%\w+)(?:\+(\d+))?\]", operand)
        if not m:
            raise SimulatorError(f"{self.entry.name}: address {operand!r} is not in the simulated subset")
        base = self.reg(m.group(1))
        return f"({base} + {m.group(2)})" if m.group(2) else base

    def point(self, kind: int) -> list[str]:
        """A scheduling point before a global memory access (interleaving only; a read
        of the fault word, kind 2, also for `polls`)."""
        return [f"yield {kind}"] if self.interleave or (self.polls and kind == 2) else []

    def translate(self, ins: Instruction, labels: dict[str, int]) -> list[str]:
        op, a = ins.opcode, ins.operands
        parts = op.split(".")
        head = parts[0]
        s = self.value
        code: list[str]

        def need(n: int) -> None:
            if len(a) != n:
                raise SimulatorError(f"{self.entry.name}: line {ins.line}: {op} takes {n} operands")

        if op == "bra":
            need(1)
            if a[0] not in labels:
                raise SimulatorError(f"{self.entry.name}: line {ins.line}: no label {a[0]}")
            code = [f"pc = {labels[a[0]]}", "continue"]
        elif op == "ret":
            need(0)
            code = ["return"]
        elif op == "mov.u32":
            need(2)
            if a[1] not in _SPECIAL:
                raise SimulatorError(f"{self.entry.name}: line {ins.line}: mov.u32 reads only "
                                     "%ctaid.x, %ntid.x, %tid.x")
            code = [f"{self.reg(a[0])} = {_SPECIAL[a[1]]}"]
        elif op in ("mov.b64", "mov.u64"):
            need(2)
            code = [f"{self.reg(a[0])} = {s(a[1])}"]
        elif op == "mul.wide.u32":
            need(3)
            code = [f"{self.reg(a[0])} = ({s(a[1])} & 0xFFFFFFFF) * ({s(a[2])} & 0xFFFFFFFF)"]
        elif op in ("cvt.u64.u32", "cvt.u32.u64"):
            need(2)
            code = [f"{self.reg(a[0])} = {s(a[1])} & 0xFFFFFFFF"]
        elif op in ("mul.lo.u32", "sub.u32"):
            need(3)
            sym = "*" if head == "mul" else "-"
            code = [f"{self.reg(a[0])} = ({s(a[1])} {sym} {s(a[2])}) & 0xFFFFFFFF"]
        elif op == "div.u32":
            need(3)
            code = [f"if ({s(a[2])} & 0xFFFFFFFF) == 0: trap('{op} by zero')",
                    f"{self.reg(a[0])} = ({s(a[1])} & 0xFFFFFFFF) // ({s(a[2])} & 0xFFFFFFFF)"]
        elif op in ("add.s64", "add.u64"):
            need(3)
            code = [f"{self.reg(a[0])} = ({s(a[1])} + {s(a[2])}) & {M64:#x}"]
        elif op in ("sub.s64", "sub.u64"):
            need(3)
            code = [f"{self.reg(a[0])} = ({s(a[1])} - {s(a[2])}) & {M64:#x}"]
        elif op in ("mul.lo.s64", "mul.lo.u64"):
            need(3)
            code = [f"{self.reg(a[0])} = ({s(a[1])} * {s(a[2])}) & {M64:#x}"]
        elif op == "mul.hi.u64":
            need(3)
            code = [f"{self.reg(a[0])} = ({s(a[1])} * {s(a[2])}) >> 64"]
        elif op == "mul.hi.s64":
            need(3)
            code = [f"{self.reg(a[0])} = ({signed(s(a[1]))} * {signed(s(a[2]))} >> 64) & {M64:#x}"]
        elif op in ("div.u64", "rem.u64"):
            need(3)
            fn = "//" if head == "div" else "%"
            code = [f"if {s(a[2])} == 0: trap('{op} by zero')",
                    f"{self.reg(a[0])} = {s(a[1])} {fn} {s(a[2])}"]
        elif op in ("div.s64", "rem.s64"):
            need(3)
            code = [f"{self.reg(a[0])} = {'sdiv' if head == 'div' else 'srem'}({s(a[1])}, {s(a[2])})"]
        elif op in ("and.b64", "or.b64", "xor.b64"):
            need(3)
            sym = {"and": "&", "or": "|", "xor": "^"}[head]
            code = [f"{self.reg(a[0])} = {s(a[1])} {sym} {s(a[2])}"]
        elif op == "shl.b64":
            need(3)
            code = [f"{self.reg(a[0])} = ({s(a[1])} << {self.shift(a[2])}) & {M64:#x}"]
        elif op == "shr.u64":
            need(3)
            code = [f"{self.reg(a[0])} = {s(a[1])} >> {self.shift(a[2])}"]
        elif op == "shr.s64":
            need(3)
            code = [f"{self.reg(a[0])} = ({signed(s(a[1]))} >> {self.shift(a[2])}) & {M64:#x}"]
        elif head == "setp" and len(parts) == 3 and parts[1] in _CMP and parts[2] in ("s64", "u64"):
            need(3)
            x, y = s(a[1]), s(a[2])
            if parts[2] == "s64":
                x, y = signed(x), signed(y)
            if not a[0].startswith("%p"):
                raise SimulatorError(f"{self.entry.name}: line {ins.line}: setp writes a predicate")
            code = [f"{self.reg(a[0])} = {x} {_CMP[parts[1]]} {y}"]
        elif op == "selp.b64":
            need(4)
            code = [f"{self.reg(a[0])} = {s(a[1])} if {self.reg(a[3])} else {s(a[2])}"]
        elif op == "membar.gl":
            need(0)  # every access of the simulated device is seen at once, in order
            code = ["pass"]
        elif op == "ld.param.u64":
            need(2)
            name = a[1].strip("[]")
            if name not in self.params:
                raise SimulatorError(f"{self.entry.name}: line {ins.line}: no parameter {name}")
            code = [f"{self.reg(a[0])} = P[{name!r}]"]
        elif op in ("ld.global.u8", "ld.global.u16", "ld.global.u32", "ld.global.u64", "ld.volatile.global.u64",
                    "ld.volatile.global.u8",
                    "ld.global.nc.u8", "ld.global.nc.u16", "ld.global.nc.u32", "ld.global.nc.u64"):
            need(2)
            size = int(parts[-1][1:]) // 8
            kind = 2 if parts[1] == "volatile" else 0
            code = self.point(kind) + [f"{self.reg(a[0])} = load({self.address(a[1])}, {size})"]
        elif op in ("st.global.u8", "st.global.u16", "st.global.u32", "st.global.u64"):
            need(2)
            size = int(parts[-1][1:]) // 8
            code = self.point(1) + [f"store({self.address(a[0])}, {size}, {s(a[1])} & {(1 << (8 * size)) - 1})"]
        elif op == "atom.global.min.u64":
            need(3)
            code = self.point(1) + [f"{self.reg(a[0])} = atom_min({self.address(a[1])}, {s(a[2])})"]
        elif op in ("red.global.add.u64", "red.global.max.u64"):
            need(2)
            code = self.point(1) + [f"red({parts[2]!r}, {self.address(a[0])}, {s(a[1])})"]
        else:
            raise SimulatorError(f"{self.entry.name}: line {ins.line}: {op} is not in the simulated PTX subset")
        if ins.guard is not None:
            guard = self.reg(ins.guard)
            test = f"not {guard}" if ins.negate else guard
            if len(code) == 1:
                return [f"if {test}: {code[0]}"]
            return [f"if {test}:"] + ["    " + c for c in code]
        return code

    def function_source(self) -> str:
        entry = self.entry
        # Basic blocks: a label starts one; a branch or ret ends one.
        blocks: list[list[Instruction]] = [[]]
        labels: dict[str, int] = {}
        for item in entry.code:
            if isinstance(item, str):
                if blocks[-1]:
                    blocks.append([])
                labels[item] = len(blocks) - 1
            else:
                blocks[-1].append(item)
                if item.opcode in ("bra", "ret") and item.guard is None:
                    blocks.append([])
        lines = ["def thread(P, ctaid, ntid, tid, load, store, atom_min, red, sdiv, srem, trap):",
                 "    pc = 0"]
        if self.interleave or self.polls:
            lines.append("    if False: yield 0  # a generator even without a global access")
        lines.append("    while True:")
        for k, block in enumerate(blocks):
            lines.append(f"        if pc <= {k}:")
            lines.append("            pass")
            for ins in block:
                for statement in self.translate(ins, labels):
                    lines.append("            " + statement)
        lines.append("        return")
        return "\n".join(lines) + "\n"


def _sdiv(a: int, b: int) -> int:
    x, y = (a ^ SIGN) - SIGN, (b ^ SIGN) - SIGN
    if y == 0 or (x == MIN64 and y == -1):
        _trap("div.s64 by zero or of MIN by -1")
    q = abs(x) // abs(y)
    return (q if (x < 0) == (y < 0) else -q) & M64


def _srem(a: int, b: int) -> int:
    x, y = (a ^ SIGN) - SIGN, (b ^ SIGN) - SIGN
    if y == 0 or (x == MIN64 and y == -1):
        _trap("rem.s64 by zero or of MIN by -1")
    r = abs(x) % abs(y)
    return (r if x >= 0 else -r) & M64


def _trap(what: str) -> None:
    raise SimulatorError(f"the simulated device stopped: {what} (the PTX result is unspecified)")


class SimFunction(Function):
    """An entry translated to Python: `thread` runs one thread to completion;
    `steps` (translated on first use) is the same code as a generator that yields
    before every global memory access, for the interleaving schedules."""

    def __init__(self, entry: Entry) -> None:
        self.entry = entry
        self.name = entry.name
        self.params = entry.params
        self.source = _Translator(entry).function_source()
        self.thread = _compile(self.source, entry.name)
        self._steps: Thread | None = None
        self.max_threads = thread_limit(entry)
        # An entry with a loop (a branch back) may run for ever in a work-item above a
        # fault: the run-to-completion schedules run it as `polled` (see `launch`).
        self.loops = _branches_back(entry)
        self._polled: Thread | None = None

    @property
    def polled(self) -> Thread:
        """The thread as a generator that stops before each read of the fault word."""
        if self._polled is None:
            self._polled = _compile(_Translator(self.entry, polls=True).function_source(), self.entry.name)
        return self._polled

    @property
    def steps(self) -> Thread:
        if self._steps is None:
            self._steps = _compile(_Translator(self.entry, interleave=True).function_source(), self.entry.name)
        return self._steps


def _branches_back(entry: Entry) -> bool:
    """Whether a branch of the entry goes to a label placed before it (a loop)."""
    seen: set[str] = set()
    for item in entry.code:
        if isinstance(item, str):
            seen.add(item)
        elif item.opcode == "bra" and item.operands and item.operands[0] in seen:
            return True
    return False


REGISTER_FILE = 65536  # 32-bit registers of a multiprocessor, sm_52 to sm_90
MAX_REGISTERS = 255  # ptxas's ceiling per thread


def thread_limit(entry: Entry) -> int:
    """The simulated device's CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK of an entry, by a
    model (README.md, "Threads per block"): the entry's registers are 2 per 64-bit and 1
    per 32-bit register it declares, plus 2, at most 255, rounded up to 8; the limit is
    the register file over that, in whole warps of 32, at most 1024. PTX's virtual
    registers overstate what ptxas allocates, so the model's limit is at most a GPU's."""
    count = 2
    for name in entry.registers:
        count += 0 if name.startswith("%p") else 1 if name.startswith("%r") else 2
    count = (min(count, MAX_REGISTERS) + 7) // 8 * 8
    return max(32, min(1024, REGISTER_FILE // count // 32 * 32))


def _compile(source: str, name: str) -> Thread:
    namespace: dict[str, Any] = {}
    exec(compile(source, f"<ptx {name}>", "exec"), namespace)
    thread: Thread = namespace["thread"]
    return thread


class SimModule(Module):
    def __init__(self, text: str) -> None:
        self.entries = parse_module(text)
        self.functions = {name: SimFunction(entry) for name, entry in self.entries.items()}
        self.thread_limit: int | None = None  # SimulatedDevice(thread_limit=...): every entry's, for tests

    def function(self, name: str) -> Function:
        try:
            function = self.functions[name]
        except KeyError:
            raise DeviceError(f"CUDA_ERROR_NOT_FOUND: the module has no entry {name}") from None
        if self.thread_limit is not None:
            function.max_threads = self.thread_limit
        return function


# ------------------------------------------------------------------ memory


class SimMemory:
    """Global memory: allocations at distinct, 256-byte aligned addresses with gaps."""

    def __init__(self) -> None:
        self.bases: list[int] = []
        self.buffers: dict[int, bytearray] = {}
        self.next = 0x7000_0000_0000
        self.limit: int | None = None  # bytes, for tests of an allocation failure
        self.in_use = 0

    def alloc(self, nbytes: int) -> int:
        nbytes = max(1, nbytes)
        if self.limit is not None and self.in_use + nbytes > self.limit:
            raise DeviceError("CUDA_ERROR_OUT_OF_MEMORY: out of memory (simulated device)")
        base = self.next
        self.next += (nbytes + 255) // 256 * 256 + 256
        bisect.insort(self.bases, base)
        self.buffers[base] = bytearray(nbytes)
        self.in_use += nbytes
        return base

    def free(self, address: int) -> None:
        buffer = self.buffers.pop(address, None)
        if buffer is None:
            raise DeviceError(f"CUDA_ERROR_INVALID_VALUE: no allocation at 0x{address:x}")
        self.bases.remove(address)
        self.in_use -= len(buffer)

    def find(self, address: int, size: int) -> tuple[bytearray, int]:
        k = bisect.bisect_right(self.bases, address) - 1
        if k >= 0:
            base = self.bases[k]
            buffer = self.buffers[base]
            offset = address - base
            if offset + size <= len(buffer):
                return buffer, offset
        raise DeviceError(f"CUDA_ERROR_ILLEGAL_ADDRESS: an access of {size} bytes at 0x{address:x} "
                          "outside every allocation (simulated device)")

    def accessors(self) -> Accessors:
        """Fast `load`, `store`, `atom_min` and `red` closures for one launch (`red(op,
        address, value)`: the atomic reduction red.global.{add,max}.u64, no result)."""
        find = self.find
        cache: tuple[int, int, bytearray] = (0, 0, bytearray())  # base, end, buffer of the last allocation touched

        def locate(address: int, size: int) -> tuple[bytearray, int]:
            nonlocal cache
            if address % size:
                raise DeviceError(f"CUDA_ERROR_MISALIGNED_ADDRESS: {size}-byte access at 0x{address:x} "
                                  "(simulated device)")
            base, end, buffer = cache
            if base <= address and address + size <= end:
                return buffer, address - base
            buffer, offset = find(address, size)
            cache = (address - offset, address - offset + len(buffer), buffer)
            return buffer, offset

        def load(address: int, size: int) -> int:
            buffer, offset = locate(address, size)
            return int.from_bytes(buffer[offset:offset + size], "little")

        def store(address: int, size: int, value: int) -> None:
            buffer, offset = locate(address, size)
            buffer[offset:offset + size] = value.to_bytes(size, "little")

        def atom_min(address: int, value: int) -> int:
            buffer, offset = locate(address, 8)
            old = int.from_bytes(buffer[offset:offset + 8], "little")
            if value < old:
                buffer[offset:offset + 8] = value.to_bytes(8, "little")
            return old

        def red(op: str, address: int, value: int) -> None:
            buffer, offset = locate(address, 8)
            old = int.from_bytes(buffer[offset:offset + 8], "little")
            new = (old + value) & M64 if op == "add" else max(old, value)
            buffer[offset:offset + 8] = new.to_bytes(8, "little")

        return load, store, atom_min, red


# ------------------------------------------------------------------ the device


POLL_QUANTUM = 64  # reads of the fault word a polled thread makes before it is set aside


def _advance(thread: Iterator[object]) -> bool:
    """Run a polled thread for one quantum: True when it has ended."""
    for _ in range(POLL_QUANTUM):
        try:
            next(thread)
        except StopIteration:
            return True
    return False


class SimulatedDevice(Device):
    """The simulated device. `order` and `seed` choose the schedule; `fail_launch`
    (a launch number from 0) and `memory_limit` make it fail like a driver, for tests;
    `after_launch`, if given, is called with the device after every launch (tests use it
    to play a defective device)."""

    simulated = True

    def __init__(self, order: str = "ascending", seed: int = 0, *, fail_launch: int | None = None,
                 memory_limit: int | None = None, after_launch: Callable[[SimulatedDevice], object] | None = None,
                 thread_limit: int | None = None) -> None:
        if order not in ORDERS:
            raise ValueError(f"unknown order {order!r} (one of {', '.join(ORDERS)})")
        self.order = order
        self.seed = seed
        self.memory = SimMemory()
        self.memory.limit = memory_limit
        self.fail_launch = fail_launch
        self.after_launch = after_launch
        self.thread_limit = thread_limit  # every entry's threads per block, in place of the model (tests)
        self.launches = 0  # launches started, for tests
        self.threads_run = 0
        self.description = "the simulated device" + ("" if order == "ascending" else f", {order} order"
                                                    + (f" (seed {seed})" if order in ("shuffled", "interleaved")
                                                       else ""))

    def load(self, ptx: str) -> Module:
        module = SimModule(ptx)
        if self.thread_limit is not None:
            module.thread_limit = self.thread_limit
        return module

    def alloc(self, nbytes: int) -> int:
        return self.memory.alloc(nbytes)

    def free(self, address: int) -> None:
        self.memory.free(address)

    def upload(self, address: int, data: bytes | bytearray | memoryview) -> None:
        data = bytes(data)
        buffer, offset = self.memory.find(address, max(len(data), 1)) if data else (None, 0)
        if buffer is not None:
            buffer[offset:offset + len(data)] = data

    def download(self, address: int, nbytes: int) -> bytes:
        if nbytes == 0:
            return b""
        buffer, offset = self.memory.find(address, nbytes)
        return bytes(buffer[offset:offset + nbytes])

    def fill(self, address: int, byte: int, nbytes: int) -> None:
        if nbytes:
            buffer, offset = self.memory.find(address, nbytes)
            buffer[offset:offset + nbytes] = bytes([byte]) * nbytes

    def _order(self, count: int, rng: random.Random | None) -> list[int] | range:
        if self.order == "ascending":
            return range(count)
        if self.order == "descending":
            return range(count - 1, -1, -1)
        items = list(range(count))
        assert rng is not None
        rng.shuffle(items)
        return items

    def _interleave(self, steps: Thread, P: dict[str, int], grid: int, block: int, memory: Memory,
                    rng: random.Random) -> None:
        """Every thread of the launch at once, each a generator stopped before its next
        global memory access (0: a load, 1: a store or an atomic), advanced one access at
        a time by the schedule:

        - `interleaved`: in rounds; in each, every live thread, in an order drawn by the
          seeded generator, makes 0, 1, 2 or 3 accesses (drawn too). Threads keep
          roughly in step, as the threads of a warp do, so two of them on the same path
          overlap their read and write of one word, and they drift apart by random
          amounts, so any two accesses of different threads can come in either order;
        - `adversarial`: loads go first, each thread's until it waits at a store or an
          atomic; then every waiting thread makes its one write, in ascending order of
          thread (the highest index writes last), and so on. Every thread reads before
          any other writes, so a read-modify-write that is not atomic loses all but the
          last (highest) writer's update, and a read of another work-item's staging
          sees the value before it was written.
        """
        live: list[list[Any]] = []  # [generator, kind of its next access], ascending thread index
        for b in range(grid):
            for t in range(block):
                thread = steps(P, b, block, t, *memory)
                try:
                    live.append([thread, next(thread)])  # up to its first access
                except StopIteration:
                    pass
        if self.order == "interleaved":
            while live:
                rng.shuffle(live)
                for waiting in live:
                    for _ in range(rng.choice(_STRIDES)):
                        try:
                            waiting[1] = next(waiting[0])  # the access, then up to the next one
                        except StopIteration:
                            waiting[1] = None
                            break
                live = [w for w in live if w[1] is not None]
            return
        while live:
            for waiting in live:  # every load that can go, before any write
                while waiting[1] == 0:
                    try:
                        waiting[1] = next(waiting[0])
                    except StopIteration:
                        waiting[1] = None
            live = [w for w in live if w[1] is not None]
            for waiting in live:  # one write each, the highest index last
                try:
                    waiting[1] = next(waiting[0])
                except StopIteration:
                    waiting[1] = None
            live = [w for w in live if w[1] is not None]

    def _run_polled(self, polled: Thread, P: dict[str, int], grid: int, block: int, memory: Memory,
                    rng: random.Random | None) -> None:
        """The run-to-completion schedule of an entry with loops, made fair: each thread
        in the chosen order runs to its end or until it has read the fault word
        POLL_QUANTUM times (a loop that goes on: each read is one every
        ptx.POLL_CHARGES charges); such a thread is set aside and resumed, round robin,
        after the others. A GPU runs the threads of a launch side by side, so a work-item
        that loops for ever cannot keep a lower one from faulting and publishing the
        fault that stops it; a schedule that ran it to completion first would never end.
        A launch whose loops all end within a quantum is run exactly in the order."""
        waiting: deque[Iterator[object]] = deque()
        for b in self._order(grid, rng):
            for t in self._order(block, rng):
                thread = polled(P, b, block, t, *memory)
                if not _advance(thread):
                    waiting.append(thread)
        while waiting:
            thread = waiting.popleft()
            if not _advance(thread):
                waiting.append(thread)

    def launch(self, function: Function, grid: int, block: int, params: list[int]) -> None:
        assert isinstance(function, SimFunction)
        number = self.launches
        self.launches += 1
        if self.fail_launch is not None and number == self.fail_launch:
            raise DeviceError("CUDA_ERROR_LAUNCH_TIMEOUT: the launch timed out and was terminated "
                              "(simulated device)")
        if not 1 <= block <= self.max_block or not 1 <= grid <= self.max_grid:
            raise DeviceError(f"CUDA_ERROR_INVALID_VALUE: a grid of {grid} blocks of {block} threads")
        if block > function.max_threads:  # as a GPU refuses it: the host checks first (gpu_host.c; the oracle's oracle/machine.py)
            raise DeviceError(f"CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: {block} threads per block of {function.name}, "
                              f"which runs at most {function.max_threads} (simulated device)")
        if len(params) != len(function.params):
            raise DeviceError(f"CUDA_ERROR_INVALID_VALUE: {len(params)} parameters for {function.name}, "
                              f"which takes {len(function.params)}")
        P = {name: value & M64 for name, value in zip(function.params, params)}
        accessors = self.memory.accessors()
        thread = function.thread
        rng = random.Random(self.seed * 1_000_003 + number) if self.order == "shuffled" else None
        try:
            if self.order in INTERLEAVING:
                rng = random.Random(self.seed * 1_000_003 + number)
                self._interleave(function.steps, P, grid, block, (*accessors, _sdiv, _srem, _trap), rng)
            elif function.loops:
                self._run_polled(function.polled, P, grid, block, (*accessors, _sdiv, _srem, _trap), rng)
            else:
                for b in self._order(grid, rng):
                    for t in self._order(block, rng):
                        thread(P, b, block, t, *accessors, _sdiv, _srem, _trap)
            self.threads_run += grid * block
        except DeviceError:
            raise
        except (NameError, UnboundLocalError) as error:
            raise SimulatorError(f"the simulated device stopped in {function.name}: a register read before it "
                                 f"was written ({error})") from None
        if self.after_launch is not None:
            self.after_launch(self)
