"""The conformance suite on cpu-sir-interp: every `.ci` here is run with `cint run`
(and its `.args`), and stdout then stderr must match its `.out` under the `...` rule."""

from __future__ import annotations

import pytest

from cint_ls.cli.main import main
from conftest import conformance_case, conformance_programs, matches_expected


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


def test_matcher_rules():
    assert matches_expected("a\n...\nd\n", "a\nb\nc\nd\n")
    assert matches_expected("a\n...\nd\n", "a\nd\n")
    assert not matches_expected("a\n...\nd\n", "a\nb\n")
    assert not matches_expected("a\nb\n", "a\nb\nc\n")
    assert matches_expected("a\n...\n", "a\nb\nc\n")
