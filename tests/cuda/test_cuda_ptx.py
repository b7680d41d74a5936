"""PTX emission (10.5 para 2 and 3): deterministic text of the declared version and
target, within the subset the simulated device runs, and every module of the suite
assembles with ptxas -arch=sm_75 (the PyPI package nvidia-cuda-nvcc; CI installs it and
sets CINT_REQUIRE_PTXAS, so there the test cannot skip)."""

from __future__ import annotations

import os
import re
import subprocess

import pytest
from conftest import CONFORMANCE, conformance_programs
from cuda_support import find_ptxas, kitchen_sink, program_of

from cint_ls.exec.cuda.admission import admit
from cint_ls.exec.cuda.ptx import EmitError, emit_module, literal
from cint_ls.exec.cuda.simulator import parse_module
from cint_ls.ir.build import build


def admitted_modules():
    out = []
    for path in conformance_programs():
        built = build(path.read_text(), path.name)
        if built.program is not None and admit(built.checked) is None and built.program.kernels:
            out.append(path)
    return out


ADMITTED = admitted_modules()


def test_suite_has_modules():
    assert len(ADMITTED) > 20


def test_header_and_one_entry_per_kernel():
    text = (CONFORMANCE / "heat_e1.ci").read_text()
    module = emit_module(program_of(text, "heat_e1.ci"))
    lines = [line for line in module.text.splitlines() if line and not line.startswith("//")]
    assert lines[:3] == [".version 6.0", ".target sm_52", ".address_size 64"]
    assert re.findall(r"\.visible \.entry (\w+)\(", module.text) == ["cint_diffuse"]
    assert set(module.kernels) == {"diffuse"}


def test_deterministic_text():
    for path in ADMITTED:
        text = path.read_text()
        first = emit_module(program_of(text, path.name)).text
        second = emit_module(program_of(text, path.name)).text
        assert first == second, path.name
        assert "\r" not in first and first.endswith("\n")


def test_every_value_in_a_64_bit_register():
    for path in ADMITTED:
        text = emit_module(program_of(path.read_text(), path.name)).text
        declared = re.findall(r"\.reg \.(\w+) (%\w+)", text)
        assert {kind for kind, _ in declared} <= {"pred", "b32", "b64"}
        # 32-bit registers hold the special registers of the work-item index and the
        # operands of the 32-bit divisions (the index tuple, div_round) taken only when
        # the values fit; no cint value lives in one.
        for line in text.splitlines():
            words = set(re.findall(r"%r\d+", line))
            if words - {"%r1", "%r2", "%r3"}:
                assert re.match(r"\t(cvt\.u32\.u64|cvt\.u64\.u32|div\.u32|mul\.lo\.u32|sub\.u32) ", line), line
        assert "cvt.s" not in text and ".f32" not in text and ".f64" not in text


def test_within_the_simulated_subset():
    for path in ADMITTED:
        parse_module(emit_module(program_of(path.read_text(), path.name)).text)


def test_checks_branch_before_the_store():
    """Every test of a checked operation is a branch to the fault path; the fault path
    takes the atomic minimum of the fault word and returns."""
    text = emit_module(program_of((CONFORMANCE / "heat_e1.ci").read_text(), "heat_e1.ci")).text
    body = text.split("$Lfault:")[1]
    assert "atom.global.min.u64" in body.split("ret;")[0]
    assert text.count("bra $Lfault;") >= 28  # bounds, checked arithmetic, conversions, div_round
    assert "mul.hi.s64" in text  # 64-bit multiplication checked by the high half
    assert "ld.volatile.global.u64" in text  # the early exit reads the fault word


def test_literal_forms():
    assert literal(0) == "0" and literal(2147483647) == "2147483647"
    assert literal(-1) == "0xFFFFFFFFFFFFFFFF"
    assert literal(-(1 << 63)) == "0x8000000000000000"


def test_emitter_refuses_what_admission_refuses():
    text = "kernel f[n](in I64[n] a, out I64[n] b) over [i: n] { b[i] = -a[i]; }\n"
    with pytest.raises(EmitError, match="neg"):
        emit_module(program_of(text))


def _ptxas():
    ptxas = find_ptxas()
    if ptxas is None:
        if os.environ.get("CINT_REQUIRE_PTXAS"):
            pytest.fail("ptxas not found, and CINT_REQUIRE_PTXAS is set")
        pytest.skip("ptxas not found (pip install nvidia-cuda-nvcc)")
    return ptxas


@pytest.mark.slow
@pytest.mark.parametrize("arch", ["sm_75", "sm_90"])
def test_ptxas_assembles_every_module(tmp_path, arch):
    ptxas = _ptxas()
    for path in ADMITTED:
        text = emit_module(program_of(path.read_text(), path.name)).text
        source = tmp_path / f"{path.stem}.ptx"
        source.write_text(text)
        result = subprocess.run([ptxas, f"-arch={arch}", str(source), "-o", str(tmp_path / "out.cubin")],
                                capture_output=True, text=True)
        assert result.returncode == 0 and not result.stderr.strip(), f"{path.name}:\n{result.stderr}"


@pytest.mark.parametrize("arch", ["sm_75", "sm_90"])
def test_ptxas_assembles_every_construct(tmp_path, arch):
    ptxas = _ptxas()
    program = program_of(kitchen_sink(), "kitchen.ci")
    for space in (4096, 0):  # entry parameters, and the argument block
        source = tmp_path / f"kitchen{space}.ptx"
        source.write_text(emit_module(program, space).text)
        result = subprocess.run([ptxas, f"-arch={arch}", str(source), "-o", str(tmp_path / "out.cubin")],
                                capture_output=True, text=True)
        assert result.returncode == 0 and not result.stderr.strip(), result.stderr


def test_heat_kernel_divides_twice_and_reads_through_the_read_only_cache():
    """Issue 16: one 64-bit division for the index tuple and one for div_round (each
    remainder from its quotient); every element read with ld.global.nc."""
    text = emit_module(program_of((CONFORMANCE / "heat_e1.ci").read_text(), "heat_e1.ci")).text
    assert re.findall(r"\b(?:div|rem)\.[su]64\b", text) == ["div.u64", "div.s64"]
    loads = re.findall(r"\tld\.global\S*", text)
    assert loads and set(loads) == {"\tld.global.nc.u32"}, loads
