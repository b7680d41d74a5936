"""The simulated device: PTX semantics of the emitted subset, memory, schedules, and its
refusal of anything outside the subset."""

from __future__ import annotations

import pytest

from cint_ls.exec.cuda.device import DeviceError
from cint_ls.exec.cuda.simulator import SimulatedDevice, SimulatorError, parse_module

HEADER = ".version 6.0\n.target sm_52\n.address_size 64\n\n"
M64 = (1 << 64) - 1


def entry(body: str, params=("p_out", "p_a", "p_b")) -> str:
    decl = ",\n".join(f"\t.param .u64 {p}" for p in params)
    return (HEADER + f".visible .entry k(\n{decl}\n)\n{{\n\t.reg .pred %p<4>;\n\t.reg .b32 %r<4>;\n"
            f"\t.reg .b64 %t<16>;\n{body}\n}}\n")


def run_op(instruction: str, a: int, b: int) -> int:
    """Compute `instruction` (with %t1, %t2 as sources, %t3 as destination) on the device."""
    device = SimulatedDevice()
    out = device.alloc(8)
    module = device.load(entry(
        "\tld.param.u64 %t0, [p_out];\n\tld.param.u64 %t1, [p_a];\n\tld.param.u64 %t2, [p_b];\n"
        f"\t{instruction};\n\tst.global.u64 [%t0], %t3;\n\tret;"))
    device.launch(module.function("k"), 1, 1, [out, a & M64, b & M64])
    return int.from_bytes(device.download(out, 8), "little")


def s64(x: int) -> int:
    return x - (1 << 64) if x >> 63 else x


@pytest.mark.parametrize("a,b", [(3, 5), (-3, 5), (-(1 << 63), -1), ((1 << 63) - 1, (1 << 63) - 1), (-7, -9)])
def test_integer_instructions(a, b):
    assert s64(run_op("mul.hi.s64 %t3, %t1, %t2", a, b)) == (a * b) >> 64
    assert run_op("mul.hi.u64 %t3, %t1, %t2", a, b) == ((a & M64) * (b & M64)) >> 64
    assert run_op("mul.lo.s64 %t3, %t1, %t2", a, b) == (a * b) & M64
    assert run_op("add.s64 %t3, %t1, %t2", a, b) == (a + b) & M64
    assert run_op("sub.u64 %t3, %t1, %t2", a, b) == (a - b) & M64
    assert run_op("xor.b64 %t3, %t1, %t2", a, b) == (a ^ b) & M64
    assert s64(run_op("shr.s64 %t3, %t1, 63", a, b)) == (-1 if a < 0 else 0)
    assert run_op("shr.u64 %t3, %t1, 63", a, b) == (1 if a < 0 else 0)
    assert run_op("shl.b64 %t3, %t1, 4", a, b) == (a << 4) & M64


@pytest.mark.parametrize("a,b", [(7, 2), (-7, 2), (7, -2), (-7, -2), (-(1 << 63), 3)])
def test_division_truncates(a, b):
    q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
    assert s64(run_op("div.s64 %t3, %t1, %t2", a, b)) == q
    assert s64(run_op("rem.s64 %t3, %t1, %t2", a, b)) == a - q * b


@pytest.mark.parametrize("instruction,a,b", [("div.s64 %t3, %t1, %t2", 1, 0), ("rem.u64 %t3, %t1, %t2", 1, 0),
                                              ("div.s64 %t3, %t1, %t2", -(1 << 63), -1)])
def test_unspecified_division_stops_the_launch(instruction, a, b):
    with pytest.raises(SimulatorError, match="unspecified"):
        run_op(instruction, a, b)


def test_setp_signed_and_unsigned():
    body = ("\tld.param.u64 %t0, [p_out];\n\tld.param.u64 %t1, [p_a];\n\tld.param.u64 %t2, [p_b];\n"
            "\tsetp.lt.s64 %p1, %t1, %t2;\n\tselp.b64 %t3, 1, 0, %p1;\n"
            "\tsetp.lt.u64 %p2, %t1, %t2;\n\tselp.b64 %t4, 2, 0, %p2;\n\tadd.u64 %t3, %t3, %t4;\n"
            "\tst.global.u64 [%t0], %t3;\n\tret;")
    device = SimulatedDevice()
    out = device.alloc(8)
    function = device.load(entry(body)).function("k")
    device.launch(function, 1, 1, [out, (-1) & M64, 1])
    assert int.from_bytes(device.download(out, 8), "little") == 1  # -1 < 1 signed only


