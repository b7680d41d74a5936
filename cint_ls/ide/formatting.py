"""Formatting: one canonical style, idempotent, never a change of meaning.

The style (every example of SPEC-02P.1 is a fixed point of it):
- 4 spaces of indentation, one statement per line, `{` on the line that opens it,
  `} else {` and `} else if (...) {` on one line; an empty block is `{}`.
- Spaces around binary operators, `=` and `as`; none inside brackets and parentheses;
  `, ` after commas; `lo..hi` and `lo..hi by s` without spaces around `..`; trailing
  commas dropped.
- A parameter list stays on one line unless it spans lines in the source: then each
  parameter has its own line, one level deeper, and `)` starts the line after them.
- A line break the source has at a binary operator is kept, before the operator, one
  level deeper than the statement (heat_e1.ci's `lap`); other breaks inside a statement go.
- `case K: stmt` on one line when a clause has one simple statement, else the label on
  its line and the statements one level deeper.
- Blank lines: at most one where the source has one or more; none after `{` or before
  `}`; the file ends with one newline.
- Comments are kept: a comment on its own line stays on its own line before what follows
  it; a comment after code on the same line stays there. A comment inside an expression
  moves to its own line before the statement.

`format_document` returns None for a file with syntax errors, and (as a last guard) when
the formatted text would not parse to the same tree, minus positions.
`format_in_steps` is the same answer computed a few milliseconds at a time: the first
formatting of a 5,000-line file takes a third of a second, and a hover on the same
document waited for all of it.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from dataclasses import fields
from functools import cache

import tree_sitter

from ..syntax import ast, language, parse, parse_source
from .document import DocumentLike, ItemEntry
from .find import swallow, top_level

INDENT = "    "
_POSITION_FIELDS = {"span", "op_span", "bracket_span", "keyword_span"}
_COMPOUND = (ast.If, ast.For, ast.While, ast.Switch, ast.Block)


class _Comment:
    __slots__ = ("start", "end", "text", "line", "end_line", "own_line")

    def __init__(self, start: int, end: int, text: str, line: int, end_line: int, own_line: bool) -> None:
        self.start, self.end, self.text = start, end, text
        self.line, self.end_line, self.own_line = line, end_line, own_line


@cache
def _comment_query() -> tree_sitter.Query:
    return tree_sitter.Query(language(), "(comment) @comment")


class _Formatter:
    def __init__(self, doc: DocumentLike, kept: Callable[[ast.Node], ItemEntry | None] | None = None) -> None:
        self.source = doc.source
        self.data = doc.source.data
        self.module = doc.module
        self.tree = doc.tree
        self.comments: list[_Comment] = []  # those that start before `self.collected`, in order
        self.collected = 0
        self.any_comment = b"//" in self.data or b"/*" in self.data
        self.next_comment = 0
        self.lines: list[str] = []
        self.depth = 0
        self.last_end = 0  # end byte of the last source element written
        # A top-level item's formatted lines are kept with the item across versions
        # (`kept(node)`: its ItemEntry or None); `outer` is the item being formatted.
        self.kept = kept
        self.outer: ast.Node | None = None
        self.texts: list[bytes] = []  # each top-level element's text, as it parses alone
        self.starts: list[int] = []  # the line each top-level element's output starts at

    # ---- comments and blank lines

    def collect_comments(self, upto: int) -> None:
        """Add the comments that start before byte `upto`, a range at a time as the
        elements are formatted (one query over the whole tree of 50,000 lines took
        77 ms, comments or not, in one step of `format_in_steps`)."""
        if upto <= self.collected:
            return
        if self.any_comment:
            cursor = tree_sitter.QueryCursor(_comment_query())
            cursor.set_byte_range(self.collected, upto)
            found = []
            for node in cursor.captures(self.tree.root_node).get("comment", []):
                start, end = node.start_byte, node.end_byte
                if not self.collected <= start < upto:  # it overlaps the range, but was taken before
                    continue
                text = self.data[start:end].decode("utf-8", errors="replace").rstrip()
                line_start = self.data.rfind(b"\n", 0, start) + 1
                own = self.data[line_start:start].strip() == b""
                found.append(_Comment(start, end, text, self.line_of(start), self.line_of(end), own))
            found.sort(key=lambda c: c.start)
            self.comments += found
        self.collected = upto

    def line_of(self, byte: int) -> int:
        return self.source.line_of_byte(byte)

    def peek(self) -> _Comment | None:
        return self.comments[self.next_comment] if self.next_comment < len(self.comments) else None

    def blank_before(self, start: int) -> bool:
        """Whether the source has a blank line between the last element and `start`."""
        gap = self.data[self.last_end:start]
        return gap.count(b"\n") >= 2

    def emit(self, text: str) -> None:
        """One statement's text: its first line at the current depth, any continuation
        line (a kept break) one level deeper."""
        parts = text.split("\n")
        self.lines.append(INDENT * self.depth + parts[0])
        for part in parts[1:]:
            self.lines.append(INDENT * (self.depth + 1) + part)

    def blank(self) -> None:
        if self.lines and self.lines[-1] != "" and not self.lines[-1].endswith("{"):
            self.lines.append("")

    def leading(self, before: int, allow_blank: bool = True) -> None:
        """Every comment that starts before `before`, each on its own line."""
        while (c := self.peek()) is not None and c.start < before:
            if allow_blank and self.blank_before(c.start):
                self.blank()
            self.next_comment += 1
            first, *rest = c.text.split("\n")
            self.lines.append(INDENT * self.depth + first.strip())
            self.lines.extend(line.rstrip() for line in rest)  # a block comment's lines stay as written
            self.last_end = c.end
            allow_blank = True

    def trailing(self, end: int) -> None:
        """Comments after `end` on the same source line: appended to the last line."""
        line = self.line_of(max(end - 1, 0))
        while (c := self.peek()) is not None and c.start >= end - 1 and c.line == line and \
                self.data[end:c.start].strip() == b"":
            self.next_comment += 1
            self.lines[-1] += " " + c.text
            self.last_end = c.end
            end = c.end
            line = c.end_line

    def element(self, node: ast.Node, first: bool) -> None:
        """Before a statement or item: its leading comments and a kept blank line."""
        self.leading(node.span.start_byte, allow_blank=not first)
        if not first and self.blank_before(node.span.start_byte):
            self.blank()

    # ---- the module

    def run(self) -> Generator[None, None, str]:
        """The formatted text, a top-level element per step."""
        elements = top_level(self.module)
        end = len(self.data) + 1
        for k, node in enumerate(elements):
            # An element reads the comments before it, inside it and after it on its
            # last line: all start before the next element.
            self.collect_comments(elements[k + 1].span.start_byte if k + 1 < len(elements) else end)
            self.starts.append(len(self.lines))
            self.element(node, k == 0 and not self.lines)
            self.top(node)
            yield
        self.collect_comments(end)
        self.leading(end, allow_blank=bool(self.lines))
        while self.lines and self.lines[-1] == "":
            self.lines.pop()
        return "\n".join(self.lines) + "\n" if self.lines else ""

    def top(self, node: ast.Node) -> None:
        """A top-level element: its lines (kept with its item when nothing they depend
        on outside the item changed), checked to parse alone to the same tree."""
        entry = self.kept(node) if self.kept is not None else None
        # What the item's lines depend on outside it: the line breaks since the last
        # element (a comment inside may get a blank line before it) and the last line.
        gap = min(self.data.count(b"\n", self.last_end, node.span.start_byte), 2)
        last = self.lines[-1] if self.lines else None
        state = (gap, last is None, last == "", last is not None and last.endswith("{"))
        found = entry.text_results.get("format") if entry is not None else None
        if found is not None and found[0] == state:
            _, lines, consumed, text = found
            self.lines.extend(lines)
            self.next_comment += consumed
        else:
            mark, first_comment = len(self.lines), self.next_comment
            self.outer = node
            try:
                self.item(node)
            finally:
                self.outer = None
            lines = self.lines[mark:]
            text = _alone(lines, node)
            if entry is not None:
                entry.text_results["format"] = (state, lines, self.next_comment - first_comment, text)
        self.texts.append(text)
        self.last_end = node.span.end_byte
        self.trailing(node.span.end_byte)

    def item(self, node: ast.Node) -> None:
        if isinstance(node, ast.KernelDef):
            self.kernel(node)
        elif isinstance(node, ast.FunctionDef):
            self.function(node)
        elif isinstance(node, ast.StructDef):
            self.struct(node)
        elif isinstance(node, ast.Import):
            self.leading(node.span.end_byte)
            self.emit("import " + ".".join(n.text for n in node.path) + ";")
        else:
            assert isinstance(node, ast.Stmt), "a top-level element is an item or a statement"
            self.statement(node)

    def done(self, node: ast.Node) -> None:
        if node is self.outer:
            return  # a top-level element: `top` ends it, after keeping its lines
        self.last_end = node.span.end_byte
        self.trailing(node.span.end_byte)

    # ---- items

    def params(self, params: list[ast.Param], name: ast.Name) -> str | None:
        """The parameter list on one line, or None when the source spans lines (the
        caller then writes one parameter a line)."""
        if not params or params[-1].span.line == name.span.line:
            return "(" + ", ".join(self.param(p) for p in params) + ")"
        return None

    def param(self, p: ast.Param) -> str:
        mode = f"{p.mode} " if p.mode else ""
        return f"{mode}{self.type(p.type)} {p.name.text}"

    def multiline_params(self, head: str, name: ast.Name, params: list[ast.Param], tail: str,
                         body: ast.Block) -> None:
        paren = self.data.find(b"(", name.span.end_byte, params[0].span.start_byte)
        paren = paren if paren >= 0 else params[0].span.start_byte - 1
        self.leading(paren)
        self.emit(head + "(")
        self.last_end = paren + 1
        self.trailing(paren + 1)
        self.last_end = params[0].span.start_byte
        self.depth += 1
        for k, p in enumerate(params):
            self.leading(p.span.start_byte)
            self.emit(self.param(p) + ("," if k < len(params) - 1 else ""))
            self.last_end = p.span.end_byte
            self.trailing(p.span.end_byte + self._comma_after(p.span.end_byte))
        self.leading(body.span.start_byte)
        self.depth -= 1
        self.emit(")" + tail)

    def _comma_after(self, end: int) -> int:
        """1 when a `,` follows `end` (after spaces), so a comment after it is trailing."""
        rest = self.data[end:end + 64].lstrip(b" \t")
        return (len(self.data[end:end + 64]) - len(rest) + 1) if rest.startswith(b",") else 0

    def kernel(self, k: ast.KernelDef) -> None:
        sizes = ", ".join(s.text for s in k.sizes)
        head = f"kernel {k.name.text}[{sizes}]"
        over = ", ".join(f"{b.name.text}: {self.expr(b.extent)}" for b in k.space)
        tail = f" over [{over}]"
        if k.where:
            tail += " where " + ", ".join(self.expr(c) for c in k.where)
        one_line = self.params(k.params, k.name)
        if one_line is not None:
            self.leading(k.body.span.start_byte)
            self.open_block(head + one_line + tail, k.body)
        else:
            self.multiline_params(head, k.name, k.params, tail + " {", k.body)
            self.block_rest(k.body)
        self.done(k)

    def function(self, f: ast.FunctionDef) -> None:
        head = ("export " if f.export else "") + f"{self.type(f.return_type)} {f.name.text}"
        one_line = self.params(f.params, f.name)
        if one_line is not None:
            self.leading(f.body.span.start_byte)
            self.open_block(head + one_line, f.body)
        else:
            self.multiline_params(head, f.name, f.params, " {", f.body)
            self.block_rest(f.body)
        self.done(f)

    def struct(self, s: ast.StructDef) -> None:
        self.leading(s.fields[0].span.start_byte if s.fields else s.span.end_byte - 1)
        if not s.fields:
            self.emit(f"struct {s.name.text} {{}}")
            self.done(s)
            return
        self.emit(f"struct {s.name.text} {{")
        self.depth += 1
        for k, f in enumerate(s.fields):
            self.element(f, k == 0)
            self.emit(f"{self.type(f.type)} {f.name.text};")
            self.done(f)
        self.leading(s.span.end_byte - 1)
        self.depth -= 1
        self.emit("}")
        self.done(s)

    # ---- blocks

    def open_block(self, header: str, block: ast.Block) -> None:
        """`header {`, the block's statements, `}` (or `header {}` when it is empty)."""
        brace = f"{header} {{" if header else "{"
        if not block.statements and not self._comments_inside(block):
            self.emit(brace + "}")
            self.last_end = block.span.end_byte
            return
        self.emit(brace)
        self.block_rest(block)

    def _comments_inside(self, block: ast.Block) -> bool:
        c = self.peek()
        return c is not None and c.start < block.span.end_byte

    def block_rest(self, block: ast.Block) -> None:
        """After the line that ends with `{`: its trailing comment, the statements, `}`."""
        self.last_end = block.span.start_byte + 1
        self.trailing(block.span.start_byte + 1)
        self.depth += 1
        self.statements(block.statements)
        self.leading(block.span.end_byte - 1)
        self.depth -= 1
        self.emit("}")
        self.last_end = block.span.end_byte

    def statements(self, statements: list[ast.Stmt]) -> None:
        for k, s in enumerate(statements):
            self.element(s, k == 0)
            self.statement(s)

    # ---- statements

    def statement(self, s: ast.Stmt) -> None:
        if isinstance(s, ast.If):
            self.if_(s, "")
        elif isinstance(s, ast.For):
            self.leading(s.body.span.start_byte)
            self.open_block(f"for {s.variable.text} in {self.expr(s.start)}..{self.expr(s.end)}", s.body)
        elif isinstance(s, ast.While):
            self.leading(s.body.span.start_byte)
            self.open_block(f"while ({self.expr(s.condition)})", s.body)
        elif isinstance(s, ast.Switch):
            self.switch(s)
        elif isinstance(s, ast.Block):
            self.open_block("", s)
        else:
            self.leading(s.span.end_byte)  # comments inside the statement go before it
            self.emit(self.simple(s))
        self.done(s)

    def if_(self, s: ast.If, prefix: str) -> None:
        self.leading(s.then.span.start_byte)
        self.open_block(f"{prefix}if ({self.expr(s.condition)})", s.then)
        other = s.otherwise
        if other is None:
            return
        closing = self.lines.pop()  # `}`: the else continues its line
        if isinstance(other, ast.If):
            self.leading(other.then.span.start_byte)
            head = closing.strip() + " else "
            self.if_(other, head)
        else:
            self.leading(other.span.start_byte)
            self.open_block(closing.strip() + " else", other)

    def switch(self, s: ast.Switch) -> None:
        first_clause = s.clauses[0].span.start_byte if s.clauses else s.span.end_byte - 1
        self.leading(min(first_clause, s.value.span.end_byte))
        if not s.clauses and not ((comment := self.peek()) is not None and comment.start < s.span.end_byte):
            self.emit(f"switch ({self.expr(s.value)}) {{}}")
            return
        self.emit(f"switch ({self.expr(s.value)}) {{")
        brace = self.data.find(b"{", s.value.span.end_byte)
        self.last_end = brace + 1
        self.trailing(brace + 1)
        self.depth += 1
        for k, clause in enumerate(s.clauses):
            self.element(clause, k == 0)
            self.clause(clause)
        self.leading(s.span.end_byte - 1)
        self.depth -= 1
        self.emit("}")

    def clause(self, c: ast.SwitchClause) -> None:
        label = "default:" if c.label is None else f"case {self.expr(c.label)}:"
        body = c.body
        inner_comment = (x := self.peek()) is not None and x.start < (body[0].span.start_byte if body else c.span.end_byte)
        if len(body) == 1 and not isinstance(body[0], _COMPOUND) and not inner_comment:
            text = self.simple(body[0])
            if "\n" not in text:
                self.leading(body[0].span.end_byte)
                self.emit(f"{label} {text}")
                self.done(body[0])
                return
        self.leading(c.label.span.end_byte if c.label is not None else c.span.start_byte + 1)
        self.emit(label)
        colon = self.data.find(b":", c.label.span.end_byte if c.label is not None else c.span.start_byte)
        self.last_end = colon + 1
        self.trailing(colon + 1)
        self.depth += 1
        self.statements(body)
        self.depth -= 1

    def simple(self, s: ast.Stmt) -> str:
        if isinstance(s, ast.VarDecl):
            value = f" = {self.expr(s.value)}" if s.value is not None else ""
            return f"{self.type(s.type)} {s.name.text}{value};"
        if isinstance(s, ast.Assign):
            return f"{self.expr(s.target)} = {self.expr(s.value)};"
        if isinstance(s, ast.ExprStmt):
            return f"{self.expr(s.expr)};"
        if isinstance(s, ast.Print):
            return f"{self.string(s.string)};"
        if isinstance(s, ast.Return):
            return "return;" if s.value is None else f"return {self.expr(s.value)};"
        if isinstance(s, ast.Break):
            return "break;"
        if isinstance(s, ast.Continue):
            return "continue;"
        if isinstance(s, ast.Assert):
            return f"assert({self.expr(s.condition)});"
        if isinstance(s, ast.Reduce):
            return f"reduce {s.target.text} = {s.op.text}({', '.join(self.expr(a) for a in s.args)});"
        raise _Unformattable(type(s).__name__)

    # ---- types and expressions

    def type(self, t: ast.TypeRef) -> str:
        if isinstance(t, ast.ScalarTypeRef):
            return t.text
        if isinstance(t, ast.ArrayTypeRef):
            return f"{self.type(t.element)}[{', '.join(self.expr(e) for e in t.extents)}]"
        if isinstance(t, ast.NamedTypeRef):
            return t.name.text
        if isinstance(t, ast.VoidTypeRef):
            return "void"
        raise _Unformattable(type(t).__name__)

    def expr(self, e: ast.Expr) -> str:
        if isinstance(e, ast.Ident):
            return e.name
        if isinstance(e, (ast.IntLit, ast.FixedLit)):
            return e.text
        if isinstance(e, ast.BoolLit):
            return "true" if e.value else "false"
        if isinstance(e, ast.Paren):
            return f"({self.expr(e.expr)})"
        if isinstance(e, ast.ArrayLit):
            return "[" + ", ".join(self.expr(x) for x in e.elements) + "]"
        if isinstance(e, ast.Unary):
            return f"{e.op}{self.expr(e.operand)}"
        if isinstance(e, ast.Binary):
            left, right = self.expr(e.left), self.expr(e.right)
            broken = b"\n" in self.data[e.left.span.end_byte:e.op_span.start_byte] or \
                b"\n" in self.data[e.op_span.end_byte:e.right.span.start_byte]
            return f"{left}\n{e.op} {right}" if broken else f"{left} {e.op} {right}"
        if isinstance(e, ast.Cast):
            return f"{self.expr(e.value)} {e.op} {self.type(e.type)}"
        if isinstance(e, ast.Call):
            return f"{self.expr(e.callee)}({', '.join(self.expr(a) for a in e.args)})"
        if isinstance(e, ast.Index):
            return f"{self.expr(e.value)}[{', '.join(self.index(i) for i in e.indices)}]"
        if isinstance(e, ast.Field):
            return f"{self.expr(e.value)}.{e.field.text}"
        if isinstance(e, ast.TypeProperty):
            return f"{e.type.text}.{e.property.text}"
        raise _Unformattable(type(e).__name__)

    def index(self, i: ast.Expr | ast.Slice) -> str:
        if isinstance(i, ast.Slice):
            text = f"{self.expr(i.start) if i.start else ''}..{self.expr(i.end) if i.end else ''}"
            return text + (f" by {self.expr(i.step)}" if i.step is not None else "")
        return self.expr(i)

    def string(self, s: ast.StringLit) -> str:
        """The string as written, with each interpolated expression formatted."""
        raw = self.data[s.span.start_byte:s.span.end_byte].decode("utf-8")
        out, position = [], s.span.start_byte
        for part in s.parts:
            if not isinstance(part, ast.Expr):
                continue
            before = self.data[position:part.span.start_byte].decode("utf-8").rstrip()
            out.append(before)
            out.append(self.expr(part))
            after = self.data[part.span.end_byte:s.span.end_byte]
            close = part.span.end_byte + (len(after) - len(after.lstrip()))
            position = close
        if len(out) == 0:
            return raw
        out.append(self.data[position:s.span.end_byte].decode("utf-8"))
        return "".join(out)


