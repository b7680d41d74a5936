"""The editor features over LSP: each handler converts positions, calls the plain
function of `cint_ls.ide` and converts the answer (a mixin of CintLanguageServer)."""

from __future__ import annotations


from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException

from .. import ide
from ..ide import SEMANTIC_TOKEN_KINDS, SEMANTIC_TOKEN_MODIFIERS, Document
from ..syntax.source import SourceText
from . import convert
from .runs import implemented_executors


class FeatureHandlers:
    """Hover, hints, tokens, symbols, navigation, rename, completion, signature help,
    folding, formatting and code lenses."""


    def hover(self, params: lsp.HoverParams) -> lsp.Hover | None:
        doc = self._open(params.text_document.uri)
        if doc is None:
            return None
        result = ide.hover(doc, convert.offset_of(doc.source, params.position))
        if result is None:
            return None
        return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=result.markdown),
                         range=convert.lsp_range(doc.source, result.span))

    def inlay_hints(self, params: lsp.InlayHintParams) -> list[lsp.InlayHint]:
        doc = self._open(params.text_document.uri)
        if doc is None or not self.settings.step_ordinals:
            return []
        start, end = convert.offsets_of(doc.source, params.range)
        return [
            lsp.InlayHint(position=convert.lsp_position(doc.source, h.offset), label=h.label,
                          tooltip=h.tooltip, padding_left=True)
            for h in ide.inlay_hints(doc, start, end)
        ]

    def semantic_tokens(self, params: lsp.SemanticTokensParams) -> lsp.SemanticTokens:
        doc = self._open(params.text_document.uri)
        if doc is None:
            return lsp.SemanticTokens(data=[])
        data = convert.encode_semantic_tokens(doc.source, ide.semantic_tokens(doc), SEMANTIC_TOKEN_KINDS,
                                              SEMANTIC_TOKEN_MODIFIERS)
        return lsp.SemanticTokens(data=data)

    def document_symbols(self, params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol]:
        doc = self._open(params.text_document.uri)
        if doc is None:
            return []
        return [convert.document_symbol(doc.source, s) for s in ide.document_symbols(doc)]

    def _locations(self, doc: Document, found) -> list[lsp.Location]:
        return [lsp.Location(uri=doc.uri, range=convert.lsp_range(doc.source, loc.span)) for loc in found]

    def definition(self, params: lsp.DefinitionParams) -> list[lsp.Location]:
        doc = self._open(params.text_document.uri)
        if doc is None:
            return []
        return self._locations(doc, ide.definition(doc, convert.offset_of(doc.source, params.position)))

    def references(self, params: lsp.ReferenceParams) -> list[lsp.Location]:
        doc = self._open(params.text_document.uri)
        if doc is None:
            return []
        include = bool(params.context.include_declaration) if params.context is not None else True
        return self._locations(doc, ide.references(doc, convert.offset_of(doc.source, params.position), include))

    def prepare_rename(self, params: lsp.PrepareRenameParams) -> lsp.Range | None:
        doc = self._open(params.text_document.uri)
        if doc is None:
            return None
        span = ide.prepare_rename(doc, convert.offset_of(doc.source, params.position))
        return None if span is None else convert.lsp_range(doc.source, span)

    def rename(self, params: lsp.RenameParams) -> lsp.WorkspaceEdit | None:
        doc = self._open(params.text_document.uri)
        if doc is None:
            return None
        result = ide.rename(doc, convert.offset_of(doc.source, params.position), params.new_name)
        if result.error is not None:
            raise JsonRpcException(message=result.error, code=lsp.LSPErrorCodes.RequestFailed)
        if result.changes is None:
            return None
        edits = [lsp.TextEdit(range=convert.lsp_range(doc.source, c.span), new_text=c.new_text)
                 for c in result.changes]
        return lsp.WorkspaceEdit(changes={doc.uri: edits})

    def completion(self, params: lsp.CompletionParams) -> lsp.CompletionList:
        doc = self._open(params.text_document.uri)
        items: list[lsp.CompletionItem] = []
        if doc is not None:
            for item in ide.completion(doc, convert.offset_of(doc.source, params.position)):
                snippet = item.kind == "snippet" and item.insert_text is not None
                items.append(lsp.CompletionItem(
                    label=item.label, kind=convert.completion_kind(item.kind), detail=item.detail or None,
                    insert_text=item.insert_text,
                    insert_text_format=lsp.InsertTextFormat.Snippet if snippet else None))
        return lsp.CompletionList(is_incomplete=False, items=items)

    def signature_help(self, params: lsp.SignatureHelpParams) -> lsp.SignatureHelp | None:
        doc = self._open(params.text_document.uri)
        if doc is None:
            return None
        found = ide.signature_help(doc, convert.offset_of(doc.source, params.position))
        if found is None:
            return None
        parameters = [lsp.ParameterInformation(label=p) for p in found.parameters]
        documentation = lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=found.documentation) \
            if found.documentation else None
        active = found.active_parameter if found.parameters else None
        return lsp.SignatureHelp(
            signatures=[lsp.SignatureInformation(label=found.label, documentation=documentation,
                                                 parameters=parameters, active_parameter=active)],
            active_signature=0, active_parameter=active)

    def folding_ranges(self, params: lsp.FoldingRangeParams) -> list[lsp.FoldingRange]:
        doc = self._open(params.text_document.uri)
        if doc is None:
            return []
        return [lsp.FoldingRange(start_line=f.start_line, end_line=f.end_line, kind=convert.folding_kind(f.kind))
                for f in ide.folding_ranges(doc) if f.end_line > f.start_line]

    def formatting(self, params: lsp.DocumentFormattingParams) -> list[lsp.TextEdit]:
        doc = self._open(params.text_document.uri)
        if doc is None:
            return []
        formatted = ide.format_document(doc)
        if formatted is None or formatted == doc.text:
            return []
        return [minimal_edit(doc.source, formatted)]

    def code_lenses(self, params: lsp.CodeLensParams) -> list[lsp.CodeLens]:
        doc = self._open(params.text_document.uri)
        if doc is None:
            return []
        return [
            lsp.CodeLens(range=convert.lsp_range(doc.source, lens.span),
                         command=lsp.Command(title=lens.title, command=lens.command,
                                             arguments=list(lens.arguments)))
            for lens in ide.code_lenses(doc, self.executors())
        ]

    def executors(self) -> list[str]:
        if self._executors is None:
            self._executors = implemented_executors()
        return self._executors


def minimal_edit(source: SourceText, new: str) -> lsp.TextEdit:
    """One edit that turns the text of `source` into `new`, covering only the part
    between their common prefix and common suffix."""
    old = source.text
    prefix = 0
    limit = min(len(old), len(new))
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[len(old) - 1 - suffix] == new[len(new) - 1 - suffix]:
        suffix += 1
    start = len(old[:prefix].encode("utf-8"))
    end = len(old[:len(old) - suffix].encode("utf-8"))
    return lsp.TextEdit(
        range=lsp.Range(start=convert.lsp_position(source, start), end=convert.lsp_position(source, end)),
        new_text=new[prefix:len(new) - suffix])
