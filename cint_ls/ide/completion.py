"""Completion: keywords, types, the names visible at the cursor, built-ins, reduce
operators after `reduce x = `, rounding modes as the third argument of `div_round`, and
parameter modes at the start of a kernel parameter.

The context is read from the raw text before the cursor (a half-typed line has no
useful tree) and the names from the AST, which the parser recovers around errors.
Items of kind "snippet" carry `insert_text` in LSP snippet syntax; the others' is plain.
"""

from __future__ import annotations

import re

from ..analysis.builtins import BUILTIN_FUNCTIONS, REDUCE_OPERATORS, ROUNDING_MODES
from ..analysis.symbols import SymbolKind
from ..syntax import ast
from . import declaration_text
from .find import clamp, contains, total
from .results import CompletionItem

STATEMENT_KEYWORDS = ("if", "else", "for", "while", "break", "continue", "switch", "case", "default", "return",
                      "assert", "reduce", "in")
ITEM_KEYWORDS = ("kernel", "void", "export", "over", "where")
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


def _in_comment_or_string(doc, offset: int) -> bool:
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


def _visible(doc, offset: int) -> list[CompletionItem]:
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
            for s in node.sizes:
                add(s.text, "variable", "size symbol: I64")
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


def _module_names(doc) -> list[tuple[str, str, str]]:
    """The kernels and functions as completion offers them, kept per version; each
    signature kept with its item across versions (it reads the item's analysis)."""
    found = doc.memo.get("completion_names")
    if found is not None:
        return found
    checked = doc.checked
    kernels, functions = [], []
    for part in doc.parts():
        node = part.node
        if isinstance(node, ast.KernelDef):
            info, table, out, make = checked.kernels.get(node.name.text), kernels, kernels, \
                declaration_text.kernel_signature
        elif isinstance(node, ast.FunctionDef):
            info, table, out, make = checked.functions.get(node.name.text), functions, functions, \
                declaration_text.function_signature
        else:
            continue
        if info is None or info.node is not node:
            continue
        entry = part.entry
        signature = entry.results.get("signature") if entry is not None else None
        if signature is None:
            signature = make(checked, info)
            if entry is not None:
                entry.results["signature"] = signature
        out.append((info.symbol.name, "kernel" if table is kernels else "function", signature))
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


def _local_detail(checked, s: ast.VarDecl) -> str:
    symbol = checked.symbols.get(s.name)
    kind = "variable" if symbol is None or symbol.kind is not SymbolKind.ENTRY_LOCAL else "top-level variable"
    return f"{kind}: {declaration_text.type_ref_text(checked, s.type)}"


def _keywords(words) -> list[CompletionItem]:
    return [CompletionItem(w, "keyword", "keyword", None) for w in words]


def _types() -> list[CompletionItem]:
    return [CompletionItem(t, "type", "type", None) for t in TYPE_NAMES]


@total(list)
def completion(doc, offset: int) -> list[CompletionItem]:
    offset = clamp(doc, offset)
    data = doc.source.data
    if _in_comment_or_string(doc, offset):
        return []
    before = data[max(0, offset - 4000):offset]
    if _REDUCE.search(before):
        return [CompletionItem(op, "operator", doc_text, None) for op, doc_text in REDUCE_OPERATORS.items()]
    if _CAST.search(before):
        return _types()
    call = _open_call(before)
    if call is not None:
        callee, argument = call
        if callee == "div_round" and argument == 2:
            return [CompletionItem(m, "constant", "rounding mode of div_round", None) for m in ROUNDING_MODES]
        if callee == "fold_checked" and argument == 0:
            return [CompletionItem("add", "operator", "fold operator: checked addition", None)]
    if _kernel_param_start(before):
        return [CompletionItem(m, "keyword", "parameter mode", None) for m in MODES] + _types()
    items = _visible(doc, offset)
    items += [CompletionItem(name, "function", text, None) for name, text in BUILTIN_FUNCTIONS.items()]
    items += _types()
    items += _keywords(STATEMENT_KEYWORDS + ITEM_KEYWORDS + VALUE_KEYWORDS)
    items += [CompletionItem(label, "snippet", detail, body) for label, body, detail in SNIPPETS]
    return items
