"""The fuzzers are a package of their own at the repository's root (`fuzz/`, issue 29,
"guard rails"): the tests import it without a `sys.path.insert` of their own, it runs
with `python -m`, and putting it on the path does not make the tests import the source
tree's `cint_ls` in place of the installed one."""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
from importlib import metadata
from pathlib import Path

import cint_ls
import fuzz
import fuzz.exec
import fuzz.gen
import fuzz.lsp
import fuzz.lsp_raw

ROOT = Path(__file__).resolve().parents[1]


def _editable() -> bool:
    """Whether cint-ls is installed in editable mode (PEP 660's direct_url.json), where
    the installed package is the working tree."""
    try:
        text = metadata.distribution("cint-ls").read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return False
    return bool(text) and json.loads(text).get("dir_info", {}).get("editable", False)


def test_fuzzers_are_a_package_at_the_root():
    assert Path(fuzz.__file__).resolve() == ROOT / "fuzz" / "__init__.py"
    for module in (fuzz.exec, fuzz.gen, fuzz.lsp, fuzz.lsp_raw):
        assert Path(module.__file__).resolve().parent == ROOT / "fuzz", module
    assert not (ROOT / "benchmarks" / "fuzz_exec.py").exists()


def test_fuzz_package_on_the_path_does_not_shadow_installed_cint_ls():
    # The root is on sys.path only after the installed packages (tests/conftest.py).
    entries = [Path(p).resolve() if p else Path.cwd() for p in sys.path]
    purelib = Path(sysconfig.get_paths()["purelib"]).resolve()
    assert ROOT in entries and purelib in entries
    assert entries.index(purelib) < entries.index(ROOT), sys.path
    if not _editable():
        # Not the source tree's copy. (The README's virtual environment, `.venv`, lies
        # inside the checkout: the installed copy may have the root among its parents.)
        assert Path(cint_ls.__file__).resolve().parent != ROOT / "cint_ls", cint_ls.__file__


def test_fuzz_exec_runs_as_a_module():
    done = subprocess.run([sys.executable, "-m", "fuzz.exec", "--show", "pytest:3"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == fuzz.gen.generate("pytest:3").text
