"""Completion: keywords, types, the names visible at the cursor, built-ins, reduce
operators after `reduce x = `, rounding modes as the third argument of `div_round`,
parameter modes at the start of a kernel parameter, and `min`/`max` after a type and a
dot (`I64.`, LANGUAGE.md "Types and values").

What is offered depends on where the cursor is: at the top level (items, and the entry's
statements), at the start of a statement in a body, or in an expression (values only: no
statement keywords, no kernels, since a dispatch is a statement, C5016). Each keyword is
offered once (`for`, `if` and `kernel` as their snippets), and every item has a `sort`
key (the client's sortText): the names in scope first, then what fits the place.

The context is read from the raw text before the cursor (a half-typed line has no
useful tree) and the names from the AST, which the parser recovers around errors.
Items of kind "snippet" carry `insert_text` in LSP snippet syntax; the others' is plain.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..analysis.builtins import BUILTIN_FUNCTIONS, REDUCE_OPERATORS, ROUNDING_MODES
from ..analysis.result import CheckedModule, FunctionInfo, KernelInfo
from ..analysis.symbols import SymbolKind
from ..analysis.types import FixedType, IntType, scalar_type_named
from ..syntax import ast
from . import declaration_text
from .find import clamp, contains, total
from .results import CompletionItem

if TYPE_CHECKING:
    from .document import DocumentLike

VALUE_KEYWORDS = ("true", "false")
MODES = ("in", "out", "inout")
TYPE_NAMES = ("Bool", "I8", "I16", "I32", "I64", "I128", "I256", "I512", "I1024", "U8", "U16", "U32", "U64",
              "U128", "U256", "U512", "Q8.8", "Q16.16", "Q32.32", "Q64.64")
SNIPPETS = (
    ("kernel", "kernel ${1:name}[${2:n}](in ${3:I64}[${2:n}] ${4:a}, out ${3:I64}[${2:n}] ${5:b}) over [${6:i}: ${2:n}] "
               "{\n    $0\n}", "a kernel definition"),
    ("for", "for ${1:i} in ${2:0}..${3:n} {\n    $0\n}", "a for loop"),
    ("if", "if (${1:condition}) {\n    $0\n}", "an if statement"),
)

_WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*$")
_REDUCE = re.compile(rb"\breduce\s+[A-Za-z_][A-Za-z0-9_]*\s*=\s*[A-Za-z_]*$")
_CAST = re.compile(rb"\bas[%?]?\s+[A-Za-z0-9_.]*$")


def _in_comment_or_string(doc: DocumentLike, offset: int) -> bool:
    """Whether the cursor is inside a comment, or in a string's text (not in `{...}`)."""
    if offset == 0:
        return False
    data = doc.source.data
    node = doc.tree.root_node.descendant_for_byte_range(offset - 1, offset)
    while node is not None:
        if node.type == "comment":
            block = data[node.start_byte:node.start_byte + 2] == b"/*"
            return node.start_byte < offset < node.end_byte or (not block and offset == node.end_byte)
        if node.type == "interpolation":
            return False
        if node.type == "string":
            return node.start_byte < offset < node.end_byte or (
                offset == node.end_byte and not data[node.start_byte:node.end_byte].endswith(b'"'))
        node = node.parent
    return False


def _open_call(before: bytes) -> tuple[str, int] | None:
    """The callee of the innermost unclosed `(` before the cursor and the index of the
    argument the cursor is in."""
    depth, commas = 0, 0
    i = len(before) - 1
    while i >= 0:
        c = before[i]
        if c in b")]":
            depth += 1
        elif c in b"([":
            if depth == 0:
                if c == ord("["):
                    return None
                match = _WORD.search(before[:i].rstrip())
                return (match.group().decode() if match else "", commas)
            depth -= 1
        elif c == ord(",") and depth == 0:
            commas += 1
        elif c in b";{}":
            return None
        i -= 1
    return None


