"""The windows a cluster's tile is sent are enough (issue 33; cint_ls/exec/c17/windows.py,
ir/footprint.py), without Dask: every dispatch's tiles are planned as the cluster's
host plans them, each run in this process from its windowed plan alone (the bytes a
worker would put together) and taken in as a worker's result. A read outside its window
would read bytes that are not the array's, so generated stencils (offsets, guards,
views, an inout, a scalar, several tiles) must print, consume and fault exactly as
cpu-c17 does on one thread."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cint_ls.exec.c17 import windows as w
from cint_ls.exec.c17.build import build_library
from cint_ls.exec.c17.layout import kernel_names
from cint_ls.exec.c17.library import emit, emit_for_cluster, run_library
from cint_ls.ir.build import build
from cint_ls.ir.footprint import reads

pytestmark = pytest.mark.needs_cc


@dataclass
class _Workers:
    """What run_library asks of the cluster: its workers."""

    count: int

    def worker_count(self) -> int:
        return self.count


@dataclass
class InProcessTiles:
    """The cluster's host, with the tiles run here from their windowed plans."""

    program: Any
    per_worker_tiles: int
    minimum: int = 2
    tiles_run: int = 0

    def __post_init__(self) -> None:
        self.cluster = _Workers(1)

    def remote(self, ffi: Any, lib: Any, job: Any, plan: Any, length: int, ntiles: int, size: int,
               number: int | None = None) -> int:
        head = ffi.buffer(plan, length)[:]
        by_name = {k.qualified: k for k in self.program.kernels.values()}
        kernel = by_name[kernel_names(ffi, lib)[int.from_bytes(head[8:16], "little")]]
        header = w.read_header(ffi, kernel, head)
        for j in range(ntiles):
            tile = w.tile_plan(ffi, kernel, header, j * size, min(header.count, (j + 1) * size), reads(kernel))
            data = tile.bytes(ffi)
            result, out = ffi.new("char **"), ffi.new("size_t *")
            assert lib.cint_tile_run(lib.cint_program_info(), data, len(data), tile.first, tile.end, result, out) == 0
            taken = ffi.buffer(result[0], out[0])[:]
            lib.cint_free(result[0])
            assert lib.cint_tile_accept(job, j, taken, len(taken)) == 0
            self.tiles_run += 1
        return 0


def outcome(text: str, tiles: int | None) -> tuple[Any, ...]:
    program = build(text, "windows.ci").program
    assert program is not None
    if tiles is None:
        result, _ = run_library(build_library(emit(program)), 100_000_000, threads=1)
        return result.output, result.fuel_consumed, result.fault and result.fault.to_json(), 0
    runner = InProcessTiles(program, tiles)
    result, _ = run_library(build_library(emit_for_cluster(program)), 100_000_000, threads=1,
                            tiles=runner)  # type: ignore[arg-type]
    return result.output, result.fuel_consumed, result.fault and result.fault.to_json(), runner.tiles_run


def index(var: str, size: str, offset: int) -> tuple[str, str]:
    """`var + offset` and the guard that keeps it inside [0, size)."""
    if offset == 0:
        return var, "true"
    shifted = f"{var} + {offset}" if offset > 0 else f"{var} - {-offset}"
    guard = f"{var} < {size} - {offset}" if offset > 0 else f"{var} >= {-offset}"
    return shifted, guard


@st.composite
def stencil(draw: Any) -> str:
    """A 2-D kernel reading `u` at a few offsets (guarded, or a constant row), writing
    `v` whole and `w` (inout) where a condition holds, dispatched on views and again
    after the host wrote the input."""
    reads_ = draw(st.lists(st.tuples(st.integers(-3, 3), st.integers(-3, 3)), min_size=1, max_size=4))
    constant_row = draw(st.booleans())
    terms, guards = [], []
    for dy, dx in reads_:
        y, gy = index("y", "h", dy)
        x, gx = index("x", "ww", dx)
        terms.append(f"(u[{y}, {x}] as I64)")
        guards.append(f"{gy} && {gx}")
    body = "\n".join(f"    if ({g}) {{ acc = acc + {t} * {k + 1}; }}" for k, (t, g) in enumerate(zip(terms, guards)))
    if constant_row:
        body += "\n    acc = acc + (u[0, x] as I64);"
    h, width = draw(st.integers(2, 40)), draw(st.integers(1, 24))
    step = draw(st.integers(1, 3))
    return f"""
kernel k[h, ww](in I32[h, ww] u, in I64 s, out I64[h, ww] v, inout I64[h, ww] w) over [y: h, x: ww] {{
    I64 acc = s;
{body}
    v[y, x] = acc;
    if ((acc + x) % 3 == 0) {{ w[y, x] = w[y, x] + acc; }}
}}

void main() {{
    I32[{h * step}, {width}] a;
    for y in 0..{h * step} {{ for x in 0..{width} {{ a[y, x] = ((y * 37 + x * 11) % 97 - 40) as I32; }} }}
    I64[{h}, {width}] v;
    I64[{h}, {width}] w;
    k(a[0..{h * step} by {step}, 0..{width}], 5, v, w);
    a[{h * step - 1}, 0] = 1000;
    k(a[0..{h * step} by {step}, 0..{width}], 7, v, w);
    I64 total = 0;
    for y in 0..{h} {{ for x in 0..{width} {{ total = total + v[y, x] * (x + 1) + w[y, x] * (y + 2); }} }}
    "total={{total}} v={{v[{h // 2}, {width - 1}]}}\\n";
}}

main();
"""


@settings(max_examples=40, deadline=None)
@given(stencil(), st.integers(1, 7))
def test_a_tile_s_windows_hold_everything_it_reads(text: str, tiles: int) -> None:
    want = outcome(text, None)
    got = outcome(text, tiles)
    assert got[:3] == want[:3], text
    assert got[3] >= 2  # both dispatches were tiled


def test_a_gather_whose_reads_cannot_be_bounded_is_sent_its_whole_input() -> None:
    text = """
kernel gather[n](in I64[n] idx, in I64[n] src, out I64[n] dst) over [i: n] { dst[i] = src[idx[i]] + i; }

void main() {
    I64[300] idx;
    I64[300] src;
    for i in 0..300 { idx[i] = (i * 97) % 300; src[i] = i * i; }
    I64[300] dst;
    gather(idx, src, dst);
    I64 t = 0;
    for i in 0..300 { t = t + dst[i] * (i + 1); }
    "t={t}\\n";
}

main();
"""
    assert outcome(text, 5)[:3] == outcome(text, None)[:3]


def test_a_fault_in_a_tile_is_cpu_c17_s() -> None:
    text = """
kernel k[n](in I32[n] u, out I32[n] v) over [i: n] { I32 r = u[i]; if (i > 0) { r = r * u[i - 1]; } v[i] = r; }

void main() {
    I32[100] a;
    for i in 0..100 { a[i] = (i * 1000) as I32; }
    I32[100] b;
    k(a, b);
}

main();
"""
    want = outcome(text, None)
    assert want[2] is not None and want[2]["code"] == "E_OVERFLOW"
    assert outcome(text, 4)[:3] == want[:3]
