"""`textDocument/codeAction`: the quick fixes of `ide.code_actions` as LSP code actions,
each with a workspace edit of the document and the diagnostic it fixes.

A heavy request (on the worker): each candidate fix is checked by analysing the edited
text. Only fixes are offered (kind `quickfix`); a client that asks `only` for other kinds
gets none.
"""

from __future__ import annotations

from lsprotocol import types as lsp

from ... import ide
from .. import convert
from ..session import OpenDocument, Session

OPTIONS = lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix])


def prepare(session: Session, entry: OpenDocument, params: lsp.CodeActionParams) -> tuple[str, ...]:
    return session.settings.targets  # the severity of refusals decides which are errors


def _wanted(params: lsp.CodeActionParams) -> bool:
    only = params.context.only if params.context is not None else None
    if not only:
        return True
    # `only: ["quickfix"]`, or a parent kind such as "" (all); not "refactor".
    return any(lsp.CodeActionKind.QuickFix.value.startswith(kind) for kind in only)


def code_actions(doc, params: lsp.CodeActionParams, targets) -> list[lsp.CodeAction]:
    if not _wanted(params):
        return []
    start, end = convert.offsets_of(doc.source, params.range)
    out = []
    for action in ide.code_actions(doc, start, end, targets):
        edits = [lsp.TextEdit(range=convert.lsp_range(doc.source, c.span), new_text=c.new_text)
                 for c in action.changes]
        out.append(lsp.CodeAction(
            title=action.title,
            kind=lsp.CodeActionKind.QuickFix,
            diagnostics=[convert.lsp_diagnostic(doc, action.diagnostic)],
            is_preferred=action.preferred or None,
            edit=lsp.WorkspaceEdit(changes={doc.uri: edits}),
        ))
    return out
