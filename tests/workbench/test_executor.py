"""`:executor cpu-c17` and `:executor gpu-cuda` (issue 31): the session's dispatches run
their work-items in C (exec/c17/runner.py) or through gpu-cuda's work-item phase on its
device (exec/cuda/runner.py; the simulated device here, which runs the same PTX as a
GPU), and every answer is the reference's: each reduction kind, element types of every
width, strided views, inout staging, a fuel budget, faults in work-items, in a fold and
in the epilogue."""

from __future__ import annotations

import pytest

from cint_ls.workbench.session import Session

pytest.importorskip("cffi")

DECLARATIONS = [
    "kernel sums[n](in I32[n] a, out I64 s, out I32 w, out I8 sat, out I64 c, out I32 lo, out I32 hi, "
    "out I64 f) over [i: n] {\n"
    "    reduce s = sum(a[i]);\n    reduce w = sum_wrap(a[i]);\n    reduce sat = sum_sat(a[i] as% I8);\n"
    "    reduce c = count(a[i] > 10);\n    reduce lo = min(a[i]);\n    reduce hi = max(a[i]);\n"
    "    reduce f = fold_checked(add, 5, a[i] as I64);\n}",
    "kernel widen[n](in U16[n] u, in Q16.16[n] q, in Bool[n] b, out I128[n] w, inout Q16.16[n] r) over [i: n] {\n"
    "    I128 x = (u[i] as I128) * 1000000000000000000000000000000;\n"
    "    if (b[i]) { w[i] = x; } else { w[i] = 0 - (u[i] as I128); }\n    r[i] = r[i] + q[i] * 0.5;\n}",
    "kernel loops[n](in I32[n] a, out I64[n] r) over [i: n] {\n"
    "    I64 acc = a[i] as I64;\n    for j in 0..10 { acc = acc + 1; }\n    r[i] = acc;\n}",
    "kernel grid[h, w](in I64[h, w] a, out I64[h, w] b) over [y: h, x: w] where h >= 2 {\n"
    "    b[y, x] = a[y, x] * 10 + y;\n}",
]
INPUTS = [
    "I32[300] a;", "for i in 0..300 { a[i] = ((i * 7919) % 201 - 100) as I32; }",
    "I64 s = 0; I32 w = 0; I8 sat = 0; I64 c = 0; I32 lo = 0; I32 hi = 0; I64 f = 0;",
    "sums(a, s, w, sat, c, lo, hi, f);", "s", "w", "sat", "c", "lo", "hi", "f",
    "sums(a[1..300 by 3], s, w, sat, c, lo, hi, f);", "s", "sat", "lo", "f",
    "U16[5] u = [1, 2, 65535, 4, 5];", "Q16.16[5] q = [1.5, -2.25, 0.0, 3.0, 0.125];",
    "Bool[5] b = [true, false, true, true, false];", "I128[5] wide;", "Q16.16[5] r = [1.0, 1.0, 1.0, 1.0, 1.0];",
    "widen(u, q, b, wide, r);", "wide", "r",
    "I64[3, 4] m;", "for y in 0..3 { for x in 0..4 { m[y, x] = y * 4 + x; } }", "I64[3, 4] n;",
    "grid(m, n);", "n", "I64[4, 3] t;", "grid(m[0..3, 0..3], t[0..3, 0..3]);", "t",
    "I64[1, 4] one;", "grid(m[0..1, 0..4], one);",  # where h >= 2: E_SHAPE at the entry checks
    "a[7] = 2147483647; a[8] = 2147483647;", "sums(a, s, w, sat, c, lo, hi, f);", "s",  # sum's total fits
    "I64[300] r;", "loops(a, r);", "r", ":fuel 2000", "loops(a, r);", ":fuel none",  # E_FUEL in work-item 154
    "I32[2] big = [2147483647, 2147483647];", "I32 ww = 0;",
    "kernel over32[n](in I32[n] a, out I32 t) over [i: n] { reduce t = sum(a[i]); }",
    "over32(big, ww);", "ww",  # the sum overflows its I32 target: E_OVERFLOW in the epilogue
]


