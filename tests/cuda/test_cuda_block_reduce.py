"""Reductions combined on the device per block (issue 16; ptx.SLOT_WORDS): sum,
sum_wrap, count, min and max (SPEC-02P.1 9.2 para 1: no intermediate fault, any order)
are added into their block's slots by atomic reductions and the host reads one group of
slots per block; fold_checked (its first overflow in ascending order, [R-9]) and
sum_sat (a left fold, [IM-84]) keep a contribution and a mark per work-item. Outcomes
(values, epilogue faults with their counts, canonical work-item faults, fuel) are the
reference's on both hosts, both block sizes of the suite, launches that split blocks,
and every schedule, the interleaving ones included; a combination that is not atomic
is caught by the adversarial schedule."""

from __future__ import annotations

import os
import re
import subprocess

import pytest
from cuda_support import find_ptxas, outcome, program_of, run_cuda

from cint_ls.exec import cuda
from cint_ls.exec.cuda.ptx import emit_module
from cint_ls.exec.interp import run_program

EVERY = """kernel k[n](in I64[n] x, in I32[n] y, in U64[n] z, in I8[n] b, out I64 s, out I64 w, out I64 c, out I32 lo,
               out I32 hi, out U64 us, out U64 um, out U64 ux, out I8 bw, out I64 bs, out I8 bl) over [i: n] {
    reduce s = sum(x[i]);
    reduce w = sum_wrap(x[i]);
    reduce c = count(y[i] > 0);
    reduce lo = min(y[i]);
    reduce hi = max(y[i]);
    reduce us = sum(z[i]);
    reduce um = min(z[i]);
    reduce ux = max(z[i]);
    reduce bw = sum_wrap(b[i]);
    reduce bs = sum(b[i]);
    reduce bl = min(b[i]);
}
void main() {
    I64[N] x; I32[N] y; U64[N] z; I8[N] b;
    for i in 0..N {
        x[i] = i * 1000000007 - 300000000000;
        y[i] = ((i * 37) % 201 - 100) as I32;
        z[i] = 18446744073709551615 - (i as U64) * 3;
        b[i] = ((i * 13) % 256 - 128) as I8;
    }
    x[5] = BIG; x[6] = BIG;
    I64 s = 0; I64 w = 0; I64 c = 0; I32 lo = 0; I32 hi = 0; U64 us = 0; U64 um = 0; U64 ux = 0;
    I8 bw = 0; I64 bs = 0; I8 bl = 0;
    k(x, y, z, b, s, w, c, lo, hi, us, um, ux, bw, bs, bl);
    "{s} {w} {c} {lo} {hi} {us} {um} {ux} {bw} {bs} {bl}\\n";
}
main();
"""

# Nothing contributes to the min: E_EMPTY in the epilogue; the count before it counts.
EMPTY = """kernel k[n](in I64[n] x, out I64 c, out I64 m) over [i: n] {
    reduce c = count(x[i] > 5);
    if (x[i] > 1000) {
        reduce m = min(x[i]);
    }
}
void main() {
    I64[300] x;
    for i in 0..300 { x[i] = i % 10; }
    I64 c = 0; I64 m = 0;
    k(x, c, m);
    "{c}\\n";
}
main();
"""

# fold_checked overflows at work-item AT, in the middle of a block; a combined sum and a
# sum_sat beside it; optionally a fault of another kind above it (k_b) too.
FOLD = """kernel k[n](in I64[n] x, in I64[n] d, in I32[n] e, out I64 f, out I64 s, out I32 t, out I64[n] q) over [i: n] {
    reduce s = sum(x[i]);
    reduce f = fold_checked(add, 0, x[i]);
    reduce t = sum_sat(e[i]);
    q[i] = div_round(100, d[i], floor);
}
void main() {
    I64[600] x; I64[600] d; I32[600] e;
    for i in 0..600 { x[i] = i; d[i] = 1; e[i] = (((i * 7919) % 3000) * 1000000 - 1000000000) as I32; }
    x[AT] = 9223372036854775000;
    d[DZ] = 0;
    I64 f = 0; I64 s = 0; I32 t = 0; I64[600] q;
    k(x, d, e, f, s, t, q);
    "{f} {s} {t}\\n";
}
main();
"""

