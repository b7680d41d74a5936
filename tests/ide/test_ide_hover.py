"""Hover: step ordinals (the table of SPEC-02P.1 11.2), kernels, dispatches, names."""

from __future__ import annotations

import re

import pytest
from ide_support import conformance, doc_of, find_offset, offset

from cint_ls.ide import hover
from cint_ls.ide.hover import steps_text

# SPEC-02P.1 11.2, Table: step, line, and where the operation is on that line
# (fragment, character of the fragment, occurrence), with its operation identifier.
HEAT_STEPS = [
    (0, 8, "u[y, x]", 1, 0, "index.checked"),
    (1, 8, "as I64", 0, 0, "as.checked.i32.i64"),
    (2, 9, "u[y, x]", 1, 0, "index.checked"),
    (3, 10, "h - 1", 2, 0, "sub.checked.i64"),
    (4, 10, "w - 1", 2, 0, "sub.checked.i64"),
    (5, 11, "y - 1", 2, 0, "sub.checked.i64"),
    (6, 11, "u[y - 1", 1, 0, "index.checked"),
    (7, 11, "as I64", 0, 0, "as.checked.i32.i64"),
    (8, 11, "y + 1", 2, 0, "add.checked.i64"),
    (9, 11, "u[y + 1", 1, 0, "index.checked"),
    (10, 11, "as I64", 0, 1, "as.checked.i32.i64"),
    (11, 11, ") + (", 2, 0, "add.checked.i64"),
    (12, 12, "x - 1", 2, 0, "sub.checked.i64"),
    (13, 12, "u[y, x - 1", 1, 0, "index.checked"),
    (14, 12, "as I64", 0, 0, "as.checked.i32.i64"),
    (15, 12, "+ (u[y, x - 1", 0, 0, "add.checked.i64"),
    (16, 12, "x + 1", 2, 0, "add.checked.i64"),
    (17, 12, "u[y, x + 1", 1, 0, "index.checked"),
    (18, 12, "as I64", 0, 1, "as.checked.i32.i64"),
    (19, 12, ") + (", 2, 0, "add.checked.i64"),
    (20, 12, "4 * c", 2, 0, "mul.checked.i64"),
    (21, 12, "- 4", 0, 0, "sub.checked.i64"),
    (22, 13, "kn * lap", 3, 0, "mul.checked.i64"),
    (23, 13, "div_round", 0, 0, "div_round.checked.i64.half_even"),
    (24, 14, "c + flux", 2, 0, "add.checked.i64"),
    (25, 14, "as I32", 0, 0, "as.checked.i64.i32"),
    (26, 16, "v[y, x]", 1, 0, "store.checked"),
    (27, 17, "sum", 0, 0, "sum.checked.i32.i64"),
]


@pytest.fixture(scope="module")
def heat():
    return conformance("heat_e1.ci")


def first_step(markdown: str) -> int:
    return int(re.search(r"step (\d+)", markdown).group(1))


@pytest.mark.parametrize("step,line,fragment,at,occurrence,op_id", HEAT_STEPS)
def test_every_step_of_the_heat_kernel(heat, step, line, fragment, at, occurrence, op_id):
    result = hover(heat, find_offset(heat, line, fragment, at, occurrence))
    assert result is not None
    assert first_step(result.markdown) == step  # the interior (longest) path first
    assert f"`{op_id}`" in result.markdown
    assert result.span.line == line


def test_the_table_has_28_steps_and_uses_every_counted_operation(heat):
    kernel = heat.kernel_ir("diffuse")
    assert len(kernel.counted) == len(HEAT_STEPS) == 28
    anchors = {c.span.start_byte for c in kernel.counted}
    hovered = {find_offset(heat, line, frag, at, occ) for _, line, frag, at, occ, _ in HEAT_STEPS}
    assert anchors == hovered


def test_row_0_path_ordinals(heat):
    # 11.2 para 2: a work-item in row 0 evaluates the place as step 3 and the reduce as step 4.
    place = hover(heat, find_offset(heat, 16, "v[y, x]", 1)).markdown
    assert "step 26 (or 3, 4, 5, by path)" in place
    reduce = hover(heat, find_offset(heat, 17, "sum")).markdown
    assert "step 27 (or 4, 5, 6, by path)" in reduce


def test_operation_details(heat):
    md = hover(heat, find_offset(heat, 13, "kn * lap", 3)).markdown
    assert "operands: `I64`, `I64`; result: `I64`" in md
    assert "faults: E_OVERFLOW" in md
    assert "varying" in md
    md = hover(heat, find_offset(heat, 13, "div_round")).markdown
    assert "E_DIV_ZERO, E_OVERFLOW" in md
    md = hover(heat, find_offset(heat, 8, "as I64")).markdown
    assert "E_NARROW" in md and "operands: `I32`; result: `I64`" in md
    md = hover(heat, find_offset(heat, 8, "u[y, x]", 1)).markdown
    assert "E_BOUNDS" in md
    md = hover(heat, find_offset(heat, 17, "sum")).markdown
    assert "E_OVERFLOW (in the epilogue)" in md and "contribution: `I32`; target: `I64`" in md
    md = hover(heat, find_offset(heat, 10, "h - 1", 2)).markdown
    assert "uniform" in md and "varying" not in md


