"""What a cluster's tile is sent and what stays on the workers (issue 33; tiles.py sends it).

The run-time hands the cluster's host a dispatch's header (rt/pool.c `pack_plan`, header only: the
plan's fields and each view and storage as they lie in this process, no storage bytes).
From it and the kernel's footprint (ir/footprint.py: the index range each array
parameter is read at, relative to the over variables) each tile of work-items gets, per
array parameter, a *window*: the elements [lo, hi) of the storage its work-items can
read (the view's whole bounding interval where the reads cannot be bounded), and of each
output's staging the elements its work-items own, which it sends back whole when every
one is written (`whole`), or as the runs it changed.

Windows are made of *pieces*: spans of a storage held by a worker, as Dask futures, each
valid while the storage has had no store of sequential code and no publication since it
was made (cint_storage.stores and .publications, which the run-time counts). A tile's
window is taken from the valid pieces that cover it and, for the rest, from this
process's memory (scattered to the worker the tile goes to); a tile's written window
becomes a piece of the output's storage, valid after the publication that follows. So
the next dispatch sends a worker only what other workers wrote inside its footprint (a
stencil's halo), cut out of their pieces where they lie.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...ir import nodes as ir
from ...ir.footprint import Offsets
from .layout import RANK, SIZES, Reader

HERE = ""  # a piece's worker where this process holds its bytes (tiles.py: a tile's edge rows)
TILE_HEAD = 0x3144414548544E49  # "INTHEAD1" (rt/pool.c)
TILE_WINDOWED = 0x32454C4954544E49  # "INTTILE2"
WINDOW_DIFF, WINDOW_WHOLE = 0, 1


@dataclass
class Array:
    """An array parameter of the dispatch, as the header gives it."""

    index: int
    mode: str
    view: bytes  # cint_view as it lies in memory
    storage: bytes  # cint_storage as it lies in memory
    offset: int  # bytes from the storage's data to the view's
    size: int  # bytes per element
    count: int  # the storage's elements
    address: int  # the storage's data, in this process
    serial: int
    version: tuple[int, int]  # (stores, publications)
    origin: int  # the view's first element in its storage
    extents: list[int]
    strides: list[int]
    staging: tuple[bytes, bytes] | None = None  # an output's staging view and storage
    staging_address: int = 0
    staging_extents: list[int] = field(default_factory=list)
    staging_strides: list[int] = field(default_factory=list)
    staging_origin: int = 0
    staging_count: int = 0
    whole: bool = False  # every element of the staging is written (it is not a copy of the output)
    pointer: int = 0  # the cint_storage itself, in this process (its `remote` mark)


@dataclass
class Header:
    words: bytes  # the fields after the magic, as a windowed plan repeats them
    kernel: int
    number: int
    over: list[int]
    count: int
    scalars: dict[int, bytes]
    arrays: list[Array]


def read_header(ffi: Any, kernel: ir.Kernel, data: bytes) -> Header:
    r = Reader(data)
    if r.i64() & ((1 << 64) - 1) != TILE_HEAD:
        raise ValueError("not a dispatch header of this run-time")
    index, number = r.i64(), r.i64()
    r.i64s(SIZES)
    over = r.i64s(RANK)[:len(kernel.over)]
    count = r.i64()
    r.i64s(4)  # budget, allowance, depth, dispatches
    words = data[8:r.at]
    view_size, storage_size = ffi.sizeof("cint_view"), ffi.sizeof("cint_storage")
    scalars: dict[int, bytes] = {}
    arrays: list[Array] = []
    for i, param in enumerate(kernel.params):
        if param.extents is None:
            if param.mode == "in":
                scalars[i] = r.take(max(getattr(param.type, "bits", 8) // 8, 1))  # its C size (describe.encode)
            continue
        view, storage = r.take(view_size), r.take(storage_size)
        offset = r.i64()
        v, s = _struct(ffi, "cint_view", view), _struct(ffi, "cint_storage", storage)
        rank = int(v.rank)
        a = Array(i, param.mode, view, storage, offset, int(s.element_size), int(s.count),
                  int(ffi.cast("uintptr_t", s.data)), int(s.serial), (int(s.stores), int(s.publications)),
                  int(v.origin), [int(v.extents[d]) for d in range(rank)], [int(v.strides[d]) for d in range(rank)],
                  pointer=int(ffi.cast("uintptr_t", v.storage)))
        if param.mode != "in":
            wview, wstorage = r.take(view_size), r.take(storage_size)
            a.staging, a.whole = (wview, wstorage), r.i64() != 0
            w, ws = _struct(ffi, "cint_view", wview), _struct(ffi, "cint_storage", wstorage)
            a.staging_address = int(ffi.cast("uintptr_t", ws.data))
            a.staging_count = int(ws.count)
            a.staging_extents = [int(w.extents[d]) for d in range(int(w.rank))]
            a.staging_strides = [int(w.strides[d]) for d in range(int(w.rank))]
            a.staging_origin = int(w.origin) + (int(ffi.cast("uintptr_t", w.data)) - a.staging_address) // max(
                1, int(ws.element_size))
        arrays.append(a)
    return Header(words, index, number, over, count, scalars, arrays)


def _struct(ffi: Any, name: str, data: bytes) -> Any:
    cdata = ffi.new(f"{name} *")
    ffi.memmove(cdata, data, len(data))
    return cdata[0]


def dense(extents: list[int], strides: list[int]) -> bool:
    """Whether a view's elements lie row-major and contiguous (strides of its extents)."""
    step = 1
    for extent, stride in zip(reversed(extents), reversed(strides)):
        if extent > 1 and stride != step:
            return False
        step *= extent
    return True


