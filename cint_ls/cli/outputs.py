"""The files the CLI writes (`--trace`, `--trace-html`, `cint trace -o`): checked before
anything runs, and written whole or not at all.

An output that is the same file as an input (the same path, a hard link, a symbolic link
to it) is refused before the input is even read: `cint run --trace h.ci h.ci` would
otherwise replace the program with its trace. Every output is written to a temporary
file beside it and renamed into place only when it is complete, so a run that fails,
is interrupted or meets a full disk leaves the file as it was.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from .inputs import InputError

STDOUT = "-"


def _identity(path: str) -> tuple[int, int] | None:
    """(device, inode) of the file `path` names, following links; None where there is none yet."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_dev, status.st_ino


def refuse_clobbering(outputs: list[tuple[str, str]], inputs: list[str]) -> None:
    """InputError when an output (`(flag, path)`, `-` is stdout) is the same file as an
    input or as another output: by device and inode where the file exists (a hard or
    symbolic link to it too), else by its resolved place."""
    taken: list[tuple[str, tuple[int, int] | None, str]] = [
        (f"the input {path}", _identity(path), os.path.realpath(path)) for path in inputs]
    for flag, path in outputs:
        if path == STDOUT:
            continue
        # realpath: links followed, so two spellings of a file not there yet compare equal
        identity, place = _identity(path), os.path.realpath(path)
        for what, other_identity, other_place in taken:
            if (identity is not None and identity == other_identity) or place == other_place:
                raise InputError(f"{flag} {path}: is {what}; refusing to overwrite it (name another file)")
        taken.append((f"the output of {flag}", identity, place))


def check_writable(path: str, flag: str) -> None:
    """InputError, before anything runs, for an output that cannot be written: no such
    directory, a directory in the file's place, a directory without write permission."""
    if path == STDOUT:
        return
    target = Path(os.path.realpath(path))
    if not target.parent.is_dir():
        raise InputError(f"{flag} {path}: no directory {target.parent}")
    if target.is_dir():
        raise InputError(f"{flag} {path}: is a directory")
    if not os.access(target.parent, os.W_OK):
        raise InputError(f"{flag} {path}: cannot write in {target.parent}")


def _new_file_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def write_output(path: str, text: str, flag: str) -> None:
    """`text` to `path` (`-`: stdout) through a temporary file in the same directory,
    renamed over it only once it is all written; the temporary file is removed on every
    failure. A symbolic link is written through (the file it names is replaced), and an
    existing file keeps its permissions."""
    if path == STDOUT:
        sys.stdout.write(text)
        return
    target = os.path.realpath(path)
    directory, name = os.path.split(target)
    try:
        mode = os.stat(target).st_mode & 0o7777
    except OSError:
        mode = _new_file_mode()
    temporary = None
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory)
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
        temporary = None
    except OSError as error:
        raise InputError(f"{flag} {path}: {error.strerror or error}") from None
    finally:
        if temporary is not None:
            try:
                os.unlink(temporary)
            except OSError:
                pass
