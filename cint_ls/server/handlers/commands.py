"""workspace/executeCommand: Run and Compare executors, in child processes started from
the session's run pool, with progress, cancellation, a time limit and the fuel setting.
"""

from __future__ import annotations

import asyncio
import logging
import re
import threading
import uuid
from pathlib import PurePath
from typing import Any

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcInvalidParams

from ...ide.diagnostics import module_refusals
from ...ide.lenses import SHOW_REFUSAL, entry_functions
from ...running.run import AUTO, RunOutcome
from ...running.trace import TraceError, checked_lines
from ...running.trace_page import NONCE, render_page
from .. import convert
from ..runs import compare_executors, run_program, run_result_json
from ..session import OpenDocument, Session
from .actions import SET_TARGETS
from .documents import publish

logger = logging.getLogger("cint_ls.server")

RUN_COMMAND = "cint.run"
COMPARE_COMMAND = "cint.compareExecutors"
TRACE_PAGE_COMMAND = "cint.tracePage"  # [uri, a run result's trace] -> {"html"}: the trace's page
SHOW_REFUSAL_COMMAND = SHOW_REFUSAL  # [uri] -> the first construct gpu-cuda refuses, shown (lens)
COMMANDS = (RUN_COMMAND, COMPARE_COMMAND, TRACE_PAGE_COMMAND, SHOW_REFUSAL_COMMAND)
RUN_RESULT = "cint/runResult"
COMPARE_RESULT = "cint/compareResult"


def cancel_request(session: Session, msg_id: Any) -> None:
    """`$/cancelRequest` for a run: its child is killed."""
    event = session.cancels.get(msg_id)
    if event is not None:
        event.set()


async def execute_command(session: Session, params: lsp.ExecuteCommandParams) -> Any:
    """`cint.run` [uri, executor?, function?] and `cint.compareExecutors` [uri, function?];
    an argument of the wrong type, a document that is not open or a function that no run
    can start from is an InvalidParams error."""
    if params.command == SET_TARGETS:
        raise JsonRpcInvalidParams(f"{SET_TARGETS} is the editor's command: it sets the editor's cint.targets "
                                   "setting, which the server cannot change (the code action of a gpu-cuda refusal)")
    args = list(params.arguments or [])
    uri = args[0] if args else None
    if isinstance(uri, dict):
        uri = uri.get("uri")
    if not isinstance(uri, str):
        raise JsonRpcInvalidParams(f"{params.command}: the first argument must be a document URI")
    entry = session.entry(uri)
    if entry is None:
        raise JsonRpcInvalidParams(f"{params.command}: the document is not open: {uri}")
    if params.command == RUN_COMMAND:
        executor = args[1] if len(args) > 1 and args[1] is not None else AUTO  # the plain Run
        if not isinstance(executor, str):
            raise JsonRpcInvalidParams(f"{RUN_COMMAND}: the second argument must be an executor name")
        function = await _function_argument(entry, args, 2, RUN_COMMAND)
        return await _run(session, params, entry, [executor], function, compare_them=False)
    if params.command == TRACE_PAGE_COMMAND:
        return trace_page(args[1] if len(args) > 1 else None, args[2] if len(args) > 2 else None)
    if params.command == SHOW_REFUSAL_COMMAND:
        return await show_refusal(session, entry)
    if params.command == COMPARE_COMMAND:
        function = await _function_argument(entry, args, 1, COMPARE_COMMAND)
        return await _run(session, params, entry, session.executors(), function, compare_them=True)
    raise JsonRpcInvalidParams(f"unknown command {params.command!r}")


