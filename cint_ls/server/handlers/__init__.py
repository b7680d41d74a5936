"""The handlers of cint-ls, one module per group of methods, each a plain function of
(session, params); and `ROUTES`, the table the pygls shim (`protocol.py`) registers:

| kind | runs | methods |
| --- | --- | --- |
| `light` | at once | hover, completion, signatureHelp, definition, prepareRename |
| `heavy` | a step at a time (`scheduling.steps`), on the version asked about, after its diagnostics; ContentModified when the document changes first; `$/cancelRequest` honoured | semanticTokens (full, full/delta, range), inlayHint, codeLens, documentSymbol, foldingRange, formatting, rename, references, codeAction, documentHighlight |
| `notify` | at once | didOpen, didChange, didClose, didSave, initialized, didChangeConfiguration, exit |
| `request` | at once | initialize, shutdown |

All of them on the event loop's one thread.

workspace/executeCommand goes to `commands.execute_command` (a coroutine: the run
itself is a child process, waited for on a thread of the run pool).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException

from ..scheduling import content_modified, steps
from ..session import Session
from . import actions, documents, features, lifecycle, navigation, tokens, workspace
from .features import Computed, Immediate

logger = logging.getLogger("cint_ls.server")


@dataclass(frozen=True)
class Route:
    method: str
    kind: str  # light, heavy, notify, request
    fn: Callable[..., Any]
    options: Any = None
    empty: Any = None  # the answer when the handler fails (a value or a factory)
    prepare: Callable[..., Any] | None = None  # heavy: (session, entry, params) on the loop
    finish: Callable[..., Any] | None = None  # heavy: (session, entry, params, computed), once answered

    def empty_answer(self) -> Any:
        return self.empty() if callable(self.empty) else self.empty


def _light(method, fn, options=None, empty=None) -> Route:
    return Route(method, "light", fn, options, empty)


def _heavy(method, fn, options=None, empty=None, **more) -> Route:
    return Route(method, "heavy", fn, options, empty, **more)


ROUTES: tuple[Route, ...] = (
    Route(lsp.INITIALIZE, "request", lifecycle.initialize),
    Route(lsp.INITIALIZED, "notify", lifecycle.initialized),
    Route(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION, "notify", lifecycle.did_change_configuration),
    Route(lsp.SHUTDOWN, "request", lifecycle.shutdown),
    Route(lsp.EXIT, "notify", lifecycle.exit_),
    Route(lsp.TEXT_DOCUMENT_DID_OPEN, "notify", documents.did_open),
    Route(lsp.TEXT_DOCUMENT_DID_CHANGE, "notify", documents.did_change),
    Route(lsp.TEXT_DOCUMENT_DID_CLOSE, "notify", documents.did_close),
    Route(lsp.TEXT_DOCUMENT_DID_SAVE, "notify", documents.did_save),
    _light(lsp.TEXT_DOCUMENT_HOVER, features.hover),
    _light(lsp.TEXT_DOCUMENT_DEFINITION, features.definition, empty=list),
    _light(lsp.TEXT_DOCUMENT_PREPARE_RENAME, features.prepare_rename),
    _light(lsp.TEXT_DOCUMENT_COMPLETION, features.completion, lsp.CompletionOptions(trigger_characters=["."]),
           empty=lambda: lsp.CompletionList(is_incomplete=False, items=[])),
    _light(lsp.TEXT_DOCUMENT_SIGNATURE_HELP, features.signature_help,
           lsp.SignatureHelpOptions(trigger_characters=["(", ","], retrigger_characters=[","])),
    _heavy(lsp.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, tokens.full, tokens.LEGEND, empty=tokens.empty_tokens,
           prepare=tokens.full_prepare, finish=tokens.keep),
    _heavy(lsp.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA, tokens.delta, empty=tokens.empty_tokens,
           prepare=tokens.delta_prepare, finish=tokens.keep),
    _heavy(lsp.TEXT_DOCUMENT_SEMANTIC_TOKENS_RANGE, tokens.range_, empty=tokens.empty_tokens),
    _heavy(lsp.TEXT_DOCUMENT_INLAY_HINT, features.inlay_hints, empty=list, prepare=features.inlay_hints_prepare),
    _heavy(lsp.TEXT_DOCUMENT_CODE_LENS, features.code_lenses, empty=list, prepare=features.code_lenses_prepare),
    _heavy(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL, features.document_symbols, empty=list),
    _heavy(lsp.TEXT_DOCUMENT_FOLDING_RANGE, features.folding_ranges, empty=list),
    _heavy(lsp.TEXT_DOCUMENT_FORMATTING, features.formatting, empty=list),
    _heavy(lsp.TEXT_DOCUMENT_RENAME, features.rename),
    _heavy(lsp.TEXT_DOCUMENT_REFERENCES, features.references, empty=list),
    _heavy(lsp.TEXT_DOCUMENT_CODE_ACTION, actions.code_actions, actions.OPTIONS, empty=list, prepare=actions.prepare),
    _heavy(lsp.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT, navigation.document_highlight, empty=list),
    Route(lsp.WORKSPACE_SYMBOL, "request", workspace.workspace_symbol, lsp.WorkspaceSymbolOptions()),
)


# ---- serving a route

def guarded(session: Session, method: str, empty: Any, fn: Callable[..., Any], *args: Any) -> Any:
    """`fn(*args)`, an exception becoming the empty answer and a log message (an LSP
    error the handler means to send goes through)."""
    try:
        return fn(*args)
    except JsonRpcException:
        raise
    except Exception as error:  # noqa: BLE001
        session.failed(method, error)
        return empty() if callable(empty) else empty


def serve(session: Session, route: Route, params: Any) -> Any:
    """A notification or a lifecycle request, on the loop."""
    return guarded(session, route.method, route.empty, route.fn, session, params)


def serve_light(session: Session, route: Route, params: Any) -> Any:
    """A light request, on the version of the document it was asked about, at once."""
    doc = session.document(params.text_document.uri)
    if doc is None:
        return route.empty_answer()
    return guarded(session, route.method, route.empty, route.fn, doc.snapshot(), params)


async def serve_heavy(session: Session, route: Route, params: Any) -> Any:
    """A heavy request: on the version of its document current when it arrives, after
    that version's diagnostics and the heavy requests before it, a step at a time
    (`scheduling.steps`); the answer only if the document is still that version."""
    uri = params.text_document.uri
    entry = session.entry(uri)
    if entry is None:
        return route.empty_answer()
    generation = entry.generation
    snapshot = entry.doc.snapshot()

    def current() -> bool:
        return session.current(uri, generation) is not None

    try:
        prepared = route.prepare(session, entry, params) if route.prepare is not None else None
        if isinstance(prepared, Immediate):
            return prepared.value
        await documents.settled(session, uri)
        async with session.heavy:  # one at a time, in order: the first asked is the first answered
            computed = await steps(lambda: route.fn(snapshot, params, prepared), current, session.handled, uri)
        if not current():
            raise content_modified(uri)
        if route.finish is not None:
            route.finish(session, entry, params, computed)
        return computed.answer if isinstance(computed, Computed) else computed
    except (JsonRpcException, asyncio.CancelledError):
        raise
    except Exception as error:
        if not current():
            raise content_modified(uri) from error  # what failed was out of date anyway
        session.failed(route.method, error)
        return route.empty_answer()
