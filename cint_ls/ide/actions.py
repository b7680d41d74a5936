"""Quick fixes for the diagnostics under a range (the editor's light bulb).

Each fix is an edit of the document's text. A fix is offered only when it is certain
(while the text does not parse, only a syntax error's fix is: the analysis reads
tree-sitter's guess at the text) and when it works: the
edited text is analysed again (`Document.analyse_text`, as a rename is) and must have
fewer errors than before, none of them new. Every fix is for an error, so the program it
edits did not compile: no fix changes the outputs, fuel or fault record of a program
that runs. That is also why none is offered for a gpu-cuda refusal (a warning on a
program that runs): rewriting `-x` as `0 - x` would change the operation a fault names
(`neg.checked.i64` becomes `sub.checked.i64`, SPEC-02P.1 clause 4).

| code | fix |
| --- | --- |
| C1002 | insert the missing `;`, `)`, `]` or `}` where it belongs |
| C1004 | the keyword a misspelt word was meant to be (`kernal` → `kernel`) |
| C1005 | `==` for the `=` in a condition |
| C2001 | the name the message suggests ("did you mean `x`?"), for a name used once and not assigned |
| C3003 | convert the value with `as T` (an assignment, a declaration, an argument) |
| C5005 | declare the in parameter a store writes `inout` |
| C5014 | declare the out array parameter the body reads `inout` |

A refusal (C9100) gets no edit of the text, but a change of the targets instead
(`target_fixes`): remove gpu-cuda from `cint.targets` while another target remains, or,
when gpu-cuda is the only target, add cpu-c17 (the refusal becomes a warning) or target
cpu-c17 instead. The settings are the client's, so the server cannot apply it: the
editors handle the command `cint.setTargets` [uri, targets] (docs/server.md, "Quick
fixes"). Like the fixes above, each is offered only when it works: under the new
targets the refusal is no longer an error (or is gone).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..analysis.capabilities import EXECUTOR as GPU
from ..analysis.result import CheckedModule
from ..analysis.symbols import SymbolKind
from ..analysis.types import ArrayType, FixedType, IntType
from ..syntax import ast
from ..syntax.diagnostics import Diagnostic, Severity
from ..syntax.source import Span
from .diagnostics import DEFAULT_TARGETS, REFUSAL_CODE, RUN_EVERYTHING, diagnostics
from .find import path_at, total
from .results import CodeAction, TextChange

if TYPE_CHECKING:
    from .document import DocumentLike

CLOSERS = (";", ")", "]", "}", "{")  # C1002 tokens whose place recovery is sure of
Fix = tuple[str, list[TextChange], bool]  # a quick fix of a diagnostic: title, changes, preferred
# Expressions that `as T` can follow without parentheses.
_PRIMARY = (ast.Ident, ast.IntLit, ast.FixedLit, ast.BoolLit, ast.Paren, ast.Call, ast.Index, ast.TypeProperty,
            ast.Unary)  # unary operators bind tighter than `as` (LANGUAGE.md "Precedence")


@total(list)
def code_actions(doc: DocumentLike, start: int, end: int, targets: Sequence[str] = DEFAULT_TARGETS) -> list[CodeAction]:
    """The quick fixes of the diagnostics that touch the byte range [start, end]."""
    start, end = min(start, end), max(start, end)
    out: list[CodeAction] = []
    found = diagnostics(doc, targets)
    # A text that does not parse is analysed from tree-sitter's guess at it: a name or a
    # type the guess lost is no mistake of the program's, and a fix of it would change
    # what the program means (`I64  = 0;` loses `sw`; "did you mean `w`?" would write
    # to `w`). Only the syntax errors' own fixes are offered then.
    parses = not doc.syntax.tree.root_node.has_error
    for d in found:
        if d.severity != Severity.ERROR or d.span.start_byte > end or d.span.end_byte < start:
            continue
        if not parses and not d.code.startswith("C1"):
            continue
        if d.code == "C2001" and not _one_slip(doc, d, found):
            continue
        for title, changes, preferred in _fixes(doc, d):
            if _works(doc, changes):
                out.append(CodeAction(title, "quickfix", d, tuple(changes), preferred))
    return out


@dataclass(frozen=True, slots=True)
class TargetFix:
    """A quick fix that changes the `cint.targets` setting to `targets` (the client's
    command `cint.setTargets`), for the refusals in `diagnostics`."""

    title: str
    diagnostics: tuple[Diagnostic, ...]
    targets: tuple[str, ...]
    preferred: bool = False


def target_fixes(doc: DocumentLike, start: int, end: int, targets: Sequence[str] = DEFAULT_TARGETS) -> list[TargetFix]:
    """The changes of the targets that fix the gpu-cuda refusals touching [start, end]
    (all of them at once: the setting is the module's, not the construct's)."""
    start, end = min(start, end), max(start, end)
    targets = tuple(targets)
    refusals = tuple(d for d in diagnostics(doc, targets)
                     if d.code == REFUSAL_CODE and d.span.start_byte <= end and d.span.end_byte >= start)
    if not refusals or GPU not in targets:
        return []
    others = tuple(t for t in targets if t != GPU)
    cpu = RUN_EVERYTHING[0]  # cpu-c17: runs every construct, the refused ones included
    if others:
        candidates = [(f"Remove {GPU} from `cint.targets` (this program is not built for the GPU)", others, True)]
    else:
        candidates = [(f"Add {cpu} to `cint.targets` (the kernels run on the CPU; the refusals become warnings)",
                       (cpu, GPU), True),
                      (f"Target {cpu} instead of {GPU} in `cint.targets`", (cpu,), False)]
    out = []
    for title, new, preferred in candidates:
        after = {(d.code, d.span.start_byte, d.span.end_byte): d.severity for d in diagnostics(doc, new)}
        if all(after.get((d.code, d.span.start_byte, d.span.end_byte)) not in (Severity.ERROR,) and
               (d.severity != Severity.WARNING or (d.code, d.span.start_byte, d.span.end_byte) not in after)
               for d in refusals):
            out.append(TargetFix(title, refusals, new, preferred))
    return out


def _fixes(doc: DocumentLike, d: Diagnostic) -> Iterator[Fix]:
    data = d.data or {}
    if d.code == "C1002" and data.get("missing") in CLOSERS:
        token: str = data["missing"]
        # `insert`: the token with its layout (a `}` on its own line, at its block's indentation).
        # `edit`: the bytes it replaces, where more than the diagnostic's place (`    } else`
        # for `     else`: the `else`'s indentation).
        where = doc.source.span(*data["edit"]) if "edit" in data else d.span
        yield f"Insert `{token}`", [TextChange(where, data.get("insert", token))], True
    elif d.code in ("C1004", "C1005", "C3019", "C3002") and isinstance(data.get("replacement"), str):
        yield f"Change to `{data['replacement']}`", [TextChange(d.span, data["replacement"])], True
    elif d.code == "C2001" and isinstance(data.get("suggestion"), str):
        yield f"Change to `{data['suggestion']}`", [TextChange(d.span, data["suggestion"])], True
    elif d.code == "C3003":
        yield from _conversion(doc, d)
    elif d.code in ("C5005", "C5014"):
        yield from _mode(doc, d)


def _one_slip(doc: DocumentLike, d: Diagnostic, found: list[Diagnostic]) -> bool:
    """Whether an unknown name reads as a misspelling of the name suggested: it occurs
    once, and not as the target of an assignment. An unknown name used twice, or
    assigned, is more likely a declaration that lost its type (`sw = 0;` for
    `I64 sw = 0;`): renaming it to `w` would check clean and write to another variable."""
    data = doc.source.data
    name = data[d.span.start_byte:d.span.end_byte]
    # Its other uses are the related information (the checker reports a name once per unit).
    if d.related or sum(1 for e in found if e.code == "C2001" and data[e.span.start_byte:e.span.end_byte] == name) > 1:
        return False
    node, parent = _node_at(doc, d.span)
    return not (isinstance(parent, ast.Assign) and parent.target is node)


def _node_at(doc: DocumentLike, span: Span) -> tuple[ast.Node | None, ast.Node | None]:
    """The node exactly at `span` and its parent."""
    path = path_at(doc.module, span.start_byte)
    for i in range(len(path) - 1, -1, -1):
        if (path[i].span.start_byte, path[i].span.end_byte) == (span.start_byte, span.end_byte):
            return path[i], (path[i - 1] if i > 0 else None)
    return None, None


def _conversion(doc: DocumentLike, d: Diagnostic) -> Iterator[Fix]:
    node, parent = _node_at(doc, d.span)
    if not isinstance(node, ast.Expr):
        return
    checked = doc.checked
    wanted = None
    if isinstance(parent, ast.Assign) and parent.value is node:
        wanted = checked.types.get(parent.target)
    elif isinstance(parent, ast.VarDecl) and parent.value is node:
        symbol = checked.symbols.get(parent.name)
        wanted = symbol.type if symbol is not None else None
    elif isinstance(parent, ast.Call) and node in parent.args and isinstance(parent.callee, ast.Ident):
        callee = checked.symbols.get(parent.callee)
        item = callee.node if callee is not None else None
        params = item.params if isinstance(item, (ast.KernelDef, ast.FunctionDef)) else []
        index = parent.args.index(node)
        symbol = checked.symbols.get(params[index].name) if index < len(params) else None
        wanted = symbol.type if symbol is not None and symbol.kind is SymbolKind.PARAM else None
    if not isinstance(wanted, (IntType, FixedType)):  # `as` converts numbers (LANGUAGE.md, operators)
        return
    text = doc.source.data[node.span.start_byte:node.span.end_byte].decode("utf-8")
    if not isinstance(node, _PRIMARY):
        text = f"({text})"
    yield f"Convert the value with `as {wanted.name}`", [TextChange(d.span, f"{text} as {wanted.name}")], True


def _mode(doc: DocumentLike, d: Diagnostic) -> Iterator[Fix]:
    """`in` or `out` → `inout` in the parameter's declaration (its mode keyword, or
    before its type when no mode is written)."""
    node, _ = _node_at(doc, d.span)
    while isinstance(node, (ast.Index, ast.Paren)):
        node = node.value if isinstance(node, ast.Index) else node.expr
    symbol = doc.checked.symbols.get(node) if isinstance(node, ast.Ident) else None
    if symbol is None or not isinstance(symbol.node, ast.Param) or symbol.kind is not SymbolKind.PARAM:
        return
    param = symbol.node
    if d.code == "C5014" and not isinstance(symbol.type, ArrayType):
        return  # a scalar out is a reduction's target: `inout` is no scalar mode (C5015)
    data = doc.source.data
    start = param.span.start_byte
    if param.mode is None:
        change = TextChange(doc.source.span(start, start), "inout ")
    else:
        length = len(param.mode)
        if data[start:start + length].decode("ascii", "replace") != param.mode:
            return
        change = TextChange(doc.source.span(start, start + length), "inout")
    yield f"Declare `{symbol.name}` inout", [change], True


def _errors(checked: CheckedModule) -> int:
    return sum(1 for d in checked.diagnostics if d.severity == Severity.ERROR)


def _works(doc: DocumentLike, changes: list[TextChange]) -> bool:
    """Whether the text with `changes` has fewer errors than the document."""
    data = doc.source.data
    pieces, last = [], 0
    for change in sorted(changes, key=lambda c: c.span.start_byte):
        pieces += [data[last:change.span.start_byte], change.new_text.encode("utf-8")]
        last = change.span.end_byte
    pieces.append(data[last:])
    text = b"".join(pieces).decode("utf-8")
    return doc.analyse_text(text, _errors) < _errors(doc.checked)
