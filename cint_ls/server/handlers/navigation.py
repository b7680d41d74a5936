"""`textDocument/documentHighlight`: the reads and writes of the name under the cursor
(`ide.highlights`). Heavy like references (it reads every resolved name), on the loop in
a small file."""

from __future__ import annotations

from lsprotocol import types as lsp

from ... import ide
from .. import convert

_KINDS = {
    "read": lsp.DocumentHighlightKind.Read,
    "write": lsp.DocumentHighlightKind.Write,
    "text": lsp.DocumentHighlightKind.Text,
}


def document_highlight(doc, params: lsp.DocumentHighlightParams, prepared=None) -> list[lsp.DocumentHighlight]:
    offset = convert.offset_of(doc.source, params.position)
    return [lsp.DocumentHighlight(range=convert.lsp_range(doc.source, h.span), kind=_KINDS[h.kind])
            for h in ide.highlights(doc, offset)]
