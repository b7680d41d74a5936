"""The editor features over stdio: inlay hints, semantic tokens, document symbols, go to
definition, references, rename, completion, signature help, folding ranges,
formatting and code lenses (whose commands then run)."""

from __future__ import annotations

import pytest
from lsp_support import at, conformance, doc_id, open_document, server_fixture, uri_of
from lsprotocol import types as lsp

from cint_ls.ide import SEMANTIC_TOKEN_KINDS, SEMANTIC_TOKEN_MODIFIERS
from cint_ls.running.run import executor_label
from cint_ls.server.runs import implemented_executors

pytestmark = pytest.mark.asyncio(loop_scope="module")

client = server_fixture()

HEAT = uri_of("features_heat")
TEXT = conformance("heat_e1")
LINES = TEXT.splitlines()


def decode_tokens(data: list[int]) -> list[tuple[int, int, int, str, set[str]]]:
    """LSP's relative encoding back to (line, start, length, kind, modifiers)."""
    out, line, start = [], 0, 0
    for i in range(0, len(data), 5):
        d_line, d_start, length, kind, bits = data[i:i + 5]
        line += d_line
        start = start + d_start if d_line == 0 else d_start
        modifiers = {m for b, m in enumerate(SEMANTIC_TOKEN_MODIFIERS) if bits & (1 << b)}
        out.append((line, start, length, SEMANTIC_TOKEN_KINDS[kind], modifiers))
    return out


def text_at(r: lsp.Range) -> str:
    assert r.start.line == r.end.line
    return LINES[r.start.line][r.start.character:r.end.character]


async def test_open(client):
    assert await open_document(client, HEAT, TEXT) == []


async def test_inlay_hints_step_ordinals(client):
    hints = await client.text_document_inlay_hint_async(lsp.InlayHintParams(
        text_document=doc_id(HEAT), range=lsp.Range(start=lsp.Position(0, 0), end=lsp.Position(30, 0))))
    labels = [h.label for h in hints]
    assert labels[:3] == ["#0", "#1", "#2"]
    assert "#22" in labels and "#23" in labels
    # `#22` sits right after the `*` of `kn * lap` on line 13.
    (h22,) = [h for h in hints if h.label == "#22"]
    assert h22.position.line == 12 and LINES[12][:h22.position.character].endswith("(kn *")
    # A range gives only the hints inside it.
    part = await client.text_document_inlay_hint_async(lsp.InlayHintParams(
        text_document=doc_id(HEAT), range=lsp.Range(start=lsp.Position(12, 0), end=lsp.Position(13, 0))))
    assert sorted(h.label for h in part) == ["#22", "#23"]


async def test_semantic_tokens(client):
    tokens = await client.text_document_semantic_tokens_full_async(lsp.SemanticTokensParams(
        text_document=doc_id(HEAT)))
    decoded = decode_tokens(tokens.data)
    first = decoded[0]
    assert first[:4] == (0, 0, 6, "keyword")  # `kernel`
    assert decoded[1][:4] == (0, 7, 7, "kernel") and "declaration" in decoded[1][4]  # `diffuse`
    positions = [(line, start) for line, start, *_ in decoded]
    assert positions == sorted(positions) and len(set(positions)) == len(positions)
    kinds = {kind for *_, kind, _ in decoded}
    assert {"keyword", "kernel", "type", "parameter", "variable", "sizeSymbol", "number"} <= kinds


async def test_semantic_tokens_after_non_ascii(client):
    uri = uri_of("tokens_unicode")
    text = "// 😀😀\nvoid go() { /* é😀 */ I64 x = 1; }\ngo();\n"
    await open_document(client, uri, text)
    tokens = decode_tokens((await client.text_document_semantic_tokens_full_async(
        lsp.SemanticTokensParams(text_document=doc_id(uri)))).data)
    # `I64` on line 1: 21 code points before it, 22 UTF-16 units (the emoji is two).
    (i64,) = [t for t in tokens if t[0] == 1 and t[3] == "type"]
    assert i64[1:3] == (22, 3)


async def test_document_symbols(client):
    symbols = await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(
        text_document=doc_id(HEAT)))
    assert [(s.name, s.kind) for s in symbols] == [("diffuse", lsp.SymbolKind.Function),
                                                   ("step", lsp.SymbolKind.Function)]
    diffuse = symbols[0]
    assert diffuse.range.start == at(1, 1) and diffuse.range.end.line == 17
    assert text_at(diffuse.selection_range) == "diffuse"
    assert {"u", "kn", "lap", "flux"} <= {c.name for c in diffuse.children}


async def test_definition_and_references(client):
    lap_use = at(13, 37)  # `lap` in `kn * lap`
    found = await client.text_document_definition_async(lsp.DefinitionParams(
        text_document=doc_id(HEAT), position=lap_use))
    assert [(loc.uri, loc.range.start) for loc in found] == [(HEAT, at(11, 13))]
    refs = await client.text_document_references_async(lsp.ReferenceParams(
        text_document=doc_id(HEAT), position=lap_use, context=lsp.ReferenceContext(include_declaration=True)))
    assert sorted(loc.range.start for loc in refs) == [at(11, 13), at(13, 35)]
    refs = await client.text_document_references_async(lsp.ReferenceParams(
        text_document=doc_id(HEAT), position=lap_use, context=lsp.ReferenceContext(include_declaration=False)))
    assert [loc.range.start for loc in refs] == [at(13, 35)]
    # The kernel's name at its dispatch leads to the kernel.
    found = await client.text_document_definition_async(lsp.DefinitionParams(
        text_document=doc_id(HEAT), position=at(25, 6)))
    assert [text_at(loc.range) for loc in found] == ["diffuse"]


