"""Editor features as plain functions that know nothing of LSP (issue 4).

Every function takes a `Document` (and a byte offset into `doc.source.data` where it
asks about a place), returns the plain results of `results.py`, and is total: any offset,
any half-typed text gives None or [] rather than an exception. The language server
(`cint_ls.server`) converts spans to LSP ranges and results to LSP shapes.
"""

from ..analysis.capabilities import gpu_refusals
from .actions import code_actions, target_fixes
from .completion import completion
from .diagnostics import DEFAULT_TARGETS, REFUSAL_CODE, diagnostics
from .document import Document, Snapshot
from .explain import explain
from .folding import folding_ranges
from .formatting import format_document, format_in_steps
from .highlight import highlights
from .hints import inlay_hints
from .hover import hover
from .lenses import code_lenses
from .navigation import definition, prepare_rename, references, rename
from .results import (
    SEMANTIC_TOKEN_KINDS,
    SEMANTIC_TOKEN_MODIFIERS,
    CodeAction,
    CodeLens,
    CompletionItem,
    DocumentSymbol,
    Explanation,
    FoldingRange,
    Highlight,
    HoverResult,
    InlayHint,
    Location,
    Refusal,
    RenameResult,
    SemanticToken,
    SignatureHelp,
    TextChange,
)
from .signature import signature_help
from .symbols import document_symbols
from .tokens import semantic_tokens, semantic_tokens_array, semantic_tokens_data
from .workspace import fuzzy_score, top_level_symbols

__all__ = [
    "DEFAULT_TARGETS", "REFUSAL_CODE", "SEMANTIC_TOKEN_KINDS", "SEMANTIC_TOKEN_MODIFIERS", "CodeAction", "CodeLens",
    "CompletionItem", "Document", "DocumentSymbol", "Explanation", "FoldingRange", "Highlight", "HoverResult",
    "InlayHint", "Location", "Refusal", "RenameResult", "SemanticToken", "SignatureHelp", "Snapshot", "TextChange",
    "code_actions", "code_lenses", "completion", "definition", "diagnostics", "document_symbols", "explain",
    "folding_ranges", "format_document", "format_in_steps", "fuzzy_score", "gpu_refusals", "highlights", "hover",
    "inlay_hints",
    "prepare_rename", "references", "rename", "semantic_tokens", "semantic_tokens_array", "semantic_tokens_data", "signature_help", "target_fixes",
    "top_level_symbols",
]