SCHEDULES = [("ascending", 0), ("descending", 0), ("shuffled", 3), ("interleaved", 1), ("adversarial", 0)]


def every(n: int, big: str) -> str:
    return EVERY.replace("[N]", f"[{n}]").replace("0..N", f"0..{n}").replace("BIG", big)


def cuda_outcome(program, host: str, order: str, seed: int, block: int, max_launch: int | None = None):
    options = {"device": "sim", "host": host, "order": order, "seed": seed, "block_size": block}
    if max_launch is not None:
        options["max_launch"] = max_launch
    return outcome(run_cuda(program, None, None, options))


def test_the_emitted_code_combines_per_block():
    module = emit_module(program_of(every(10, "7")))
    code = module.kernels["k"]
    # A sum of 64-bit contributions takes 3 words, of narrower ones 2; the others 2.
    assert code.slot_words == 3 + 3 + 2 + 2 + 2 + 3 + 2 + 2 + 2 + 2 + 2
    assert [p.kind for p in code.params].count("slots") == 1
    assert not {"contrib", "mark"} & {p.kind for p in code.params}  # no scratch per work-item
    assert module.text.count("red.global.add.u64") == 3 * 3 + 2 * 2 + 2 * 1 + 1 * 5  # sums, the count, min, max
    assert module.text.count("red.global.max.u64") == 5
    folds = emit_module(program_of(FOLD.replace("AT", "3").replace("DZ", "4"))).kernels["k"]
    assert folds.slots == {1: 0} and folds.slot_words == 3  # reductions in the order of their targets
    assert {p.kind for p in folds.params} >= {"contrib", "mark", "slots"}
    assert [p.index for p in folds.params if p.kind == "contrib"] == [(0,), (2,)]


@pytest.mark.parametrize("host", ["c", "python"])
@pytest.mark.parametrize("n, big", [(700, "9223372036854775807"), (700, "12345"), (1, "3"), (257, "I64.min")])
def test_every_combined_kind_gives_the_reference(host, n, big):
    """Values and epilogue faults (the sum's overflow names the number of contributions):
    block sizes 32 and 256, launches that end inside a block, every schedule."""
    program = program_of(every(n, big))
    reference = outcome(run_program(program, None))
    for block, max_launch in ((32, None), (256, None), (32, 100), (256, 300)):
        for order, seed in SCHEDULES:
            assert cuda_outcome(program, host, order, seed, block, max_launch) == reference, \
                (block, max_launch, order, seed)


@pytest.mark.parametrize("host", ["c", "python"])
def test_no_contribution_is_the_epilogue_fault(host):
    program = program_of(EMPTY)
    reference = outcome(run_program(program, None))
    assert reference[1] is not None and reference[1].code == "E_EMPTY"
    for block in (32, 256):
        for order, seed in SCHEDULES:
            assert cuda_outcome(program, host, order, seed, block, 70) == reference, (block, order, seed)


@pytest.mark.parametrize("host", ["c", "python"])
@pytest.mark.parametrize("at, dz", [(77, 599), (77, 80), (77, 60), (300, 599), (599, 0), (1000, 1000)],
                         ids=["fold-mid-block", "fold-then-fault", "fault-then-fold", "fold-at-a-launch-edge",
                              "fault-first", "no-fault"])
def test_fold_checked_in_the_middle_of_a_block(host, at, dz):
    """The first overflow of a fold_checked in the middle of a block (k_r), beside a sum
    combined per block and a sum_sat per work-item, and a division fault (k_b) below or
    above it: the canonical record is the reference's."""
    text = FOLD.replace("x[AT] = ", "x[AT] = " if at < 600 else "// ").replace("AT", str(at))
    text = text.replace("d[DZ] = 0;", f"d[{dz}] = 0;" if dz < 600 else "")
    program = program_of(text)
    reference = outcome(run_program(program, None))
    if at < 600 or dz < 600:
        assert reference[1] is not None and reference[1].address.work_item == min(at, dz)
    for block, max_launch in ((32, None), (256, None), (256, 300)):
        for order, seed in SCHEDULES:
            assert cuda_outcome(program, host, order, seed, block, max_launch) == reference, \
                (block, max_launch, order, seed)


