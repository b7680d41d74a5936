"""The text form of the IR (`cint emit-ir`): deterministic, complete for counted
operations and charge points, and the heat kernel's 28 steps of SPEC-02P.1 11.2 read
straight off it. Structural checks only, no golden file."""

from __future__ import annotations

import re

import pytest
from conftest import CONFORMANCE, conformance_programs

from cint_ls.analysis import check
from cint_ls.ir import lower_program
from cint_ls.ir import nodes as ir
from cint_ls.ir.printer import format_program, format_steps
from cint_ls.ir.walk import walk
from cint_ls.syntax import parse_source

PROGRAMS = [p for p in conformance_programs() if p.stem != "same_c5010"]  # a translation error


def lower(text: str, path: str) -> ir.Program:
    return lower_program(check(parse_source(text, path)))


def emit(name: str) -> str:
    return format_program(lower((CONFORMANCE / f"{name}.ci").read_text(), f"{name}.ci"))


def units(program: ir.Program):
    yield from program.kernels.values()
    yield from program.functions.values()
    yield program.entry


def all_counted(program: ir.Program) -> list[ir.Counted]:
    return [n for u in units(program) for s in u.body for n in walk(s) if isinstance(n, ir.Counted)]


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_deterministic(path):
    text = path.read_text()
    first = format_program(lower(text, path.name))
    second = format_program(lower(text, path.name))
    assert first == second
    assert "\r" not in first and first.endswith("\n") and not first.endswith("\n\n")
    assert " at 0x" not in first and "object" not in first  # no addresses, no reprs


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_every_counted_operation_and_charge_is_shown(path):
    program = lower(path.read_text(), path.name)
    text = format_program(program)
    for op in all_counted(program):
        assert f"{op.op_id}(" in text and f" @{op.span.line}:{op.span.column} " in text, op
    # every call is charged, every loop iteration has its charge line
    nodes = [n for u in units(program) for s in u.body for n in walk(s)]
    calls = [n for n in nodes if isinstance(n, ir.Call)]
    charges = [n for n in nodes if isinstance(n, ir.Charge)]
    assert text.count("call.charge ") == len(calls)
    assert len(re.findall(r"^ *charge @\d+:\d+$", text, re.M)) == len(charges)
    assert text.count("dispatch.charge ") == sum(isinstance(n, ir.Dispatch) for n in nodes)


def test_heat_kernel_shows_the_28_steps_of_11_2():
    text = emit("heat_e1")
    table = text[text.index("steps of heat_e1.diffuse"):].split("\n\n")[0].splitlines()
    assert table[0] == "steps of heat_e1.diffuse: 28 counted operations, in evaluation order"
    rows = [line.split() for line in table[1:]]
    assert len(rows) == 28
    expected_lines = [8, 8, 9, 10, 10] + [11] * 7 + [12] * 10 + [13, 13, 14, 14, 16, 17]
    for step, ((steps, position, _op_id), line) in enumerate(zip(rows, expected_lines)):
        interior = int(re.findall(r"\d+", steps)[-1])  # the interior path: the greatest ordinal
        assert interior == step and int(position.split(":")[0]) == line, rows[step]
    assert rows[22] == ["#22", "13:33", "mul.checked.i64"]  # 11.3 example 1
    assert rows[23] == ["#23", "13:20", "div_round.checked.i64.half_even"]
    assert rows[25] == ["#25", "14:24", "as.checked.i64.i32"]
    assert rows[26] == ["#{3,4,5,26}", "16:6", "store.checked"]  # row 0: the place is step 3
    assert rows[27] == ["#{4,5,6,27}", "17:20", "sum.checked.i32.i64"]  # and the reduce step 4
    # and inline, in the body
    assert "mul.checked.i64(%kn, %lap) @13:33 #22" in text
    assert "store.checked(%v[%y, %x]) @16:6 #{3,4,5,26} = %r" in text
    assert "reduce %total = sum.checked.i32.i64(%r) @17:20 #{4,5,6,27}" in text