# gpu-cuda refuses `as%`, Q16.16 and I128 (its capability profile): the same kinds of
# question over what it admits, and faults of each of its scans (fuel, a work-item's
# overflow, a fold's overflow) besides the epilogue's.
GPU_DECLARATIONS = [
    "kernel sums[n](in I32[n] a, in I8[n] e, out I64 s, out I32 w, out I8 sat, out I64 c, out I32 lo, out I32 hi, "
    "out I64 f) over [i: n] {\n"
    "    reduce s = sum(a[i]);\n    reduce w = sum_wrap(a[i]);\n    reduce sat = sum_sat(e[i]);\n"
    "    reduce c = count(a[i] > 10);\n    reduce lo = min(a[i]);\n    reduce hi = max(a[i]);\n"
    "    reduce f = fold_checked(add, 5, a[i] as I64);\n}",
    "kernel widen[n](in U16[n] u, in Bool[n] b, out I64[n] w, inout I32[n] r) over [i: n] {\n"
    "    I64 x = (u[i] as I64) * 1000000000000;\n"
    "    if (b[i]) { w[i] = x; } else { w[i] = 0 - (u[i] as I64); }\n    r[i] = r[i] * 3 + 1;\n}",
    DECLARATIONS[2], DECLARATIONS[3],
    "kernel times[n](in I32[n] a, in I32 k, out I32[n] b) over [i: n] { b[i] = a[i] * k; }",
    "kernel folds[n](in I64[n] x, out I64 f) over [i: n] { reduce f = fold_checked(add, 0, x[i]); }",
]
GPU_INPUTS = [
    "I32[300] a;", "for i in 0..300 { a[i] = ((i * 7919) % 201 - 100) as I32; }",
    "I8[300] e;", "for i in 0..300 { e[i] = ((i * 31) % 120) as I8; }",
    "I64 s = 0; I32 w = 0; I8 sat = 0; I64 c = 0; I32 lo = 0; I32 hi = 0; I64 f = 0;",
    "sums(a, e, s, w, sat, c, lo, hi, f);", "s", "w", "sat", "c", "lo", "hi", "f",
    "sums(a[1..300 by 3], e[0..100], s, w, sat, c, lo, hi, f);", "s", "sat", "lo", "f",
    "U16[5] u = [1, 2, 65535, 4, 5];", "Bool[5] b = [true, false, true, true, false];", "I64[5] wide;",
    "I32[5] r = [1, 2, 3, 4, 5];", "widen(u, b, wide, r);", "wide", "r",
    "widen(u[0..5 by 2], b[1..4], wide[2..5], r[0..3]);", "wide", "r",
    "I64[3, 4] m;", "for y in 0..3 { for x in 0..4 { m[y, x] = y * 4 + x; } }", "I64[3, 4] n;",
    "grid(m, n);", "n", "I64[4, 3] t;", "grid(m[0..3, 0..3], t[0..3, 0..3]);", "t",
    "I64[1, 4] one;", "grid(m[0..1, 0..4], one);",  # where h >= 2: E_SHAPE at the entry checks
    "a[7] = 2147483647; a[8] = 2147483647;", "sums(a, e, s, w, sat, c, lo, hi, f);", "s", "w",
    "I64[300] rr;", "loops(a, rr);", "rr", ":fuel 2000", "loops(a, rr);", ":fuel none",  # E_FUEL in a work-item
    "I32[300] bb;", "times(a, 2, bb);", "bb", "times(a, 1, bb);", "bb",  # E_OVERFLOW in work-item 7
    "I64[3] fo = [9223372036854775000, 1000, 5];", "folds(fo, f);", "f",  # the fold's overflow at work-item 1
    "I32[2] big = [2147483647, 2147483647];", "I32 ww = 0;",
    "kernel over32[n](in I32[n] a, out I32 t) over [i: n] { reduce t = sum(a[i]); }",
    "over32(big, ww);", "ww",  # E_OVERFLOW in the epilogue
]


def session(executor: str, declarations: list[str] = DECLARATIONS,
            inputs: list[str] = INPUTS) -> tuple[Session, list[str]]:
    s = Session()
    assert not s.enter(f":executor {executor}").error
    said = [s.enter(text).text for text in declarations + inputs]
    return s, said


