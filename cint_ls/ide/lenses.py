"""Code lenses where a run starts: above the entry (the first top-level statement) and
above each exported function without parameters (the functions a run can start from,
`running.entry.with_entry`): `▶ Run` (the executor `auto` chooses, as `cint run` does),
`▶ Run on <executor>` for each executor given (the implemented ones), and `Compare
executors`. A function with parameters gets none: nothing would
give it arguments.

Commands: `cint.run` with arguments (uri, executor) for the entry, and (uri, executor,
function name) above an exported function; `cint.compareExecutors` with (uri,) or
(uri, function name). For a client that debugs (it says so: the server's `debug`
argument), `Debug` beside `▶ Run`: `cint.debug` with (uri,) or (uri, function name), a
command of the client's, which starts cint-debug (docs/debugging.md).

A program gpu-cuda refuses (SPEC-02P.1 10.5: any construct of any kernel outside its
profile) gets no `▶ Run on gpu-cuda`, which would only answer E_UNSUPPORTED: its lens
says what is refused, "gpu-cuda refuses: `neg` (unary minus), ...", and its command
`cint.showRefusal` (uri,) goes to the first refused construct (the server shows it
with window/showDocument). A title names the executor as `exec.executors.display_name` does:
`gpu-cuda (simulated)` on a machine where gpu-cuda runs on its simulated device. Which
executors those are is an argument (`simulated`): the server asks the running façade
(`running.run.simulated_executors`, which may ask the CUDA probe); an ide function does
no I/O and starts no process.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from ..analysis.capabilities import EXECUTOR as GPU
from ..exec.executors import AUTO, display_name
from ..syntax import ast
from ..syntax.source import Span
from .diagnostics import module_refusals, refusal_summary
from .find import total
from .results import CodeLens

if TYPE_CHECKING:
    from .document import DocumentLike

RUN = "cint.run"
DEBUG = "cint.debug"  # the client's: a debug session of cint-debug
COMPARE = "cint.compareExecutors"
SHOW_REFUSAL = "cint.showRefusal"
LENS_LISTED = 3  # capabilities a refusal lens names


def _lenses(span: Span, uri: str, executors: Sequence[tuple[str, str]], extra: tuple[str, ...], refused: str,
            debug: bool) -> list[CodeLens]:
    # The plain Run: the executor `auto` chooses (running/auto.py), as `cint run` without flags.
    out = [CodeLens(span, "▶ Run", RUN, (uri, AUTO) + extra)]
    if debug:
        out.append(CodeLens(span, "Debug", DEBUG, (uri,) + extra))
    for name, label in executors:
        if name == GPU and refused:
            out.append(CodeLens(span, f"{GPU} refuses: {refused}", SHOW_REFUSAL, (uri,)))
        else:
            out.append(CodeLens(span, f"▶ Run on {label}", RUN, (uri, name) + extra))
    out.append(CodeLens(span, "Compare executors", COMPARE, (uri,) + extra))
    return out


@total(list)
def code_lenses(doc: DocumentLike, executors: Sequence[str] = ("cpu-sir-interp",),
                simulated: Collection[str] = frozenset(), debug: bool = False) -> list[CodeLens]:
    """The lenses of the document for these executors; `simulated`: those of them whose
    runs will take place on a simulated device (the server's forecast); `debug`: the
    client starts debug sessions (a `Debug` lens beside each `▶ Run`)."""
    # The labels are part of the key: a forecast of gpu-cuda's device can arrive later.
    labelled = tuple((name, display_name(name, name in simulated)) for name in executors)
    key = ("lenses", labelled, debug)
    found: list[CodeLens] | None = doc.memo.get(key)
    if found is None:
        found = doc.memo[key] = _code_lenses(doc, labelled, debug)
    return list(found)


def entry_functions(module: ast.Module) -> list[str]:
    """The functions a run can start from: exported, without parameters."""
    return [item.name.text for item in module.items
            if isinstance(item, ast.FunctionDef) and item.export and item.name.text and not item.params]


def _code_lenses(doc: DocumentLike, executors: tuple[tuple[str, str], ...], debug: bool) -> list[CodeLens]:
    module = doc.module
    out: list[CodeLens] = []
    anchors: list[tuple[int, Span, tuple[str, ...]]] = []  # where, and the entry function's name
    if module.statements:
        first = min(module.statements, key=lambda s: s.span.start_byte)
        if not isinstance(first, ast.ErrorStmt):
            anchors.append((first.span.start_byte, first.span, ()))
    runnable = set(entry_functions(module))
    for item in module.items:
        if isinstance(item, ast.FunctionDef) and item.name.text in runnable:
            anchors.append((item.span.start_byte, item.span, (item.name.text,)))
    refused = ""
    if anchors and any(name == GPU for name, _ in executors):
        refusals = module_refusals(doc)
        refused = refusal_summary(refusals, LENS_LISTED) if refusals else ""
    for _, span, extra in sorted(anchors, key=lambda a: a[0]):
        out += _lenses(span.freeze(), doc.uri, executors, extra, refused, debug)
    return out
