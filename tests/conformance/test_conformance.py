"""The conformance suite on cpu-sir-interp: every `.ci` here is run with `cint run`
(and its `.args`), and stdout then stderr must match its `.out` under the `...` rule."""

from __future__ import annotations

import pytest
from conftest import conformance_case, conformance_programs, matches_expected

from cint_ls.cli.main import main


def run_cli(capsys, monkeypatch, path, executor_args=()):
    monkeypatch.chdir(path.parent)
    args, expected = conformance_case(path)
    code = main(["run", path.name, *executor_args, *args])
    out, err = capsys.readouterr()
    return code, out + err, expected


@pytest.mark.parametrize("path", conformance_programs(), ids=lambda p: p.stem)
def test_interp(capsys, monkeypatch, path):
    code, actual, expected = run_cli(capsys, monkeypatch, path, ["--executor", "cpu-sir-interp"])
    assert matches_expected(expected, actual), f"--- expected\n{expected}\n--- actual\n{actual}"
    if expected.startswith(("fault[", "error[")) or "\nfault[" in expected:
        assert code == (2 if "error[" in expected else 1)
    else:
        assert code == 0


# ---- gpu-cuda on the simulated device (issue 6): every case within Table 3 gives the
# reference's output, fault record and fuel with block sizes 32 and 256, in ascending,
# descending and shuffled order; every other case is refused at build time.


def _gpu_admission(path):
    """None when the case builds for gpu-cuda (or does not translate at all), else its
    first refusal."""
    from cint_ls.analysis.capabilities import gpu_refusals
    from cint_ls.ir.build import build

    built = build(path.read_text(), path.name)
    if built.program is None:
        return None
    refusals = gpu_refusals(built.checked)
    return refusals[0] if refusals else None


_GPU = [(path, _gpu_admission(path)) for path in conformance_programs()]
_GPU_ADMITTED = [path for path, refusal in _GPU if refusal is None]
_GPU_REFUSED = [(path, refusal) for path, refusal in _GPU if refusal is not None]
# SPEC-02P.1 10.5 example 7 and LANGUAGE.md "Conformance files".
_NAMED_REFUSALS = {"ops_kernel": ("neg", "3:13"), "narrow_out": ("div", "2:17"), "wide_kernel": ("wide", None)}


@pytest.mark.slow
@pytest.mark.parametrize("order", ["ascending", "descending", "shuffled"])
@pytest.mark.parametrize("block", [32, 256])
@pytest.mark.parametrize("path", _GPU_ADMITTED, ids=lambda p: p.stem)
def test_gpu_cuda_simulated(capsys, monkeypatch, path, block, order):
    import zlib

    seed = zlib.crc32(path.stem.encode())
    code, actual, expected = run_cli(capsys, monkeypatch, path, [
        "--executor", "gpu-cuda", "--device", "sim", "--block-size", str(block), "--order", order,
        "--seed", str(seed)])
    assert matches_expected(expected, actual), f"--- expected\n{expected}\n--- actual\n{actual}"
    if expected.startswith(("fault[", "error[")) or "\nfault[" in expected:
        assert code == (2 if "error[" in expected else 1)
    else:
        assert code == 0


@pytest.mark.parametrize("path,refusal", _GPU_REFUSED, ids=lambda x: getattr(x, "stem", ""))
def test_gpu_cuda_refusals(capsys, monkeypatch, path, refusal):
    code, actual, _ = run_cli(capsys, monkeypatch, path, ["--executor", "gpu-cuda", "--device", "sim"])
    assert code == 2
    head = actual.splitlines()[0]
    assert head.startswith(f"error[E_UNSUPPORTED]: gpu-cuda refuses kernel `{refusal.kernel}`: "
                           f"capability `{refusal.capability}`"), head
    assert f"{path.name}:{refusal.span.line}:{refusal.span.column}" in head
    if path.stem in _NAMED_REFUSALS:
        capability, position = _NAMED_REFUSALS[path.stem]
        assert refusal.capability == capability
        if position is not None:
            assert head.endswith(f"at {path.name}:{position}"), head


def test_gpu_cuda_named_refusals_are_in_the_suite():
    refused = {path.stem for path, _ in _GPU_REFUSED}
    assert set(_NAMED_REFUSALS) <= refused
    admitted = {path.stem for path in _GPU_ADMITTED}
    heat = {path.stem for path in conformance_programs() if path.stem.startswith("heat_")}
    assert heat and heat <= admitted  # every heat example builds for gpu-cuda (11.5)


# ---- cpu-c17 (issue 5): every case through `cint run --executor cpu-c17`, which
# compiles the emitted C with the system's compiler and runs it in a child process.


@pytest.mark.slow
@pytest.mark.needs_cc
@pytest.mark.parametrize("path", conformance_programs(), ids=lambda p: p.stem)
def test_cpu_c17(capsys, monkeypatch, path):
    code, actual, expected = run_cli(capsys, monkeypatch, path, ["--executor", "cpu-c17"])
    assert matches_expected(expected, actual), f"--- expected\n{expected}\n--- actual\n{actual}"
    if expected.startswith(("fault[", "error[")) or "\nfault[" in expected:
        assert code == (2 if "error[" in expected else 1)
    else:
        assert code == 0


def test_matcher_rules():
    assert matches_expected("a\n...\nd\n", "a\nb\nc\nd\n")
    assert matches_expected("a\n...\nd\n", "a\nd\n")
    assert not matches_expected("a\n...\nd\n", "a\nb\n")
    assert not matches_expected("a\nb\n", "a\nb\nc\n")
    assert matches_expected("a\n...\n", "a\nb\nc\n")