def _kernel_param_start(before: bytes) -> bool:
    """The cursor begins a kernel parameter: `kernel k[...](` or `, ` inside its list."""
    call = _open_call(before)
    if call is None:
        return False
    i = len(before) - 1
    depth = 0
    while i >= 0:  # find that `(` again
        c = before[i]
        if c in b")]":
            depth += 1
        elif c in b"([":
            if depth == 0:
                break
            depth -= 1
        i -= 1
    head = before[:i].rstrip()
    if not re.search(rb"\bkernel\s+[A-Za-z_][A-Za-z0-9_]*\s*\[[^\]]*\]$", head):
        return False
    tail = before[i + 1:]
    last = tail.rsplit(b",", 1)[-1]
    return re.fullmatch(rb"\s*[A-Za-z_]*", last) is not None


def _visible(doc: DocumentLike, offset: int) -> list[CompletionItem]:
    checked = doc.checked
    module = checked.module
    items: dict[str, CompletionItem] = {}

    def add(name: str, kind: str, detail: str) -> None:
        if name and name not in items:
            items[name] = CompletionItem(name, kind, detail, None)

    # Innermost first: locals, then the enclosing item's names, then the module's.
    item = next((p.node for p in doc.parts_between(offset, offset)
                 if p.node is not None and contains(p.node.span, offset, inclusive_end=True)), None)
    stack: list[ast.Node] = []
    if item is not None:
        node: ast.Node | None = item
        while node is not None:
            stack.append(node)
            node = next((c for c in _children(node) if contains(c.span, offset, inclusive_end=True)), None)
    for node in reversed(stack):
        statements: list[ast.Stmt] = []
        if isinstance(node, ast.Block):
            statements = node.statements
        elif isinstance(node, ast.SwitchClause):
            statements = node.body
        for s in reversed(statements):
            if isinstance(s, ast.VarDecl) and s.span.end_byte <= offset:
                add(s.name.text, "variable", _local_detail(checked, s))
        if isinstance(node, ast.For) and contains(node.body.span, offset, inclusive_end=True):
            add(node.variable.text, "variable", "loop variable: I64")
        if isinstance(node, ast.KernelDef):
            for b in node.space:
                extent = declaration_text.text(checked, b.extent.span)
                add(b.name.text, "variable", f"over variable: 0 ≤ {b.name.text} < {extent}")
            for p in node.params:
                add(p.name.text, "parameter", declaration_text.param_text(checked, p, True))
            for size in node.sizes:
                add(size.text, "variable", "size symbol: I64")
        if isinstance(node, ast.FunctionDef):
            for p in node.params:
                add(p.name.text, "parameter", declaration_text.param_text(checked, p, False))
    if item is None or not isinstance(item, (ast.KernelDef, ast.FunctionDef)):
        for s in module.statements:  # the entry's variables, declared before the cursor
            if isinstance(s, ast.VarDecl) and s.span.end_byte <= offset:
                add(s.name.text, "variable", _local_detail(checked, s))
    for name, kind, detail in _module_names(doc):
        add(name, kind, detail)
    return list(items.values())


def _module_names(doc: DocumentLike) -> list[tuple[str, str, str]]:
    """The kernels and functions as completion offers them, kept per version; each
    signature kept with its item across versions (it reads the item's analysis)."""
    found: list[tuple[str, str, str]] | None = doc.memo.get("completion_names")
    if found is not None:
        return found
    checked = doc.checked
    kernels: list[tuple[str, str, str]] = []
    functions: list[tuple[str, str, str]] = []
    for part in doc.parts():
        node = part.node
        info: KernelInfo | FunctionInfo | None
        if isinstance(node, ast.KernelDef):
            info, out, kind = checked.kernels.get(node.name.text), kernels, "kernel"
        elif isinstance(node, ast.FunctionDef):
            info, out, kind = checked.functions.get(node.name.text), functions, "function"
        else:
            continue
        if info is None or info.node is not node:
            continue
        entry = part.entry
        signature: str | None = entry.results.get("signature") if entry is not None else None
        if signature is None:
            signature = (declaration_text.kernel_signature(checked, info) if isinstance(info, KernelInfo)
                         else declaration_text.function_signature(checked, info))
            if entry is not None:
                entry.results["signature"] = signature
        out.append((info.symbol.name, kind, signature))
    found = kernels + functions
    for k in checked.module.items:
        if isinstance(k, ast.KernelDef):
            found.append((k.name.text, "kernel", "kernel"))
        elif isinstance(k, ast.FunctionDef):
            found.append((k.name.text, "function", "function"))
    doc.memo["completion_names"] = found
    return found


