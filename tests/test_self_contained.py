"""A clone alone builds, tests and runs its CI (issue 29, point 5): no tracked file names a
path outside the repository (the `shared/` folder that lay beside it, its tools, its spec),
and the installers CI uses are the repository's own, executable, under scripts/."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
THIS = Path(__file__).resolve().relative_to(ROOT).as_posix()

# The path forms only: "shared" alone is a word the code uses (shared memory, a shared library).
OUTSIDE = r"(\.\./)+shared\b|/work/shared\b|\bshared/(tools|spec|ARCHITECTURE)\b"


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the tracked files are unknown")
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=False)


def test_no_tracked_file_names_a_path_outside_the_repository():
    found = _git("grep", "-n", "-I", "-E", OUTSIDE, "--", ".", f":(exclude){THIS}")
    assert found.returncode in (0, 1), found.stderr  # 1: no match
    assert found.stdout == "", "paths outside the repository:\n" + found.stdout


def test_the_pattern_finds_the_path_forms_and_not_the_word():
    pattern = re.compile(OUTSIDE)
    for named in ("../shared/tools/install-code-server", "../../shared/spec/LANGUAGE.md",
                  "/work/shared/x", "see shared/ARCHITECTURE.md"):
        assert pattern.search(named), named
    for word in ("a shared library", "shared memory", "shared_memory", "the shared dispatch protocol"):
        assert not pattern.search(word), word


def test_the_installers_ci_uses_are_the_repositorys_own():
    ci = (ROOT / ".ci" / "run").read_text()
    used = set(re.findall(r"scripts/(install-[\w-]+)", ci))
    assert used == {"install-tree-sitter-cli", "install-code-server"}, used
    modes = _git("ls-files", "-s", "--", *(f"scripts/{name}" for name in sorted(used))).stdout.splitlines()
    assert len(modes) == len(used), f"not tracked: {modes}"
    for line in modes:
        assert line.startswith("100755 "), f"not executable in git: {line}"
