"""Editor features as plain functions that know nothing of LSP (issue 4).

Every function takes a `Document` (and a byte offset into `doc.source.data` where it
asks about a place), returns the plain results of `results.py`, and is total: any offset,
any half-typed text gives None or [] rather than an exception. The language server
(`cint_ls.server`) converts spans to LSP ranges and results to LSP shapes.

The features whose module has the name of its function (completion, diagnostics,
explain, hover) are imported with the package, so that the name is the function
whatever is imported later; the others on first use (`__getattr__`), all at once. The
server's fast start (server/prelude.py) needs only the diagnostics: the whole package
first would cost it about 30 ms.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .completion import completion
from .diagnostics import DEFAULT_TARGETS, REFUSAL_CODE, diagnostics
from .document import Document, Snapshot
from .explain import explain
from .hover import hover

if TYPE_CHECKING:
    from ..analysis.capabilities import gpu_refusals
    from .actions import code_actions, target_fixes
    from .folding import folding_ranges
    from .formatting import format_document, format_in_steps
    from .highlight import highlights
    from .hints import inlay_hints
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


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from ..analysis.capabilities import gpu_refusals
    from .actions import code_actions, target_fixes
    from .folding import folding_ranges
    from .formatting import format_document, format_in_steps
    from .highlight import highlights
    from .hints import inlay_hints
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

    found = {key: value for key, value in locals().items() if key in __all__}
    globals().update(found)
    return found[name]