def _children(node: ast.Node) -> list[ast.Node]:
    from .find import children

    return list(children(node))


def _local_detail(checked: CheckedModule, s: ast.VarDecl) -> str:
    symbol = checked.symbols.get(s.name)
    kind = "variable" if symbol is None or symbol.kind is not SymbolKind.ENTRY_LOCAL else "top-level variable"
    return f"{kind}: {declaration_text.type_ref_text(checked, s.type)}"


KEYWORD_DOCS = {
    "if": "`if (condition) { ... } else { ... }`",
    "else": "the branch of an `if` taken when its condition is false",
    "for": "`for i in a..b { ... }`: i from a up to b - 1 (I64)",
    "while": "`while (condition) { ... }`",
    "break": "leave the innermost loop or `switch`",
    "continue": "go on with the next iteration of the innermost loop",
    "switch": "`switch (value) { case 1: ... default: ... }`",
    "case": "a label of a `switch`: an integer constant",
    "default": "the label of a `switch` taken when no case matches",
    "return": "leave the function, with its value when it returns one",
    "assert": "`assert(condition);`: faults with E_ASSERT when the condition is false",
    "reduce": "`reduce s = sum(x);`: combine a value of every work-item into a scalar out parameter",
    "kernel": "a data-parallel kernel: `kernel k[n](in I64[n] a, out I64[n] b) over [i: n] { ... }`",
    "void": "a function that returns no value",
    "export": "a function a host can call",
    "true": "the Bool value true",
    "false": "the Bool value false",
}
# The top level holds items and the entry's calls, declarations and string statements
# (LANGUAGE.md "Functions, entries, programs").
TOP_KEYWORDS = ("kernel", "void", "export")
BODY_KEYWORDS = ("if", "else", "for", "while", "switch", "return", "assert")
LOOP_KEYWORDS = ("break", "continue")
_MEMBER = re.compile(rb"\b(Bool|[IU][0-9]+|Q[0-9]+\.[0-9]+)\.[A-Za-z_]*$")
_FOR_IN = re.compile(rb"\bfor\s+[A-Za-z_][A-Za-z0-9_]*\s+[a-z]*$")
_AFTER_TYPE = re.compile(rb"\b(Bool|[IU][0-9]+|Q[0-9]+\.[0-9]+)(\[[^\]]*\])?\s+$")


def _item(label: str, kind: str, detail: str, rank: int, insert_text: str | None = None,
          documentation: str = "") -> CompletionItem:
    return CompletionItem(label, kind, detail, insert_text, f"{rank}{label}", documentation)


def _keywords(words: Iterable[str], rank: int) -> list[CompletionItem]:
    snippets = {label: (body, detail) for label, body, detail in SNIPPETS}
    out = []
    for w in dict.fromkeys(words):  # once each
        if w in snippets:
            body, detail = snippets[w]
            out.append(_item(w, "snippet", detail, rank, body, KEYWORD_DOCS.get(w, "")))
        else:
            out.append(_item(w, "keyword", "keyword", rank, None, KEYWORD_DOCS.get(w, "")))
    return out


def _type_doc(name: str) -> str:
    t = scalar_type_named(name)
    if isinstance(t, IntType):
        return f"{'signed' if t.signed else 'unsigned'} {t.bits}-bit integer, {t.min} to {t.max}"
    if isinstance(t, FixedType):
        return f"signed fixed point: {t.m + t.n} bits, {t.n} of them fractional (scaled by 2^{t.n})"
    return "true or false"


def _types(rank: int = 0) -> list[CompletionItem]:
    return [_item(t, "type", "type", rank, None, _type_doc(t)) for t in TYPE_NAMES]