def test_heat_structure():
    lines = emit("heat_e1").splitlines()
    assert lines[0] == "module heat_e1"
    heads = [line for line in lines if line and not line[0].isspace() and line[0] not in "{}"]
    assert [h.split()[0] for h in heads] == ["module", "kernel", "steps", "function", "entry"]
    kernel = heads[1]
    assert kernel.startswith("kernel heat_e1.diffuse[%h, %w](in I32[%h, %w] %u, in I64 %kn, in I64 %kd, "
                             "out I32[%h, %w] %v, out I64 %total)")
    i = lines.index(kernel)
    assert lines[i + 1] == "  over [%y: %h, %x: %w]"
    assert lines[i + 2].startswith("  reduce %total: sum of I32 into I64 (sum.checked.i32.i64 @17:20)")
    assert lines[i + 3] == "{"
    body = lines[i + 4:lines.index("}", i)]
    assert [len(line) - len(line.lstrip()) for line in body] == [2, 2, 2, 4, 4, 4, 2, 2, 2]
    assert body[2].startswith("  if ((%y > 0) && (%y < sub.checked.i64(%h, 1) @10:24 #3) && (%x > 0)")
    assert body[3].startswith("    %lap = sub.checked.i64(add.checked.i64(")
    assert "  dispatch.charge diffuse(%a, 2305843009213693952, 9223372036854775807, %b, out %total) @25:5" in lines
    assert lines[-3:] == ["entry heat_e1 {", "  call.charge step() @29:1", "}"]


def test_budget_charges_and_dynamic_steps():
    text = emit("budget")
    loop = text[text.index("  for %j in 0..10 {"):]
    assert loop.splitlines()[1:4] == ["    charge @3:5", "    %acc = add.checked.i64(%acc, 1) @4:19 #?", "  }"]
    assert "%acc = index.checked(%a[%i]) @2:16 #0" in text
    assert "store.checked(%r[%i]) @6:6 #? = %acc" in text
    assert "return call.charge run() @18:12" in text
    assert "call.charge go() @21:1" in text
    assert "dispatch.charge count_up(%a, %r) @13:5" in text


def test_format_steps():
    assert format_steps((22,)) == "#22"
    assert format_steps((3, 4, 5, 26)) == "#{3,4,5,26}"
    assert format_steps(None) == "#?"
    assert format_steps(()) == "#{}"


SAMPLE = """\
kernel k[n](in I64[n + 1] a, in I64[n, 2] m, I64 q, out I64[n] r, out I64 s) over [i: n] where n > 0 {
    I64 t = a[i];
    if (!(t > q) || a[i + 1] < q) { t = t * 2; }
    switch (q) { case 1: t = t + 1; case -2: t = -t; default: }
    if (t > 0) { I64 u = t - 1; t = u; } else { I64 u = t + m[i, 1]; t = u; }
    r[i] = t;
    reduce s = fold_checked(add, 7, t);
}

I64 twice(I64 v) {
    Q16.16 f = 1.25;
    I64 c = 0;
    while (c < v) { c = c + 1; if (c > 5) { break; } }
    return c * 2;
}

void go() {
    I64[3] a = [1, 2, 3];
    I64[2, 2] m;
    I64[2] r;
    I64 s = 0;
    k(reverse(a[1..3], 0), transpose(m), twice(1), r, s);
    "{s} \\{x\\}\\n";
}
go();
"""


def test_constructs():
    checked = check(parse_source(SAMPLE, "sample.ci"))
    assert not checked.has_errors, checked.diagnostics
    text = format_program(lower_program(checked))
    for fragment in [
        "kernel sample.k[%n](in I64[%n + 1] %a, in I64[%n, 2] %m, in I64 %q, out I64[%n] %r, out I64 %s)",
        "  where %n > 0",
        "  reduce %s: fold_checked of I64 into I64 from 7 (fold_checked.add.i64 @7:16)",
        "  if (!(%t > %q) || (index.checked(%a[add.checked.i64(%i, 1) @3:25 #1]) @3:22 #2 < %q)) {",
        "    %t = mul.checked.i64(%t, 2) @3:43 #{1,3}",
        "  switch %q {\n  case 1:\n    %t = add.checked.i64(%t, 1) @4:32 #{2,3,4}\n  case -2:\n"
        "    %t = neg.checked.i64(%t) @4:50 #{2,3,4}\n",
        "  default:\n  }",
        "    %u.8 = sub.checked.i64(%t, 1) @5:28 #{2,3,4,5}",  # two slots named u
        "    %u.9 = add.checked.i64(%t, index.checked(%m[%i, 1]) @5:62 #{2,3,4,5}) @5:59 #{3,4,5,6}",
        "reduce %s = fold_checked.add.i64(7, %t) @7:16 #{4,5,6,7,8}",
        "function sample.twice(%v: I64) -> I64 @10:5 {",
        "  %f = 1.25:Q16.16",
        "  while (%c < %v) {\n    charge @13:5\n    %c = add.checked.i64(%c, 1) @13:27 #?\n",
        "      break\n",
        "  %a = array I64[3] = [1, 2, 3]",
        "dispatch.charge k(reverse(%a[1..3], 0), transpose(%m), call.charge twice(1) @22:42, %r, out %s) @22:5",
        '  print "{%s} \\{x\\}\\n"',
    ]:
        assert fragment in text, fragment
    assert "%t." not in text and "%a." not in text  # disambiguated only where names clash