class _Unformattable(Exception):
    pass


GUARD_ELEMENTS = 64  # top-level elements parsed at once by the last guard


def _same_elements(text: str, formatter: _Formatter) -> Generator[None, None, bool]:
    """Whether `text` parses, without errors, to the elements `formatter` wrote, each
    the same text. Parsed GUARD_ELEMENTS elements at a time, each piece from the start
    of an element's output (a piece that ended inside a construct would have an error),
    so that the tree of a long file is never all in memory at once."""
    lines = text.split("\n")
    starts, texts = formatter.starts, formatter.texts
    for first in range(0, max(len(starts), 1), GUARD_ELEMENTS):
        last = first + GUARD_ELEMENTS
        a = starts[first] if first < len(starts) else 0
        b = starts[last] if last < len(starts) else len(lines)
        piece = "\n".join(lines[a:b]) + "\n"
        data = piece.encode("utf-8")
        root = parse(piece).root_node
        found = [data[c.start_byte:c.end_byte] for c in root.children if c.type != "comment"]
        if root.has_error or found != texts[first:last]:
            return False
        yield
    return True


def _alone(lines: list[str], node: ast.Node) -> bytes:
    """The text of a top-level element formatted as `lines`, once it is checked to
    parse alone, without errors, to one element of the same shape as `node`."""
    result = parse_source("\n".join(lines) + "\n")
    found = [*result.module.items, *result.module.statements]
    if result.diagnostics or len(found) != 1 or shape(found[0]) != shape(node):
        raise _Unformattable("an element would change")
    span = found[0].span
    return result.source.data[span.start_byte:span.end_byte]


