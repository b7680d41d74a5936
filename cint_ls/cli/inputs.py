"""Reading a source file, with one-line errors for input that is not a cint file."""

from __future__ import annotations

from pathlib import Path

from ..syntax import SourceText


class InputError(Exception):
    """Input the toolchain cannot use; the message is one line."""


def read_source(path: str) -> SourceText:
    file = Path(path)
    try:
        data = file.read_bytes()
    except IsADirectoryError:
        raise InputError(f"'{path}' is a directory, not a .ci file") from None
    except FileNotFoundError:
        raise InputError(f"'{path}' does not exist") from None
    except OSError as error:
        raise InputError(f"cannot read '{path}': {error.strerror or error}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise InputError(f"'{path}' is not UTF-8 text (invalid byte 0x{data[error.start]:02x} on line {line})") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return SourceText(text, path)
