"""Reading a source file, with one-line errors for input that is not a cint file."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..syntax import SourceText

# A source file larger than this is refused rather than read without bound (a device
# such as /dev/zero, a runaway generator on a pipe).
MAX_SOURCE_BYTES = 64 << 20


class InputError(Exception):
    """Input the toolchain cannot use; the message is one line."""


def _read_bounded(file: Path, limit: int, kind: str) -> bytes:
    """The file's bytes: a regular file, or a pipe (`<(...)`, read like `cat` does); a
    device is refused, and so is anything over `limit` bytes."""
    with open(file, "rb") as handle:
        mode = os.fstat(handle.fileno()).st_mode
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISSOCK(mode):
            raise InputError(f"'{file}' is a device, not {kind}")
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise InputError(f"'{file}' is larger than {limit >> 20} MiB, the most {kind} can be")
    return data


def read_text(path: str, limit: int | None = None, kind: str = "a .ci file") -> str:
    """The UTF-8 text of the file `path` (a byte-order mark dropped), read at most to
    `limit` bytes (default MAX_SOURCE_BYTES); InputError (one line) for anything else. `kind` names what the file
    should be, for the messages."""
    file = Path(path)
    try:
        data = _read_bounded(file, MAX_SOURCE_BYTES if limit is None else limit, kind)
    except IsADirectoryError:
        raise InputError(f"'{path}' is a directory, not {kind}") from None
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
    return text


def read_source(path: str) -> SourceText:
    return SourceText(read_text(path), path)
