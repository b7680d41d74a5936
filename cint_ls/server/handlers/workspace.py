"""`workspace/symbol`: the top-level names of every `.ci` file of the workspace folders,
open or not, matched by the query as a subsequence (`ide.fuzzy_score`).

An open document answers from its current version. The other files are read from disk
on a thread (never on the loop), each analysed once and kept while its modification time
and size stay the same. Bounded: at most MAX_FILES files, none over MAX_BYTES or that is
not UTF-8 text, no hidden directories (`.git`, `.venv`) or `node_modules`, and at most
BUDGET seconds of reading and analysing per request; what is left waits for the next
request (and the answer says so in the server's log).
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
import weakref
from pathlib import Path

from lsprotocol import types as lsp
from pygls.uris import from_fs_path, to_fs_path

from ... import ide
from .. import convert
from ..session import Session

logger = logging.getLogger("cint_ls.server")

MAX_FILES = 5000
MAX_BYTES = 2 << 20
BUDGET = 2.0  # seconds of reading and analysing files per request
MAX_RESULTS = 1000
_SKIP_DIRS = {"node_modules", "__pycache__"}

# Symbol = (name, kind, range, detail), ready to be matched and sent.
_Symbols = list[tuple[str, str, lsp.Range, str]]


class FileIndex:
    """The symbols of the files read from disk, by path, with (mtime_ns, size)."""

    def __init__(self) -> None:
        self.files: dict[str, tuple[tuple[int, int], _Symbols]] = {}

    def symbols_of(self, path: str, stamp: tuple[int, int]) -> _Symbols | None:
        kept = self.files.get(path)
        return kept[1] if kept is not None and kept[0] == stamp else None

    def read(self, path: str, stamp: tuple[int, int]) -> _Symbols:
        """The file's symbols (none when it is not UTF-8 text), kept with its stamp."""
        found: _Symbols = []
        try:
            data = Path(path).read_bytes()
            text = None if b"\0" in data else data.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            text = None
        if text is not None:
            doc = ide.Document(from_fs_path(path) or path, text, path=path)
            found = _converted(doc, ide.top_level_symbols(doc))
        self.files[path] = (stamp, found)
        return found


_indexes: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # session -> FileIndex


def _converted(doc, symbols) -> _Symbols:
    return [(s.name, s.kind, convert.lsp_range(doc.source, s.selection), s.detail) for s in symbols]


def folders(session: Session) -> list[str]:
    """The workspace folders as paths (else the root), from the initialize params as
    pygls keeps them (it follows workspace/didChangeWorkspaceFolders)."""
    workspace = getattr(session.client, "workspace", None)
    if workspace is None:
        return []
    paths = [to_fs_path(f.uri) for f in getattr(workspace, "folders", {}).values()]
    if not paths and getattr(workspace, "root_path", None):
        paths = [workspace.root_path]
    return [p for p in paths if p and os.path.isdir(p)]


def ci_files(roots: list[str], limit: int = MAX_FILES) -> list[tuple[str, tuple[int, int]]]:
    """The `.ci` files under `roots` with their (mtime_ns, size), at most `limit`."""
    out: list[tuple[str, tuple[int, int]]] = []
    seen: set[str] = set()
    for root in roots:
        for directory, dirs, files in os.walk(root):  # links to directories are not followed
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS)
            for name in sorted(files):
                if not name.endswith(".ci"):
                    continue
                path = os.path.join(directory, name)
                try:
                    st = os.stat(path)
                except OSError:
                    continue
                if path in seen or st.st_size > MAX_BYTES or not os.path.isfile(path):
                    continue
                seen.add(path)
                out.append((path, (st.st_mtime_ns, st.st_size)))
                if len(out) >= limit:
                    return out
    return out


def _search(index: FileIndex, roots: list[str], open_docs: list, query: str) -> list[lsp.SymbolInformation]:
    """On a thread: the matching symbols of the open documents and of the files."""
    found: list[tuple[tuple, str]] = []  # (symbol, uri)
    open_paths = set()
    for snapshot in open_docs:
        if snapshot.path and not snapshot.path.startswith("<"):
            open_paths.add(os.path.normcase(os.path.abspath(snapshot.path)))
        for symbol in _converted(snapshot, ide.top_level_symbols(snapshot)):
            found.append((symbol, snapshot.uri))
    deadline = time.monotonic() + BUDGET
    left = 0
    for path, stamp in ci_files(roots):
        if os.path.normcase(os.path.abspath(path)) in open_paths:
            continue
        symbols = index.symbols_of(path, stamp)
        if symbols is None:
            if time.monotonic() > deadline:
                left += 1
                continue
            symbols = index.read(path, stamp)
        uri = from_fs_path(path) or path
        found += [(symbol, uri) for symbol in symbols]
    if left:
        logger.info("workspace/symbol: %d files not read yet (%.1f s budget)", left, BUDGET)
    scored = []
    for (name, kind, range_, detail), uri in found:
        score = ide.fuzzy_score(query, name)
        if score is not None:
            scored.append((score, name, uri, kind, range_, detail))
    scored.sort(key=lambda s: (s[0], s[1], s[2]))
    return [lsp.SymbolInformation(name=name, kind=convert.symbol_kind(kind),
                                  location=lsp.Location(uri=uri, range=range_), container_name=detail or None)
            for _, name, uri, kind, range_, detail in scored[:MAX_RESULTS]]


async def workspace_symbol(session: Session, params: lsp.WorkspaceSymbolParams) -> list[lsp.SymbolInformation]:
    index = _indexes.get(session)
    if index is None:
        index = _indexes[session] = FileIndex()
    open_docs = [entry.doc.snapshot() for entry in list(session.documents.values())]
    try:
        return await asyncio.to_thread(_search, index, folders(session), open_docs, params.query or "")
    except Exception as error:  # noqa: BLE001 - a search never takes the server down
        session.failed(lsp.WORKSPACE_SYMBOL, error)
        return []