def trace_page(lines: Any, options: Any = None) -> dict:
    """`cint.tracePage` [uri, trace, {nonce}?]: the self-contained HTML page
    (running/trace_page.py) of a run result's `trace`, as {"html": ...}; with `nonce`, the
    page's policy lets run only its own elements, which carry it (an editor's webview
    shows it as it is). A trace that is not one, checked line by line against the format
    as `cint trace` checks a file, is InvalidParams with the line's number."""
    if not isinstance(lines, list):
        raise JsonRpcInvalidParams(f"{TRACE_PAGE_COMMAND}: the second argument must be a run result's trace "
                                   "(a list of trace lines)")
    nonce = options.get("nonce") if isinstance(options, dict) else None
    if options is not None and (not isinstance(options, dict) or not isinstance(nonce, (str, type(None)))
                                or (nonce is not None and not NONCE.match(nonce))):
        raise JsonRpcInvalidParams(f"{TRACE_PAGE_COMMAND}: the third argument is {{\"nonce\": 16 or more base64url "
                                   "characters}")
    try:
        checked = checked_lines(lines, "the trace")
    except TraceError as error:
        raise JsonRpcInvalidParams(f"{TRACE_PAGE_COMMAND}: {error}") from None
    name = next((line["file"] for line in checked if line["type"] == "run"), None) or "run"
    return {"html": render_page(checked, f"cint trace: {PurePath(name).name}", nonce)}


async def show_refusal(session: Session, entry: OpenDocument) -> dict | None:
    """`cint.showRefusal` [uri] (the gpu-cuda lens of a program gpu-cuda refuses): the
    first refused construct of the current version, the one a gpu-cuda build reports,
    selected in the editor with window/showDocument (a client without it gets the place
    in the answer and a message). None when nothing is refused (any more)."""
    snapshot = entry.doc.snapshot()
    refusals = module_refusals(snapshot)
    if not refusals:
        return None
    first = refusals[0]
    where = convert.lsp_range(snapshot.source, first.span)
    message = (f"gpu-cuda refuses kernel `{first.kernel}`: capability `{first.capability}` ({first.what}) at "
               f"{first.span.line}:{first.span.column}" + (f", and {len(refusals) - 1} more" if len(refusals) > 1 else ""))
    shown = False
    if session.supports("window.show_document.support"):
        try:
            answer = await session.client.show_document(snapshot.uri, where, timeout=10)
            shown = bool(getattr(answer, "success", False))
        except Exception as error:  # noqa: BLE001 - the answer still says where it is
            logger.info("window/showDocument failed: %s", error)
    if not shown:
        session.log(lsp.MessageType.Warning, f"cint: {message}")
    span = {"start": {"line": where.start.line, "character": where.start.character},
            "end": {"line": where.end.line, "character": where.end.character}}
    return {"uri": snapshot.uri, "range": span, "message": message, "shown": shown}


async def _function_argument(entry: OpenDocument, args: list, index: int, command: str) -> str | None:
    """The function a run starts from (None: the top-level statements), checked against
    the document's current version."""
    function = args[index] if len(args) > index else None
    if function is None:
        return None
    if not isinstance(function, str):
        raise JsonRpcInvalidParams(f"{command}: argument {index + 1} must be the name of a function")
    snapshot = entry.doc.snapshot()
    with snapshot.reading():
        runnable = entry_functions(snapshot.module)
    if function not in runnable:
        known = ", ".join(runnable) or "none"
        raise JsonRpcInvalidParams(f"{command}: no exported function {function!r} without parameters in "
                                   f"this document (those there are: {known})")
    return function


async def _progress_token(session: Session, params: lsp.ExecuteCommandParams):
    if params.work_done_token is not None:
        return params.work_done_token
    if not session.supports("window.work_done_progress"):
        return None
    token = f"cint-run-{uuid.uuid4()}"
    try:
        await session.client.create_progress(token, timeout=5)
    except Exception as error:  # noqa: BLE001
        logger.info("workDoneProgress/create failed: %s", error)
        return None
    return token


