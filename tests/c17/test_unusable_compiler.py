"""Issue 13 item 10: a `CC` that is not a working C compiler (`/bin/false`: fails with no
message; `/bin/true`: writes nothing) is "no working C compiler", not "a defect of
cint-ls" or an internal FileNotFoundError, for cpu-c17 and for gpu-cuda, whose host is
the program's C (issue 29: one host, in C)."""

from __future__ import annotations

import pytest
from conftest import CONFORMANCE

from cint_ls.cli.main import main


@pytest.mark.parametrize("compiler", ["/bin/false", "/bin/true"])
def test_cpu_c17_says_the_compiler_does_not_work(compiler, monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("CC", compiler)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    code = main(["run", "--executor", "cpu-c17", str(CONFORMANCE / "heat_e1.ci")])
    err = capsys.readouterr().err
    assert code == 3 and err.count("\n") == 1
    assert "not a working C compiler" in err or "is it a working C17 compiler?" in err
    assert "defect" not in err


@pytest.mark.parametrize("compiler", ["/bin/false", "/bin/true"])
def test_gpu_cuda_says_its_host_needs_a_working_compiler(compiler, monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("CC", compiler)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    code = main(["run", "--executor", "gpu-cuda", "--device", "sim", str(CONFORMANCE / "heat_e1.ci")])
    err = capsys.readouterr().err
    assert code == 3 and err.count("\n") == 1
    assert err.startswith("cint: error: gpu-cuda needs a C compiler for its host: ")
    assert "not a working C compiler" in err or "is it a working C17 compiler?" in err
    assert "defect" not in err
