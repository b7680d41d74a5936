"""The cluster's host side (issue 33; docs/cluster.md): each large dispatch's tiles sent
to the workers of a Dask cluster (cluster.py connects, and holds the workers' tasks), each
with the windows its work-items read (windows.py), from the pieces the workers hold or
this process's memory; results checked and taken in (cint_tile_accept); what the run
report says of it."""

from __future__ import annotations

import concurrent.futures
import hashlib
import itertools
import os
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from ..faults import JsonObject
from ..runtime import DispatchRow
from ..stages import waiting
from ..words import counted
from .cluster import CLUSTER_MIN, TILES_PER_WORKER, Cluster, _deadline, _line, load_library, result_digest, run_tile
from .worker_store import STORED, forget, piece_slice


def _timeout() -> dict[str, float]:
    """Dask's `timeout` argument for a wait within the run's time limit ({}: none)."""
    seconds, _ = _deadline(None)
    return {} if seconds is None else {"timeout": seconds}


CHUNK_DONE, CHUNK_FAULT = 1, 2
HELD = -2  # a piece's item where this process holds its bytes (a tile's edge rows; its worker windows.HERE)
CHECK_EVERY = 16  # after a worker's first tile, one in this many of its tiles is checked
TILE_SECONDS = 0.05  # the work of a tile the host aims at (`_choose_tiles`)
SLICE_BELOW = 0.5  # a piece on another worker is cut down when the tile reads less than this part of it


def _i64(*values: int) -> bytes:
    return b"".join(int(v).to_bytes(8, "little", signed=True) for v in values)


