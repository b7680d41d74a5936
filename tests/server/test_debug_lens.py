"""The Debug lens (issue 30) goes to a client that says it debugs
(`capabilities.experimental.cint.debug`, as the VS Code extension and the Neovim plugin
with nvim-dap do): the server's lenses have it beside each Run, with the command of the
client's, `cint.debug`."""

from __future__ import annotations

import pytest
from lsp_support import capabilities, doc_id, open_document, server_fixture, uri_of
from lsprotocol import types as lsp

pytestmark = pytest.mark.asyncio(loop_scope="module")

PROGRAM = "export I64 twice() { return 2; }\n\nI64 a = twice();\n\"{a}\\n\";\n"

caps = capabilities()
caps.experimental = {"cint": {"setTargets": True, "debug": True}}
client = server_fixture(caps=caps)


async def test_a_client_that_debugs_gets_the_debug_lens(client):
    uri = uri_of("debug_lens")
    await open_document(client, uri, PROGRAM)
    lenses = await client.text_document_code_lens_async(lsp.CodeLensParams(text_document=doc_id(uri)))
    debug = sorted((lens.range.start.line, lens.command.title, tuple(lens.command.arguments))
                   for lens in lenses if lens.command.command == "cint.debug")
    assert debug == [(0, "Debug", (uri, "twice")), (2, "Debug", (uri,))]
    # the server does not run it: the client does
    assert "cint.debug" not in (client.initialize_result.capabilities.execute_command_provider.commands or [])
