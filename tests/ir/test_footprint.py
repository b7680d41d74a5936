"""cint_ls.ir.footprint: the elements of each array parameter a kernel's work-items can
read (issue 33), hand-checked on small kernels and the spec's heat kernel, run over the
conformance programs, and checked against generated kernels of random stencils."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import CONFORMANCE, conformance_programs
from hypothesis import given, settings
from hypothesis import strategies as st

from cint_ls.ir import nodes as ir
from cint_ls.ir.build import build
from cint_ls.ir.footprint import Offsets, _offsets, reads
from cint_ls.ir.walk import walk

Off = Offsets


def kernel_of(text: str, name: str = "k") -> ir.Kernel:
    built = build(text, "x.ci")
    errors = [d.message for d in built.checked.diagnostics if d.severity.name == "ERROR"]
    assert errors == [] and built.program is not None
    return built.program.kernels[name]


def one(body: str, params: str = "in I64[n] a, out I64[n] b", over: str = "[i: n]", sizes: str = "n"
        ) -> dict[int, tuple[Offsets | None, ...] | None]:
    return reads(kernel_of(f"kernel k[{sizes}]({params}) over {over} {{\n{body}\n}}\n"))


GRID = "in I64[h, w] u, in I64[h, w] m, out I64[h, w] v"


def grid(body: str) -> dict[int, tuple[Offsets | None, ...] | None]:
    return one(body, GRID, "[y: h, x: w]", "h, w")


def test_heat_kernel_reads_a_five_point_stencil() -> None:
    kernel = kernel_of((CONFORMANCE / "heat_e1.ci").read_text(), "diffuse")
    # u; kn and kd are scalars, v and total out parameters: absent.
    assert reads(kernel) == {0: (Off(0, -1, 1), Off(1, -1, 1))}


def test_guarded_reads_count() -> None:
    body = "I64 r = u[y, x]; if (y > 0) { r = u[y - 1, x]; } if (x + 1 < w) { r = r + u[y, x + 2]; } v[y, x] = r;"
    assert grid(body) == {0: (Off(0, -1, 0), Off(1, 0, 2))}


def test_reads_in_loops_switch_and_reduce_count() -> None:
    body = ("I64 s = 0; for j in 0..3 { s = s + a[i + 1]; } while (s < 0) { s = a[i - 2]; }\n"
            "switch (s) { case 1: { s = a[i + 3]; } default: { } } b[i] = s; reduce t = sum(a[i]);")
    assert one(body, "in I64[n] a, out I64[n] b, out I64 t") == {0: (Off(0, -2, 3),)}


def test_constant_indices() -> None:
    assert one("b[i] = a[0] + a[3] + a[2];") == {0: (Off(None, 0, 3),)}
    assert grid("v[y, x] = u[y, 0] + u[y, 5];") == {0: (Off(0, 0, 0), Off(None, 0, 5))}
    assert one("b[i] = a[i + 2 * 3] + a[i - -1] + a[-(1 - 2) + i];") == {0: (Off(0, 1, 6),)}


def test_mixed_vars_or_var_and_constant_leave_the_dimension_unbounded() -> None:
    assert grid("v[y, x] = u[y, x] + u[x, y];") == {0: (None, None)}
    assert grid("v[y, x] = u[y, x] + u[0, x];") == {0: (None, Off(1, 0, 0))}


@pytest.mark.parametrize("body", [
    "I64 j = i + 1; b[i] = a[j];",  # a local
    "I64 s = 0; for j in 0..n { s = s + a[j]; } b[i] = s;",  # a loop variable
    "b[i] = a[n - 1];",  # a size symbol
    "b[i] = a[2 * i];", "b[i] = a[i * 1];", "b[i] = a[i - i];", "b[i] = a[1 - i];",  # not v + c
    "b[i] = a[i +% 1];", "b[i] = a[i +| 1];",  # wrapping, saturating
    "b[i] = a[(i as% U8) as I64];",  # a conversion that can wrap
    "b[i] = a[min(i, 2)];", "b[i] = a[abs(i)];", "b[i] = a[i / 1];",
    "b[i] = a[a[i]];",  # another read
])
def test_unbounded_indices(body: str) -> None:
    assert one(body) == {0: (None,)}


def test_value_preserving_conversions_are_looked_through() -> None:
    assert one("b[i] = a[(i - 1) as I64] + a[((i as I32) + 1) as I64];") == {0: (Off(0, -1, 1),)}
    assert one("b[i] = a[(i as I32) as% I64];") == {0: (Off(0, 0, 0),)}  # a widening cannot wrap


def test_an_index_read_from_another_parameter() -> None:
    assert one("b[i] = a[c[i + 1]];", "in I64[n] a, in I64[n] c, out I64[n] b") == {0: (None,), 1: (Off(0, 1, 1),)}


@pytest.mark.parametrize("body", [
    "v[y, x] = reverse(u, 0)[y, x];", "v[y, x] = transpose(u)[x, y];", "v[y, x] = u[y][x];",
    "v[y, x] = u[1..3, ..][0, x];", "v[y, x] = u[y, 0] + u[y, ..][x];",
])
def test_views_of_a_parameter_make_it_opaque(body: str) -> None:
    assert grid(body) == {0: None}


def test_parameters_never_read_are_absent() -> None:
    # b out, k a scalar, c an unused in array, d an inout only written, e an inout read.
    params = "in I64[n] a, I64 k, in I64[n] c, out I64[n] b, inout I64[n] d, inout I64[n] e, out I64 t"
    body = "b[i] = a[i] * k; d[i] = 1; e[i] = e[i] + 1; reduce t = sum(k);"
    assert one(body, params) == {0: (Off(0, 0, 0),), 5: (Off(0, 0, 0),)}


@pytest.mark.parametrize("path", conformance_programs(), ids=lambda p: p.stem)
def test_conformance_programs(path: Path) -> None:
    built = build(path.read_text(), path.name)
    for kernel in built.program.kernels.values() if built.program is not None else ():
        found = reads(kernel)
        _consistent(kernel, found)
        for i, value in found.items():
            param = kernel.params[i]
            assert param.mode in ("in", "inout") and param.extents is not None
            assert value is None or len(value) == len(param.extents)


def _consistent(kernel: ir.Kernel, found: dict[int, tuple[Offsets | None, ...] | None]) -> None:
    """Every element read of an array parameter lies within what `reads` says."""
    over = {slot: position for position, (_, slot, _) in enumerate(kernel.over)}
    slots = {p.slot: i for i, p in enumerate(kernel.params) if p.extents is not None and p.mode != "out"}
    for statement in kernel.body:
        for node in walk(statement):
            if isinstance(node, ir.Load) and isinstance(node.array, ir.ArrayVar) and node.array.slot in slots:
                value = found[slots[node.array.slot]]
                if value is None:
                    continue
                for index, bound in zip(node.indices, value, strict=True):
                    offsets = _offsets(index, over)
                    if bound is not None:
                        assert offsets is not None and offsets.var == bound.var
                        assert bound.low <= offsets.low <= offsets.high <= bound.high


# ---- generated stencils: each index is a spelling of `y + c`, `x + c` or a constant c

def _spell(var: str | None, c: int, form: int) -> str:
    if var is None:
        return str(c) if c >= 0 else f"({c})"
    spellings = [f"{var} + ({c})", f"{var} - ({-c})", f"({c}) + {var}", f"({var} + ({c})) as I64",
                 f"{var} + {abs(c)}" if c >= 0 else f"{var} - {-c}"]
    return var if c == 0 and form == 0 else spellings[form % len(spellings)]


_index = st.tuples(st.sampled_from([0, 1, None]), st.integers(-3, 3), st.integers(0, 4))
_read = st.tuples(_index, _index, st.booleans())


@settings(max_examples=60, deadline=None)
@given(st.lists(_read, min_size=1, max_size=5))
def test_generated_stencils(stencil: list[tuple[tuple[int | None, int, int], tuple[int | None, int, int], bool]]
                            ) -> None:
    names = ["y", "x"]
    lines = ["I64 r = 0;"]
    for (v0, c0, f0), (v1, c1, f1), guarded in stencil:
        read = f"u[{_spell(None if v0 is None else names[v0], c0, f0)}, " \
               f"{_spell(None if v1 is None else names[v1], c1, f1)}]"
        lines.append(f"if (y > 1) {{ r = r + {read}; }}" if guarded else f"r = r + {read};")
    kernel = kernel_of(f"kernel k[h, w]({GRID}) over [y: h, x: w] {{\n" + "\n".join(lines) + "\nv[y, x] = r;\n}\n")
    found = reads(kernel)
    expected: list[Offsets | None] = []
    for d in range(2):
        dims = [read[d] for read in stencil]
        same = len({var for var, _, _ in dims}) == 1
        expected.append(Off(dims[0][0], min(c for _, c, _ in dims), max(c for _, c, _ in dims)) if same else None)
    assert found == {0: tuple(expected)}
    _consistent(kernel, found)
