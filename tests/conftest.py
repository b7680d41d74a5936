"""Shared fixtures: the programs of the conformance suite (tests/conformance); the
markers `slow` and `needs_cc`; hypothesis' example counts for the quick run; the
fuzzers' package (`fuzz/`) on the path; a hung language server asked for its stacks
(hang_reports.py)."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

import pytest
from hang_reports import servers_asked_before_the_time_limit  # noqa: F401 -- an autouse fixture
from hypothesis import settings

TESTS = Path(__file__).parent
CONFORMANCE = TESTS / "conformance"
ROOT = TESTS.parent

# The fuzzers (`import fuzz.gen`, `from fuzz.lsp_raw import RawServer`) are a package at
# the repository's root. Its folder goes at the END of sys.path: `cint_ls` must still be
# found first where it is installed, since pytest tests the installed package, not the
# source tree (tests/test_fuzz_package.py checks both).
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))


# ---- markers. `pytest -m "not slow"` is the inner loop; plain `pytest` (CI) runs everything.

# Hypothesis in the quick run (`-m "not slow"`, CI unset) tries a fifth of each test's
# examples (at least 10): `examples(n)` where a test names its count, the "quick" profile
# where it does not. CI, and any other run, tries every example.
QUICK_DIVISOR = 5
settings.register_profile("quick", max_examples=100 // QUICK_DIVISOR)
_quick_run = False


def is_quick_run(config) -> bool:
    return " ".join(config.getoption("markexpr", "").split()) == "not slow" and not os.environ.get("CI")


def examples(count: int) -> int:
    """A hypothesis test's `max_examples`: `count`, a fifth of it in the quick run."""
    return min(count, max(10, count // QUICK_DIVISOR)) if _quick_run else count


def pytest_configure(config):
    global _quick_run
    _quick_run = is_quick_run(config)
    if _quick_run:
        settings.load_profile("quick")
    config.addinivalue_line("markers", "slow: a test that takes seconds (C compilation of many programs, "
                                       "hypothesis against the C run-time, time limits, editor end-to-end); "
                                       "leave them out with -m 'not slow'")
    config.addinivalue_line("markers", "needs_cc: needs a C compiler (cpu-c17); skipped when there is none")


def c_compiler() -> str | None:
    """The C compiler cpu-c17 would use, as cint_ls/exec/c17/build.py find_compiler picks
    it: `$CC` (its first word) when set, and then no other; else cc, gcc or clang."""
    env = os.environ.get("CC", "").strip()
    if env:
        try:
            argv = shlex.split(env)
        except ValueError:
            return None
        return shutil.which(argv[0]) if argv else None
    return next((path for path in map(shutil.which, ("cc", "gcc", "clang")) if path), None)


def _measured_slow() -> frozenset[str]:
    """The node ids of tests/slow_tests.txt: tests measured at seconds each in the quick run."""
    lines = (TESTS / "slow_tests.txt").read_text().splitlines()
    return frozenset(line.strip() for line in lines if line.strip() and not line.startswith("#"))


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(config, items):
    slow = _measured_slow()
    for item in items:
        if item.nodeid in slow:
            item.add_marker(pytest.mark.slow)
    if c_compiler() is not None:
        return
    why = (f"no C compiler: CC={os.environ['CC'].strip()} does not name a program" if os.environ.get("CC", "").strip()
           else "no C compiler (cc, gcc or clang, or set CC)")
    skip = pytest.mark.skip(reason=why)
    for item in items:
        if item.get_closest_marker("needs_cc") is not None:
            item.add_marker(skip)


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
