"""The emitted C of every conformance program compiles without a warning under the
flags of SPEC-02P.1 10.3 [B-7] with GCC and with Clang, and so does the run-time; two
emissions of a program are byte-identical [BACK-02], with LF line endings and no path."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest
from conftest import CONFORMANCE, conformance_programs

from cint_ls.exec.c17.build import FLAGS, RT_SOURCES, WARNING_FLAGS
from cint_ls.exec.c17.emit import emit_program
from cint_ls.exec.c17.toolchain import RT_INCLUDES, rt_path
from cint_ls.ir.build import build

B7 = ("-std=c17", "-Wall", "-Wextra", "-Wconversion", "-Wsign-conversion", "-Wshadow", "-Wpedantic", "-Werror")


def _programs():
    out = []
    for path in conformance_programs():
        built = build(path.read_text(), path.name)
        if built.program is not None:
            out.append((path, built.program))
    return out


PROGRAMS = _programs()


def test_the_build_uses_the_flags_of_b7():
    assert WARNING_FLAGS == B7
    assert set(B7) <= set(FLAGS)


def _compiler(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(f"{name} is not installed (.ci/run installs it)")
        pytest.skip(f"{name} is not installed (.ci/run installs it)")
    return path


def _compile(compiler: str, source, out_dir, name: str) -> str | None:
    obj = out_dir / (name + ".o")
    result = subprocess.run([compiler, *B7, "-O2", "-fPIC", *RT_INCLUDES, "-c", str(source), "-o", str(obj)],
                            capture_output=True, text=True)
    if result.returncode != 0 or result.stderr.strip():
        return f"{name}: {result.stderr.strip().splitlines()[:3]}"
    return None


@pytest.mark.slow
@pytest.mark.parametrize("compiler", ["gcc", "clang"])
def test_every_conformance_program_compiles_without_a_warning(compiler, tmp_path):
    cc = _compiler(compiler)
    sources = []
    for path, program in PROGRAMS:
        source = tmp_path / f"{path.stem}.c"
        source.write_text(emit_program(program), newline="\n")
        sources.append((source, path.stem))
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        failures = [f for f in pool.map(lambda s: _compile(cc, s[0], tmp_path, s[1]), sources) if f]
    assert not failures, "\n".join(failures)
    assert len(sources) >= 100


@pytest.mark.slow
@pytest.mark.parametrize("compiler", ["gcc", "clang"])
def test_the_run_time_compiles_without_a_warning(compiler, tmp_path):
    cc = _compiler(compiler)
    failures = [f for f in (_compile(cc, rt_path(name), tmp_path, name) for name in RT_SOURCES) if f]
    assert not failures, "\n".join(failures)


def test_two_emissions_are_byte_identical():
    for path, program in PROGRAMS:
        first = emit_program(program)
        second = emit_program(build(path.read_text(), path.name).program)
        assert first == second, path.stem
        assert "\r" not in first
        assert str(CONFORMANCE) not in first and path.name not in first


def test_emission_does_not_depend_on_the_process(tmp_path):
    """`cint emit-c` in two processes with different hash seeds gives the same bytes."""
    outputs = []
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        result = subprocess.run([sys.executable, "-P", "-m", "cint_ls.cli.main", "emit-c", "heat_tour.ci"],
                                cwd=CONFORMANCE, env=env, capture_output=True, check=True)
        outputs.append(result.stdout)
    assert outputs[0] == outputs[1]
    assert outputs[0].startswith(b"/* cpu-c17: the C of module heat_tour")
    assert b"\r\n" not in outputs[0]
