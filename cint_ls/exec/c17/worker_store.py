"""A worker process's store of the tile results it keeps for the host (outputs kept on
the workers, issue 33: docs/cluster.md), and how tiles and the host read it. Its own
module so that cluster.py (the tiles) and store_reads.py (the workers' read handler)
both use it without importing each other."""

from __future__ import annotations

from typing import Any

# The tile results this worker process keeps for the host (outputs kept on the workers,
# tiles.py): the tile's key -> its result. The host reads them through this worker's
# handler (store_reads.py; `piece_slice` tasks where it cannot reach the worker) and names
# them in later tiles' windows (a segment whose item is STORED; another worker's tile
# reads its halo with a `piece_slice` task); it says which to forget (run_tile's
# `forget`, `forget`).
_store: dict[str, Any] = {}  # (bytearrays, reused through _spare)
# Results the store forgot, kept for the next ones of their size: fresh memory of tens of
# megabytes costs its page faults again on every tile (on a VM, each fault can cost ten
# times a copy: memory returned to the host), whatever glibc is told (a Dask task runs on
# a thread, whose malloc arena gives large blocks back to the system).
_spare: list[bytearray] = []
SPARE = 4


def _buffer(n: int) -> bytearray:
    for i, spare in enumerate(_spare):
        if len(spare) == n:
            return _spare.pop(i)
    _spare.clear()  # (of other sizes: tiles changed shape, and malloc may make this one of them)
    return bytearray(n)


# The key of the kept tile result this worker computes now ("": none, or one not kept):
# what it is doing, readable from its event loop while its thread runs the tile (a tile
# sent as a call, tile_calls.py, is not among the scheduler's tasks)
running = ""

# The keys of the results of runs that have ended (`forget` with `end`), the latest
# ENDED: a tile of one that arrives or finishes after the end is not run or not kept
_ended: dict[str, None] = {}
ENDED = 4096


def ended(key: str) -> bool:
    return key in _ended


STORED = -1  # a window segment's item where its value is a key of the store


def _segment_bytes(value: Any, item: int | None, at: int, n: int) -> bytes | memoryview:
    """n bytes from `at` (all from `at` when n < 0) of a Dask future's value (`item` of
    it), or of the store's result `value` (item STORED)."""
    if item == STORED:
        data = _store.get(value)
        if data is None:  # this worker did not compute it (it was restarted, or the tile moved): sent again
            raise LookupError(f"the worker no longer holds {value}")
    else:
        data = value if item is None else value[item]
    return memoryview(data)[at:] if n < 0 else memoryview(data)[at:at + n]


def assemble(parts: list[Any]) -> bytes:
    """A windowed plan from its parts: bytes as they are, and windows as the segments of
    the pieces that make them (value, item, byte offset, bytes), each a Dask future's
    value here."""
    out: list[bytes | bytearray | memoryview] = []
    for part in parts:
        if isinstance(part, (bytes, bytearray)):
            out.append(part)
        else:
            out.extend(_segment_bytes(*segment) for segment in part)
    return b"".join(out)


def forget(keys: list[str], end: bool = False) -> None:
    """The tile results `keys` that this worker keeps, dropped; their buffers kept for the
    next results, or, at a run's `end` (Client.run), given back with the others kept.
    At the end a key not stored yet is a tile still to come (a call the host no longer
    waits for, tile_calls.py): it is not run, or not kept (`ended`)."""
    if end:
        _ended.update(dict.fromkeys(keys))  # (before the pops: a tile storing now sees it after)
        for old in list(_ended)[:-ENDED]:
            del _ended[old]
    for key in keys:
        data = _store.pop(key, None)
        if isinstance(data, bytearray) and not end:
            forget_buffer(data)
    if end:
        _spare.clear()


def forget_buffer(data: bytearray) -> None:
    """A buffer no result holds, kept for the next result of its size."""
    _spare.append(data)
    del _spare[:-SPARE]


def piece_slice(value: Any, item: int | None, at: int, n: int) -> bytes:
    """A Dask task where a piece lies: the bytes of it another worker's tile reads (a
    halo), or the host where it cannot reach the worker directly (a kept output, a
    check), so that only they travel."""
    return bytes(_segment_bytes(value, item, at, n))
