"""`cint check --executor gpu-cuda FILE`: the refusals, the first as the build error."""

from __future__ import annotations

import pytest
from ide_support import CONFORMANCE

from cint_ls.cli.main import main


def check(capsys, *argv):
    code = main(["check", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_ops_kernel_fails_to_build_at_its_unary_minus(capsys, monkeypatch):
    monkeypatch.chdir(CONFORMANCE)
    code, out, err = check(capsys, "--executor", "gpu-cuda", "ops_kernel.ci")
    assert code == 2 and out == ""
    assert err.count("warning[C9100]: gpu-cuda refuses") == 11
    build_error = err[err.index("error[E_UNSUPPORTED]"):]
    assert build_error == (
        "error[E_UNSUPPORTED]: gpu-cuda refuses kernel `ops`: capability `neg` (unary minus) at ops_kernel.ci:3:13\n"
        "  --> ops_kernel.ci:3:13\n"
        "   |\n"
        " 3 |     I64 y = -x;\n"
        "   |             ^\n")


def test_narrow_out_fails_at_its_division(capsys, monkeypatch):
    monkeypatch.chdir(CONFORMANCE)
    code, _, err = check(capsys, "--executor", "gpu-cuda", "narrow_out.ci")
    assert code == 2
    assert "error[E_UNSUPPORTED]: gpu-cuda refuses kernel `half`: capability `div` (division `/`) at " \
           "narrow_out.ci:2:17" in err
    assert "store.narrow" in err


@pytest.mark.parametrize("name", sorted(p.name for p in CONFORMANCE.glob("heat_*.ci")))
def test_heat_examples_build(capsys, name):
    code, out, err = check(capsys, "--executor", "gpu-cuda", str(CONFORMANCE / name))
    assert (code, out, err) == (0, "", "")


def test_plain_check_is_unchanged(capsys):
    code, _, err = check(capsys, str(CONFORMANCE / "ops_kernel.ci"))
    assert code == 0 and err == ""
    code, _, err = check(capsys, "--executor", "cpu-c17", str(CONFORMANCE / "ops_kernel.ci"))
    assert code == 0 and err == ""


def test_translation_errors_still_exit_2(capsys):
    code, _, err = check(capsys, "--executor", "gpu-cuda", str(CONFORMANCE / "same_c5010.ci"))
    assert code == 2 and "error[C5010]" in err and "E_UNSUPPORTED" not in err
