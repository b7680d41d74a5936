"""`textDocument/codeAction` over stdio: each quick fix is applied as the client would
(its workspace edit, then didChange), and the diagnostic it fixes is gone."""

from __future__ import annotations

import pytest
from lsp_support import change_document, conformance, doc_id, open_document, raw_request, server_fixture, uri_of
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcInvalidParams

pytestmark = pytest.mark.asyncio(loop_scope="module")

client = server_fixture()


def apply(text: str, edits: list[lsp.TextEdit]) -> str:
    lines = text.split("\n")

    def offset(p: lsp.Position) -> int:  # ASCII text: characters are UTF-16 units
        return sum(len(line) + 1 for line in lines[:p.line]) + p.character

    for e in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        text = text[:offset(e.range.start)] + e.new_text + text[offset(e.range.end):]
    return text


async def fix_and_check(client, name: str, text: str, code: str, title: str) -> str:
    uri = uri_of(name)
    found = await open_document(client, uri, text)
    (d,) = [d for d in found if d.code == code]
    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=doc_id(uri), range=d.range, context=lsp.CodeActionContext(diagnostics=[d])))
    (action,) = actions
    assert action.title == title and action.kind == lsp.CodeActionKind.QuickFix and action.is_preferred
    assert [x.code for x in action.diagnostics] == [code] and action.diagnostics[0].range == d.range
    fixed = apply(text, action.edit.changes[uri])
    after = await change_document(client, uri, 2, [lsp.TextDocumentContentChangeWholeDocument(text=fixed)])
    assert code not in [x.code for x in after]
    assert not [x for x in after if x.severity == lsp.DiagnosticSeverity.Error], after
    return fixed


async def test_capability(client):
    provider = client.initialize_result.capabilities.code_action_provider
    assert list(provider.code_action_kinds) == [lsp.CodeActionKind.QuickFix]


async def test_did_you_mean(client):
    fixed = await fix_and_check(client, "action_c2001", "void go() {\n    I64 total = 1;\n    I64 x = totl;\n}\ngo();\n",
                                "C2001", "Change to `total`")
    assert "I64 x = total;" in fixed


async def test_missing_semicolon(client):
    fixed = await fix_and_check(client, "action_c1002", "void go() {\n    I64 x = 1\n}\ngo();\n", "C1002", "Insert `;`")
    assert "I64 x = 1;\n" in fixed


async def test_missing_parenthesis(client):
    # A call's `)`: `(a + 1;` gets none, as `(a) + 1;` would parse too (syntax/recovery.py, certain).
    text = "I64 g(I64 a, I64 b) {\n    return a + b;\n}\nI64 f(I64 a) {\n    return g(a, 1;\n}\n"
    fixed = await fix_and_check(client, "action_paren", text, "C1002", "Insert `)`")
    assert "return g(a, 1);" in fixed


async def test_conversion(client):
    fixed = await fix_and_check(client, "action_c3003", "void go() {\n    I32 t = 1;\n    I64 v = 2;\n    t = v;\n}\n",
                                "C3003", "Convert the value with `as I32`")
    assert "t = v as I32;" in fixed


async def test_out_read_becomes_inout(client):
    text = "kernel k[n](out I64[n] a) over [i: n] {\n    a[i] = a[i] + 1;\n}\n"
    fixed = await fix_and_check(client, "action_c5014", text, "C5014", "Declare `a` inout")
    assert fixed.startswith("kernel k[n](inout I64[n] a)")


async def test_nothing_for_a_refusal_or_another_kind(client):
    uri = uri_of("action_ops")
    found = await open_document(client, uri, conformance("ops_kernel"))
    whole = lsp.Range(start=lsp.Position(0, 0), end=lsp.Position(30, 0))
    assert any(d.code == "C9100" for d in found)
    assert not await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=doc_id(uri), range=whole, context=lsp.CodeActionContext(diagnostics=found)))
    uri = uri_of("action_only")
    (d,) = await open_document(client, uri, "void go() {\n    I64 x = 1\n}\n")
    only = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=doc_id(uri), range=d.range,
        context=lsp.CodeActionContext(diagnostics=[d], only=[lsp.CodeActionKind.Refactor])))
    assert not only


async def test_unknown_document_and_malformed_params(client):
    assert not await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=doc_id(uri_of("action_not_open")), range=lsp.Range(start=lsp.Position(0, 0),
                                                                         end=lsp.Position(0, 0)),
        context=lsp.CodeActionContext(diagnostics=[])))
    uri = uri_of("action_malformed")
    await open_document(client, uri, "void go() {\n    I64 x = 1\n}\n")
    for params in (
        {"textDocument": {"uri": uri}, "range": None, "context": {"diagnostics": []}},
        {"textDocument": {"uri": uri}, "range": {"start": {"line": -1, "character": 0},
                                                 "end": {"line": 0, "character": 0}}, "context": {"diagnostics": []}},
        {"textDocument": {"uri": uri}},
    ):
        with pytest.raises(JsonRpcInvalidParams):
            await raw_request(client, lsp.TEXT_DOCUMENT_CODE_ACTION, params)
    # The server still answers: the fix of the missing `;` at 2:14 (a range that touches it).
    (action,) = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=doc_id(uri), range=lsp.Range(start=lsp.Position(1, 13), end=lsp.Position(1, 13)),
        context=lsp.CodeActionContext(diagnostics=[])))
    assert action.title == "Insert `;`"
