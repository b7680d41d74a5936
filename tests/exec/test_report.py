"""Tests of fault reports, cint_ls.running.report (LANGUAGE.md "Reports", SPEC-02P.1 5.6).

Each conformance case builds the FaultRecord by hand and checks the rendered report
against the example's .out file: every line that is not `...` must match exactly and in
order, a `...` line standing for zero or more lines (LANGUAGE.md "Conformance files").
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from cint_ls.analysis.types import I32, I64, FixedType
from cint_ls.exec.faults import Address, FaultRecord, StackFrame, ViewDescriptor
from cint_ls.running.report import format_view, render, summary
from cint_ls.syntax.source import Position, SourceText, Span

CONFORMANCE = Path(__file__).resolve().parent.parent / "conformance"
MAX64, MAX32 = I64.max, I32.max


def source_of(name: str) -> SourceText:
    return SourceText((CONFORMANCE / f"{name}.ci").read_text(), f"{name}.ci")


def at(source: SourceText, line: int, column: int) -> Span:
    start = source.offset(Position(line - 1, column - 1))
    return source.span(start, start + 1)


def matches(expected: list[str], actual: list[str]) -> bool:
    """The .out comparison: `...` matches zero or more lines, every other line itself."""
    if not expected:
        return not actual
    if expected[0] == "...":
        return any(matches(expected[1:], actual[i:]) for i in range(len(actual) + 1))
    return bool(actual) and actual[0] == expected[0] and matches(expected[1:], actual[1:])


def record(name: str, *, line: int, column: int, stack=(), **fields) -> tuple[SourceText, FaultRecord]:
    source = source_of(name)
    frames = tuple(StackFrame(f, at(source, ln, col)) for f, ln, col in stack)
    return source, FaultRecord(span=at(source, line, column), stack=frames, **fields)


def i64(*values: int) -> tuple:
    return tuple((I64, v) for v in values)


CASES = {
    "heat_e1": dict(
        line=13, column=33, code="E_OVERFLOW", operation="mul.checked.i64",
        operands=i64(2305843009213693952, 1000), exact=2305843009213693952000, limit=(I64, MAX64),
        stack=[("heat_e1.step", 25, 5), ("heat_e1 entry", 29, 1)],
        address=Address("heat_e1.diffuse", 0, 1, 20, 22), fuel_consumed=85,
    ),
    "heat_e2": dict(
        line=14, column=24, code="E_NARROW", operation="as.checked.i64.i32",
        operands=i64(-6442450941), exact=-6442450941, limit=(I32, I32.min),
        address=Address("heat_e2.diffuse", 0, 1, 28, 25),
    ),
    "budget_fuel": dict(
        line=3, column=5, code="E_FUEL", operation="fuel.charge", operands=(), exact=None,
        limit=(I64, 6002),
        stack=[("budget_fuel.run", 13, 5), ("budget_fuel.go", 18, 12), ("budget_fuel entry", 21, 1)],
        address=Address("budget_fuel.count_up", 0, 1, 500, 1), fuel_consumed=6002,
    ),
    "budget": dict(
        line=4, column=19, code="E_OVERFLOW", operation="add.checked.i64", operands=i64(MAX64, 1),
        exact=MAX64 + 1, limit=(I64, MAX64),
        stack=[("budget.run", 13, 5), ("budget.go", 18, 12), ("budget entry", 21, 1)],
        address=Address("budget.count_up", 0, 1, 900, 1), fuel_consumed=10003,
    ),
    "shape_rt": dict(
        line=8, column=5, code="E_SHAPE", operation="bind.shape", operands=i64(0, 0, 5),
        exact=None, limit=(I64, 4), stack=[("shape_rt.go", 8, 5), ("shape_rt entry", 11, 1)],
        address=Address("shape_rt.k", 0, 0),
    ),
    "where_rt": dict(
        line=8, column=5, code="E_SHAPE", operation="bind.where", operands=i64(0, 1, 2),
        exact=None, limit=None, address=Address("where_rt.smooth", 0, 0),
    ),
    "heat_sum32": dict(
        line=17, column=20, code="E_OVERFLOW", operation="sum.checked.i32.i32", operands=i64(64),
        exact=137438953408, limit=(I32, MAX32), stack=[("heat_sum32.step", 29, 5)],
        address=Address("heat_sum32.diffuse", 0, 2),
    ),
    "heat_fold32": dict(
        line=17, column=20, code="E_OVERFLOW", operation="fold_checked.add.i32",
        operands=((I64, 1), (I32, MAX32), (I32, MAX32)), exact=4294967294, limit=(I32, MAX32),
        address=Address("heat_fold32.diffuse", 0, 1, 1, 4),
    ),
    "index2d": dict(
        line=2, column=20, code="E_DIV_ZERO", operation="div.checked.i64", operands=i64(1000, 0),
        exact=None, limit=None, address=Address("index2d.recip", 0, 1, 9, 2),
    ),
    "alias_cols": dict(
        line=7, column=5, code="E_ALIAS", operation="bind.alias", operands=i64(1, 0),
        exact=None, limit=None, address=Address("alias_cols.copy2", 0, 0),
        views=(ViewDescriptor("I32", 8, (8, 8), (16, 1), True), ViewDescriptor("I32", 0, (8, 8), (16, 1), False)),
    ),
    "rev_alias": dict(
        line=7, column=5, code="E_ALIAS", operation="bind.alias", operands=i64(1, 0),
        exact=None, limit=None, address=Address("rev_alias.copy1", 0, 0),
        views=(ViewDescriptor("I32", 7, (8,), (-1,), True), ViewDescriptor("I32", 0, (8,), (1,), False)),
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_report_matches_conformance_file(name):
    source, rec = record(name, **CASES[name])
    expected = (CONFORMANCE / f"{name}.out").read_text().splitlines()
    actual = render(source, rec).splitlines()
    assert matches(expected, actual), "\n".join(actual)


def test_matcher_checks_order():
    assert matches(["a", "...", "c"], ["a", "b", "b", "c"])
    assert not matches(["a", "...", "c"], ["c", "a"])
    assert not matches(["a", "c", "..."], ["a", "b", "c"])


def test_full_report_heat_e1():
    source, rec = record("heat_e1", **CASES["heat_e1"])
    assert render(source, rec) == (
        "fault[E_OVERFLOW]: the exact result is outside the type's range\n"
        "  --> heat_e1.ci:13:33\n"
        "   |\n"
        "13 |         I64 flux = div_round(kn * lap, kd, half_even);\n"
        "   |                                 ^ mul.checked.i64\n"
        "   |\n"
        "   = operation: mul.checked.i64\n"
        "   = operand-count: 2\n"
        "   = operand: I64 2305843009213693952\n"
        "   = operand: I64 1000\n"
        "   = exact:   2305843009213693952000\n"
        "   = limit:   I64 9223372036854775807\n"
        "   = stack: heat_e1.step at heat_e1.ci:25:5\n"
        "   = stack: heat_e1 entry at heat_e1.ci:29:1\n"
        "   = address: heat_e1.diffuse, dispatch 0, phase 1, work-item 20, step 22\n"
        "   = fuel-consumed: 85 (not part of the fault record)\n"
    )


def test_full_report_alias_views_and_revision():
    source, rec = record("alias_cols", **CASES["alias_cols"])
    lines = render(source, rec, fuel=False, revision="alias_cols@r1").splitlines()
    assert lines[-4:] == [
        "   = view: I32 rank 2, origin 8, extents (8, 8), strides (16, 1), writable",
        "   = view: I32 rank 2, origin 0, extents (8, 8), strides (16, 1), read-only",
        "   = address: alias_cols.copy2, dispatch 0, phase 0, work-item none, step none",
        "   = revision: alias_cols@r1",
    ]
    assert format_view(ViewDescriptor("I32", 7, (8,), (-1,), True)) == (
        "I32 rank 1, origin 7, extents (8), strides (-1), writable"
    )


def test_fuel_line_is_optional():
    source, rec = record("budget_fuel", **CASES["budget_fuel"])
    assert "fuel-consumed" not in render(source, rec, fuel=False)
    assert render(source, rec).splitlines()[-1] == "   = fuel-consumed: 6002 (not part of the fault record)"


def test_fixed_point_values_print_as_decimals():
    q = FixedType(16, 16)
    source = SourceText("kernel k() over [i: 1] {\n    x[i] = a * b;\n}\n", "fx.ci")
    rec = FaultRecord(
        "E_OVERFLOW", "mul.checked.q16.16", ((q, -49152), (q, 1 << 30)), Fraction(-3 * (1 << 14), 4),
        (q, q.min), at(source, 2, 14), address=Address("fx.k", 0, 1, 0, 1),
    )
    text = render(source, rec, fuel=False)
    assert "   = operand: Q16.16 -0.75\n   = operand: Q16.16 16384.0\n" in text
    assert "   = exact:   -12288.0\n   = limit:   Q16.16 -32768.0\n" in text
    assert "^ mul.checked.q16.16" in text


def test_wide_gutter_and_no_position():
    source = SourceText("\n" * 119 + "    y = x / 0;\n", "long.ci")
    rec = FaultRecord("E_DIV_ZERO", "div.checked.i64", i64(1, 0), None, None, at(source, 120, 11))
    assert render(source, rec, fuel=False).splitlines()[1:] == [
        "   --> long.ci:120:11",
        "    |",
        "120 |     y = x / 0;",
        "    |           ^ div.checked.i64",
        "    |",
        "    = operation: div.checked.i64",
        "    = operand-count: 2",
        "    = operand: I64 1",
        "    = operand: I64 0",
        "    = exact:   none",
        "    = limit:   none",
    ]
    spanless = FaultRecord("E_ASSERT", "assert", (), None, None, None, fuel_consumed=3)
    assert render(source, spanless) == (
        "fault[E_ASSERT]: assertion failed\n"
        "  --> long.ci\n"
        "   |\n"
        "   = operation: assert\n"
        "   = operand-count: 0\n"
        "   = exact:   none\n"
        "   = limit:   none\n"
        "   = fuel-consumed: 3 (not part of the fault record)\n"
    )


def test_summary_lines():
    _, heat = record("heat_e1", **CASES["heat_e1"])
    assert summary(heat) == "E_OVERFLOW at heat_e1.ci:13:33: mul.checked.i64 (work-item 20, step 22)"
    _, shape = record("shape_rt", **CASES["shape_rt"])
    assert summary(shape) == "E_SHAPE at shape_rt.ci:8:5: bind.shape (entry phase)"
    _, total = record("heat_sum32", **CASES["heat_sum32"])
    assert summary(total, path="dir/h.ci") == "E_OVERFLOW at dir/h.ci:17:20: sum.checked.i32.i32 (epilogue)"
    source = source_of("budget")
    outside = FaultRecord("E_ASSERT", "assert", (), None, None, at(source, 4, 19),
                          stack=(StackFrame("budget entry", at(source, 4, 19)),))
    assert summary(outside) == "E_ASSERT at budget.ci:4:19: assert"
    bare = FaultRecord("E_ASSERT", "assert", (), None, None, None)
    assert summary(bare) == "E_ASSERT: assert"


def test_a_long_line_is_shown_as_an_excerpt_around_the_column():
    """Issue 13 item 8: a fault on a 10,000-character line printed the whole line."""
    from cint_ls.running.run import RunRequest, run
    from cint_ls.syntax.report import MAX_EXCERPT

    text = ("void go() { I64 x = 9223372036854775807; I64 y = 0; " + "y = y +% 1; " * 1000
            + "I64 z = x + 1; }\ngo();\n")
    outcome = run(RunRequest("long.ci", text))
    lines = outcome.report.splitlines()
    shown, caret = lines[3], lines[4]
    assert len(shown) <= MAX_EXCERPT + 20 and shown.startswith(" 1 | ...")
    # The caret stands under the faulting `+` of the excerpt.
    assert shown[caret.index("^")] == "+" and shown[caret.index("^") - 2:caret.index("^") + 3] == "x + 1"
