"""The 32-bit paths of the emitted PTX (issue 16): the index tuple of work-item i in
32-bit divisions when the launch's `end` and every extent divided by are below 2**32,
and div_round's quotient in a 32-bit division when both operands' patterns are below
2**32. Each path is chosen at run time; both give the exact values.

Which path ran is shown by mutation: the same module with every 32-bit division (or
every 64-bit one) replaced by a subtraction gives wrong values exactly when that path is
taken. Spaces of 2**32 work-items and more are reached by launching the entry directly
on the simulated device with chosen parameters (one thread, `first` near the boundary,
the arrays' extents huge and their strides 0, so every store lands on element 0)."""

from __future__ import annotations

import os
import subprocess

import pytest
from cuda_support import DispatchHarness, find_ptxas, program_of

from cint_ls.analysis.types import I32, I64, U32, U64
from cint_ls.exec.cuda.oracle.machine import CudaMachine
from cint_ls.exec.cuda.ptx import PtxModule, emit_module
from cint_ls.exec.cuda.simulator import SimulatedDevice
from cint_ls.exec.cuda.status import HostStatus

PROBE = """kernel probe[n, m, l](out I64[n, m, l] a, out I64[n, m, l] b, out I64[n, m, l] c) over [i: n, j: m, k: l] {
    a[i, j, k] = i;
    b[i, j, k] = j;
    c[i, j, k] = k;
}
"""

TWO_32 = 1 << 32


def mutated(text: str, path: str) -> str:
    """The module with the divisions of one path made wrong: `32` every div.u32, `64`
    every div.u64 and div.s64 (a subtraction in their place)."""
    if path == "32":
        assert "div.u32 " in text
        return text.replace("div.u32 ", "sub.u32 ")
    assert "div.u64 " in text or "div.s64 " in text
    return text.replace("div.u64 ", "sub.u64 ").replace("div.s64 ", "sub.s64 ")


def probe(text: str, i: int, end: int, m: int, l: int):  # noqa: E741 - the kernel's own names
    """Work-item i of a launch [i, end) of `probe` over [n, m, l], alone: its (i, j, k),
    or "fault" when it faulted (a wrong index fails a bound)."""
    device = SimulatedDevice()
    module = device.load(text)
    function = module.function("cint_probe")
    fault = device.alloc(8)
    device.upload(fault, (2**64 - 1).to_bytes(8, "little"))
    out = [device.alloc(8) for _ in range(3)]
    values = {("first",): i, ("end",): end, ("fault",): fault, ("over", 1): m, ("over", 2): l,
              ("size", 0): 1 << 40, ("size", 1): m, ("size", 2): l}
    for p in range(3):
        values[("write", p)] = out[p]
        for d in range(3):
            values[("extent", p, d)] = 1 << 62  # every index passes its bound...
            values[("wstride", p, d)] = 0  # ...and lands on element 0
    code = program_code()
    device.launch(function, 1, 1, [values[(p.kind, *p.index)] for p in code.params])
    if int.from_bytes(device.download(fault, 8), "little") != 2**64 - 1:
        return "fault"
    return tuple(int.from_bytes(device.download(address, 8), "little") for address in out)


_CODE = {}


def program_code():
    if "probe" not in _CODE:
        module = emit_module(program_of(PROBE))
        _CODE["probe"] = module.kernels["probe"]
        _CODE["text"] = module.text
    return _CODE["probe"]


def probe_text() -> str:
    program_code()
    return _CODE["text"]


# (i, end, m, l, whether the 32-bit path is taken): end and the extents at 2**31 and
# 2**32, each side of the boundary.
CASES = [
    (5, 6, 3, 7, True),
    ((1 << 31) + 5, (1 << 31) + 6, 3, 7, True),  # above 2**31: unsigned 32-bit arithmetic
    (TWO_32 - 2, TWO_32 - 1, (1 << 16) + 1, (1 << 16) - 1, True),  # the greatest end that fits
    (TWO_32 - 1, TWO_32, (1 << 16) + 1, (1 << 16) - 1, False),  # end = 2**32
    (TWO_32 + 7, TWO_32 + 8, 5, 11, False),
    (5, 6, 1, TWO_32 - 1, True),  # the greatest extent that fits
    (5, 6, 1, TWO_32, False),
    (TWO_32 - 3, TWO_32 - 2, TWO_32 - 1, 1, True),
    (5, 6, TWO_32, 1, False),
    ((1 << 40) + 12345, (1 << 40) + 12346, 1 << 20, (1 << 20) - 3, False),
    (TWO_32 - 2, TWO_32 - 1, 1, TWO_32 - 1, True),  # k = i mod l = 2**32 - 2, j = 0
]


