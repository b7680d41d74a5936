"""Code lenses above the entry (the first top-level statement) and above each exported
function: `▶ Run on <executor>` for each executor given (the implemented ones), and
`Compare executors`.

Commands: `cint.run` with arguments (uri, executor) for the entry, and (uri, executor,
function name) above an exported function; `cint.compareExecutors` with (uri,) or
(uri, function name).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..syntax import ast
from .find import total
from .results import CodeLens

RUN = "cint.run"
COMPARE = "cint.compareExecutors"


def _lenses(span, uri: str, executors: Sequence[str], extra: tuple) -> list[CodeLens]:
    out = [CodeLens(span, f"▶ Run on {name}", RUN, (uri, name) + extra) for name in executors]
    out.append(CodeLens(span, "Compare executors", COMPARE, (uri,) + extra))
    return out


@total(list)
def code_lenses(doc, executors: Sequence[str] = ("cpu-sir-interp",)) -> list[CodeLens]:
    key = ("lenses", tuple(executors))
    found = doc.memo.get(key)
    if found is None:
        found = doc.memo[key] = _code_lenses(doc, tuple(executors))
    return list(found)


def _code_lenses(doc, executors: tuple[str, ...]) -> list[CodeLens]:
    module = doc.module
    out: list[CodeLens] = []
    anchors = []
    if module.statements:
        first = min(module.statements, key=lambda s: s.span.start_byte)
        if not isinstance(first, ast.ErrorStmt):
            anchors.append((first.span.start_byte, first.span, ()))
    for item in module.items:
        if isinstance(item, ast.FunctionDef) and item.export and item.name.text:
            anchors.append((item.span.start_byte, item.span, (item.name.text,)))
    for _, span, extra in sorted(anchors, key=lambda a: a[0]):
        out += _lenses(span.freeze(), doc.uri, executors, extra)
    return out