async def _run(session: Session, params: lsp.ExecuteCommandParams, entry: OpenDocument, executors: list[str],
               function: str | None, compare_them: bool) -> dict:
    client = session.client
    msg_id = client.request_id()
    doc = entry.doc
    uri, version, text, path = doc.uri, doc.version, doc.text, doc.path
    settings = session.settings
    event = threading.Event()
    if msg_id is not None:
        session.cancels[msg_id] = event
    token = await _progress_token(session, params)
    what = f" {function}()" if function is not None else ""
    title = f"cint: compare executors{what}" if compare_them else f"cint: run{what} on {executors[0]}"

    def cancelled() -> bool:  # asked from the run threads
        if event.is_set() or session.stopping.is_set():
            return True
        return token is not None and client.progress_cancelled(token)

    if token is not None:
        client.progress_begin(token, lsp.WorkDoneProgressBegin(
            title=title, cancellable=True, message=", ".join(executors)))
    loop = asyncio.get_running_loop()
    ended = False

    def report(message: str) -> None:  # on the loop
        if token is not None and not ended:
            client.notify(lsp.PROGRESS, lsp.ProgressParams(
                token=token, value=lsp.WorkDoneProgressReport(message=message, cancellable=True)))

    def stages_of(executor: str):
        def stage(name: str) -> None:  # from a run thread
            loop.call_soon_threadsafe(report, f"{executor}: {name}" if compare_them else name)
        return stage

    try:
        # A comparison asks for traces: the executors are compared at every boundary.
        jobs = [loop.run_in_executor(session.run_pool, run_program, name, path, text, settings, cancelled,
                                     compare_them, function, stages_of(name))
                for name in executors]
        outcomes: list[RunOutcome] = list(await asyncio.gather(*jobs))
    except BaseException:
        event.set()
        raise
    finally:
        ended = True
        session.cancels.pop(msg_id, None)
        if token is not None:
            client.progress_end(token, lsp.WorkDoneProgressEnd(message="cancelled" if cancelled() else "done"))

    for outcome in outcomes:
        _name_the_time_limit(outcome, settings.time_limit)
        _report_run(session, uri, version, outcome, notify=not compare_them)
    # The fault of the run (for a comparison, the reference's) becomes a diagnostic
    # while the document is the one that ran.
    shown = outcomes[0]
    live = session.entry(uri)
    if live is not None and live.doc.version == version and shown.result is not None:
        fault = shown.result.fault
        live.fault = [] if fault is None else [convert.fault_diagnostic_json(live.doc, fault, shown.executor)]
        publish(session, uri)
    if not compare_them:
        return run_result_json(outcomes[0], uri, version)

    verdict = compare_executors(outcomes)
    session.log(lsp.MessageType.Info if verdict["agree"] else lsp.MessageType.Error,
                f"cint compare: {verdict['message']}")
    result = {
        "uri": uri,
        "version": version,
        "executors": executors,
        **verdict,  # compared, skipped, agree, difference, message
        "results": [run_result_json(o, uri, version) for o in outcomes],
    }
    client.notify(COMPARE_RESULT, result)
    return result


def _name_the_time_limit(outcome: RunOutcome, limit: float | None) -> None:
    """A run the time limit stopped says which setting that is (issue 32: "took longer
    than 10 s and was stopped" left the user to guess): the editor's words only; the
    run's own error is the CLI's. Matched by the limit's number, so a compile limit's
    message is left as it is."""
    error = outcome.error
    if error is None or limit is None or "cint.run.timeLimit" in error:
        return
    if re.search(rf"\blonger than {re.escape(f'{limit:g}')} s\b", error):
        outcome.error = f"{error} (the setting cint.run.timeLimit; raise it to let runs go on longer)"


def _report_run(session: Session, uri: str, version: int, outcome: RunOutcome, notify: bool) -> None:
    """The run's output, report (the text `cint run` prints), executor notes and
    summary as log messages (what an editor shows in its output panel), and for a
    single run the `cint/runResult` notification."""
    result = outcome.result
    if result is not None and result.output:
        session.log(lsp.MessageType.Log, f"[{outcome.executor}] output:\n{result.output.rstrip()}")
    report = outcome.report
    if report is not None:
        session.log(lsp.MessageType.Error, f"[{outcome.executor}]\n{report.rstrip()}")
    if outcome.auto is not None:  # the plain Run: where auto ran it and why
        session.log(lsp.MessageType.Info, f"[{outcome.executor}] {outcome.auto.line}")
    for note in (result.notes if result is not None else []):
        session.log(lsp.MessageType.Info, f"[{outcome.executor}] {note}")
    kind = lsp.MessageType.Info if outcome.result is not None else lsp.MessageType.Error
    session.log(kind, f"cint run {outcome.summary}")
    if notify:
        session.client.notify(RUN_RESULT, run_result_json(outcome, uri, version))
