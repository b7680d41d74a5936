"""The workbench at a terminal: prompt_toolkit's prompt, as IPython and ptpython use.

Multi-line input that goes on while a bracket is open (Enter then adds a line; Esc
Enter always runs), history kept across sessions in `$XDG_STATE_HOME/cint-ls/
workbench_history`, completion from the language server's own `ide.completion` over
the session's program, colours from the tree-sitter grammar's highlight query, Ctrl-C
cancels the input being typed (or the entry running: the session stays), Ctrl-D leaves.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from .lines import open_brackets
from .session import Session, complete

# highlight query captures -> prompt_toolkit styles
STYLES = {
    "keyword": "ansimagenta", "type": "ansicyan", "type.builtin": "ansicyan", "function": "ansiblue",
    "function.call": "ansiblue", "number": "ansigreen", "string": "ansiyellow", "comment": "ansibrightblack",
    "operator": "", "constant": "ansigreen", "constant.builtin": "ansigreen", "variable.parameter": "",
}


def history_path() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or ""
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".local" / "state"
    return root / "cint-ls" / "workbench_history"


def highlighted(text: str) -> list[list[tuple[str, str]]]:
    """The input's lines as (style, text) fragments, by the grammar's highlight query."""
    from ..syntax.parser import parse
    from ..syntax.queries import captures

    data = text.encode("utf-8")
    styles = [""] * len(data)
    try:
        found = captures("highlights", parse(text).root_node)
    except Exception:  # noqa: BLE001 - colours are a nicety: plain text rather than a broken prompt
        found = {}
    for name, nodes in found.items():
        style = STYLES.get(name, STYLES.get(name.split(".")[0], ""))
        if not style:
            continue
        for node in nodes:
            for i in range(node.start_byte, min(node.end_byte, len(data))):
                styles[i] = style
    lines: list[list[tuple[str, str]]] = [[]]
    for i, byte in enumerate(data):
        if byte == 0x0A:
            lines.append([])
            continue
        if (byte & 0xC0) == 0x80:
            continue  # a continuation byte: its character starts before
        end = i + 1
        while end < len(data) and (data[end] & 0xC0) == 0x80:
            end += 1
        char = data[i:end].decode("utf-8", "replace")
        line = lines[-1]
        if line and line[-1][0] == styles[i]:
            line[-1] = (styles[i], line[-1][1] + char)
        else:
            line.append((styles[i], char))
    return lines


def interactive(session: Session) -> int:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.completion import Completer, Completion
    from prompt_toolkit.history import FileHistory, InMemoryHistory
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.lexers import Lexer

    class CintCompleter(Completer):
        def get_completions(self, document: Any, complete_event: Any) -> Iterable[Any]:
            text = document.text
            if text.lstrip().startswith(":"):
                return
            word = document.get_word_before_cursor(WORD=False)
            try:
                items = complete(session, text, document.cursor_position)
            except Exception:  # noqa: BLE001 - no completion rather than a broken prompt
                return
            for item in items:
                if item.label.startswith(word):
                    yield Completion(item.label, start_position=-len(word), display_meta=item.detail)

    class CintLexer(Lexer):
        def lex_document(self, document: Any) -> Callable[[int], Any]:
            lines = highlighted(document.text)
            return lambda number: lines[number] if number < len(lines) else []

    keys = KeyBindings()

    @keys.add("enter")
    def _(event: Any) -> None:
        buffer = event.current_buffer
        if open_brackets(buffer.text) > 0 and not buffer.text.lstrip().startswith(":"):
            buffer.insert_text("\n")
        else:
            buffer.validate_and_handle()

    path = history_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        history: Any = FileHistory(str(path))
    except OSError:
        history = InMemoryHistory()  # a read-only home: history for this session only
    prompt: Any = PromptSession(history=history, completer=CintCompleter(), lexer=CintLexer(), multiline=True,
                           key_bindings=keys, complete_while_typing=False,
                           prompt_continuation=lambda width, line, wrap: "...> ".rjust(width))
    while True:
        try:
            text = prompt.prompt(session.prompt)
        except KeyboardInterrupt:
            continue  # Ctrl-C drops the input being typed
        except EOFError:
            return 0
        try:
            answer = session.enter(text)
        except KeyboardInterrupt:
            print("interrupted")
            continue
        print(answer.text, end="")
        if answer.quit:
            return 0