@pytest.mark.parametrize("t, words", [("I64", 3), ("I32", 2)])
def test_the_host_reads_slots_not_a_contribution_per_work_item(t, words):
    """The copies from the device: the staging and, per launch, the fault word and one
    group of slots per block (24 bytes a sum of 64-bit contributions, 16 of narrower
    ones), not 9 bytes a work-item."""
    text = f"""kernel k[n](in {t}[n] x, out {t}[n] y, out I64 s) over [i: n] {{ y[i] = x[i]; reduce s = sum(x[i]); }}
void main() {{ {t}[4096] x; for i in 0..4096 {{ x[i] = (i - 2000) as {t}; }} {t}[4096] y; I64 s = 0; k(x, y, s);
"{{s}}\\n"; }}
main();
"""
    program = program_of(text)
    result = run_cuda(program, None, None, {"device": "sim", "host": "c", "report": True})
    assert result.output == f"{sum(i - 2000 for i in range(4096))}\n"
    (row,) = [row for row in result.dispatch_log if row.get("copies")]
    element = 8 if t == "I64" else 4
    assert row["copies"]["from_device"] == element * 4096 + 8 + 8 * words * (4096 // 256)


# ---- a combination that is not atomic


RED = re.compile(r"^\tred\.global\.add\.u64 \[([^\]]+)\], (%\w+);$", re.MULTILINE)


def unatomic(text: str) -> str:
    """Every atomic addition into the slots as a load, an add and a store (%t0 is free
    there: it holds the fault word only at the start and on the fault path)."""
    return RED.sub(r"\tld.global.u64 %t0, [\1];\n\tadd.u64 %t0, %t0, \2;\n\tst.global.u64 [\1], %t0;", text)


def test_a_combination_without_the_atomic_fails_the_suite(monkeypatch):
    def emit(program, param_space):
        module = emit_module(program, param_space)
        module.text = unatomic(module.text)
        assert "red.global.add" not in module.text
        return module

    monkeypatch.setattr(cuda, "emit_module", emit)
    program = program_of(every(300, "7"))
    reference = outcome(run_program(program, None))
    # Each thread run to completion: no two updates overlap, so the outcome is right...
    for order, seed in SCHEDULES[:3]:
        assert cuda_outcome(program, "c", order, seed, 256) == reference
    # ...but every read goes before any write in the adversarial schedule, and in step in
    # the random ones: updates are lost.
    for order, seed in (("adversarial", 0), ("interleaved", 1), ("interleaved", 2)):
        assert cuda_outcome(program, "c", order, seed, 256) != reference, (order, seed)


@pytest.mark.parametrize("host", ["c", "python"])
def test_the_slots_through_the_argument_block(host):
    """Parameters in an argument block (param_space 0): the slots' address, known once
    the block size is, reaches the block too."""
    program = program_of(every(300, "7"))
    reference = outcome(run_program(program, None))
    for block in (32, 256):
        got = run_cuda(program, None, None, {"device": "sim", "host": host, "block_size": block, "param_space": 0,
                                             "max_launch": 100})
        assert outcome(got) == reference


@pytest.mark.parametrize("arch", ["sm_75", "sm_90"])
def test_ptxas_assembles_the_combined_reductions(tmp_path, arch):
    ptxas = find_ptxas()
    if ptxas is None:
        if os.environ.get("CINT_REQUIRE_PTXAS"):
            pytest.fail("ptxas not found, and CINT_REQUIRE_PTXAS is set")
        pytest.skip("ptxas not found (pip install nvidia-cuda-nvcc)")
    for name, text in (("every", every(10, "7")), ("fold", FOLD.replace("AT", "3").replace("DZ", "4"))):
        for space in (4096, 0):
            source = tmp_path / f"{name}{space}.ptx"
            source.write_text(emit_module(program_of(text), space).text)
            result = subprocess.run([ptxas, f"-arch={arch}", str(source), "-o", str(tmp_path / "out.cubin")],
                                    capture_output=True, text=True)
            assert result.returncode == 0 and not result.stderr.strip(), result.stderr