@pytest.mark.parametrize("i, end, m, l, narrow", CASES)
def test_index_tuple_each_side_of_2_to_the_32(i, end, m, l, narrow):  # noqa: E741 - as probe
    expected = (i // (m * l), i // l % m, i % l)
    text = probe_text()
    assert probe(text, i, end, m, l) == expected
    # The path taken: its divisions made wrong change the outcome, the other's do not.
    wrong32, wrong64 = probe(mutated(text, "32"), i, end, m, l), probe(mutated(text, "64"), i, end, m, l)
    assert (wrong32 != expected) == narrow
    assert (wrong64 != expected) == (not narrow)


def test_the_choice_is_per_launch_and_uniform():
    """The test reads only parameters (end and the over extents), never i: every thread
    of a launch takes the same path."""
    text = probe_text()
    head = text.split("// the 32-bit path", 1)[1].split("bra $L", 1)[0]
    assert "%i" not in head and "%r" not in head
    assert head.count("or.b64") == 2  # end | over 2 | over 1


def test_one_dimensional_space_divides_nothing():
    text = emit_module(program_of("kernel f[n](out I64[n] r) over [i: n] { r[i] = i; }\n")).text
    assert "div." not in text


DIVIDE = """kernel f[n](in {t}[n] a, in {t}[n] b, out {o}[n] r) over [i: n] {{
    r[i] = div_round(a[i], b[i], {mode}) as {o};
}}
"""


def operands(t):
    points = {0, 1, 2, 3, 7, TWO_32 - 2, TWO_32 - 1, TWO_32, TWO_32 + 1, (1 << 31) - 1, 1 << 31, (1 << 31) + 1,
              t.max, t.max - 1}
    if t.signed:
        points |= {-x for x in list(points)} | {t.min, t.min + 1}
    return sorted(x for x in points if t.min <= x <= t.max)


@pytest.mark.parametrize("t", [I64, U64, I32, U32], ids=str)
@pytest.mark.parametrize("mode", ["floor", "half_even", "trunc"])
def test_div_round_32_bit_path(t, mode):
    """div_round beside the reference on operands each side of 2**31 and 2**32, and the
    32-bit division taken exactly when both patterns are below 2**32 (a negative value's
    pattern never is)."""
    out = I64 if t.signed else U64
    text = DIVIDE.format(t=t, o=out, mode=mode)
    values = [(x, y) for x in operands(t) for y in operands(t) if y != 0 and not (t.signed and x == t.min and y == -1)]
    h = DispatchHarness(text, "f")
    program = h.program
    module = emit_module(program)
    narrow_machine = CudaMachine(program, None, None, SimulatedDevice(),
                                 PtxModule(module.module, mutated(module.text, "32"), module.kernels))
    taken = 0
    for x, y in values:
        def args(x=x, y=y):
            return [h.array(t, [x]), h.array(t, [y]), h.array(out, [0])]
        ref, got = h.compare(args)
        assert ref == got, (t, mode, x, y)
        narrow = 0 <= x < TWO_32 and 0 < y < TWO_32
        try:
            wrong = h._one(narrow_machine, args)
        except HostStatus as status:  # the re-run on the host completed: a divergence
            wrong = ("host", status.operation)
        if narrow and abs(x // y - (x - y)) > 1:  # a subtraction for the division: wrong even rounded
            assert wrong != ref, (t, mode, x, y)
            taken += 1
        elif not narrow:
            assert wrong == ref, (t, mode, x, y)
    assert taken > 10


@pytest.mark.parametrize("arch", ["sm_75", "sm_90"])
def test_ptxas_assembles_both_paths(tmp_path, arch):
    ptxas = find_ptxas()
    if ptxas is None:
        if os.environ.get("CINT_REQUIRE_PTXAS"):
            pytest.fail("ptxas not found, and CINT_REQUIRE_PTXAS is set")
        pytest.skip("ptxas not found (pip install nvidia-cuda-nvcc)")
    texts = {"probe": probe_text()}
    for t in (I64, U64, I32, U32):
        texts[f"divide_{t}"] = emit_module(program_of(DIVIDE.format(t=t, o=I64 if t.signed else U64,
                                                                    mode="half_even"))).text
    for name, text in texts.items():
        source = tmp_path / f"{name}.ptx"
        source.write_text(text)
        result = subprocess.run([ptxas, f"-arch={arch}", str(source), "-o", str(tmp_path / "out.cubin")],
                                capture_output=True, text=True)
        assert result.returncode == 0 and not result.stderr.strip(), f"{name}: {result.stderr}"
