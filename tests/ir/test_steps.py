"""Static step ordinals (SPEC-02P.1 5.4) of the IR against the spec's tables: the whole
table of 11.2 for the heat kernel, its paragraph 2 (row 0), the example of 5.4 and the
conformance programs whose faults name a step."""

from __future__ import annotations

from conftest import CONFORMANCE

from cint_ls.analysis import check
from cint_ls.ir import lower_program
from cint_ls.ir import nodes as ir
from cint_ls.syntax import parse_source


def lower(text: str, path: str = "m.ci") -> ir.Program:
    checked = check(parse_source(text, path))
    assert [d for d in checked.diagnostics if d.severity.name == "ERROR"] == []
    return lower_program(checked)


def kernel_of(name: str) -> ir.Kernel:
    program = lower((CONFORMANCE / f"{name}.ci").read_text(), f"{name}.ci")
    (kernel,) = program.kernels.values()
    return kernel


def ops(kernel: ir.Kernel) -> list[ir.Counted]:
    counted = sorted(kernel.counted, key=lambda c: c.index)
    assert [c.index for c in counted] == list(range(len(counted)))
    return counted


# SPEC-02P.1 11.2, the table: (step, line, operation as the table words it).
HEAT_TABLE = [
    (0, 8, "read u[y, x]"), (1, 8, "as I64"), (2, 9, "read u[y, x]"), (3, 10, "h - 1"),
    (4, 10, "w - 1"), (5, 11, "y - 1"), (6, 11, "read u[y - 1, x]"), (7, 11, "as I64"),
    (8, 11, "y + 1"), (9, 11, "read u[y + 1, x]"), (10, 11, "as I64"), (11, 11, "+"),
    (12, 12, "x - 1"), (13, 12, "read u[y, x - 1]"), (14, 12, "as I64"), (15, 12, "+"),
    (16, 12, "x + 1"), (17, 12, "read u[y, x + 1]"), (18, 12, "as I64"), (19, 12, "+"),
    (20, 12, "4 * c"), (21, 12, "-"), (22, 13, "kn * lap"), (23, 13, "div_round"),
    (24, 14, "c + flux"), (25, 14, "as I32"), (26, 16, "place v[y, x]"), (27, 17, "reduce (sum)"),
]


HEAT_OPS = {
    "as I64": "as.checked.i32.i64", "as I32": "as.checked.i64.i32", "div_round": "div_round.checked.i64.half_even",
    "reduce (sum)": "sum.checked.i32.i64", "+": "add.checked.i64", "-": "sub.checked.i64", "*": "mul.checked.i64",
}


def heat_op_id(words: str) -> str:
    """The operation identifier of the table's words: `read u[..]`, `place v[..]`,
    `as I64`, `h - 1` (an operator between operands), `+` ..."""
    if words.startswith("read "):
        return "index.checked"
    if words.startswith("place "):
        return "store.checked"
    return HEAT_OPS.get(words) or HEAT_OPS[words.split()[1]]


def test_heat_kernel_has_the_28_steps_of_11_2():
    counted = ops(kernel_of("heat_e1"))
    assert len(counted) == 28  # paragraph 1: an interior work-item evaluates 28
    for (step, line, words), op in zip(HEAT_TABLE, counted):
        assert (op.span.line, op.op_id) == (line, heat_op_id(words)), (step, words)
        assert op.steps is not None and max(op.steps) == step, (step, words, op.steps)


def test_heat_kernel_positions_of_the_faults_of_11_3():
    counted = ops(kernel_of("heat_e1"))
    assert (counted[22].span.line, counted[22].span.column) == (13, 33)  # kn * lap, example 1
    assert counted[25].op_id == "as.checked.i64.i32" and (counted[25].span.line, counted[25].span.column) == (14, 24)


def test_heat_kernel_row_0_places_at_step_3_and_reduces_at_step_4():
    """11.2 paragraph 2: row 0 stops the condition at y > 0, evaluates steps 0 to 2, the
    place as step 3 and the reduce as step 4."""
    counted = ops(kernel_of("heat_e1"))
    place, reduce = counted[26], counted[27]
    assert 3 in place.steps and 4 in reduce.steps
    assert place.steps == (3, 4, 5, 26)  # y > 0 false; y < h - 1 false; x > 0 false; interior
    assert reduce.steps == (4, 5, 6, 27)
    assert all(op.steps == (op.index,) for op in counted[:26])  # one path to everything before


def test_example_of_5_4_step5():
    kernel = kernel_of("step5")
    assert [(c.op_id, c.steps, c.span.line, c.span.column) for c in ops(kernel)] == [
        ("store.checked", (0,), 2, 6),
        ("index.checked", (1,), 2, 13),
        ("index.checked", (2,), 2, 20),
        ("index.checked", (3,), 2, 27),
        ("mul.checked.i64", (4,), 2, 24),
        ("add.checked.i64", (5,), 2, 17),  # the sum: the fault of 5.4 example 1, 2:17
    ]


