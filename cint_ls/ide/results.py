"""The results of the editor features: plain frozen dataclasses that know nothing of LSP.

Positions are byte offsets into `Document.source.data` and results carry `Span`s (frozen:
anchored at the file's start, so a later edit of the document does not move them). The
language server converts them to LSP ranges.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..analysis.capabilities import Refusal
from ..syntax.diagnostics import Diagnostic, Related
from ..syntax.source import Span

# The legend of semantic tokens, in order (the server sends indices into these).
SEMANTIC_TOKEN_KINDS: tuple[str, ...] = (
    "keyword", "type", "function", "kernel", "parameter", "variable", "sizeSymbol", "overVariable",
    "number", "string", "operator", "comment", "enumMember",
)
SEMANTIC_TOKEN_MODIFIERS: tuple[str, ...] = (
    "declaration", "readonly", "in", "out", "inout", "uniform", "varying", "defaultLibrary",
)


@dataclass(frozen=True, slots=True)
class HoverResult:
    markdown: str
    span: Span  # the range the hover is about


@dataclass(frozen=True, slots=True)
class InlayHint:
    offset: int  # byte offset the hint is shown at (after the operation)
    label: str  # "#22", "#{3,26}", "#?"
    tooltip: str | None = None


@dataclass(frozen=True, slots=True)
class SemanticToken:
    span: Span  # never spans lines
    kind: str  # one of SEMANTIC_TOKEN_KINDS
    modifiers: tuple[str, ...] = ()  # each one of SEMANTIC_TOKEN_MODIFIERS


@dataclass(frozen=True, slots=True)
class DocumentSymbol:
    name: str
    kind: str  # "kernel", "function", "variable", "parameter", "struct"
    span: Span  # the whole declaration
    selection: Span  # its name
    detail: str = ""
    children: tuple[DocumentSymbol, ...] = ()


@dataclass(frozen=True, slots=True)
class Location:
    span: Span  # in the same document (one module per file)


@dataclass(frozen=True, slots=True)
class TextChange:
    span: Span
    new_text: str


@dataclass(frozen=True, slots=True)
class RenameResult:
    changes: tuple[TextChange, ...] | None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class CompletionItem:
    label: str
    kind: str  # "keyword", "type", "variable", "function", "kernel", "parameter", "operator", "constant", "snippet"
    detail: str = ""
    insert_text: str | None = None
    sort: str = ""  # the order to show it in (LSP sortText): the place's best first
    documentation: str = ""  # Markdown


@dataclass(frozen=True, slots=True)
class SignatureHelp:
    label: str  # the whole signature, e.g. "diffuse(in I32[h, w] u, I64 kn, ...)"
    parameters: tuple[str, ...]  # each a substring of `label`
    active_parameter: int
    documentation: str = ""


@dataclass(frozen=True, slots=True)
class FoldingRange:
    start_line: int  # 0-based, LSP style
    end_line: int
    kind: str | None = None  # "comment", "region" or None


@dataclass(frozen=True, slots=True)
class CodeLens:
    span: Span
    title: str
    command: str  # "cint.run" (arguments: (uri, executor)) or "cint.compareExecutors" (arguments: (uri,))
    arguments: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Explanation:
    message: str  # the specific reason (a diagnostic's message is its catalogue line)
    related: tuple[Related, ...]  # the other places of the conflict, frozen spans


@dataclass(frozen=True, slots=True)
class CodeAction:
    title: str
    kind: str  # "quickfix"
    diagnostic: Diagnostic  # the one it fixes (frozen spans)
    changes: tuple[TextChange, ...]
    preferred: bool = False


@dataclass(frozen=True, slots=True)
class Highlight:
    span: Span
    kind: str  # "read", "write" or "text" (a declaration without a value)


__all__ = [
    "SEMANTIC_TOKEN_KINDS", "SEMANTIC_TOKEN_MODIFIERS", "CodeAction", "CodeLens", "CompletionItem", "DocumentSymbol",
    "Explanation", "FoldingRange", "Highlight", "HoverResult", "InlayHint", "Location", "Refusal", "RenameResult",
    "SemanticToken", "SignatureHelp", "TextChange",
]
