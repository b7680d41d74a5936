"""Recovery that finds the real mistake: a missing `}` or `;` decided from the tokens
around the error, not from where tree-sitter's recovery happened to put it.

Tree-sitter repairs a missing `}` with a MISSING node at the end of the file (the
top-level `go();` then moves into the function) and a missing `;` before a call by
reading the call as the declaration's value. rustc and clang decide such slips from the
layout instead, and so does this module:

- a `}`: every `{` is owned by the line its statement starts on; the block ends before
  the first following statement whose indentation is at or left of the owner's (unless
  that line starts with the `}` itself). The position is *certain* only when the whole
  file reads one way: every `}` sits at its opener's indentation, the count of missing
  braces is the count of unclosed blocks, indentation does not mix tabs and spaces and
  every line's is a multiple of the smallest.
  Otherwise no position is given (and the editor offers no fix).
- a `}` before an `else` that does not follow one (an `else` can only follow the `}` of
  an `if`'s block): just before the `else`, closing the innermost open block, which
  must be an `if`'s (or an `else`'s).
- a `{`: at the end of a header line (`if (...)`, `while (...)`, `for ...`, `switch
  (...)`, `else`, a function's or a kernel's) whose next line is more indented and
  whose block's `}` is the first line back at the header's indentation, when the file
  has as many `}` more than `{` as such lines.
- a `;`: at the end of the line of the error, or of the line before it, when the next
  line starts a new statement at the same or a lesser indentation.

Each repair is tried: the repaired text is parsed again and must have fewer errors,
none near the repair. What remains wrong in the repaired text is reported too, mapped
back to the original. Each repair carries the region that its mistake confuses (the
statement the parser misread), where the analysis's diagnostics are noise.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field, replace

import tree_sitter

from . import scan
from .parser import _parser
from .scan import Token, statement_start

# A line ending in one of these continues on the next line: no `;` belongs there.
_CONTINUES = {b"{", b"(", b"[", b",", b"=", b"+", b"-", b"*", b"/", b"%", b"&", b"|", b"^", b"<", b">", b"!",
              b"~", b".", b":", b";", b"}"}
# Statement openers: the next line starting with one of these begins a new statement.
_STATEMENT_START = re.compile(rb"[A-Za-z_\"}]")
_WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
MAX_TRIALS = 12  # reparses per file at most: recovery stays cheap on a big file with many errors


@dataclass(frozen=True, slots=True)
class Repair:
    """Insert `text` at byte `at` (the fix); `trial` is what the parse check inserts."""

    at: int
    text: str
    missing: str
    opener: int | None = None  # the `{` a `}` closes
    region: tuple[int, int] = (0, 0)
    statement: str = ""  # the node a `;` ends (`variable_declaration`, ...)
    old: int = 0  # bytes replaced at `at` (a misspelt keyword, `=` for `==`); 0: an insertion
    code: str = "C1002"
    message: str = ""  # for a replacement, an `else`'s `}` or a `{`: the whole message
    closer: int | None = None  # the `}` that closes the block a `{` opens
    edit: tuple[int, int] | None = None  # what the fix replaces, where not [at, at + old)
    item: bool = False  # a `{` of a function's or a kernel's body: its names are the file's


@dataclass(slots=True)
class Raw:
    """A syntax error of a (possibly repaired) text: C1001 or C1002 at bytes [start, end)."""

    node: tree_sitter.Node
    start: int
    end: int
    data: dict[str, object] = field(default_factory=dict)


def error_nodes(tree: tree_sitter.Tree) -> list[tree_sitter.Node]:
    """The ERROR and MISSING nodes, outermost ERROR only, in source order."""
    found: list[tree_sitter.Node] = []
    if not tree.root_node.has_error:
        return found
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.is_missing or node.type == "ERROR" or node.is_error:
            found.append(node)
            continue
        if node.has_error:
            stack.extend(reversed(node.children))
    return found


def braces(data: bytes) -> list[Repair] | None:
    """Where the indentation says the unclosed blocks end; None when that is not certain
    (or when no `}` is missing)."""
    scanned = scan.text(data)
    opened = scanned.opened - scanned.closed
    if opened <= 0:
        return None
    toks = scan.index(data).toks
    starts = scanned.line_starts
    indents: dict[int, bytes] = {}

    def indent(line: int) -> bytes:
        if line not in indents:
            end = starts[line + 1] if line + 1 < len(starts) else len(data)
            text = data[starts[line]:end]
            indents[line] = text[:len(text) - len(text.lstrip(b" \t"))]
        return indents[line]

    every = {c for t in toks for c in indent(t.line)}
    if len(every) > 1:
        return None  # tabs and spaces: no width to compare
    widths = {len(indent(t.line)) for t in toks}
    unit = min((w for w in widths if w), default=1)
    if any(w % unit for w in widths):
        return None  # a line off the levels (`     else {` where a `}` was): which level it means is a guess
    stack: list[tuple[bytes, int]] = []  # (the owner line's indentation, the `{`'s offset)
    found: list[tuple[int, bytes, int]] = []  # (the token the block ends before, indentation, opener)
    logical = b""
    depth, previous, line = 0, None, -1
    for i, t in enumerate(toks):
        if t.line != line:
            line = t.line
            if depth == 0 and (previous is None or previous in (b";", b"{", b"}")):
                logical = indent(line)
                while stack and len(stack[-1][0]) >= len(logical):
                    if len(stack[-1][0]) == len(logical) and t.text == b"}":
                        break
                    owner, at = stack.pop()
                    found.append((i, owner, at))
        if t.text == b"{":
            stack.append((logical, t.start))
        elif t.text == b"}":
            if not stack:
                return None  # a `}` that the layout does not expect
            owner, _ = stack.pop()
            first = i == 0 or toks[i - 1].line != t.line
            if first and indent(t.line) != owner:
                return None
        elif t.text in (b"(", b"["):
            depth += 1
        elif t.text in (b")", b"]"):
            depth = max(0, depth - 1)
        previous = t.text
    found += [(len(toks), owner, at) for owner, at in reversed(stack)]
    if len(found) != opened:
        return None
    all_tokens = scan.tokens(data)  # with comments: the `}` goes after a trailing comment
    out = []
    for before, owner, at in found:
        limit = toks[before].start if before < len(toks) else len(data)
        prior = bisect_right(all_tokens.ends, limit)  # the last token that ends by the limit
        position = all_tokens.ends[prior - 1] if prior else 0
        out.append(Repair(position, "\n" + owner.decode() + "}", "}", opener=at))
    return out


def _indent(data: bytes, line_starts: list[int], line: int) -> bytes:
    end = line_starts[line + 1] if line + 1 < len(line_starts) else len(data)
    text = data[line_starts[line]:end]
    return text[:len(text) - len(text.lstrip(b" \t"))]


def else_brace(data: bytes) -> list[Repair]:
    """A `}` before each `else` that does not follow the `}` of an `if`'s block: an `else`
    can only follow one (grammar: `if (c) block else ...`), so the `}` left out goes just
    before it and closes the innermost open block, which must be the `if`'s (`if (c) {`
    or `} else if (c) {`; another owner: no repair). The `else` may follow the `}` of a
    block inside the `if`'s (`        }` then `     else {`). At the start of its line the
    `}` takes the `if`'s indentation (`    } else`, from `     else` where it was
    deleted)."""
    scanned = scan.text(data)
    blocks = scanned.blocks  # the braces and `else`s, in order
    if not any(word == b"else" for _, word in blocks):
        return []
    starts = scanned.line_starts
    out: list[Repair] = []
    stack: list[int] = []  # the open `{`, by their place in `blocks`
    closed: int | None = None  # the `{` of the block that the last `}` closed

    def owner(k: int) -> Token:
        """The first token of the statement whose block the `{` at `blocks[k]` opens."""
        at = blocks[k][0]
        brace = next((blocks[j][0] for j in range(k - 1, -1, -1) if blocks[j][1] != b"else"), -1)
        found = scanned.statement_start(brace, at)
        if found is None:  # brackets open across the brace before it: the whole text's tokens
            toks = scan.code_tokens(data)
            found = toks[statement_start(toks.texts, bisect_left(toks.starts, at))[0]]
        return found

    for k, (at, word) in enumerate(blocks):
        if word == b"{":
            stack.append(k)
        elif word == b"}":
            closed = stack.pop() if stack else None
        elif stack and not (k and blocks[k - 1][1] == b"}" and scanned.blank_between(blocks[k - 1][0] + 1, at)
                            and closed is not None and owner(closed).text in (b"if", b"else")):
            opener = stack[-1]
            first = owner(opener)
            if first.text not in (b"if", b"else"):
                continue
            line = bisect_right(starts, at) - 1
            edit, text = None, "} "
            if not data[starts[line]:at].strip():  # `else` starts its line: `    } else`
                edit = (starts[line], at)
                text = _indent(data, starts, first.line).decode() + "} "
            out.append(Repair(at, text, "}", opener=blocks[opener][0], edit=edit,
                              message="expected `}` before `else`"))
            closed = stack.pop()  # the repair closes it
    return out


# The statements with a block (`else` for `} else`), and the items' first words.
_BLOCK_HEADERS = {b"if": "`if`", b"while": "`while`", b"for": "`for`", b"switch": "`switch`", b"else": "`else`"}


def opening_brace(data: bytes) -> list[Repair]:
    """Where a `{` left out goes: at the end of a header line whose next line is more
    indented and whose block's `}` is the first line back at the header's indentation
    (the statements of the block were read at the level of the header otherwise). Only
    when the file has as many `}` more than `{` as lines that read so: each place is
    certain."""
    scanned = scan.text(data)
    surplus = scanned.closed - scanned.opened
    if surplus <= 0:
        return []
    toks = scan.index(data).toks
    starts = scanned.line_starts
    found: list[Repair] = []
    depth, level = 0, 0  # parentheses and brackets; open blocks
    for i, t in enumerate(toks[:-1]):
        if t.text in (b"(", b"["):
            depth += 1
        elif t.text in (b")", b"]"):
            depth = max(0, depth - 1)
        elif t.text == b"{":
            level += 1
        elif t.text == b"}":
            level = max(0, level - 1)
        nxt = toks[i + 1]
        if depth or nxt.line == t.line or t.text in _CONTINUES:
            continue
        start = statement_start(toks.texts, i)[0]
        first = toks[start]
        if first.text == b"else" and toks[start + 1].text == b"if":
            what = "`else if`"
        elif first.text in _BLOCK_HEADERS:
            what = _BLOCK_HEADERS[first.text]
        elif level == 0 and t.text in (b")", b"]") and _DECLARES.match(first.text):
            what = "kernel" if first.text in (b"kernel", b"export") else "function"
        else:
            continue
        owner = _indent(data, starts, first.line)
        if len(_indent(data, starts, nxt.line)) <= len(owner):
            continue
        back = next((u for j, u in enumerate(toks[i + 1:], i + 1)
                     if toks[j - 1].line != u.line and len(_indent(data, starts, u.line)) <= len(owner)), None)
        if back is None or back.text != b"}" or _indent(data, starts, back.line) != owner:
            continue  # the block's `}` is not where the layout puts it
        found.append(Repair(t.end, " {", "{", closer=back.start, item=not what.startswith("`"),
                            message=f"expected `{{` after the {what} header; the indentation says its block "
                                    f"starts on the next line"))
    return found if len(found) == surplus else []


def unopened(data: bytes) -> list[int]:
    """The `}` that no `{` opened (a `{` is missing before each)."""
    depth, out = 0, []
    for at, word in scan.text(data).blocks:
        depth += (word == b"{") - (word == b"}")
        if depth < 0:
            out.append(at)
            depth = 0
    return out


def semicolon(data: bytes, error: tree_sitter.Node) -> list[Repair]:
    """A `;` at the end of the error's line or of the line before it, where the next
    line starts a new statement at the same or a lesser indentation."""
    scanned = scan.text(data)
    line = error.start_point[0]
    out = []
    for candidate in (line, line - 1):
        on = scanned.on_line(candidate)
        after = scanned.first_after_line(candidate)
        if not on or after is None or on[-1].text in _CONTINUES:
            continue
        nxt = scanned.on_line(after.line)
        if not _STATEMENT_START.match(nxt[0].text):
            continue
        width = len(_indent_of(data, on[0].start))
        if len(_indent_of(data, nxt[0].start)) > width and not on[0].text == b"}":
            continue  # the next line is more indented: a continuation
        out.append(Repair(on[-1].end, ";", ";"))
    return out


def certain(data: bytes, node: tree_sitter.Node) -> bool:
    """Whether the `;`, `)` or `]` that tree-sitter says is MISSING at `node` can go only
    there, so that inserting it gives back the program that was meant. Tree-sitter puts
    it where its parse can go on, which may be inside a line whose real mistake is
    another (`I64 x  a[i];` gets `I64 x;  a[i];`, a discarded value that checks clean)."""
    if node.type == ";":
        return _ends_statement(data, node.start_byte)
    if node.type in (")", "]"):
        return _only_place(data, node)
    return False


def _ends_statement(data: bytes, at: int) -> bool:
    """A `;` at `at` ends its line (or comes just before a `}` on it), and the next line
    starts a new statement, not more indented than this one (not a continuation)."""
    scanned = scan.text(data)
    before = scanned.last_ending_by(at)
    after = scanned.first_starting_from(at)
    if before is None or before.text in _CONTINUES:
        return False
    if after is None:
        return True
    if after.line == before.line:
        return after.text == b"}"  # `{ x = 1 }`
    first = scanned.on_line(before.line)[0]
    return (bool(_STATEMENT_START.match(after.text))
            and len(_indent_of(data, after.start)) <= len(_indent_of(data, first.start)))


MAX_PLACES = 24  # earlier places tried for a missing `)` or `]`; more: not certain


def _only_place(data: bytes, node: tree_sitter.Node) -> bool:
    """No earlier place for the closer after its opener parses as well: `a[i * k;` could
    be `a[i] * k;` as well as `a[i * k];`, so neither is offered."""
    opener = {")": "(", "]": "["}[node.type]
    open_at = []
    for child in node.parent.children if node.parent is not None else ():
        if child.start_byte >= node.start_byte:
            break
        if child.type == opener:
            open_at.append(child.end_byte)
        elif child.type == node.type and open_at:
            open_at.pop()
    if not open_at:
        return False
    item = node
    while item.parent is not None and item.parent.parent is not None:
        item = item.parent  # the top-level item: the others do not change its parse
    start, end = item.start_byte, item.end_byte
    places = [open_at[-1]] + [t.end for t in scan.text(data).between(open_at[-1], node.start_byte)]
    places = [p for p in places if p != node.start_byte]
    if len(places) > MAX_PLACES:
        return False
    closer = node.type.encode()

    def errors_with(at: int) -> int:
        text = data[start:at] + closer + data[at:end]
        return len(error_nodes(_parser().parse(text)))

    meant = errors_with(node.start_byte)
    return all(errors_with(p) > meant for p in places)


# The keywords a statement or an item starts with, for "did you mean `kernel`?".
KEYWORDS = ("kernel", "export", "return", "while", "switch", "assert", "continue", "break", "reduce", "inout",
            "default", "else", "void")


def _distance(a: str, b: str) -> int:
    """Levenshtein distance, with a swap of neighbours counted as one edit."""
    rows = [list(range(len(b) + 1))]
    for i, ca in enumerate(a, 1):
        row = [i]
        for j, cb in enumerate(b, 1):
            best = min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                best = min(best, rows[-2][j - 2] + 1)
            row.append(best)
        rows.append(row)
    return rows[-1][-1]


def respelled(data: bytes, error: tree_sitter.Node) -> list[Repair]:
    """A misspelt keyword at the start of the error's line (`kernal` for `kernel`), and
    `=` for `==` in the condition of an `if` or `while` on it."""
    line = error.start_point[0]
    on = scan.text(data).on_line(line)
    out: list[Repair] = []
    if len(on) > 1 and _WORD.fullmatch(on[0].text) and _WORD.fullmatch(on[1].text):
        word = on[0].text.decode()
        close = [k for k in KEYWORDS if k != word and _distance(word, k) <= (1 if len(k) <= 4 else 2)]
        if len(close) == 1:
            out.append(Repair(on[0].start, close[0], close[0], old=len(on[0].text), code="C1004",
                              message=f"unknown word `{word}`; did you mean `{close[0]}`?"))
    if on and on[0].text in (b"if", b"while", b"}"):
        depth = 0
        for i, t in enumerate(on):
            if t.text == b"(":
                depth += 1
            elif t.text == b")":
                depth -= 1
            elif (t.text == b"=" and depth == 1 and on[i - 1].text not in (b"=", b"!", b"<", b">")
                  and (i + 1 == len(on) or on[i + 1].text != b"=")):
                out.append(Repair(t.start, "==", "==", old=1, code="C1005",
                                  message="`=` is not a comparison (an assignment is a statement); did you mean `==`?"))
                break
    return out


def _indent_of(data: bytes, offset: int) -> bytes:
    start = data.rfind(b"\n", 0, offset) + 1
    text = data[start:offset]
    return text[:len(text) - len(text.lstrip(b" \t"))]


def _reparse(tree: tree_sitter.Tree, data: bytes, repairs: list[Repair]) -> tuple[bytes, tree_sitter.Tree]:
    """The text with each repair's token inserted (no line break: lines keep their numbers)
    and its tree, parsed incrementally from `tree`."""
    edited = tree.copy()
    out = data
    for r in sorted(repairs, key=lambda r: r.at, reverse=True):
        row = out.count(b"\n", 0, r.at)
        column = r.at - (out.rfind(b"\n", 0, r.at) + 1)
        length = len(r.missing.encode())
        edited.edit(r.at, r.at + r.old, r.at + length, (row, column), (row, column + r.old), (row, column + length))
        out = out[:r.at] + r.missing.encode() + out[r.at + r.old:]
    return out, _parser().parse(out, edited)


def _shift(offset: int, repairs: list[Repair]) -> int:
    """An offset of the repaired text as an offset of the text before the repairs."""
    moved = offset
    for r in sorted(repairs, key=lambda r: r.at):
        inserted = r.at + sum(len(q.missing) - q.old for q in repairs if q.at < r.at)
        if offset >= inserted + len(r.missing):
            moved -= len(r.missing) - r.old
        elif offset > inserted:
            moved -= offset - inserted
    return moved


def _region(errors: list[tree_sitter.Node], repairs: list[Repair], data: bytes) -> tuple[int, int]:
    """From the line of the first repair to the end of the statements the errors sit in."""
    start = min(r.at for r in repairs)
    start = data.rfind(b"\n", 0, start) + 1
    end = start
    for node in errors:
        parent = node.parent
        while parent is not None and (parent.type == "ERROR" or not parent.is_named):
            parent = parent.parent
        holder = parent if parent is not None and parent.type not in ("source_file", "block") else node
        end = max(end, holder.end_byte)
    return start, end


def statement_region(node: tree_sitter.Node, data: bytes | None = None) -> tuple[int, int]:
    """The region a syntax error that no repair explains confuses: the statement or item
    it sits in (the outermost node below a block or the file), from the start of its
    line (the caller's); an error directly in a block or the file (tree-sitter skipped the tokens) with
    the block it was the header of (`scale[n](...) over [i: n] { ... }` when `kernel` is
    missing: the block's names are the header's)."""
    holder = node
    while holder.parent is not None and holder.parent.type not in ("source_file", "block"):
        holder = holder.parent
    end = holder.end_byte
    if holder is node:
        following = node.next_sibling
        while following is not None and (following.is_missing or following.type == "ERROR"):
            following = following.next_sibling
        if following is not None and following.type == "block" and following.start_point[0] <= node.end_point[0] + 1:
            end = following.end_byte
        elif data is not None and node.type == "ERROR" and data[node.end_byte - 1:node.end_byte] == b"{":
            # A header the parser could not read took its block's `{` (`kernel totaln](...)
            # over [i: n] {`): the block's statements were read one level up, and its `}`
            # closes nothing. They are the header's, to the `}` that matches the `{`.
            end = max(end, _matching_brace(data, node.end_byte - 1))
    if end == holder.end_byte and not _closed(holder):
        # The statement stops mid-line without its `;` (`I64[4] a  [1, 2];`, the `=`
        # lost): the parser reads the rest of the line as statements of their own
        # (`[1, 2];`, an array literal not in a declaration), which are this mistake.
        row = holder.end_point[0]
        following = holder.next_sibling
        while following is not None and following.start_point[0] == row and following.type != "}":
            end = following.end_byte
            row = following.end_point[0] if not _closed(following) else -1
            following = following.next_sibling
    return min(node.start_byte, holder.start_byte), max(end, node.end_byte)


def _matching_brace(data: bytes, opener: int) -> int:
    """The end of the `}` that closes the `{` at `opener` (the text's end if none)."""
    blocks = scan.text(data).blocks
    depth = 0
    for at, word in blocks[bisect_left(blocks, (opener, b"")):]:
        depth += (word == b"{") - (word == b"}")
        if depth == 0:
            return at + 1
    return len(data)


def _closed(node: tree_sitter.Node) -> bool:
    """Whether a statement ends with its own `;` or `}` (not a MISSING one, not an ERROR)."""
    last = node.child(node.child_count - 1) if node.child_count else None
    return last is not None and last.type in (";", "}") and not last.is_missing and node.type != "ERROR"


# A statement that starts with one of these declares a name (a variable, an item).
# (`[4] a = ...;` is an array declaration that lost its element type.)
_DECLARES = re.compile(rb"(kernel|export|void|Bool|[IU][0-9]+|Q[0-9]+\.[0-9]+)(?![A-Za-z0-9_])|\[")


def declaring_scope(node: tree_sitter.Node, data: bytes) -> tuple[int, int] | None:
    """Where the names that the statement or item of a syntax error meant to declare
    would be visible, when it is a declaration: the rest of its block, or the whole file
    for an item (a function dispatches a kernel defined after it). A name used there
    that nothing declares is the error's consequence (`I64  = 2;` then `k` unknown), not
    a mistake of its own. None when the statement declares nothing."""
    start, end = statement_region(node, data)
    holder = node
    while holder.parent is not None and holder.parent.type not in ("source_file", "block"):
        holder = holder.parent
    container = holder.parent
    if container is None or container.type == "source_file":
        # At the top level: an item (a `{ ... }` body) or a declaration.
        if _DECLARES.match(data, start) or b"{" in data[start:end]:
            return 0, len(data)
        return None
    if _DECLARES.match(data, start):
        return start, container.end_byte
    return None


def _ended(tree: tree_sitter.Tree, repair: Repair, repairs: list[Repair]) -> str:
    """The type of the node that the inserted `;` ends, in the repaired tree."""
    at = repair.at + sum(len(q.missing) - q.old for q in repairs if q.at < repair.at)
    token = tree.root_node.descendant_for_byte_range(at, at + 1)
    parent = token.parent if token is not None else None
    return parent.type if parent is not None else ""


def _outermost(tree: tree_sitter.Tree, repair: Repair, repairs: list[Repair]) -> tree_sitter.Node:
    """The largest node of the repaired tree that starts where the repair's token does."""
    at = repair.at + sum(len(q.missing) - q.old for q in repairs if q.at < repair.at)
    node = tree.root_node.descendant_for_byte_range(at, at + 1)
    assert node is not None  # the repair's token is inside the repaired text
    while node.parent is not None and node.parent.start_byte == at and node.parent.parent is not None:
        node = node.parent
    return node


def recover(tree: tree_sitter.Tree, data: bytes, budget: list[int] | None = None,
            ) -> tuple[list[Repair], list[tree_sitter.Node], bytes, list[list[Repair]]]:
    """The repairs of `data` (in its offsets), the error nodes that remain (of the repaired
    text, whose bytes are returned with the repairs that make it). With no repair that
    works: ([], the tree's error nodes, data, []). The last item is the rounds of repairs,
    each in the offsets of the text it was made in (for `to_original`)."""
    budget = budget if budget is not None else [MAX_TRIALS]
    errors = error_nodes(tree)
    if not errors:
        return [], [], data, []
    attempts: list[list[Repair]] = [[r] for r in else_brace(data)]
    attempts += [[r] for r in opening_brace(data)]
    closing = braces(data)
    if closing:
        attempts.append(closing)
    for node in errors:
        attempts += [[r] for r in respelled(data, node)]
        if node.is_missing and node.type == ";":
            continue  # tree-sitter already says where
        attempts += [[r] for r in semicolon(data, node)]
    for repairs in attempts:
        if budget[0] <= 0:
            break
        budget[0] -= 1
        repaired, after = _reparse(tree, data, repairs)
        remaining = error_nodes(after)
        near = [n for n in remaining if any(abs(n.start_byte - r.at) <= 1 for r in repairs)]
        if len(remaining) >= len(errors) or near:
            continue
        region = _region(errors, repairs, data)
        for r in repairs:
            if r.old:  # a respelt word: its whole item or statement was misread
                end = _shift(_outermost(after, r, repairs).end_byte, repairs)
                region = (region[0], max(region[1], end))
        repairs = [replace(r, region=region, statement=_ended(after, r, repairs)) for r in repairs]
        deeper, rest, text, made = recover(after, repaired, budget)
        mapped = [replace(r, at=_shift(r.at, repairs), opener=None if r.opener is None else _shift(r.opener, repairs),
                          closer=None if r.closer is None else _shift(r.closer, repairs),
                          edit=None if r.edit is None else (_shift(r.edit[0], repairs), _shift(r.edit[1], repairs)),
                          region=(_shift(r.region[0], repairs), _shift(r.region[1], repairs))) for r in deeper]
        return repairs + mapped, rest, text, [repairs] + made
    return [], errors, data, []


def to_original(offset: int, rounds: list[list[Repair]]) -> int:
    """An offset of the text `recover` returned as an offset of its input: the rounds of
    repairs were made one after another, so they are undone in reverse."""
    for repairs in reversed(rounds):
        offset = _shift(offset, repairs)
    return offset
