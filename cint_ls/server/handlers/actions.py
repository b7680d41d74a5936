"""`textDocument/codeAction`: the quick fixes of `ide.code_actions` as LSP code actions,
each with a workspace edit of the document and the diagnostic it fixes.

A heavy request (one step): each candidate fix is checked by analysing the edited
text. Only fixes are offered (kind `quickfix`); a client that asks `only` for other kinds
gets none.

A gpu-cuda refusal's fix changes the client's `cint.targets` setting, which LSP gives a
server no way to do: it is a code action whose command, `cint.setTargets` [uri, targets],
the client runs itself (the VS Code extension updates the workspace's `cint.targets`;
the Neovim plugin its client's settings, then workspace/didChangeConfiguration). The
server does not list it in its executeCommandProvider, and offers it only to a client
that declares it handles it: `capabilities.experimental.cint.setTargets: true`.
"""

from __future__ import annotations

from lsprotocol import types as lsp

from ... import ide
from .. import convert
from ..session import OpenDocument, Session

SET_TARGETS = "cint.setTargets"  # a client's command: [uri, targets]

OPTIONS = lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix])


def sets_targets(session: Session) -> bool:
    """Whether the client runs `cint.setTargets` itself (experimental.cint.setTargets)."""
    return session.client_says("setTargets")


def prepare(session: Session, entry: OpenDocument, params: lsp.CodeActionParams) -> tuple[tuple[str, ...], bool]:
    # the severity of refusals decides which are errors
    return session.settings.targets, sets_targets(session)


def _wanted(params: lsp.CodeActionParams) -> bool:
    only = params.context.only if params.context is not None else None
    if not only:
        return True
    # `only: ["quickfix"]`, or a parent kind such as "" (all); not "refactor".
    return any(lsp.CodeActionKind.QuickFix.value.startswith(kind) for kind in only)


def code_actions(doc, params: lsp.CodeActionParams, prepared) -> list[lsp.CodeAction]:
    targets, client_sets_targets = prepared
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
    if client_sets_targets:
        for fix in ide.target_fixes(doc, start, end, targets):
            out.append(lsp.CodeAction(
                title=fix.title,
                kind=lsp.CodeActionKind.QuickFix,
                diagnostics=[convert.lsp_diagnostic(doc, d) for d in fix.diagnostics],
                is_preferred=fix.preferred or None,
                command=lsp.Command(title=fix.title, command=SET_TARGETS, arguments=[doc.uri, list(fix.targets)]),
            ))
    return out