async def test_rename(client):
    prepared = await client.text_document_prepare_rename_async(lsp.PrepareRenameParams(
        text_document=doc_id(HEAT), position=at(13, 37)))
    assert prepared.start == at(13, 35) and prepared.end == at(13, 38)
    edit = await client.text_document_rename_async(lsp.RenameParams(
        text_document=doc_id(HEAT), position=at(13, 37), new_name="laplacian"))
    edits = edit.changes[HEAT]
    assert sorted(e.range.start for e in edits) == [at(11, 13), at(13, 35)]
    assert {e.new_text for e in edits} == {"laplacian"}
    assert {text_at(e.range) for e in edits} == {"lap"}
    # A name that is not an identifier: an error response with the reason.
    with pytest.raises(Exception) as failure:
        await client.text_document_rename_async(lsp.RenameParams(
            text_document=doc_id(HEAT), position=at(13, 37), new_name="1bad"))
    assert "identifier" in str(failure.value)
    # Nothing to rename on a keyword.
    assert await client.text_document_prepare_rename_async(lsp.PrepareRenameParams(
        text_document=doc_id(HEAT), position=at(1, 2))) is None


async def test_completion(client):
    items = (await client.text_document_completion_async(lsp.CompletionParams(
        text_document=doc_id(HEAT), position=at(13, 30)))).items
    by_label = {i.label: i for i in items}
    assert {"lap", "c", "kn", "u"} <= set(by_label)
    assert by_label["lap"].kind == lsp.CompletionItemKind.Variable
    # The ide's order and documentation reach the editor [issue 12, item 8].
    assert all(i.sort_text for i in items)
    assert any(i.documentation is not None for i in items)


@pytest.mark.parametrize("uri", ["untitled:Untitled-1", "file:///tmp/my%20heat.ci", "file:///tmp/2heat.ci"])
async def test_untitled_and_odd_names_keep_hovers(client, uri):
    # A buffer whose name is no module name gets one made from it, not C2004 [issue 12, item 5].
    assert await open_document(client, uri, TEXT) == []
    star = lsp.Position(line=12, character=LINES[12].index("kn * lap") + 3)
    hover = await client.text_document_hover_async(lsp.HoverParams(text_document=doc_id(uri), position=star))
    assert hover is not None and "22" in hover.contents.value


async def test_signature_help(client):
    help_ = await client.text_document_signature_help_async(lsp.SignatureHelpParams(
        text_document=doc_id(HEAT), position=at(25, 20)))
    (signature,) = help_.signatures
    assert signature.label.startswith("diffuse(")
    assert [p.label for p in signature.parameters][:2] == ["in I32[h, w] u", "in I64 kn"]
    assert all(p.label in signature.label for p in signature.parameters)
    assert help_.active_parameter == 1
    assert signature.documentation.kind == lsp.MarkupKind.Markdown


async def test_folding_ranges(client):
    ranges = await client.text_document_folding_range_async(lsp.FoldingRangeParams(text_document=doc_id(HEAT)))
    spans = {(r.start_line, r.end_line) for r in ranges}
    assert (9, 13) in spans  # the `if` block of the kernel
    assert any(start == 19 for start, _ in spans)  # `void step() {`


async def test_formatting(client):
    uri = uri_of("formatting")
    messy = 'void go() {\n  I64  x=1+2;\n    "{x}\\n";\n}\ngo();\n'
    await open_document(client, uri, messy)
    edits = await client.text_document_formatting_async(lsp.DocumentFormattingParams(
        text_document=doc_id(uri), options=lsp.FormattingOptions(tab_size=4, insert_spaces=True)))
    assert edits
    assert apply_edits(messy, edits) == 'void go() {\n    I64 x = 1 + 2;\n    "{x}\\n";\n}\ngo();\n'
    # A formatted document needs no edit.
    assert not await client.text_document_formatting_async(lsp.DocumentFormattingParams(
        text_document=doc_id(HEAT), options=lsp.FormattingOptions(tab_size=4, insert_spaces=True)))


def apply_edits(text: str, edits: list[lsp.TextEdit]) -> str:
    """Apply LSP edits (ASCII text) from the last to the first."""
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)

    def offset(p: lsp.Position) -> int:
        return starts[p.line] + p.character

    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[:offset(e.range.start)] + e.new_text + text[offset(e.range.end):]
    return text


async def test_code_lenses_and_their_commands(client):
    lenses = await client.text_document_code_lens_async(lsp.CodeLensParams(text_document=doc_id(HEAT)))
    titles = [lens.command.title for lens in lenses]
    executors = implemented_executors()
    # (gpu-cuda's title says "(simulated)" where it will run on the simulated device.)
    assert titles == ["▶ Run"] + [f"▶ Run on {executor_label(e)}" for e in executors] + ["Compare executors"]
    assert all(lens.range.start == at(29, 1) for lens in lenses)  # above the entry: `step();`
    assert list(lenses[0].command.arguments) == [HEAT, "auto"]  # the plain Run: auto chooses
    run = lenses[1].command
    assert run.command == "cint.run" and list(run.arguments) == [HEAT, "cpu-sir-interp"]
    # The lens's command, as the editor would send it.
    result = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command=run.command, arguments=list(run.arguments)))
    assert result["fault"]["code"] == "E_OVERFLOW"
