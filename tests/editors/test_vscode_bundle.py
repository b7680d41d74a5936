"""VS Code: the .vsix brings its server. The package's `bundled/libs` (built from the wheel
by scripts/bundle_server.py) is taken out of the .vsix itself, the extension's server
discovery (src/server.ts, compiled to out/server.js) runs in node with no `cint-ls` on
PATH, only a `python3` that has no cint-ls installed, and the server it chooses gives the
C5010 diagnostic and the step-22 hover over LSP: the CI-sized version of the code-server
end-to-end test (which also installs the .vsix, but takes minutes: docs/testing.md).

`CINT_VSIX` names the .vsix (CI packages it before pytest); without it the test is skipped
(and fails when `CI` is set)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import zipfile
from pathlib import Path

import pytest
from vscode_support import built_node

import cint_ls
from fuzz.lsp_raw import read_messages

REPO = Path(__file__).resolve().parents[2]
VSCODE = REPO / "editors" / "vscode"
CONFORMANCE = REPO / "tests" / "conformance"
COMPILED = VSCODE / "out" / "server.js"


@pytest.fixture(scope="module")
def node() -> str:
    return built_node([COMPILED], "node and out/server.js")


@pytest.fixture(scope="module")
def extension(tmp_path_factory) -> Path:
    vsix = os.environ.get("CINT_VSIX")
    if not vsix:
        if os.environ.get("CI"):
            pytest.fail("CI packages the .vsix before pytest and sets CINT_VSIX")
        pytest.skip("set CINT_VSIX to a .vsix built with bundled/libs (docs/editors.md, \"Build and tests\")")
    out = tmp_path_factory.mktemp("vsix")
    with zipfile.ZipFile(vsix) as archive:
        names = archive.namelist()
        archive.extractall(out)
    # What .vscodeignore keeps out.
    assert not [n for n in names if n.startswith("extension/node_modules/")]
    assert not [n for n in names if n.startswith(("extension/src/", "extension/out/", "extension/test/"))]
    assert "extension/dist/extension.js" in names
    return out / "extension"


def python_without_cint_ls() -> str:
    """The interpreter this venv was made from: it has no cint-ls installed."""
    base = os.path.realpath(getattr(sys, "_base_executable", sys.executable))
    check = subprocess.run([base, "-P", "-c", "import cint_ls"], capture_output=True, cwd="/")
    if check.returncode == 0:
        pytest.skip(f"{base} has cint-ls installed: no clean interpreter to test with")
    return base


def choose(node: str, candidates: dict) -> dict:
    script = ("const s = require(process.argv[1]);"
              "s.chooseServer(JSON.parse(process.argv[2])).then(r => console.log(JSON.stringify(r)));")
    done = subprocess.run([node, "-e", script, str(COMPILED), json.dumps(candidates)], capture_output=True,
                          text=True, timeout=120, env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


class Lsp:
    def __init__(self, cmd: list[str], env: dict) -> None:
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     env=env, cwd="/")
        self.messages: list[dict] = []
        self.cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for message in read_messages(self.proc.stdout):
            with self.cond:
                self.messages.append(message)
                self.cond.notify_all()

    def send(self, payload: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **payload}).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def wait_for(self, test, timeout: float = 60) -> dict:
        with self.cond:
            assert self.cond.wait_for(lambda: any(test(m) for m in self.messages), timeout), self.messages[-5:]
            return next(m for m in self.messages if test(m))

    def close(self) -> None:
        try:
            self.send({"id": 99, "method": "shutdown"})
            self.send({"method": "exit"})
            self.proc.wait(20)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


def test_the_vsix_server_runs_with_python3_and_no_cint_ls_on_path(node, extension, tmp_path):
    manifest = json.loads((extension / "bundled" / "libs" / "cint-bundle.json").read_text())
    assert manifest["cint-ls"] == cint_ls.__version__ == json.loads((extension / "package.json").read_text())["version"]
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "python3").symlink_to(python_without_cint_ls())
    broken = tmp_path / "not-python"
    broken.write_text("#!/bin/sh\nexit 3\n")
    broken.chmod(0o755)
    result = choose(node, {"serverPath": "", "bundledLibs": str(extension / "bundled" / "libs"),
                           "pythonExtensionInterpreter": str(broken), "searchPath": str(bindir)})
    first, second = result["attempts"]
    assert first["source"] == "the Python extension's interpreter" and "did not run" in first["problem"]
    choice = result["choice"]
    assert choice["source"] == "python3 on PATH" and choice["serverVersion"] == cint_ls.__version__
    assert choice["args"] == ["-P", "-m", "cint_ls.server"]

    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{bindir}:/usr/bin:/bin"
    env.update(choice["env"])
    where = subprocess.run([choice["command"], "-P", "-c", "import cint_ls; print(cint_ls.__file__)"], env=env,
                           capture_output=True, text=True, cwd="/")
    assert where.stdout.startswith(str(extension / "bundled" / "libs")), where

    server = Lsp([choice["command"], *choice["args"]], env)
    try:
        server.send({"id": 1, "method": "initialize", "params": {
            "processId": None, "rootUri": None, "capabilities": {},
            "clientInfo": {"name": "cint-vscode", "version": cint_ls.__version__}}})
        server.wait_for(lambda m: m.get("id") == 1)
        server.send({"method": "initialized", "params": {}})
        for name in ("same_c5010.ci", "heat_e1.ci"):
            path = CONFORMANCE / name
            server.send({"method": "textDocument/didOpen", "params": {"textDocument": {
                "uri": path.as_uri(), "languageId": "cint", "version": 1, "text": path.read_text()}}})
        uri = (CONFORMANCE / "same_c5010.ci").as_uri()
        diagnostics = server.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                                      and m["params"]["uri"] == uri and m["params"]["diagnostics"])
        (c5010,) = [d for d in diagnostics["params"]["diagnostics"] if d["code"] == "C5010"]
        assert c5010["range"]["start"] == {"line": 6, "character": 13}
        server.send({"id": 2, "method": "textDocument/hover", "params": {
            "textDocument": {"uri": (CONFORMANCE / "heat_e1.ci").as_uri()}, "position": {"line": 12, "character": 32}}})
        hover = json.dumps(server.wait_for(lambda m: m.get("id") == 2)["result"])
        assert "step 22" in hover and "mul.checked.i64" in hover
        assert not [m for m in server.messages if m.get("method") == "window/showMessage"]
    finally:
        server.close()


def test_a_setting_that_names_no_server_is_not_second_guessed(node, tmp_path):
    result = choose(node, {"serverPath": str(tmp_path / "nothing"), "bundledLibs": str(tmp_path / "none"),
                           "searchPath": str(tmp_path)})
    assert "choice" not in result
    (attempt,) = result["attempts"]
    assert attempt["source"] == "cint.server.path" and "failed" in attempt["problem"]


def test_nothing_fits_lists_what_was_tried(node, tmp_path):
    result = choose(node, {"serverPath": "", "bundledLibs": str(tmp_path / "none"), "searchPath": str(tmp_path)})
    assert "choice" not in result
    assert [(a["source"], a["problem"]) for a in result["attempts"]] == [
        ("the bundled server", "this build of the extension has none"), ("cint-ls on PATH", "not found")]


def test_an_old_python_is_refused(node, extension, tmp_path):
    old = os.environ.get("CINT_TEST_OLD_PYTHON") or next(
        (str(p) for p in sorted(Path.home().glob(".pyenv/versions/3.10*/bin/python3"))), None) or shutil.which("python3.10")
    if not old:
        pytest.skip("no Python older than 3.11 here (CINT_TEST_OLD_PYTHON names one)")
    result = choose(node, {"serverPath": "", "bundledLibs": str(extension / "bundled" / "libs"),
                           "pythonExtensionInterpreter": old, "searchPath": str(tmp_path)})
    assert "choice" not in result
    assert "Python 3.11 or later is needed" in result["attempts"][0]["problem"]


def debug_adapter_of(node: str, choice: dict) -> dict:
    script = "const s = require(process.argv[1]); console.log(JSON.stringify(s.debugAdapterOf(JSON.parse(process.argv[2]))));"
    done = subprocess.run([node, "-e", script, str(COMPILED), json.dumps(choice)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_vsix_debugger_runs_with_python3_and_no_cint_ls_on_path(node, extension, tmp_path):
    """cint-debug from the bundle (issue 30), as the extension starts it beside the server
    it chose: dap-types and pydantic's compiled core are in `bundled/libs`; the spec's
    heat_e1 stops at its fault."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "python3").symlink_to(python_without_cint_ls())
    choice = choose(node, {"serverPath": "", "bundledLibs": str(extension / "bundled" / "libs"),
                           "searchPath": str(bindir)})["choice"]
    adapter = debug_adapter_of(node, choice)
    assert adapter["args"] == ["-P", "-m", "cint_ls.debug"] and adapter["command"] == choice["command"]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{bindir}:/usr/bin:/bin"
    env.update(adapter["env"])
    dap = Lsp([adapter["command"], *adapter["args"]], env)
    try:
        dap.send({"seq": 1, "type": "request", "command": "initialize", "arguments": {"adapterID": "cint"}})
        assert dap.wait_for(lambda m: m.get("request_seq") == 1)["success"]
        dap.send({"seq": 2, "type": "request", "command": "launch",
                  "arguments": {"program": str(CONFORMANCE / "heat_e1.ci")}})
        dap.wait_for(lambda m: m.get("event") == "initialized")
        dap.send({"seq": 3, "type": "request", "command": "configurationDone"})
        stop = dap.wait_for(lambda m: m.get("event") == "stopped")
        assert stop["body"]["reason"] == "exception" and stop["body"]["text"] == "E_OVERFLOW"
        dap.send({"seq": 4, "type": "request", "command": "disconnect", "arguments": {}})
        dap.proc.wait(20)
    finally:
        if dap.proc.poll() is None:
            dap.proc.kill()