def _members(type_name: str) -> list[CompletionItem]:
    """`T.min` and `T.max` of an integer or fixed type (LANGUAGE.md "Types and values")."""
    t = scalar_type_named(type_name)
    if isinstance(t, IntType):
        values = {"min": t.min, "max": t.max}
        return [_item(m, "constant", f"{type_name}.{m} = {v}", 0, None, f"the {word} value of {type_name}")
                for (m, v), word in zip(values.items(), ("least", "greatest"))]
    if isinstance(t, FixedType):
        return [_item(m, "constant", f"{type_name}.{m}", 0, None, f"the {word} value of {type_name}")
                for m, word in (("min", "least"), ("max", "greatest"))]
    return []


def _place(doc: DocumentLike, offset: int, before: bytes) -> tuple[str, list[ast.Node]]:
    """Where the cursor is: "top", "statement" or "expression"; and the nodes of the
    enclosing item that contain it, outermost first."""
    stack: list[ast.Node] = []
    item = next((p.node for p in doc.parts_between(offset, offset)
                 if p.node is not None and contains(p.node.span, offset, inclusive_end=True)), None)
    node: ast.Node | None = item
    while node is not None:
        stack.append(node)
        node = next((c for c in _children(node) if contains(c.span, offset, inclusive_end=True)), None)
    in_body = any(isinstance(n, ast.Block) for n in stack) and isinstance(item, (ast.KernelDef, ast.FunctionDef))
    word = _WORD.search(before)
    head = before[:len(before) - len(word.group())] if word else before
    head = head.rstrip()
    last = head[-1:]
    if not head or last in b";{}" or re.search(rb"\belse$", head) or \
            (last == b":" and re.search(rb"\b(case\s+[^:;{}]+|default)\s*:$", head)):
        return ("statement" if in_body else "top"), stack
    return "expression", stack


@total(list)
def completion(doc: DocumentLike, offset: int) -> list[CompletionItem]:
    offset = clamp(doc, offset)
    data = doc.source.data
    if _in_comment_or_string(doc, offset):
        return []
    before = data[max(0, offset - 4000):offset]
    if _REDUCE.search(before):
        return [_item(op, "operator", doc_text, 0) for op, doc_text in REDUCE_OPERATORS.items()]
    member = _MEMBER.search(before)
    if member is not None:
        return _members(member.group(1).decode())
    if _CAST.search(before):
        return _types()
    call = _open_call(before)
    if call is not None:
        callee, argument = call
        if callee == "div_round" and argument == 2:
            return [_item(m, "constant", "rounding mode of div_round", 0) for m in ROUNDING_MODES]
        if callee == "fold_checked" and argument == 0:
            return [_item("add", "operator", "fold operator: checked addition", 0)]
    if _kernel_param_start(before):
        return [_item(m, "keyword", "parameter mode", 0) for m in MODES] + _types(1)
    if _FOR_IN.search(before):
        return [_item("in", "keyword", "keyword", 0, None, KEYWORD_DOCS["for"])]
    if _AFTER_TYPE.search(before) and call is None:
        return []  # a declaration's new name: nothing to complete
    place, stack = _place(doc, offset, before)
    names = _visible(doc, offset)
    if place == "expression":
        items = [_item(i.label, i.kind, i.detail, 0) for i in names if i.kind != "kernel"]
        items += [_item(name, "function", text, 1) for name, text in BUILTIN_FUNCTIONS.items()]
        items += _keywords(VALUE_KEYWORDS, 2)
        return items + _types(3)  # `I64.max` is a value
    words: tuple[str, ...] = BODY_KEYWORDS if place == "statement" else TOP_KEYWORDS
    if any(isinstance(n, (ast.For, ast.While, ast.Switch)) for n in stack):
        words += LOOP_KEYWORDS
    if any(isinstance(n, ast.Switch) for n in stack):
        words += ("case", "default")
    if place == "statement" and isinstance(stack[0], ast.KernelDef):
        words += ("reduce",)
    rank_names, rank_words = (0, 1) if place == "statement" else (1, 0)
    items = [_item(i.label, i.kind, i.detail, rank_names) for i in names]
    items += _keywords(words, rank_words)
    return items + _types(2)