def test_every_answer_is_the_references() -> None:
    reference, expected = session("cpu-sir-interp")
    c17, got = session("cpu-c17")
    for text, want, have in zip(DECLARATIONS + INPUTS, expected, got):
        assert have == want, text
    ran, fell_back = c17.dispatched
    assert ran >= 6 and fell_back >= 1  # the fuel fault is found on the reference
    assert any("fault[E_FUEL]" in a for a in got) and any("fault[E_OVERFLOW]" in a for a in got)
    assert any("fault[E_SHAPE]" in a for a in got)
    assert "in C" in c17.enter(":executor").text
    shown = dict(zip(DECLARATIONS + INPUTS, expected))
    assert shown["s"] != "= 0 : I64\n" and shown["lo"] != "= 0 : I32\n" and shown["sat"] != "= 0 : I8\n"


def test_every_answer_on_gpu_cuda_is_the_references() -> None:
    reference, expected = session("cpu-sir-interp", GPU_DECLARATIONS, GPU_INPUTS)
    gpu, got = session("gpu-cuda --device sim", GPU_DECLARATIONS, GPU_INPUTS)
    for text, want, have in zip(GPU_DECLARATIONS + GPU_INPUTS, expected, got):
        assert have == want, text
    on_device, fell_back = gpu.dispatched
    assert on_device >= 8 and fell_back == 3  # E_FUEL, a work-item's and a fold's E_OVERFLOW
    shown = dict(zip(GPU_DECLARATIONS + GPU_INPUTS, expected))
    assert "fault[E_FUEL]" in shown["loops(a, rr);"] and "fault[E_OVERFLOW]" in shown["times(a, 2, bb);"]
    assert "fault[E_OVERFLOW]" in shown["folds(fo, f);"] and "fault[E_OVERFLOW]" in shown["over32(big, ww);"]
    assert "fault[E_SHAPE]" in shown["grid(m[0..1, 0..4], one);"]
    assert shown["s"] != "= 0 : I64\n" and shown["lo"] != "= 0 : I32\n" and shown["c"] != "= 0 : I64\n"
    assert gpu.enter(":executor").text.startswith("executor: gpu-cuda; on the simulated device (")


def test_a_kernel_gpu_cuda_refuses_is_an_error_at_its_construct() -> None:
    """gpu-cuda's admission before the input runs: E_UNSUPPORTED at the construct, in the
    input that declared it; nothing of the input ran, the session goes on."""
    s = Session()
    s.enter(":executor gpu-cuda --device sim")
    s.enter("kernel wrap[n](in I64[n] a, out I64[n] b) over [i: n] { b[i] = a[i] as% I64; }")
    s.enter("I64[2] a = [1, 2];")
    s.enter("I64 kept = 1;")
    answer = s.enter("kept = 2; I64[2] b; wrap(a, b);")
    assert answer.error and "error[E_UNSUPPORTED]: gpu-cuda refuses kernel `wrap`: capability `as.wrap`" in answer.text
    assert "--> entry 1:1:69" in answer.text and "session.ci" not in answer.text
    assert s.enter("kept").text == "= 1 : I64\n"
    assert s.enter(":executor cpu-c17").text.startswith("executor: cpu-c17")
    assert not s.enter("I64[2] b; wrap(a, b);").error
    assert s.enter("b[0]").text == "= 1 : I64\n"


def test_executor_names_are_checked() -> None:
    s = Session()
    for wrong in ("gpu", "gpu-cuda --device tpu", "cpu-c17 --device sim"):
        answer = s.enter(f":executor {wrong}")
        assert answer.error and "cpu-c17 | gpu-cuda [--device auto|cuda|sim]" in answer.text
    assert s.enter(":executor").text == "executor: cpu-sir-interp\n"


def test_gpu_cuda_without_a_driver_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """`--device cuda` where the driver cannot be loaded: one line, the executor unchanged;
    `auto` runs on the simulated device and says why when it is chosen."""
    from cint_ls.exec.cuda import probe

    monkeypatch.setattr(probe, "_driver_loads", lambda: False)
    monkeypatch.delenv(probe.LIBRARY_ENV, raising=False)
    s = Session()
    answer = s.enter(":executor gpu-cuda --device cuda")
    assert answer.error and "no CUDA driver" in answer.text and "--device sim" in answer.text
    assert s.executor == "cpu-sir-interp"
    said = s.enter(":executor gpu-cuda").text
    assert "on the simulated device, not a GPU: no CUDA driver" in said