def over_ranges(over: list[int], first: int, end: int) -> list[tuple[int, int]]:
    """The values each over variable takes in work-items [first, end) (row-major), as
    inclusive ranges: the outermost exactly, the others whole unless the tile lies in one
    row of the outermost."""
    inner = 1
    for extent in over[1:]:
        inner *= extent
    outer = (first // inner, (end - 1) // inner)
    out = [outer] + [(0, e - 1) for e in over[1:]]
    if outer[0] == outer[1] and len(over) > 1 and inner == over[-1]:
        out[-1] = (first % inner, (end - 1) % inner)
    return out


def read_window(a: Array, reach: tuple[Offsets | None, ...] | None, ranges: list[tuple[int, int]]) -> tuple[int, int]:
    """The storage elements [lo, hi) an input's tile can read: the bounding interval of
    the view's indices its footprint allows ((0, 0) when none)."""
    lo = hi = a.offset // max(1, a.size) + a.origin
    for d, (extent, stride) in enumerate(zip(a.extents, a.strides)):
        span = (0, extent - 1)
        o = reach[d] if reach is not None and d < len(reach) else None
        if o is not None:
            base = (0, 0) if o.var is None else ranges[o.var]
            span = (max(0, base[0] + o.low), min(extent - 1, base[1] + o.high))
        if span[0] > span[1] or extent == 0:
            return 0, 0
        a_, b_ = span[0] * stride, span[1] * stride
        lo, hi = lo + min(a_, b_), hi + max(a_, b_)
    return lo, hi + 1


def owned_window(a: Array, over: list[int], first: int, end: int) -> tuple[int, int] | None:
    """The staging elements [lo, hi) that work-items [first, end) own (their leading
    indices), where they are contiguous; None where not (the whole staging is sent)."""
    rank, nover = len(a.staging_extents), len(over)
    if rank < nover or a.staging_origin != 0 or not dense(a.staging_extents, a.staging_strides):
        return None
    if a.staging_extents[1:nover] != over[1:nover]:
        return None
    inner = 1
    for extent in a.staging_extents[nover:]:
        inner *= extent
    return first * inner, end * inner


def memory(ffi: Any, address: int, lo: int, hi: int, size: int) -> bytes:
    """Elements [lo, hi) of the storage whose data lies at `address` in this process."""
    return bytes(view(ffi, address, lo, hi, size))


def view(ffi: Any, address: int, lo: int, hi: int, size: int) -> memoryview:
    """`memory` where it lies, not copied: for what is sent or joined at once, while the
    storage cannot change (a first dispatch's 64 MB of heat were copied into fresh
    memory before they were scattered: a third of the time they took)."""
    return memoryview(ffi.buffer(ffi.cast("char *", address + lo * size), (hi - lo) * size))


@dataclass
class Window:
    """An input's window in a tile's plan: elements [lo, hi) of its storage."""

    array: Array
    lo: int
    hi: int


@dataclass
class TilePlan:
    """Work-items [first, end) as a windowed plan (rt/pool.c tile_unpack): bytes, and the
    input windows, which come from pieces or from memory; `owned`: each output's staging
    window that the tile sends back whole."""

    first: int
    end: int
    parts: list[bytes | Window]
    owned: dict[int, tuple[int, int]]
    fixed_bytes: int

    def bytes(self, ffi: Any) -> bytes:
        """The whole plan from this process's memory (a check, a resend)."""
        return b"".join(p if isinstance(p, bytes) else view(ffi, p.array.address, p.lo, p.hi, p.array.size)
                        for p in self.parts)


def tile_plan(ffi: Any, kernel: ir.Kernel, header: Header, first: int, end: int,
              reach: dict[int, tuple[Offsets | None, ...] | None]) -> TilePlan:
    """Tile [first, end)'s plan: each input's window by the kernel's footprint (nothing
    for an input it never reads, the view's bounding interval where its reads cannot be
    bounded), each output's owned staging window (sent back whole where every element is
    written; else the window's elements go with it, as the staging holds them). `reach`:
    the kernel's footprint (ir/footprint.py `reads`)."""
    ranges = over_ranges(header.over, first, end)
    arrays = {a.index: a for a in header.arrays}
    start = TILE_WINDOWED.to_bytes(8, "little") + header.words
    parts: list[bytes | Window] = [start]
    owned: dict[int, tuple[int, int]] = {}
    fixed = len(start)
    for i in range(len(kernel.params)):
        if i in header.scalars:
            parts.append(header.scalars[i])
            fixed += len(header.scalars[i])
            continue
        a = arrays.get(i)
        if a is None:
            continue
        lo, hi = (0, 0) if a.mode == "out" or i not in reach else read_window(a, reach[i], ranges)
        head = a.view + a.storage + _words(a.offset, lo, hi - lo)
        parts += [head, Window(a, lo, hi)]
        fixed += len(head)
        if a.staging is None:
            continue
        window = owned_window(a, header.over, first, end)
        wlo, whi = window if window is not None else (0, a.staging_count)
        # Sent back whole only where the window is the tile's own: a whole staging goes
        # with its bytes and comes back as what changed (right whatever it held).
        mode = WINDOW_WHOLE if a.whole and window is not None else WINDOW_DIFF
        head = a.staging[0] + a.staging[1] + _words(wlo, whi - wlo, mode)
        parts.append(head)
        fixed += len(head)
        if mode == WINDOW_DIFF:  # the staging is a copy of the output: the tile starts from its window
            parts.append(memory(ffi, a.staging_address, wlo, whi, a.size))
        elif window is not None:
            owned[i] = window
    return TilePlan(first, end, parts, owned, fixed)


def _words(*values: int) -> bytes:
    return b"".join(int(v).to_bytes(8, "little", signed=True) for v in values)


@dataclass
class Piece:
    """Storage elements [lo, hi) held by a worker: the bytes at `at` of a Dask future's
    value (`item` of it, when the value is a tile's result tuple)."""

    lo: int
    hi: int
    future: Any
    at: int
    item: int | None
    version: tuple[int, int]
    worker: str


@dataclass
class Pieces:
    """The pieces of each storage (by serial), valid or not yet dropped."""

    by_serial: dict[int, list[Piece]] = field(default_factory=dict)

    def valid(self, a: Array) -> list[Piece]:
        kept = [p for p in self.by_serial.get(a.serial, [])
                if p.version == a.version and getattr(p.future, "status", "finished") == "finished"]
        self.by_serial[a.serial] = kept
        return kept

    def cover(self, a: Array, lo: int, hi: int, target: str | None = None) -> list[tuple[Piece | None, int, int]]:
        """[lo, hi) as consecutive spans, each from a valid piece or (None) from memory:
        where several pieces hold an element, one on `target` first, then one whose
        bytes are here (`here`), then any; the longest of them."""
        pieces = sorted(self.valid(a), key=lambda p: (p.lo, -p.hi))

        def rank(p: Piece) -> int:
            return 0 if p.worker == target else 1 if p.worker == HERE else 2

        out: list[tuple[Piece | None, int, int]] = []
        at = lo
        while at < hi:
            holding = [p for p in pieces if p.lo <= at < p.hi]
            if holding:
                p = min(holding, key=lambda p: (rank(p), -p.hi))
                better = [q.lo for q in pieces if at < q.lo < p.hi and rank(q) < rank(p)]
                stop = min([hi, p.hi] + better)
                out.append((p, at, stop))
                at = stop
                continue
            following = [p.lo for p in pieces if p.lo > at]
            stop = min([hi] + following)
            out.append((None, at, stop))
            at = stop
        return out

    def add(self, serial: int, piece: Piece) -> None:
        self.by_serial.setdefault(serial, []).append(piece)

    def drop(self, serial: int) -> None:
        self.by_serial.pop(serial, None)

    def drop_gone(self, workers: set[str]) -> None:
        """The pieces of workers no longer in the cluster dropped (what they held is gone)."""
        for serial, pieces in self.by_serial.items():
            self.by_serial[serial] = [p for p in pieces if p.worker in workers or p.worker == HERE]

    def drop_worker(self, worker: str) -> None:
        for serial, pieces in self.by_serial.items():
            self.by_serial[serial] = [p for p in pieces if p.worker != worker]


__all__ = ["Array", "HERE", "Header", "Piece", "Pieces", "TILE_WINDOWED", "TilePlan", "WINDOW_DIFF", "WINDOW_WHOLE", "Window",
           "dense", "memory", "over_ranges", "owned_window", "read_header", "read_window", "tile_plan"]