def test_hover_on_the_read_brackets_and_store_equals(heat):
    close = hover(heat, find_offset(heat, 8, "u[y, x]", 6))  # the `]`
    assert close is not None and "step 0" in close.markdown
    equals = hover(heat, find_offset(heat, 16, "= r"))
    assert equals is not None and "store.checked" in equals.markdown


def test_uncounted_operators(heat):
    md = hover(heat, find_offset(heat, 10, "&&")).markdown
    assert "not counted" in md


def test_kernel_name(heat):
    md = hover(heat, offset(heat, 1, 9)).markdown
    assert "kernel diffuse[h, w](in I32[h, w] u, in I64 kn, in I64 kd, out I32[h, w] v, out I64 total)" in md
    assert "over [y: h, x: w]" in md
    assert "i = y * w + x" in md
    assert "`h * w` units per dispatch" in md
    assert "gpu-cuda" in md


def test_kernel_with_three_dimensions_and_a_loop():
    doc = doc_of("kernel k[d, h, w](in I64[d, h, w] a, out I64[d, h, w] b) over [z: d, y: h, x: w] {\n"
                 "    I64 s = 0;\n    for j in 0..2 { s = s + a[z, y, x]; }\n    b[z, y, x] = s;\n}\n")
    md = hover(doc, offset(doc, 1, 8)).markdown
    assert "i = (z * h + y) * w + x" in md
    assert "z = i / (h * w)" in md and "x = i % w" in md
    assert "`d * h * w` units at the dispatch's entry" in md and "loop iterations and calls" in md
    inside = hover(doc, find_offset(doc, 3, "s + a", 2)).markdown
    assert "step depends on the iteration" in inside


def test_refused_kernel_says_so():
    doc = conformance("ops_kernel.ci")
    md = hover(doc, offset(doc, 1, 8)).markdown
    assert "gpu-cuda: refused, first at 3:13: capability `neg`" in md


def test_dispatch(heat):
    md = hover(heat, find_offset(heat, 25, "diffuse")).markdown
    assert "| 0 | `I32[h, w] u` | in | `a` |" in md
    assert "| 4 | `I64 total` | out | `total` |" in md
    assert "binds `h` ← dimension 0 of `a` (`u`) = 8" in md
    assert "dimension 1 of `b` (`v`) must equal `w`" in md
    assert "(`v`, `u`)" in md
    assert "N = `h * w = 64`" in md


def test_dispatch_where_and_views():
    doc = conformance("where_rt.ci")
    line = next(i for i in range(1, 20) if "smooth(" in doc.source.line_text(i) and "kernel" not in
                doc.source.line_text(i))
    md = hover(doc, find_offset(doc, line, "smooth")).markdown
    assert "where constraint 0: `n >= 2`" in md
    assert "binds `n` ← dimension 0 of `a[0..m]`" in md


def test_function_and_entry_operations():
    doc = doc_of("I64 f(I64 a) {\n    return a * 2;\n}\nI64 x = 1 + 2;\n")
    md = hover(doc, find_offset(doc, 2, "*")).markdown
    assert "step depends on the caller" in md and "`mul.checked.i64`" in md
    md = hover(doc, find_offset(doc, 4, "+")).markdown
    assert "outside any kernel" in md and "`add.checked.i64`" in md


def test_hovers_say_uniform_and_varying_in_words(heat):
    """Issue 32: hovers said "varying (8.2)", a clause number a reader cannot use."""
    md = hover(heat, offset(heat, 8, 9)).markdown  # c, a varying local
    assert "- varying: each work-item has its own value" in md
    md = hover(heat, offset(heat, 3, 9)).markdown  # kn, an in scalar
    assert "- uniform: the same value for every work-item" in md
    seen = set()
    for at in range(0, len(heat.source.data), 3):
        found = hover(heat, at)
        if found is not None:
            seen.add(found.markdown)
    assert len(seen) > 20
    assert [md for md in seen if re.search(r"\((?:[0-9]+\.)+[0-9]+\)", md)] == []  # no bare "(8.2)", "(6.3)"


def test_names(heat):
    assert "(size symbol) `h`" in hover(heat, offset(heat, 1, 16)).markdown
    md = hover(heat, offset(heat, 8, 9)).markdown  # c
    assert "(local variable) `c`: `I64`" in md and "varying" in md
    md = hover(heat, offset(heat, 3, 9)).markdown  # kn
    assert "(parameter, in) `kn`" in md and "uniform" in md
    md = hover(heat, offset(heat, 7, 9)).markdown  # y
    assert "(over variable) `y`" in md and "varying" in md
    md = hover(heat, find_offset(heat, 13, "half_even")).markdown
    assert "rounding mode" in md
    assert "signed 32-bit integer" in hover(heat, offset(heat, 2, 8)).markdown


def test_nothing_to_say():
    doc = doc_of("// a comment\n\nvoid f() {}\n")
    assert hover(doc, 3) is None
    assert hover(doc, 10_000) is None


def test_steps_text():
    assert steps_text((22,)) == "step 22"
    assert steps_text((3, 4, 5, 26)) == "step 26 (or 3, 4, 5, by path)"
    assert steps_text(None) == "step depends on the iteration"
    assert "unreachable" in steps_text(())
