"""The editor features: each converts positions, calls the plain function of
`cint_ls.ide` and converts the answer.

Light features (hover, completion, signature help, definition, prepareRename) are
functions of (doc, params); heavy ones, functions of (doc, params, prepared), `prepared`
being what their `prepare` took when the request arrived (settings, the executors), and
a heavy one that takes long is a generator that yields between its steps
(`scheduling.steps`). Either way `doc` is the version of the document the request was
asked about (an `ide.Snapshot`). See handlers/__init__.py for which feature is which.
"""

from __future__ import annotations

from collections.abc import Generator

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException

from ... import ide
from ...running.run import simulated_executors
from ...syntax.source import SourceText
from .. import convert, fragments
from ..scheduling import STEP_SECONDS
from ..session import OpenDocument, Serialized, Session


class Computed:
    """What a heavy feature computed: the answer, and what its `finish` keeps of it."""

    __slots__ = ("answer", "kept")

    def __init__(self, answer, kept) -> None:
        self.answer = answer
        self.kept = kept


class Immediate:
    """What a `prepare` returns to answer at once, without computing."""

    __slots__ = ("value",)

    def __init__(self, value) -> None:
        self.value = value


# ---- light: on the loop

def hover(doc, params: lsp.HoverParams) -> lsp.Hover | None:
    result = ide.hover(doc, convert.offset_of(doc.source, params.position))
    if result is None:
        return None
    return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=result.markdown),
                     range=convert.lsp_range(doc.source, result.span))


def definition(doc, params: lsp.DefinitionParams) -> list[lsp.Location]:
    return _locations(doc, ide.definition(doc, convert.offset_of(doc.source, params.position)))


def prepare_rename(doc, params: lsp.PrepareRenameParams) -> lsp.Range | None:
    span = ide.prepare_rename(doc, convert.offset_of(doc.source, params.position))
    return None if span is None else convert.lsp_range(doc.source, span)


def completion(doc, params: lsp.CompletionParams) -> lsp.CompletionList:
    items: list[lsp.CompletionItem] = []
    for item in ide.completion(doc, convert.offset_of(doc.source, params.position)):
        snippet = item.kind == "snippet" and item.insert_text is not None
        documentation = lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=item.documentation) \
            if item.documentation else None
        items.append(lsp.CompletionItem(
            label=item.label, kind=convert.completion_kind(item.kind), detail=item.detail or None,
            documentation=documentation, sort_text=item.sort or None, insert_text=item.insert_text,
            insert_text_format=lsp.InsertTextFormat.Snippet if snippet else None))
    return lsp.CompletionList(is_incomplete=False, items=items)


def signature_help(doc, params: lsp.SignatureHelpParams) -> lsp.SignatureHelp | None:
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


# ---- heavy: on the version asked about, some of them step by step

def inlay_hints_prepare(session: Session, entry: OpenDocument, params) -> Immediate | None:
    return None if session.settings.step_ordinals else Immediate([])


def inlay_hints(doc, params: lsp.InlayHintParams, prepared) -> Generator[None, None, Serialized]:
    """Made as JSON from each kernel's kept piece (`fragments`), a step of kernels at a
    time."""
    start, end = convert.offsets_of(doc.source, params.range)
    return Serialized((yield from fragments.inlay_hints(doc, start, end)))


def document_symbols(doc, params: lsp.DocumentSymbolParams, prepared) -> Generator[None, None, Serialized]:
    """Made as JSON from each item's kept piece (`fragments`): thousands of symbols in
    a big file."""
    return Serialized((yield from fragments.symbols(doc)))


def references(doc, params: lsp.ReferenceParams, prepared) -> list[lsp.Location]:
    include = bool(params.context.include_declaration) if params.context is not None else True
    return _locations(doc, ide.references(doc, convert.offset_of(doc.source, params.position), include))


def rename(doc, params: lsp.RenameParams, prepared) -> lsp.WorkspaceEdit | None:
    result = ide.rename(doc, convert.offset_of(doc.source, params.position), params.new_name)
    if result.error is not None:
        raise JsonRpcException(message=result.error, code=lsp.LSPErrorCodes.RequestFailed)
    if result.changes is None:
        return None
    edits = [lsp.TextEdit(range=convert.lsp_range(doc.source, c.span), new_text=c.new_text)
             for c in result.changes]
    return lsp.WorkspaceEdit(changes={doc.uri: edits})


def folding_ranges(doc, params: lsp.FoldingRangeParams, prepared) -> Generator[None, None, Serialized]:
    return Serialized((yield from fragments.folding_ranges(doc)))


def formatting(doc, params: lsp.DocumentFormattingParams, prepared) -> Generator[None, None, list[lsp.TextEdit]]:
    """STEP_SECONDS at a time (the first formatting of 5,000 lines takes a third of a
    second; a hover behind it waits for one step)."""
    formatted = yield from ide.format_in_steps(doc, STEP_SECONDS)
    if formatted is None or formatted == doc.text:
        return []
    return [minimal_edit(doc.source, formatted)]


def code_lenses_prepare(session: Session, entry: OpenDocument, params) -> tuple[list[str], frozenset[str], bool]:
    """The executors, which of them run on a simulated device (the façade's forecast:
    it may ask the CUDA probe, which the ide's lenses never do), and whether the client
    debugs (experimental.cint.debug: a `Debug` lens)."""
    executors = session.executors()
    return executors, simulated_executors(executors), session.client_says("debug")


def code_lenses(doc, params: lsp.CodeLensParams, prepared: tuple[list[str], frozenset[str], bool]) -> list[lsp.CodeLens]:
    executors, simulated, debug = prepared
    return [
        lsp.CodeLens(range=convert.lsp_range(doc.source, lens.span),
                     command=lsp.Command(title=lens.title, command=lens.command,
                                         arguments=list(lens.arguments)))
        for lens in ide.code_lenses(doc, executors, simulated, debug)
    ]


# ---- helpers

def _locations(doc, found) -> list[lsp.Location]:
    return [lsp.Location(uri=doc.uri, range=convert.lsp_range(doc.source, loc.span)) for loc in found]


def minimal_edit(source: SourceText, new: str) -> lsp.TextEdit:
    """One edit that turns the text of `source` into `new`, covering only the part
    between their common prefix and common suffix."""
    old = source.text
    limit = min(len(old), len(new))
    prefix = convert.common_length(old, new, limit, forward=True)
    suffix = convert.common_length(old, new, limit - prefix, forward=False)
    start = len(old[:prefix].encode("utf-8"))
    end = len(old[:len(old) - suffix].encode("utf-8"))
    return lsp.TextEdit(
        range=lsp.Range(start=convert.lsp_position(source, start), end=convert.lsp_position(source, end)),
        new_text=new[prefix:len(new) - suffix])