def shape(node: object) -> object:
    """A node without its positions: equal shapes are the same program."""
    if isinstance(node, ast.Node):
        return (type(node).__name__,) + tuple(
            (f.name, shape(getattr(node, f.name))) for f in fields(node) if f.name not in _POSITION_FIELDS)
    if isinstance(node, list):
        return tuple(shape(x) for x in node)
    return node


def format_document(doc: DocumentLike) -> str | None:
    """The document in the canonical style, or None when it has syntax errors (a
    broken file is never reformatted). Kept per version. Total: a failure is logged
    and the answer is None."""
    steps = format_in_steps(doc, math.inf)  # one step
    while True:
        try:
            next(steps)
        except StopIteration as done:
            text: str | None = done.value
            return text


def format_in_steps(doc: DocumentLike, seconds: float) -> Generator[None, None, str | None]:
    """`format_document` as a generator that yields every `seconds` of work (a heavy
    request's steps, on the server's loop) and returns the answer. Each step reads the
    same version (`doc.reading()`)."""
    found = doc.memo.get("format", _NONE)
    if found is not _NONE:
        kept: str | None = found
        return kept
    steps = _format_steps(doc)
    while True:
        deadline = time.monotonic() + seconds
        try:
            with doc.reading(), _deep_recursion():
                while True:
                    next(steps)
                    if time.monotonic() > deadline:
                        break
        except StopIteration as done:
            text: str | None = done.value
            doc.memo["format"] = text
            return text
        except Exception as error:  # noqa: BLE001 - as `find.total`: an editor request never fails
            swallow("format_document", error)
            return None
        yield


_NONE = object()


@contextmanager
def _deep_recursion() -> Iterator[None]:
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, 10000))
    try:
        yield
    finally:
        sys.setrecursionlimit(old_limit)


def _format_steps(doc: DocumentLike) -> Generator[None, None, str | None]:
    """The formatted text (or None), a top-level element (or a guard's piece) per step,
    each step reading `doc` under its lock."""
    if doc.syntax.diagnostics or doc.tree.root_node.has_error:
        return None
    kept = getattr(doc, "text_entry_of", None)
    formatter = _Formatter(doc, kept)
    try:
        text = yield from formatter.run()
    except _Unformattable:
        return None
    # Each element parsed alone to its own shape (`_alone`); the whole text must
    # parse to those elements, each the same text, and nothing else.
    same = yield from _same_elements(text, formatter)
    return text if same else None  # never a change of meaning
