"""What the tests that run the VS Code extension's compiled TypeScript under node share:
node itself and the built files a test needs (CI builds the extension before pytest,
so there their absence is a failure, elsewhere a skip), and one way to run a script
that prints one JSON value."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

VSCODE = Path(__file__).resolve().parents[2] / "editors" / "vscode"
OUT = VSCODE / "out"


def built_node(needed: list[Path], what: str) -> str:
    """node, where every path of `needed` is built (`what` names them for the failure)."""
    found = shutil.which("node")
    if found is None or not all(path.exists() for path in needed):
        if os.environ.get("CI"):
            pytest.fail(f"CI builds the VS Code extension before pytest: {what} are needed")
        pytest.skip("needs node and the built extension (`npm ci && npm run build` in editors/vscode)")
    return found


def node_json(node: str, prelude: str, script: str, data: object = None) -> object:
    """Runs `prelude` + `script` (which reads `input` and prints one JSON value)."""
    prelude += "const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
    done = subprocess.run([node, "-e", prelude + script], input=json.dumps(data), capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