def test_scale():
    assert [(c.op_id, c.steps) for c in ops(kernel_of("scale"))] == [
        ("store.checked", (0,)), ("index.checked", (1,)), ("mul.checked.i64", (2,)),
    ]


def test_tie_a_folds_at_step_1():
    assert [(c.op_id, c.steps) for c in ops(kernel_of("tie_a"))] == [
        ("index.checked", (0,)), ("fold_checked.add.i64", (1,)),  # tie_a.out: step 1
        ("store.checked", (2,)), ("index.checked", (3,)), ("sub.checked.i64", (4,)),
        ("div_round.checked.i64.floor", (5,)),
    ]


def test_tie_b_divides_at_step_3_and_folds_at_step_5():
    assert [(c.op_id, c.steps) for c in ops(kernel_of("tie_b"))] == [
        ("store.checked", (0,)), ("index.checked", (1,)), ("sub.checked.i64", (2,)),
        ("div_round.checked.i64.floor", (3,)),  # tie_b.out: step 3
        ("index.checked", (4,)), ("fold_checked.add.i64", (5,)),
    ]


def test_budget_loop_makes_steps_dynamic():
    counted = ops(kernel_of("budget"))
    read, add, place = counted
    assert (read.op_id, read.steps, read.span.line) == ("index.checked", (0,), 2)
    assert (add.op_id, add.span.line, add.steps) == ("add.checked.i64", 4, None)  # budget.out: step 1 at run time
    assert (place.op_id, place.steps) == ("store.checked", None)  # after a loop that counts
    loop = next(s for s in kernel_of("budget").body if isinstance(s, ir.For))
    assert isinstance(loop.body[0], ir.Charge) and loop.body[0].span.line == 3


PATHS = """\
kernel paths[n](in I64[n + 1] a, I64 k, out I64[n] r, out I64 best) over [i: n] {
    I64 t = a[i];
    if (!(t > k) || a[i + 1] < k) {
        t = t * 2;
    }
    switch (k) {
        case 1:
            t = t + 1;
        case -2:
            t = -t;
        default:
    }
    if (!(t > 0 && a[i] > 0)) {
        t = t - 1;
    }
    r[i] = t;
    reduce best = max(t);
}
"""


def test_paths_through_or_not_and_switch():
    program = lower(PATHS, "paths.ci")
    counted = ops(program.kernels["paths"])
    table = [(c.op_id, c.span.line, c.steps) for c in counted]
    assert table == [
        ("index.checked", 2, (0,)),
        # `||`: the right side runs only when !(t > k) is false
        ("add.checked.i64", 3, (1,)),
        ("index.checked", 3, (2,)),
        ("mul.checked.i64", 4, (1, 3)),  # taken with the right side skipped (1) or evaluated (3)
        # after the if: {2, 4} through the then branch, {3} when the condition is false
        ("add.checked.i64", 8, (2, 3, 4)),
        ("neg.checked.i64", 10, (2, 3, 4)),
        # after the switch: case 1 and case -2 add one, default (and no match) adds none
        ("index.checked", 13, (2, 3, 4, 5)),  # `&&` right side: only when t > 0
        # `!(A && B)` is true when A is false (read skipped) or B is false (read done)
        ("sub.checked.i64", 14, (2, 3, 4, 5, 6)),
        # every path through the last `if` evaluates the subtraction, the read or both
        ("store.checked", 16, (3, 4, 5, 6, 7)),
        ("max.i64", 17, (4, 5, 6, 7, 8)),
    ]
    switch = next(s for s in program.kernels["paths"].body if isinstance(s, ir.Switch))
    assert [labels for labels, _ in switch.cases] == [[1], [-2]] and switch.default == []


def test_return_makes_the_rest_of_its_path_unreachable():
    program = lower(
        "kernel kr[n](in I64[n] a, out I64[n] r) over [i: n] {\n"
        "    r[i] = 1;\n"
        "    if (a[i] > 0) { return; }\n"
        "    r[i] = a[i] + 1;\n"
        "}\n",
        "kr.ci",
    )
    assert [c.steps for c in ops(program.kernels["kr"])] == [(0,), (1,), (2,), (3,), (4,)]


def test_while_condition_counts_after_the_loop():
    program = lower(
        "kernel wb[n](in I64[n] a, out I64[n] r) over [i: n] {\n"
        "    I64 j = 0;\n"
        "    while (j * 2 < 10) { j = 20; }\n"
        "    r[i] = j;\n"
        "}\n",
        "wb.ci",
    )
    mul, place = ops(program.kernels["wb"])
    assert mul.steps is None
    assert place.steps is None  # the condition runs once per iteration and once more: run-dependent


def test_call_in_a_loop_makes_steps_dynamic():
    program = lower(
        "I64 one() { return 1 + 0; }\n"
        "kernel fc[n](in I64[n] a, out I64[n] r) over [i: n] {\n"
        "    I64 j = 0;\n"
        "    for t in 0..3 { j = one(); }\n"
        "    r[i] = j;\n"
        "}\n",
        "fc.ci",
    )
    (place,) = ops(program.kernels["fc"])
    assert place.steps is None  # at run time: step 3, after the three additions of one()