def test_atomic_minimum_and_loads_of_every_width():
    device = SimulatedDevice("shuffled", seed=3)
    word = device.alloc(8)
    device.upload(word, M64.to_bytes(8, "little"))
    body = ("\tld.param.u64 %t0, [p_out];\n\tmov.u32 %r1, %tid.x;\n\tcvt.u64.u32 %t1, %r1;\n"
            "\tadd.u64 %t1, %t1, 5;\n\tatom.global.min.u64 %t2, [%t0], %t1;\n\tret;")
    device.launch(device.load(entry(body, ("p_out",))).function("k"), 1, 64, [word])
    assert int.from_bytes(device.download(word, 8), "little") == 5
    data = device.alloc(16)
    device.upload(data, bytes(range(0xF0, 0x100)))
    out = device.alloc(32)
    body = ("\tld.param.u64 %t0, [p_out];\n\tld.param.u64 %t1, [p_a];\n"
            "\tld.global.u8 %t2, [%t1];\n\tld.global.u16 %t3, [%t1+2];\n\tld.global.u32 %t4, [%t1+4];\n"
            "\tld.global.u64 %t5, [%t1+8];\n\tst.global.u64 [%t0], %t2;\n\tst.global.u64 [%t0+8], %t3;\n"
            "\tst.global.u64 [%t0+16], %t4;\n\tst.global.u32 [%t0+24], %t5;\n\tret;")
    device.launch(device.load(entry(body, ("p_out", "p_a"))).function("k"), 1, 1, [out, data])
    got = device.download(out, 32)
    assert int.from_bytes(got[0:8], "little") == 0xF0  # zero-extended
    assert int.from_bytes(got[8:16], "little") == 0xF3F2
    assert int.from_bytes(got[16:24], "little") == 0xF7F6F5F4
    assert got[24:28] == bytes(range(0xF8, 0xFC))  # a 32-bit store keeps the low half


def test_illegal_and_misaligned_addresses():
    body = "\tld.param.u64 %t0, [p_out];\n\tld.global.u64 %t1, [%t0];\n\tret;"
    device = SimulatedDevice()
    function = device.load(entry(body, ("p_out",))).function("k")
    with pytest.raises(DeviceError, match="ILLEGAL_ADDRESS"):
        device.launch(function, 1, 1, [0x10])
    good = device.alloc(16)
    with pytest.raises(DeviceError, match="MISALIGNED"):
        device.launch(function, 1, 1, [good + 4])
    with pytest.raises(DeviceError, match="ILLEGAL_ADDRESS"):
        device.launch(function, 1, 1, [good + 16])


def test_register_read_before_written():
    body = "\tld.param.u64 %t0, [p_out];\n\tst.global.u64 [%t0], %t5;\n\tret;"
    device = SimulatedDevice()
    out = device.alloc(8)
    with pytest.raises(SimulatorError, match="read before"):
        device.launch(device.load(entry(body, ("p_out",))).function("k"), 1, 1, [out])


@pytest.mark.parametrize("body", [
    "\tld.param.u64 %t0, [p_out];\n\tadd.f64 %t1, %t0, %t0;\n\tret;",
    "\tld.param.u64 %t0, [p_out];\n\tbar.sync 0;\n\tret;",
    "\tld.param.u64 %t0, [p_out];\n\tld.shared.u64 %t1, [%t0];\n\tret;",
    "\tld.param.u64 %t0, [p_missing];\n\tret;",
    "\tbra $Lnowhere;",
    "\tmov.b64 %q1, 0;\n\tret;",
])
def test_outside_the_subset_is_refused(body):
    with pytest.raises(SimulatorError):
        SimulatedDevice().load(entry(body, ("p_out",)))


def test_header_must_match():
    with pytest.raises(SimulatorError, match="PTX 6.0"):
        parse_module(entry("\tret;").replace(".target sm_52", ".target sm_90"))


def schedule(order: str, seed: int = 0) -> list[int]:
    """The rank at which each of 3 blocks of 32 threads ran."""
    device = SimulatedDevice(order, seed=seed)
    seen = device.alloc(8 * 3 * 32)
    count = device.alloc(8)
    # Each thread stores the running count at its own slot, then bumps the count: the
    # slots record the order in which the threads ran.
    body = ("\tld.param.u64 %t0, [p_out];\n\tld.param.u64 %t1, [p_a];\n"
            "\tmov.u32 %r1, %ctaid.x;\n\tmov.u32 %r2, %ntid.x;\n\tmov.u32 %r3, %tid.x;\n"
            "\tmul.wide.u32 %t2, %r1, %r2;\n\tcvt.u64.u32 %t3, %r3;\n\tadd.u64 %t2, %t2, %t3;\n"
            "\tld.global.u64 %t4, [%t1];\n\tshl.b64 %t5, %t2, 3;\n\tadd.u64 %t5, %t5, %t0;\n"
            "\tst.global.u64 [%t5], %t4;\n\tadd.u64 %t4, %t4, 1;\n\tst.global.u64 [%t1], %t4;\n\tret;")
    device.launch(device.load(entry(body, ("p_out", "p_a"))).function("k"), 3, 32, [seen, count])
    data = device.download(seen, 8 * 96)
    return [int.from_bytes(data[8 * j:8 * j + 8], "little") for j in range(96)]


def test_every_thread_runs_once_in_the_chosen_order():
    assert schedule("ascending") == list(range(96))
    assert schedule("descending") == list(range(95, -1, -1))
    shuffled = schedule("shuffled", 11)
    assert sorted(shuffled) == list(range(96)) and shuffled != list(range(96))
    assert schedule("shuffled", 11) == shuffled  # a seed gives one schedule
    assert schedule("shuffled", 12) != shuffled


def test_injected_driver_failures():
    device = SimulatedDevice(fail_launch=0)
    function = device.load(entry("\tret;", ("p_out",))).function("k")
    with pytest.raises(DeviceError, match="LAUNCH_TIMEOUT"):
        device.launch(function, 1, 1, [0])
    small = SimulatedDevice(memory_limit=64)
    small.alloc(60)
    with pytest.raises(DeviceError, match="OUT_OF_MEMORY"):
        small.alloc(8)
