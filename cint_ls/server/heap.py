"""The server's heap: when Python's cyclic collector runs, and how C's allocator keeps
the memory a big document's versions come and go in.

The collector. A big document's syntax trees, AST and analysis are hundreds of
thousands of objects that live long (1.4 million at 50,000 lines). Python's cyclic
collector walks all of them in each full collection, which would come every few edits
and cost as much as the analysis of the edit (about 100 ms at 5,000 lines, 1.1-1.7 s at
50,000, measured in process). So after each publication the heap is frozen
(`gc.freeze`: the collector leaves those objects alone). Hardly anything needs a full
collection: after edits of a 50,000-line file one found nothing to free (the versions'
objects go by reference counting), so it runs only when the server has been idle for
IDLE_COLLECT seconds, or every FULL_COLLECT_EVERY publications while someone types
without a pause: it cannot be interrupted, and a keystroke that meets it waits for it.

At start-up the collector is off (`main.main` turns it off before its imports) until the
first publication (the fast start's, once the server adopts its document: prelude.py),
or IDLE_COLLECT seconds when no document is opened: the imports and a first analysis
make objects by the hundred thousand and nearly no garbage, and the young collections
they set off walked them again and again, about 40% of a first analysis at 5,000 lines
(benchmarks/startup.py, docs/performance.md).

The allocator (glibc only; elsewhere these do nothing). A fresh parse of a provisional
version (handlers/documents.py) holds a second tree for a moment: 53 MB at 50,000 lines,
on top of what the heap already keeps. By default glibc gives each thread that allocates
its own arena, and what the parsing thread freed stays resident in its arena while the
loop's allocations grow another; and memory freed in the middle of an arena stays
resident until `malloc_trim`, which the parsing thread calls before each fresh parse (and a
full collection after it). Measured side by side at 50,000 lines (benchmarks/lsp.py,
VS Code's pattern, peak RSS, 2026-12-01): 415 MB without either, 368 MB with both. A
trim takes 0.3 ms there, and about 0.5 ms of the loop's time at 5,000 lines: it is not
done after every publication, which did not lower the peak.
"""

from __future__ import annotations

import ctypes
import gc
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .session import Session

IDLE_COLLECT = 10.0  # seconds without a publication before a full garbage collection
FULL_COLLECT_EVERY = 2000  # publications
_M_ARENA_MAX = -8  # mallopt's parameter number, from glibc's malloc.h


def _glibc():
    """The C library the process runs with, if it is glibc. Its symbols from the
    process itself (dlopen(NULL)): `ctypes.util.find_library` runs `ldconfig` or a
    compiler, tens of milliseconds at every start."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)
        libc.malloc_trim, libc.mallopt  # noqa: B018 - musl has neither
    except (OSError, AttributeError):
        return None
    return libc


_LIBC = _glibc()


def one_arena() -> bool:
    """Every thread allocates from the one arena (call before the server's threads
    start: an arena made before stays). Whether the allocator took it."""
    return _LIBC is not None and _LIBC.mallopt(_M_ARENA_MAX, 1) == 1


def trim() -> None:
    """Give the pages malloc holds free back to the system."""
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


def collect_when_idle() -> None:
    """From the running loop: the collector back on IDLE_COLLECT seconds from now, when
    no publication did it before (a client that opens no document)."""
    import asyncio  # here: `main` imports this module before the fast start, which has no loop

    asyncio.get_running_loop().call_later(IDLE_COLLECT, gc.enable)


def settle_heap(session: Session) -> None:
    """After a publication: freeze what the heap holds now and plan the next full
    collection."""
    try:
        import asyncio

        loop = asyncio.get_running_loop()
    except RuntimeError:
        return
    state = session.publishing
    gc.freeze()
    gc.enable()  # off since the start until the first publication: what it made is frozen now
    state.count += 1
    if state.idle_collect is not None:
        state.idle_collect.cancel()
        state.idle_collect = None
    if state.count % FULL_COLLECT_EVERY == 0:
        _collect(session)
    else:
        state.idle_collect = loop.call_later(IDLE_COLLECT, _collect, session)


def _collect(session: Session) -> None:
    session.publishing.idle_collect = None
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    trim()