@dataclass
class TileRunner:
    """The host's callback: each dispatch's tiles on the cluster; what the report says."""

    cluster: Cluster
    library_path: str
    program: Any = None  # ir.Program: the kernels' footprints (windows.py)
    check: str = "first16"
    keep: bool = True  # outputs stay on the workers until this process reads them (cluster_keep)
    dispatches: int = 0
    tiles: int = 0
    tiles_back: int = 0
    bytes_moved: int = 0
    per_worker: dict[str, int] = field(default_factory=dict)
    tile_seconds: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # why tiles ran here after all
    resent: list[str] = field(default_factory=list)  # why tiles were sent again (a worker died)
    # dispatch number -> what its row of the run report says (`attach`; the rows:
    # RunResult.dispatch_log, rendered by running/report.py)
    rows: dict[int, JsonObject] = field(default_factory=dict)
    minimum: int = CLUSTER_MIN
    per_worker_tiles: int = TILES_PER_WORKER  # at most, where `adapt`
    # Each kernel's tiles from its dispatches' times (`_choose_tiles`); else always
    # per_worker_tiles a worker (the option cluster_tiles given)
    adapt: bool = False
    context: Any = None  # the run-time's context (cint_ctx_set_kernel_tiles)
    _tiles_now: dict[int, int] = field(default_factory=dict)  # kernel -> its tiles a worker (`_choose_tiles`)
    _asked: dict[int, int] = field(default_factory=dict)  # kernel -> what its last dispatch's times asked for
    checked: int = 0
    # Tiles that need nothing Dask must bring go straight to their worker's handler
    # (tile_calls.py) instead of as tasks through the scheduler (a row's `called`)
    calls: bool = True
    wrong: dict[str, int] = field(default_factory=dict)  # worker -> tiles whose check failed (not used again)
    _library: Any = None  # the library's Dask future, once sent
    _key: str = ""
    _pieces: Any = None  # windows.Pieces
    _kernels: list[Any] | None = None  # the library's kernel table, as the IR's kernels
    _returned: dict[str, int] = field(default_factory=dict)  # worker -> tiles it returned
    _sent: dict[str, int] = field(default_factory=dict)  # worker -> tiles sent to it
    _reach: dict[str, Any] = field(default_factory=dict)  # kernel -> its footprint (ir/footprint.py)
    # storage serial -> the pieces newer than this process's copy (outputs the tiles kept):
    # brought back by `fetch` (the run-time's callback) or `_ensure` before anything here
    # reads them
    _stale: dict[int, list[Any]] = field(default_factory=dict)
    kept_bytes: int = 0  # output bytes left on the workers instead of coming back
    fetched_bytes: int = 0  # of them, brought back because this process read them
    lost: str = ""  # why what the workers kept could not come back (the run's error says it)
    streamed: int = 0  # the run's output bytes streamed to the parent (library.run's restart)
    _stored: dict[str, str] = field(default_factory=dict)  # tile results in a worker's store -> the worker
    # The run's part of its tiles' Dask keys: unique to the run, since a key the scheduler
    # still holds from an earlier run (its release is sent later, in a batch) is taken as
    # computed, and its old result came back (a store's entry that run's end had dropped).
    _run: str = field(default_factory=lambda: f"{os.getpid()}-{uuid.uuid4().hex[:12]}")
    _forget: dict[str, list[str]] = field(default_factory=dict)  # worker -> stored results no piece needs
    _loading: list[Any] | None = None  # the workers' tasks that load the library (cluster.load_library)

    def _send_library(self) -> int:
        """The library to every worker; the bytes sent."""
        with open(self.library_path, "rb") as handle:
            data = handle.read()
        self._key = hashlib.sha256(data).hexdigest()
        workers = self.cluster.worker_count()
        self._library = self.cluster.client.scatter(data, broadcast=True, hash=False, **_timeout())
        self.bytes_moved += len(data) * max(1, workers)
        return len(data) * max(1, workers)

    def remote(self, ffi: Any, lib: Any, job: Any, plan: Any, plan_bytes: int, ntiles: int, size: int, number: int | None = None) -> int:
        """Run the tiles of dispatch `number`; hand back each result as it comes
        (cint_tile_accept). 0."""
        row: JsonObject = {"cluster": self.cluster.spec, "scheduler": self.cluster.address, "tiles": int(ntiles),
               "tiles_back": 0, "per_worker": {}, "bytes_sent": 0, "bytes_back": 0,
               "tile_seconds": [None] * int(ntiles), "plan_bytes": 0, "footprint_bytes": 0, "resident_bytes": 0,
               "halo_bytes": 0, "kept_bytes": 0, "checked": 0, "wrong": 0, "called": 0, "send_seconds": None,
               "gather_seconds": None}
        if number is not None:
            self.rows[int(number)] = row
        try:
            waiting(f"the tiles of dispatch {number} on the Dask cluster at {self.cluster.address}")
            self._remote(ffi, lib, job, ffi.buffer(plan, plan_bytes)[:], int(ntiles), int(size), row)
        except BaseException as error:  # noqa: BLE001 - the tiles not back run on the host
            self.errors.append(_line(error))
        finally:
            waiting(None)
        return 0

    def _kernel(self, ffi: Any, lib: Any, index: int) -> Any:
        if self._kernels is None:
            from .layout import kernel_names

            by_name = {k.qualified: k for k in self.program.kernels.values()}
            self._kernels = [by_name[name] for name in kernel_names(ffi, lib)]
        return self._kernels[index]

    def _workers(self, present: set[str]) -> list[str]:
        """The workers that tiles go to: those `present` whose answers were not found wrong."""
        return sorted(w for w in present if w not in self.wrong)

    def _remote(self, ffi: Any, lib: Any, job: Any, head: bytes, ntiles: int, size: int, row: JsonObject) -> None:
        from . import tile_calls
        from . import windows as w

        client = self.cluster.client
        if self._library is None:
            row["bytes_sent"] += self._send_library()  # the first dispatch's row counts the library
            if self.calls and self.cluster.direct:
                try:
                    tile_calls.install(client)
                except Exception:  # noqa: BLE001 - only slower: tiles go as tasks (as where not `direct`)
                    self.calls = False
        if self._pieces is None:
            self._pieces = w.Pieces()
        kernel = self._kernel(ffi, lib, int.from_bytes(head[8:16], "little", signed=True))
        header = w.read_header(ffi, kernel, head)
        present = set(client.scheduler_info()["workers"])  # (a round trip to the scheduler: once a dispatch)
        workers = self._workers(present)
        if not workers:
            self.errors.append("every worker gave a wrong answer: the tiles ran here")
            return
        if self._loading is None:  # (the first tile of each waited 20-60 ms for it after its windows)
            self._loading = [client.submit(load_library, self._key, self._library, workers=[w], pure=False)
                             for w in workers]
        self.dispatches += 1
        self.tiles += ntiles
        count = header.count
        started = time.perf_counter()
        reach = self._reach.get(kernel.qualified)
        if reach is None:
            from ...ir.footprint import reads

            reach = self._reach[kernel.qualified] = reads(kernel)
        plans = [w.tile_plan(ffi, kernel, header, j * size, min(count, (j + 1) * size), reach)
                 for j in range(ntiles)]
        # Outputs written whole, in one run per tile, stay on the workers when every tile
        # comes back done: only their tiles' summaries travel (cluster.summarize).
        self._pieces.drop_gone(present)
        outputs = [a for a in header.arrays if a.staging is not None]
        keep = {a.index for a in outputs
                if self.keep and w.dense(a.extents, a.strides) and all(a.index in p.owned for p in plans)}
        deferred_stale = set()
        for a in outputs:  # what the workers kept of an output that this dispatch does not overwrite comes back
            if a.serial not in self._stale:
                continue
            if a.index in keep and _inside(a, self._stale[a.serial]):
                deferred_stale.add(a.serial)
            else:
                self._ensure(ffi, a, 0, a.count)
        shape = None
        if keep:
            shape = (ffi.sizeof("cint_reduction") * len(kernel.reductions), [a.index in keep for a in outputs],
                     [_edge(a, reach, size) * a.size if a.index in keep else 0 for a in outputs])
        futures: dict[Any, int] = {}  # Dask's future of each tile -> its index
        # tile index -> where its whole result lies: its future's value, or (where outputs
        # stay) the key it has in its worker's store (worker_store._store)
        whole: dict[int, Any] = {}
        resend: list[int] = []
        # Tile j goes to worker j·W/T (the same rows to the same worker every dispatch),
        # sent in turns, each worker's first tile first: a tile's windows are scattered
        # before it is sent, and the first dispatch's (tens of megabytes a worker) held
        # the second worker's first tile back until all of the first's were sent.
        targets = [workers[j * len(workers) // ntiles] for j in range(ntiles)]
        mine: dict[str, list[int]] = {}
        for j, target in enumerate(targets):
            mine.setdefault(target, []).append(j)
        turns = [j for turn in itertools.zip_longest(*mine.values()) for j in turn if j is not None]
        for j in turns:
            plan, target = plans[j], targets[j]
            row["plan_bytes"] += plan.fixed_bytes
            key = f"cint-tile-{self._run}-{self.dispatches}-{j}"
            try:
                parts = self._parts(ffi, plan, target, row)
                args = (parts, plan.first, plan.end, shape, key if shape else None,
                        tuple(self._forget.pop(target, ())), self._will_check(target))
                if self.calls and self.cluster.direct and target in self._returned and tile_calls.needs_no_dask(parts):
                    future = tile_calls.call(client, target, (self._key, None, *args))  # (its library loaded)
                    row["called"] += 1
                else:
                    future = client.submit(run_tile, self._key, self._library, *args, workers=[target],
                                           allow_other_workers=True, pure=False, key=key)
            except Exception as error:  # noqa: BLE001 - its worker went away: it is sent whole below
                self.resent.append(_line(error))
                resend.append(j)
                continue
            whole[j] = key if shape else future
            if shape:
                self._stored[key] = target  # (where it ran, once it answers)
            futures[future] = j
        completed = tile_calls.Arrivals(list(futures))
        resent: set[int] = set()
        for j in resend:
            self._resend(ffi, plans[j], j, futures, whole, shape, completed, resent, row)
        sent = row["plan_bytes"] + row["footprint_bytes"] + row["halo_bytes"]
        self.bytes_moved += sent
        row["bytes_sent"] += sent
        row["send_seconds"] = round(time.perf_counter() - started, 9)
        started = time.perf_counter()
        results: dict[int, tuple[Any, str, dict[int, int]]] = {}  # j -> (whole result's future, worker, runs' places)
        deferred: dict[int, tuple[bytes, bytes | None]] = {}  # j -> (summary, its whole result when fetched)
        edges: dict[int, dict[int, tuple[bytes, bytes]]] = {}  # j -> output -> its window's first and last rows
        # Tiles whose first work-item lies above a faulting tile's last one cannot hold the
        # canonical fault: they are not waited for (the fold stops before them).
        bound = None
        pending = set(range(ntiles))
        # No deadline of its own: the run's time limit stops the run, with a message that
        # names this wait (stages.waiting, in `remote`).
        try:
            for future in completed:
                j = futures[future]
                try:
                    where, seconds, data, ats, cuts, digest = self._answer(future, shape, self.cluster.direct)
                    if shape is not None:
                        self._stored[whole[j]] = where
                except Exception as error:  # noqa: BLE001 - a worker died with what it held: sent again
                    if self._resend(ffi, plans[j], j, futures, whole, shape, completed, resent, row):
                        self.resent.append(_line(error))
                    else:
                        self.errors.append(_line(error))
                        pending.discard(j)  # lost for good: runs on the host
                    continue
                pending.discard(j)
                self.bytes_moved += len(data)
                self.per_worker[where] = self.per_worker.get(where, 0) + 1
                self.tile_seconds.append(seconds)
                row["bytes_back"] += len(data)
                row["per_worker"][where] = row["per_worker"].get(where, 0) + 1
                row["tile_seconds"][j] = round(seconds, 9)
                fetched: list[bytes] = []

                def full(j: int = j, data: bytes = data, fetched: list[bytes] = fetched, where: str = where) -> bytes:
                    if shape is None:
                        return data
                    if not fetched:
                        fetched.extend(self._read_now([(whole[j], where, 0, -1)]))
                        row["bytes_back"] += len(fetched[0])
                        self.bytes_moved += len(fetched[0])
                    return fetched[0]

                answer, stands = self._checked(ffi, lib, plans[j], where, data, full, digest, row)
                state = int.from_bytes(answer[:8], "little", signed=True)
                held = stands and state == CHUNK_DONE and where not in self.wrong and j not in resent
                if held and shape is not None:
                    ats = {outputs[k].index: at for k, at in ats.items()}
                    deferred[j] = (answer, fetched[0] if fetched else None)
                    results[j] = (whole[j], where, ats)
                    edges[j] = {outputs[k].index: cut for k, cut in cuts.items()}
                    row["bytes_back"] += sum(len(head) + len(tail) for head, tail in cuts.values())
                    continue
                if stands and shape is not None:  # a summary: the tile's whole result is taken in
                    answer = full()
                if held:
                    results[j] = (whole[j], where, _runs_at(ffi, kernel, answer))
                if lib.cint_tile_accept(job, j, answer, len(answer)) == 0:
                    self.tiles_back += 1
                    row["tiles_back"] += 1
                    if state == CHUNK_FAULT:
                        last = (j + 1) * size - 1
                        bound = last if bound is None else min(bound, last)
                if bound is not None and all(k * size > bound for k in pending):
                    break
        finally:
            rest = [f for f, j in futures.items() if j in pending and not isinstance(f, concurrent.futures.Future)]
            if rest:
                client.cancel(rest)
        kept = (shape is not None and len(deferred) == ntiles
                and all(set(results[j][2]) >= keep for j in deferred))
        if not kept and deferred:  # some tile did not come back done: the whole results come here after all
            missing = [j for j, (_, result) in deferred.items() if result is None]
            for j, value in zip(missing, self._read_now([(whole[j], results[j][1], 0, -1) for j in missing])):
                deferred[j] = (deferred[j][0], value)
                row["bytes_back"] += len(value)
                self.bytes_moved += len(value)
        for j, (brief, result) in deferred.items():
            taken = brief if kept else result
            assert taken is not None
            if not kept:  # (the summary's places are those of the kept outputs' runs)
                results[j] = (results[j][0], results[j][1], _runs_at(ffi, kernel, taken))
            if lib.cint_tile_accept(job, j, taken, len(taken)) == 0:
                self.tiles_back += 1
                row["tiles_back"] += 1
        for a in outputs:
            if a.index in keep and kept:
                lib.cint_tile_keep(job, a.index)
            elif a.serial in deferred_stale:  # overwritten whole by the publication (or the run faults)
                self._stale.pop(a.serial, None)
                ffi.cast("cint_storage *", a.pointer).remote = 0
        self._keep_outputs(ffi, header, results, plans, keep if kept else set(), edges if kept else {}, row)
        self._choose_tiles(lib, header.kernel, row, len(workers))
        row["gather_seconds"] = round(time.perf_counter() - started, 9)

    def _choose_tiles(self, lib: Any, kernel: int, row: JsonObject, workers: int) -> None:
        """The tiles of this kernel's next dispatches: as many a worker as keep each
        tile's work about TILE_SECONDS (at least one, at most per_worker_tiles), from
        this dispatch's tiles' times on their workers. A tile costs Dask a round of
        messages and its plan and result copies: a dispatch of 20 ms a worker goes
        fastest as one tile a worker, one of seconds gains from more (the checks run
        again a smaller part of it, a slower worker holds the others up less). The work
        is judged by the quickest tile, and the count goes up only when two dispatches in
        a row ask for more: in a worker's first dispatches a tile also pays for its
        fresh memory's page faults (up to ten times its work on a VM, whenever a larger
        window arrives), and a count taken from those times swung from 4 tiles a worker
        to 1 and back, each change a new size of window to fault in."""
        seconds = row["tile_seconds"]
        if not self.adapt or self.context is None or not seconds or any(s is None for s in seconds):
            return
        per_worker = min(seconds) * len(seconds) / max(1, workers)
        asked = max(1, min(self.per_worker_tiles, int(per_worker / TILE_SECONDS)))
        now, before = self._tiles_now.get(kernel, self.per_worker_tiles), self._asked.get(kernel, 0)
        self._asked[kernel] = asked
        tiles = asked if asked < now else min(asked, max(before, now))
        self._tiles_now[kernel] = tiles
        lib.cint_ctx_set_kernel_tiles(self.context, kernel, tiles * workers)

    def _read(self, key: str, worker: str, at: int, n: int) -> Any:
        """The future of n bytes from `at` (n < 0: all) of the tile result `key` that
        `worker` keeps in its store."""
        return self.cluster.client.submit(piece_slice, key, STORED, at, n, workers=[worker],
                                          allow_other_workers=True, pure=False)

    def _read_now(self, reads: list[tuple[str, str, int, int]]) -> list[bytes]:
        """The bytes of each (key, worker, at, n) of the results workers keep, here: by
        the workers' handler, which answers at once (store_reads.py), or where they lack
        it by tasks, which wait behind the tiles queued on their workers."""
        if self.cluster.direct:
            from . import store_reads

            return store_reads.read(self.cluster.client, reads, _timeout().get("timeout"))
        return list(self.cluster.client.gather([self._read(*r) for r in reads]))

    @staticmethod
    def _answer(future: Any, shape: Any, direct: bool) -> tuple[str, float, bytes, dict[int, int],
                                                              dict[int, tuple[bytes, bytes]], bytes | None]:
        if isinstance(future, concurrent.futures.Future):  # a call of the worker's handler (tile_calls.py)
            where, seconds, data, summary = future.result()
        else:
            where, seconds, data, summary = future.client.gather(future, direct=direct)
        if shape is None:
            return where, seconds, data, {}, {}, None
        data, ats, cuts, digest = summary
        return where, seconds, data, ats, cuts, digest

    def _will_check(self, worker: str) -> bool:
        """Whether the next tile sent to `worker` is one `_checked` will run again (a
        worker runs its tiles in the order sent, so its first and one in CHECK_EVERY after
        it): its worker then sends its result's digest with the summary, and the check
        need not read the result from behind that worker's queue of tiles."""
        sent = self._sent.get(worker, 0)
        self._sent[worker] = sent + 1
        return self._sampled(sent)

    def _sampled(self, n: int) -> bool:
        """Whether a worker's tile number n (from 0) is one the host checks (cluster_check)."""
        return self.check == "all" or (self.check == "first16" and n % CHECK_EVERY == 0)

    def again(self) -> TileRunner:
        """A runner for the run's next attempt on the same cluster, outputs coming back at
        once (after a worker died with those it kept)."""
        runner = TileRunner(self.cluster, self.library_path, self.program, self.check, keep=False)
        runner.minimum, runner.per_worker_tiles, runner.adapt = self.minimum, self.per_worker_tiles, self.adapt
        runner.calls = self.calls
        return runner

    def finish(self) -> None:
        """The run's end: the tile results the workers keep for it are dropped."""
        if not self._stored and not self._forget:
            return
        workers: dict[str, list[str]] = {worker: [] for worker in self._returned}
        for key, worker in self._stored.items():  # (each worker its own: those it lacks are still to come)
            workers.setdefault(worker, []).append(key)
        for worker, keys in self._forget.items():  # (those no piece needed, left for a next tile)
            workers.setdefault(worker, []).extend(keys)
        self._stored.clear()
        self._forget.clear()
        for worker, keys in workers.items():
            try:
                self.cluster.client.run(forget, keys, True, workers=[worker], on_error="ignore")
            except Exception:  # noqa: BLE001 - a worker gone took them with it
                pass

    def fetch(self, ffi: Any, storage: Any) -> int:
        """The run-time's callback (cint_storage_fetch): the elements the workers kept of
        `storage` brought here, and its mark cleared. 0, or 1 when they cannot come."""
        try:
            serial = int(storage.serial)
            self._bring(ffi, serial, int(ffi.cast("uintptr_t", storage.data)), int(storage.element_size), None)
            storage.remote = 0
            return 0
        except BaseException as error:  # noqa: BLE001 - the run stops with CINT_RESOURCE, which says why
            self.lost = _line(error)
            return 1

    def _ensure(self, ffi: Any, a: Any, lo: int, hi: int) -> None:
        """Elements [lo, hi) of array `a`'s storage as the run has them, in this process's
        memory: what the workers kept of them brought back."""
        if a.serial not in self._stale:
            return
        self._bring(ffi, a.serial, a.address, a.size, (lo, hi))
        if a.serial not in self._stale:
            ffi.cast("cint_storage *", a.pointer).remote = 0

    def _bring(self, ffi: Any, serial: int, address: int, size: int, span: tuple[int, int] | None) -> None:
        pieces = self._stale.get(serial, [])
        taken = [p for p in pieces if span is None or (p.lo < span[1] and span[0] < p.hi)]
        if taken:
            waiting(f"the workers of the Dask cluster at {self.cluster.address} sending back an array they kept")
            try:
                # (a kept output's pieces are results in their workers' stores)
                values = self._read_now([(p.future, p.worker, p.at, (p.hi - p.lo) * size) for p in taken])
            finally:
                waiting(None)
            for p, value in zip(taken, values):
                n = (p.hi - p.lo) * size
                ffi.memmove(ffi.cast("char *", address + p.lo * size), value, n)
                self.fetched_bytes += n
                self.bytes_moved += n
        rest = [p for p in pieces if p not in taken]
        if rest:
            self._stale[serial] = rest
        else:
            self._stale.pop(serial, None)

    def _ensure_plan(self, ffi: Any, plan: Any) -> None:
        from . import windows as w

        for part in plan.parts:
            if isinstance(part, w.Window):
                self._ensure(ffi, part.array, part.lo, part.hi)

    def _parts(self, ffi: Any, plan: Any, target: str, row: JsonObject) -> list[Any]:
        """The tile's plan as parts for `target`: each input window from the pieces the
        workers hold (cut down where another worker holds much more than the tile
        reads) and from this process's memory for the rest, scattered to `target`."""
        from . import windows as w

        client = self.cluster.client
        parts: list[Any] = []
        for part in plan.parts:
            if not isinstance(part, w.Window):
                parts.append(part)
                continue
            a, segments = part.array, []
            for piece, lo, hi in self._pieces.cover(a, part.lo, part.hi, target):
                n = (hi - lo) * a.size
                if piece is None:
                    self._ensure(ffi, a, lo, hi)
                    [future] = client.scatter([w.view(ffi, a.address, lo, hi, a.size)], workers=[target],
                                              hash=False, direct=self.cluster.direct, **_timeout())
                    self._pieces.add(a.serial, w.Piece(lo, hi, future, 0, None, a.version, target))
                    row["footprint_bytes"] += n
                    segments.append((future, None, 0, n))
                    continue
                at = piece.at + (lo - piece.lo) * a.size
                if piece.item == HELD:  # a neighbour's edge rows, here: they go with the tile
                    segments.append((piece.future[at:at + n], None, 0, n))
                    row["halo_bytes"] += n
                    continue
                if piece.worker != target and piece.item == STORED:  # in another worker's store: cut there
                    segments.append((self._read(piece.future, piece.worker, at, n), None, 0, n))
                    row["halo_bytes"] += n
                    continue
                if piece.worker != target and hi - lo < SLICE_BELOW * (piece.hi - piece.lo):
                    cut = client.submit(piece_slice, piece.future, piece.item, at, n, workers=[piece.worker],
                                        allow_other_workers=True, pure=False)
                    segments.append((cut, None, 0, n))
                    row["halo_bytes"] += n
                    continue
                row["halo_bytes" if piece.worker != target else "resident_bytes"] += n
                segments.append((piece.future, piece.item, at, n))
            parts.append(segments)
        return parts

    def _resend(self, ffi: Any, plan: Any, j: int, futures: dict[Any, int], whole: dict[int, Any], shape: Any,
                completed: Any, resent: set[int], row: JsonObject) -> bool:
        """Tile j sent again whole, from this process's memory, to a worker that is there
        (its worker died with the pieces it held: a death costs a resend). False when it
        was sent again already, or no worker takes it: it then runs here."""
        if j in resent:
            return False
        resent.add(j)
        workers = self._workers(set(self.cluster.client.scheduler_info()["workers"]))  # (now: one died)
        if not workers:
            return False
        target = workers[j % len(workers)]
        key = f"cint-tile-{self._run}-{self.dispatches}-{j}-again"
        try:
            self._ensure_plan(ffi, plan)
            data = plan.bytes(ffi)
            [scattered] = self.cluster.client.scatter([data], workers=[target], hash=False, direct=self.cluster.direct,
                                                      **_timeout())
            future = self.cluster.client.submit(run_tile, self._key, self._library, [scattered], plan.first,
                                                plan.end, shape, key if shape else None, (),
                                                self._will_check(target), pure=False, key=key)
        except Exception as error:  # noqa: BLE001 - the cluster went away: runs on the host
            self.errors.append(_line(error))
            return False
        row["footprint_bytes"] += len(data)
        self.bytes_moved += len(data)
        row["bytes_sent"] += len(data)
        whole[j] = key if shape else future
        if shape:
            self._stored[key] = target
        futures[future] = j
        completed.add(future)
        return True

    def _checked(self, ffi: Any, lib: Any, tile: Any, where: str, data: bytes, full: Any, digest: bytes | None,
                 row: JsonObject) -> tuple[bytes, bool]:
        """The answer to take in, and whether it is the worker's (`data`, its result or
        summary; `full()`: its whole result, whose `digest` the worker may have sent) or
        the host's, where a check finds the worker's wrong: a worker's first tile and one
        in CHECK_EVERY after it (cluster_check) run again here on the host's own bytes and
        compared byte for byte (or digest for digest). A worker found wrong gets no more
        tiles in this run and its pieces are dropped."""
        returned = self._returned.get(where, 0)
        self._returned[where] = returned + 1
        if where not in self.wrong and not self._sampled(returned):
            return data, True  # (a worker found wrong: every tile it still returns is run here)
        first, end = tile.first, tile.end
        self._ensure_plan(ffi, tile)
        plan = tile.bytes(ffi)
        result, length = ffi.new("char **"), ffi.new("size_t *")
        if lib.cint_tile_run(lib.cint_program_info(), plan, len(plan), first, end, result, length) != 0:
            return data, True
        try:
            mine = bytes(ffi.buffer(result[0], length[0]))
        finally:
            lib.cint_free(result[0])
        self.checked += 1
        row["checked"] += 1
        if (result_digest(mine) == digest) if digest is not None else mine == full():
            return data, True
        self.wrong[where] = self.wrong.get(where, 0) + 1
        row["wrong"] += 1
        if self._pieces is not None:
            self._pieces.drop_worker(where)
        return mine, False

    def _keep_outputs(self, ffi: Any, header: Any, results: dict[int, tuple[Any, str, dict[int, int]]],
                      plans: list[Any], kept: set[int], edges: dict[int, dict[int, tuple[bytes, bytes]]],
                      row: JsonObject) -> None:
        """After the dispatch the outputs' storages change (the publication): their old
        pieces go, and each tile's written window of an output whose view lies contiguous
        in its storage stays where it was computed, as a piece valid after that
        publication. Of an output in `kept` (its elements did not come here) those
        pieces are also what this process's copy lacks (`_stale`)."""
        from . import windows as w

        pieces = self._pieces
        for a in header.arrays:
            if a.staging is None:
                continue
            pieces.drop(a.serial)
            base = a.offset // max(1, a.size) + a.origin
            if not w.dense(a.extents, a.strides) or len(results) != len(plans):
                continue
            version = (a.version[0], a.version[1] + 1)
            made = []
            for j, (future, where, ats) in results.items():
                window = plans[j].owned.get(a.index)
                at = ats.get(a.index)
                if window is None or at is None:
                    continue
                item = STORED if isinstance(future, str) else 2
                made.append(w.Piece(base + window[0], base + window[1], future, at, item, version, where))
                pieces.add(a.serial, made[-1])
                cut = edges.get(j, {}).get(a.index)
                if cut is not None:  # its first and last rows, here: a neighbour's halo goes from here
                    lo, hi, n = base + window[0], base + window[1], len(cut[0]) // a.size
                    pieces.add(a.serial, w.Piece(lo, lo + n, cut[0], 0, HELD, version, w.HERE))
                    pieces.add(a.serial, w.Piece(hi - n, hi, cut[1], 0, HELD, version, w.HERE))
            if a.index in kept:
                self._stale[a.serial] = made
                held = sum(p.hi - p.lo for p in made) * a.size
                row["kept_bytes"] += held
                self.kept_bytes += held
        # The stored results no piece holds any more are dropped by the next tile their
        # worker runs (or at the run's end, `finish`).
        live = {p.future for pieces in (*self._pieces.by_serial.values(), *self._stale.values()) for p in pieces
                if p.item == STORED}
        for key in [k for k in self._stored if k not in live]:
            self._forget.setdefault(self._stored.pop(key), []).append(key)

    def attach(self, rows: list[DispatchRow] | None) -> None:
        """Each recorded dispatch that went to the cluster gets its `cluster` entry:
        the cluster as asked (`local:2`, an address) and its scheduler's address, its
        tiles and how many came back, tiles per worker, the bytes sent to the workers
        (the plan to each; the first such dispatch also the library to each) and back
        from them, and each tile's seconds on its worker (None: did not come back)."""
        for row in rows or []:
            number = row.get("number")
            entry = self.rows.get(number) if isinstance(number, int) else None
            if entry is not None:
                row["cluster"] = entry

    def note(self, total_dispatches: int) -> str | None:
        if not self.dispatches:
            return None
        spread = ", ".join(f"{w}: {n}" for w, n in sorted(self.per_worker.items()))
        mean = sum(self.tile_seconds) / len(self.tile_seconds) * 1e3 if self.tile_seconds else 0.0
        text = (f"cpu-c17 ran the work-items of {self.dispatches} of {total_dispatches} dispatches on the cluster "
                f"{self.cluster.address}: {self.tiles_back} of {self.tiles} tiles came back ({spread}), "
                f"{self.bytes_moved / 1e6:.1f} MB moved, {mean:.2f} ms per tile on its worker")
        if self.kept_bytes:
            text += (f"; {self.kept_bytes / 1e6:.1f} MB of outputs kept on the workers, "
                     f"{self.fetched_bytes / 1e6:.1f} MB of it brought back when this process read it")
        if self.resent:
            text += f"; {counted(len(self.resent), 'tile')} sent again after: {self.resent[0]}"
        if self.errors:
            text += f"; tiles run again here after: {self.errors[0]}"
        if self.wrong:
            text += (f"; the host's check found {counted(sum(self.wrong.values()), 'wrong tile')} from "
                     f"{', '.join(sorted(self.wrong))} (not used again; the host's answers stand)")
        return text


def _edge(a: Any, reach: dict[int, Any], size: int) -> int:
    """The elements at each end of a tile's window of output `a` that a neighbouring
    tile's stencil is likely to read next: as many leading rows as the kernel reads its
    own inputs away from the over variable (at least one), and one more where tiles of
    `size` work-items end inside a row (the neighbour reads whole rows: without it the
    rest of a row came from this process, fetched from the worker first)."""
    rows = 1
    for dims in reach.values():
        o = dims[0] if dims else None
        if o is not None and o.var == 0:
            rows = max(rows, -o.low, o.high)
    inner = 1
    for extent in a.extents[1:]:
        inner *= extent
    return (rows + (size % inner != 0)) * inner


def _inside(a: Any, pieces: list[Any]) -> bool:
    """Whether every piece lies inside array `a`'s view (a dense one: one run)."""
    base = a.offset // max(1, a.size) + a.origin
    n = 1
    for extent in a.extents:
        n *= extent
    return all(base <= p.lo and p.hi <= base + n for p in pieces)


def _runs_at(ffi: Any, kernel: Any, data: bytes) -> dict[int, int]:
    """Where in a tile's result the bytes of each output's one run begin (a window sent
    back whole), by the output's parameter; an output of other than one run has none."""
    from .layout import Reader

    r = Reader(data)
    _, _, _, _, out_length = r.i64s(5)
    r.skip(out_length)
    r.skip(ffi.sizeof("cint_reduction") * len(kernel.reductions))
    found: dict[int, int] = {}
    for i, p in enumerate(kernel.params):
        if p.extents is None or p.mode == "in":
            continue
        runs = r.i64()
        for _ in range(runs):
            _, n = r.i64(), r.i64()
            if runs == 1:
                found[i] = r.at
            r.skip(n)
    return found


__all__ = ["TileRunner"]
