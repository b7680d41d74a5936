"""The fast start (server/prelude.py, issue 29 "a fast first impression"): `initialize`
and the first document's diagnostics answered before pygls and lsprotocol are imported,
with the answers the server proper gives; whatever the prelude does not take is the
server's, as if it had read it itself."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from lsp_support import conformance, uri_of

from cint_ls.server.prelude import RESULT_FILE, initialize_result, path_of
from cint_ls.server.protocol import initialize_answer, initialize_recording
from fuzz.lsp_raw import RawServer, encode, frame

DATA = Path(__file__).resolve().parent / "data"
RECORDED = json.loads(RESULT_FILE.read_text(encoding="utf-8"))

# VS Code's LanguageClient (vscode-languageclient 9) states these of what pygls' builder
# reads, beside much else.
VSCODE = {
    "general": {"positionEncodings": ["utf-16"], "staleRequestSupport": {"cancel": True, "retryOnContentModified": []}},
    "textDocument": {
        "synchronization": {"dynamicRegistration": True, "willSave": True, "willSaveWaitUntil": True,
                            "didSave": True},
        "rename": {"dynamicRegistration": True, "prepareSupport": True, "prepareSupportDefaultBehavior": 1,
                   "honorsChangeAnnotations": True},
        "publishDiagnostics": {"relatedInformation": True, "versionSupport": False, "codeDescriptionSupport": True,
                               "dataSupport": True},
    },
    "workspace": {"configuration": True, "workspaceFolders": True, "didChangeConfiguration": {"dynamicRegistration": True},
                  "fileOperations": {"dynamicRegistration": True, "didCreate": True, "willCreate": True,
                                     "didRename": True, "willRename": True, "didDelete": True, "willDelete": True}},
    "notebookDocument": {"synchronization": {"dynamicRegistration": True, "executionSummarySupport": True}},
    "window": {"workDoneProgress": True, "showDocument": {"support": True}},
}


def test_the_recording_is_the_servers_answer():
    assert RECORDED == initialize_recording(), "run `python scripts/record_initialize.py`"


def test_the_answer_to_neovim_and_vscode_is_the_servers():
    neovim = json.loads((DATA / "neovim-0.12-client-capabilities.json").read_text())
    for capabilities in ({}, neovim, VSCODE):
        assert initialize_result(capabilities, RECORDED) == initialize_answer(capabilities)


_flag = st.sampled_from([None, True, False])


def _without_none(value):
    if isinstance(value, dict):
        return {k: _without_none(v) for k, v in value.items() if v is not None}
    return value


@st.composite
def client_capabilities(draw) -> dict:
    """Capabilities that differ in what pygls' builder reads of them."""
    operations = {name: draw(_flag) for name in ("didCreate", "willCreate", "didRename", "willRename",
                                                  "didDelete", "willDelete")}
    return _without_none({
        "general": draw(st.sampled_from([None, {"positionEncodings": draw(st.lists(
            st.sampled_from(["utf-8", "utf-16", "utf-32", "x-other"]), max_size=3))}])),
        "textDocument": {
            "synchronization": {"willSave": draw(_flag), "willSaveWaitUntil": draw(_flag), "didSave": draw(_flag)},
            "rename": {"prepareSupport": draw(_flag)},
        },
        "workspace": {"fileOperations": operations, "configuration": draw(_flag)},
        "notebookDocument": draw(st.sampled_from([None, {"synchronization": {}}])),
    })


@settings(max_examples=examples(60), deadline=None)
@given(client_capabilities())
def test_the_answer_to_any_client_is_the_servers(capabilities):
    assert initialize_result(capabilities, RECORDED) == initialize_answer(capabilities)


def test_the_path_of_a_uri():
    assert path_of("file:///home/ada/heat.ci") == "/home/ada/heat.ci"
    # No module name: a buffer's own (syntax.buffer_path).
    assert path_of("file:///home/ada/my%20heat.ci") == "</home/ada/my heat.ci>"


# ---- in a process of its own

def _messages(*payloads) -> bytes:
    return b"".join(frame(encode(p)) for p in payloads)


def _initialize(options=None, capabilities=None) -> dict:
    return {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"processId": None, "rootUri": None, "capabilities": capabilities or {},
                       "initializationOptions": options}}


def _open(uri: str, text: str, version: int = 1) -> dict:
    return {"jsonrpc": "2.0", "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": uri, "languageId": "cint", "version": version, "text": text}}}


PRELUDE_ALONE = """
import io, json, os, sys
if os.environ.get("BREAK_THE_ANALYSIS"):
    import cint_ls.ide.diagnostics
    d = sys.modules["cint_ls.ide.diagnostics"]  # the package's `diagnostics` is the function
    def broken(*args):
        raise RuntimeError("a defect")
    d.diagnostics = broken
from cint_ls.server import heap, main  # what `cint-ls` imports before the prelude
from cint_ls.server.framing import StdinReader
from cint_ls.server.prelude import Prelude
heap.one_arena()
out = io.BytesIO()
taken = Prelude(StdinReader(sys.stdin.buffer), out).run()
heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("lsprotocol", "cattrs", "attrs", "attr", "asyncio")
               or m.startswith(("pygls.lsp", "pygls.protocol", "pygls.server")))
print(json.dumps({"heavy": heavy, "taken": [type(t).__name__ for t in taken], "written": out.getvalue().decode()}))
"""


