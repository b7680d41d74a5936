"""One version everywhere: the Python package, the VS Code extension, its CHANGELOG."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import cint_ls

REPO = Path(__file__).resolve().parents[2]
VSCODE = REPO / "editors" / "vscode"


def test_extension_version_is_the_package_version():
    manifest = json.loads((VSCODE / "package.json").read_text())
    assert manifest["version"] == cint_ls.__version__


def test_changelog_has_the_version():
    text = (VSCODE / "CHANGELOG.md").read_text()
    assert re.search(rf"^## {re.escape(cint_ls.__version__)}\b", text, re.M), "CHANGELOG.md lacks this version"


def test_pyproject_takes_the_version_from_the_package():
    text = (REPO / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in text
    assert 'version = { attr = "cint_ls.__version__" }' in text


def test_version_flags():
    for module in ("cint_ls.cli.main", "cint_ls.server.main"):
        # -P: the installed package, not the checkout's (cwd) without its built binding.
        proc = subprocess.run([sys.executable, "-P", "-c", f"import sys, {module} as m; sys.exit(m.main(['--version']))"],
                              capture_output=True, text=True, timeout=60, cwd=REPO)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == f"cint-ls {cint_ls.__version__}"


def test_extension_manifest_for_the_marketplace():
    manifest = json.loads((VSCODE / "package.json").read_text())
    assert manifest["repository"]["url"].startswith("https://")
    assert manifest["bugs"]["url"].startswith("https://")
    assert (VSCODE / manifest["icon"]).is_file()
    assert manifest["main"] == "./dist/extension.js"  # the esbuild bundle
    ignore = (VSCODE / ".vscodeignore").read_text().split()
    for pattern in ("node_modules/**", "src/**", "test/**", "out/**", "scripts/**"):
        assert pattern in ignore, pattern
