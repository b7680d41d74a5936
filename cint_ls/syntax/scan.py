"""The tokens that syntax/recovery.py reads a broken text by.

A repair of a syntax error looks at a few lines (the `;` at the end of the error's line,
a misspelt keyword, whether a `;` ends its statement) and, for the braces, at the whole
text's structure. So a text is read two ways:

- `Text` (`text(data)`): its braces and `else`s, from one scan of the text that skips
  comments and strings (a regex, in C), and the tokens of a line or of a stretch,
  tokenized when asked for. What an ordinary keystroke's error needs: about 3 ms at
  5,000 lines, where the whole text's tokens took 20 ms and their index 6 (and 10 times
  that at 50,000 lines, at every keystroke while the text does not parse).
- `tokens(data)`, `index(data)`: every token of the text, as parallel arrays, for the
  repairs of a missing brace, which read the layout of every line.

A line's own tokens are the whole text's on that line unless a comment or a string holds
a line break across it (a block comment, a string with an escaped line break); such a
line is read from the whole text's tokens instead.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from itertools import accumulate, chain, compress
from operator import add, itemgetter, methodcaller, not_
from typing import NamedTuple, overload

# Each token with the blanks before it: comments, strings, then single tokens. A string
# ends at its line's end when unterminated.
_TOKEN = re.compile(rb'(\s*)(//[^\n]*|/\*.*?\*/|"(?:[^"\\\n]|\\.)*"?|[A-Za-z_][A-Za-z0-9_]*|[0-9][A-Za-z0-9_.]*|\S)',
                    re.S)
# What a text's structure is read from: comments and strings (skipped), braces and the
# word `else` (a match inside a longer word is dropped).
_STRUCTURE = re.compile(rb'//[^\n]*|/\*.*?\*/|"(?:[^"\\\n]|\\.)*"?|[{}]|else', re.S)
_WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_COMMENT = methodcaller("startswith", (b"//", b"/*"))


class Token(NamedTuple):
    start: int
    end: int
    text: bytes
    line: int  # 0-based


class Tokens(Sequence[Token]):
    """Tokens of one text, or a stretch of them, as parallel arrays: made by the regex
    engine's and the builtins' own loops, not an object per token (518,000 tokens at
    50,000 lines: 1.7 s as objects). A `Token` is made when one is asked for."""

    __slots__ = ("starts", "ends", "texts", "line_starts", "_lo", "_hi")

    def __init__(self, starts: array[int], ends: array[int], texts: list[bytes], line_starts: list[int],
                 lo: int = 0, hi: int | None = None) -> None:
        self.starts, self.ends, self.texts, self.line_starts = starts, ends, texts, line_starts
        self._lo, self._hi = lo, len(starts) if hi is None else hi

    def _line(self, offset: int) -> int:
        return bisect_right(self.line_starts, offset) - 1

    def __len__(self) -> int:
        return self._hi - self._lo

    @overload
    def __getitem__(self, i: int) -> Token: ...

    @overload
    def __getitem__(self, i: slice) -> Tokens: ...

    def __getitem__(self, i: int | slice) -> Token | Tokens:
        if isinstance(i, slice):  # a view of a stretch, as list slicing gives a stretch
            lo, hi, _ = i.indices(len(self))
            return Tokens(self.starts, self.ends, self.texts, self.line_starts, self._lo + lo, self._lo + max(lo, hi))
        k = i + self._hi if i < 0 else i + self._lo
        if not self._lo <= k < self._hi:
            raise IndexError(i)
        return Token(self.starts[k], self.ends[k], self.texts[k], self._line(self.starts[k]))

    def __iter__(self) -> Iterator[Token]:
        lo, hi = self._lo, self._hi
        return map(Token, self.starts[lo:hi], self.ends[lo:hi], self.texts[lo:hi], map(self._line, self.starts[lo:hi]))

    def where(self, keep: Iterable[bool]) -> Tokens:
        """The tokens for which `keep` is true (over the whole text: a view's own
        stretch is not cut)."""
        keep = list(keep)
        return Tokens(array("q", compress(self.starts, keep)), array("q", compress(self.ends, keep)),
                      list(compress(self.texts, keep)), self.line_starts)

    def indices_of(self, texts: frozenset[bytes]) -> list[int]:
        """The indices of the tokens spelt as one of `texts` (over the whole text)."""
        return list(compress(range(len(self.texts)), map(texts.__contains__, self.texts)))


def _spans(data: bytes, offset: int, line_starts: list[int]) -> Tokens:
    """The tokens of `data`, a stretch of a text that starts at `offset` (outside any
    comment or string), comments included."""
    pairs = _TOKEN.findall(data)  # (the blanks before, the token)
    texts = list(map(itemgetter(1), pairs))
    lengths = list(map(len, texts))
    # A token starts after the one before it and its own blanks.
    starts = array("q", accumulate(map(add, map(len, map(itemgetter(0), pairs)), chain((offset,), lengths))))
    return Tokens(starts, array("q", map(add, starts, lengths)), texts, line_starts)


def _code(found: Tokens) -> Tokens:
    """`found` without its comments."""
    if not any(map(_COMMENT, found.texts)):
        return found
    return found.where(map(not_, map(_COMMENT, found.texts)))


@lru_cache(maxsize=4)  # the repairs of one text read the same tokens
def tokens(data: bytes) -> Tokens:
    """Every token of the text, comments included."""
    return _spans(data, 0, line_starts(data))


@lru_cache(maxsize=4)
def code_tokens(data: bytes) -> Tokens:
    """The tokens without the comments."""
    found = tokens(data)
    if b"//" not in data and b"/*" not in data:
        return found
    return _code(found)


@lru_cache(maxsize=4)
def line_starts(data: bytes) -> list[int]:
    return [0] + [m.end() for m in re.finditer(rb"\n", data)]


_BRACES = frozenset({b"{", b"}"})
_BLOCKS = frozenset({b"{", b"}", b"else"})


class Index:
    """The code tokens of one text, and what the repairs of a missing brace look up in
    them by position instead of a scan of the whole file."""

    def __init__(self, toks: Tokens) -> None:
        self.toks = toks
        self.starts = toks.starts
        self.ends = toks.ends
        self.braces = [toks[i] for i in toks.indices_of(_BRACES)]
        self.opened = sum(t.text == b"{" for t in self.braces)
        self.closed = len(self.braces) - self.opened
        self.blocks = toks.indices_of(_BLOCKS)

    def _first(self, line: int) -> int:
        """The index of the first token on `line` or after it."""
        starts = self.toks.line_starts
        if line <= 0:
            return 0
        return bisect_left(self.starts, starts[line]) if line < len(starts) else len(self.starts)

    def on_line(self, line: int) -> Tokens:
        return self.toks[self._first(line):self._first(line + 1)]

    def after_line(self, line: int) -> Tokens:
        return self.toks[self._first(line + 1):]


@lru_cache(maxsize=4)
def index(data: bytes) -> Index:
    return Index(code_tokens(data))


class Text:
    """A text's braces and `else`s (`blocks`: offset and spelling, in order), and its code
    tokens by line or stretch, tokenized when asked for."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.line_starts = line_starts(data)
        self.blocks: list[tuple[int, bytes]] = []
        self._long: list[tuple[int, int]] = []  # the comments and strings that hold a line break
        size = len(data)
        for m in _STRUCTURE.finditer(data):
            found = m.group()
            start, end = m.span()
            if found == b"else":
                if (start and data[start - 1] in _WORD_BYTES) or (end < size and data[end] in _WORD_BYTES):
                    continue  # part of a longer word
                self.blocks.append((start, found))
            elif found in _BRACES:
                self.blocks.append((start, found))
            elif b"\n" in found:
                self._long.append((start, end))
        self.opened = sum(text == b"{" for _, text in self.blocks)
        self.closed = sum(text == b"}" for _, text in self.blocks)
        self._lines: dict[int, Tokens] = {}

    def _clean(self, start: int, end: int) -> bool:
        """No comment or string that holds a line break overlaps [start, end)."""
        i = bisect_right(self._long, (start, len(self.data) + 1)) - 1
        if i >= 0 and self._long[i][1] > start:
            return False
        return i + 1 >= len(self._long) or self._long[i + 1][0] >= end

    def on_line(self, line: int) -> Sequence[Token]:
        """The code tokens that start on `line` (0-based)."""
        found = self._lines.get(line)
        if found is None:
            starts = self.line_starts
            if not 0 <= line < len(starts):
                return []
            start = starts[line]
            end = starts[line + 1] if line + 1 < len(starts) else len(self.data)
            if self._clean(start, end):
                found = _code(_spans(self.data[start:end], start, starts))
            else:
                found = index(self.data).on_line(line)
            self._lines[line] = found
        return found

    def first_after_line(self, line: int) -> Token | None:
        """The first code token on a line after `line`."""
        for following in range(max(line + 1, 0), len(self.line_starts)):
            found = self.on_line(following)
            if found:
                return found[0]
        return None

    def last_ending_by(self, at: int) -> Token | None:
        """The last code token that ends at or before offset `at`."""
        for line in range(bisect_right(self.line_starts, at) - 1, -1, -1):
            before = [t for t in self.on_line(line) if t.end <= at]
            if before:
                return before[-1]
        return None

    def first_starting_from(self, at: int) -> Token | None:
        """The first code token that starts at or after offset `at`."""
        for line in range(bisect_right(self.line_starts, at) - 1, len(self.line_starts)):
            after = [t for t in self.on_line(line) if t.start >= at]
            if after:
                return after[0]
        return None

    def between(self, start: int, end: int) -> Sequence[Token]:
        """The code tokens that start at or after `start` and end before `end`."""
        first = bisect_right(self.line_starts, start) - 1
        last = bisect_right(self.line_starts, end) - 1
        return [t for line in range(first, last + 1) for t in self.on_line(line) if start <= t.start and t.end < end]

    def statement_start(self, brace: int, at: int) -> Token | None:
        """The first code token of the statement that the `{` at offset `at` ends, the
        brace before it at offset `brace` (-1 for none): as `statement_start` reads it
        in the whole text's tokens, where that walk stays after that brace; None where
        it would go past it (brackets left open across a brace: read the whole text)."""
        toks = _code(_spans(self.data[brace + 1:at], brace + 1, self.line_starts))
        i, inside = statement_start(toks.texts, len(toks), window=brace >= 0)
        if inside:
            return None
        if i < len(toks):
            return toks[i]
        return Token(at, at + 1, b"{", bisect_right(self.line_starts, at) - 1)  # `}{`: the `{` is its own start

    def blank_between(self, start: int, end: int) -> bool:
        """No code token between offsets `start` (outside any comment or string) and `end`."""
        return not _code(_spans(self.data[start:end], start, self.line_starts))


def statement_start(texts: Sequence[bytes], i: int, window: bool = False) -> tuple[int, bool]:
    """The index of the first token of the statement that token `i` is in (of the tokens
    spelt `texts`): the first after the last `;`, `{` or `}` before it outside
    parentheses and brackets; and, for a `window` of a text, whether the walk reached
    its start inside brackets (it would go on before it)."""
    depth = 0
    for j in range(i - 1, -1, -1):
        text = texts[j]
        if text in (b")", b"]"):
            depth += 1
        elif text in (b"(", b"["):
            depth -= 1
        elif depth <= 0 and text in (b";", b"{", b"}"):
            return j + 1, False
    return 0, window and depth > 0


@lru_cache(maxsize=4)
def text(data: bytes) -> Text:
    return Text(data)


def forget() -> None:
    """Drop what is kept of the last texts: each version with a syntax error is a new
    text, and at 50,000 lines a text's tokens take about 10 MB."""
    for cache in (tokens, code_tokens, line_starts, index, text):
        cache.cache_clear()