def _prelude_alone(data: bytes, broken: bool = False) -> dict:
    env = {**os.environ, "BREAK_THE_ANALYSIS": "1"} if broken else None
    done = subprocess.run([sys.executable, "-P", "-c", PRELUDE_ALONE], input=data, capture_output=True,
                          timeout=60, check=True, env=env)
    return json.loads(done.stdout)


def test_the_prelude_answers_before_pygls_lsprotocol_and_asyncio_are_imported():
    uri = uri_of("prelude_alone")
    found = _prelude_alone(_messages(_initialize(), {"jsonrpc": "2.0", "method": "initialized", "params": {}},
                                     _open(uri, "void main() {\n    I64 x = y;\n}\n")))
    assert found["heavy"] == []
    assert found["taken"] == ["Answered", "bytes", "Opened"]
    assert '"serverInfo"' in found["written"] and '"code": "C2001"' in found["written"]


def test_a_message_the_prelude_does_not_take_ends_it_unanswered():
    # A request before initialize, a body that is no JSON, an initialize of the wrong
    # shape, a request after initialize: the server's, unanswered by the prelude.
    hover = {"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover",
             "params": {"textDocument": {"uri": "file:///x.ci"}, "position": {"line": 0, "character": 0}}}
    bad = _initialize()
    bad["params"]["processId"] = "me"
    for first, rest in ((hover, [_initialize()]), (None, [_initialize()]), (bad, []), (_initialize(), [hover])):
        data = (frame(b"{not json") if first is None else _messages(first)) + _messages(*rest)
        found = _prelude_alone(data)
        answered = first is not None and first["method"] == "initialize" and first is not bad
        assert found["taken"] == (["Answered", "bytes"] if answered else ["bytes"]), first
        assert ('"serverInfo"' in found["written"]) == answered


def test_a_defect_of_the_prelude_leaves_the_message_to_the_server():
    """The analysis fails in the prelude: the didOpen is the server's (which publishes
    what it can and logs the failure), the session goes on."""
    found = _prelude_alone(_messages(_initialize(), _open(uri_of("prelude_broken"), "I64 x = 1;\n")), broken=True)
    assert found["heavy"] == [] and found["taken"] == ["Answered", "bytes"]
    assert "publishDiagnostics" not in found["written"]


def _first_and_servers_own(server: RawServer, uri: str, text: str) -> tuple[list, list]:
    """The first publication of `uri` (the prelude's), and the server's own of the same
    text after a close and a new open."""
    def publications():
        return [n["params"] for n in server.notifications
                if n["method"] == "textDocument/publishDiagnostics" and n["params"]["uri"] == uri]

    first = server.wait_for(publications, timeout=60)[0]
    # Adopted: the server answers about the document the prelude opened.
    hover = server.call("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 1}})
    assert "error" not in hover
    server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    server.message(_open(uri, text, version=2))
    own = server.wait_for(lambda: [p for p in publications() if p.get("version") == 2])[0]
    return first["diagnostics"], own["diagnostics"]


def test_the_first_diagnostics_are_the_servers_own():
    """initialize, initialized and didOpen written at once: the prelude publishes; the
    server then holds the document, and publishes the same diagnostics for the same
    text, with the settings of initializationOptions."""
    uri, text = uri_of("prelude_ops"), conformance("ops_kernel") + "\nvoid broken() {\n    I64 x = y\n}\n"
    for options in (None, {"cint": {"targets": ["gpu-cuda"]}}, {"targets": ["cpu-c17"]}):
        server = RawServer()
        try:
            server.send(_messages(_initialize(options), {"jsonrpc": "2.0", "method": "initialized", "params": {}},
                                  _open(uri, text)))
            first, own = _first_and_servers_own(server, uri, text)
            assert first == own and any(d["code"] == "C1002" for d in first), options
            assert any(d["code"] == "C9100" for d in first) == (options != {"targets": ["cpu-c17"]})
            messages = [n["params"]["message"] for n in server.notifications if n["method"] == "window/logMessage"]
            assert not [m for m in messages if "fast start" in m], messages
            server.call("shutdown")
            server.notify("exit")
            assert server.end() == 0
        finally:
            server.kill()


def test_pushed_settings_count_for_the_first_diagnostics():
    """Neovim's order: didChangeConfiguration between initialized and the first didOpen.
    A client that cannot be asked for the settings pushes them, and they count."""
    uri, text = uri_of("prelude_push"), conformance("ops_kernel")
    server = RawServer()
    try:
        server.send(_messages(_initialize(), {"jsonrpc": "2.0", "method": "initialized", "params": {}},
                              {"jsonrpc": "2.0", "method": "workspace/didChangeConfiguration",
                               "params": {"settings": {"cint": {"targets": ["cpu-c17"]}}}},
                              _open(uri, text)))
        first, own = _first_and_servers_own(server, uri, text)
        assert first == own and not [d for d in first if d["code"] == "C9100"]
    finally:
        server.kill()


def test_the_end_of_the_input_after_initialize_ends_the_server():
    server = RawServer()
    try:
        server.send(_messages(_initialize()))
        assert "result" in server.wait(1)
        assert server.end() == 1  # no shutdown
    finally:
        server.kill()
