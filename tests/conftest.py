"""Shared fixtures: the programs of the conformance suite (tests/conformance)."""

from __future__ import annotations

from pathlib import Path

import pytest

TESTS = Path(__file__).parent
CONFORMANCE = TESTS / "conformance"


def conformance_programs() -> list[Path]:
    return sorted(CONFORMANCE.rglob("*.ci"))


@pytest.fixture(scope="session")
def heat_source() -> str:
    return (CONFORMANCE / "heat_e1.ci").read_text()


def matches_expected(expected: str, actual: str) -> bool:
    """The comparison of LANGUAGE.md "Conformance files": a line `...` stands for zero or
    more lines; every other line must match exactly, in order."""
    want = expected.splitlines()
    got = actual.splitlines()

    def match(i: int, j: int) -> bool:
        while i < len(want):
            if want[i] == "...":
                return any(match(i + 1, k) for k in range(j, len(got) + 1))
            if j >= len(got) or want[i] != got[j]:
                return False
            i, j = i + 1, j + 1
        return j == len(got)

    return match(0, 0)


def conformance_case(path: Path) -> tuple[list[str], str]:
    """The extra arguments (`.args`) and the expected output (`.out`) of a program."""
    args_file = path.with_suffix(".args")
    args = args_file.read_text().split() if args_file.exists() else []
    return args, path.with_suffix(".out").read_text()
