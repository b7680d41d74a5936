"""The server and the client that started it: the VS Code extension sends its own name and
version as clientInfo (`cint-vscode`), and a server of another version says so in a
warning (window/showMessage) while it answers `initialize`; the same version, or another
client (Neovim), gets no warning."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time

import pytest
from lsprotocol import types as lsp

import cint_ls
from cint_ls.server.handlers.lifecycle import version_mismatch

SERVER = [sys.executable, "-P", "-m", "cint_ls.server"]


def _send(stream, payload: dict) -> None:
    body = json.dumps(payload).encode()
    stream.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    stream.flush()


def _messages_until_initialized(client_info: dict | None) -> list[dict]:
    """Everything the server sent up to and including its answer to `initialize`."""
    server = subprocess.Popen(SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    got: list[dict] = []
    done = threading.Event()

    def reader() -> None:
        stream = server.stdout
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    done.set()
                    return
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
                if line in (b"\r\n", b"\n"):
                    break
            message = json.loads(stream.read(length))
            got.append(message)
            if message.get("id") == 1:
                done.set()

    threading.Thread(target=reader, daemon=True).start()
    try:
        params: dict = {"processId": None, "rootUri": None, "capabilities": {}}
        if client_info is not None:
            params["clientInfo"] = client_info
        _send(server.stdin, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
        assert done.wait(60), "no answer to initialize"
        _send(server.stdin, {"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
        _send(server.stdin, {"jsonrpc": "2.0", "method": "exit"})
        server.wait(30)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    time.sleep(0)  # the reader thread ends with the pipe
    return got


def _warnings(messages: list[dict]) -> list[str]:
    return [m["params"]["message"] for m in messages
            if m.get("method") == "window/showMessage" and m["params"]["type"] == lsp.MessageType.Warning]


def test_an_extension_of_another_version_is_warned():
    messages = _messages_until_initialized({"name": "cint-vscode", "version": "0.0.9"})
    answer = [m for m in messages if m.get("id") == 1]
    assert answer and "result" in answer[0], messages  # still served
    (warning,) = _warnings(messages)
    assert f"cint-ls {cint_ls.__version__} was started by cint-vscode 0.0.9" in warning
    assert "install cint-ls 0.0.9" in warning


@pytest.mark.parametrize("client_info", [
    {"name": "cint-vscode", "version": cint_ls.__version__},
    {"name": "Neovim", "version": "0.12.0"},
    {"name": "Visual Studio Code", "version": "1.100.0"},
    None,
])
def test_no_warning_for_the_same_version_or_another_client(client_info):
    messages = _messages_until_initialized(client_info)
    assert any(m.get("id") == 1 and "result" in m for m in messages), messages
    assert _warnings(messages) == []


def test_version_mismatch_unit():
    assert version_mismatch(lsp.ClientInfo(name="cint-vscode", version=cint_ls.__version__)) is None
    assert version_mismatch(lsp.ClientInfo(name="cint-vscode")) is None
    assert version_mismatch(None) is None
    assert "0.2.0" in version_mismatch(lsp.ClientInfo(name="cint-vscode", version="0.2.0"))
