"""cpu-c17 across machines: the work-item phase of large dispatches as tiles on a Dask
cluster (`cint run --cluster ADDRESS|local:N`; docs/cluster.md).

The entry runs in this process, in the C run-time, as always; a dispatch of at least
`cluster_min` work-items hands its work-item phase to `TileRunner.remote` (tiles.py), a
cffi callback (rt/pool.c, `remote_items`). This module connects to the cluster, reads
the options, and holds the workers' side (the Dask tasks). The plan arrives packed (the kernel's index,
sizes, arguments with the bytes of every storage a view reaches, the stagings, the
fuel allowance); it is scattered once to every worker, each tile is a Dask task that
runs `cint_tile_run` in the worker's copy of the same library (sent once per run,
loaded once per worker process, keyed by its sha256) and returns the tile's chunk:
state, charges, output, partial reduction states and the staged elements it changed.
Each result goes back into the C run-time through `cint_tile_accept`, and the
dispatch folds the tiles in ascending order exactly as the thread pool folds its
chunks: a tile that faulted, stopped, or never came back (its worker died more often
than Dask retries, the cluster went away) runs again in this process from its first
work-item with the real fuel and reductions. The outcome is therefore cpu-c17's on one
machine, byte for byte, whatever the cluster does.

Dask is an optional dependency (`pip install 'cint-ls[cluster]'`); workers need
cint-ls (the same version) and Dask, and the same machine type as the host (they load
the host's library).
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import time
from dataclasses import dataclass
from typing import Any

from ..executors import ExecutorUnavailable, Options
from ..stages import remaining, waiting
from . import worker_store
from .worker_store import _buffer, _store, assemble, forget, forget_buffer

CLUSTER_MIN = 65536  # work-items: a smaller dispatch stays in this process
TILES_PER_WORKER = 4  # more balance and smaller checks than 2; benchmarks/cluster.py (docs/cluster.md)
MAX_LOCAL_WORKERS = 64
CONNECT_TIMEOUT = 10.0  # seconds to reach a scheduler, and for its first worker
# Seconds before the run's time limit at which a wait on the cluster gives up: its one
# line then reaches the parent before the parent stops the run (running/isolated.py).
LIMIT_MARGIN = 1.0
TIME_LIMIT_SETTING = "the run's time limit bounds it: --time-limit, cint.run.timeLimit in the editors"

WORKER_CDEF = """
typedef struct cint_program cint_program;
const cint_program *cint_program_info(void);
@FUNCTIONS cint_rt.h: cint_tile_run cint_tile_run_into cint_tile_result_bytes cint_free@
"""  # with the prototypes of rt/cint_rt.h (headers.header_types), on the worker

_ADDRESS = re.compile(r"(tcp|tls)://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):([0-9]{1,5})")
_LOCAL = re.compile(r"local:([0-9]{1,4})")


class ClusterError(ExecutorUnavailable):
    """No cluster: Dask missing, a malformed address, an unreachable scheduler (one line)."""


def parse_address(spec: str) -> tuple[str, int | str]:
    """("local", N) or ("remote", "tcp://host:port"); ClusterError for anything else."""
    text = spec.strip() if isinstance(spec, str) else ""
    local = _LOCAL.fullmatch(text)
    if local is not None:
        workers = int(local.group(1))
        if not 1 <= workers <= MAX_LOCAL_WORKERS:
            raise ClusterError(f"--cluster local:N takes 1 to {MAX_LOCAL_WORKERS} workers, not {workers}")
        return "local", workers
    remote = _ADDRESS.fullmatch(text)
    if remote is not None and 0 < int(remote.group(3)) < 65536:
        return "remote", text
    raise ClusterError(f"--cluster takes a scheduler's address, tcp://HOST:PORT or tls://HOST:PORT, or local:N "
                       f"(N worker processes on this machine), not {spec!r}")


def _dask() -> Any:
    """Dask's distributed module. Dask is optional (the `cluster` extra): its objects are
    Any here, as cffi's are."""
    try:
        import distributed
    except ImportError:
        raise ClusterError("--cluster needs Dask's distributed scheduler: pip install 'cint-ls[cluster]'") from None
    return distributed


def _deadline(cap: float | None) -> tuple[float | None, str]:
    """Seconds a wait on the cluster may take (`cap`; None: no cap of its own), or less
    when the run's time limit (exec/stages.py) leaves less; and, then, the words that
    name that setting, for the message."""
    left = remaining()
    if left is not None:
        left = max(0.1, left - LIMIT_MARGIN)
        if cap is None or left < cap:
            return left, f" ({TIME_LIMIT_SETTING})"
    return cap, ""


@dataclass
class Cluster:
    """A connected client, and the LocalCluster it owns for `local:N`."""

    spec: str
    client: Any  # distributed.Client
    local: Any = None  # distributed.LocalCluster, for `local:N`
    # This process reaches every worker and they answer store_reads.HANDLER: windows and
    # results go straight between them, reads of their stores through the handler, and
    # tiles that need nothing else through tile_calls.HANDLER (else through the
    # scheduler, and reads and tiles are tasks)
    direct: bool = False

    @property
    def address(self) -> str:
        return str(self.local.scheduler_address) if self.local is not None else self.spec

    def worker_count(self) -> int:
        return len(self.client.scheduler_info()["workers"])

    def close(self) -> None:
        try:
            self.client.close()
        finally:
            if self.local is not None:
                self.local.close()


def open_cluster(spec: str) -> Cluster:
    kind, value = parse_address(spec)
    distributed = _dask()
    import logging

    for name in ("distributed", "distributed.worker", "distributed.scheduler", "distributed.nanny"):
        logging.getLogger(name).setLevel(logging.ERROR)  # Dask's own chatter stays off the run's stderr
    if kind == "local":
        try:
            local = distributed.LocalCluster(n_workers=int(value), threads_per_worker=1, processes=True,
                                             dashboard_address=None, host="127.0.0.1")
        except Exception as error:  # noqa: BLE001 - any failure to start is one line
            raise ClusterError(f"cannot start a local Dask cluster of {value} workers: {_line(error)}") from None
        client = distributed.Client(local)
        _send_at_once(client, own=True)
        return Cluster(spec, client, local, _install_reads(client))
    seconds, why = _deadline(CONNECT_TIMEOUT)
    assert seconds is not None, "a capped wait has its seconds"
    try:
        # tls://: the certificates are Dask's own settings (distributed.comm.tls.ca-file,
        # .client.cert, .client.key: $DASK_DISTRIBUTED__COMM__TLS__CA_FILE, ... or a
        # Dask configuration file), which Client() reads when no security is given
        waiting(f"the Dask scheduler at {value} to answer")
        assert isinstance(value, str), "a remote cluster's address"
        client = _connect(distributed, value, seconds, why)
    except Exception as error:  # noqa: BLE001 - OSError, TimeoutError, TLS errors: one line
        hint = ""
        if str(value).startswith("tls://"):
            hint = (" (tls:// takes its certificates from Dask's configuration: DASK_DISTRIBUTED__COMM__TLS__CA_FILE, "
                    "DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT, DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY; "
                    "docs/cluster.md)")
        raise ClusterError(f"cannot reach the Dask scheduler at {value}: {_line(error)}{hint}") from None
    seconds, why = _deadline(CONNECT_TIMEOUT)
    try:
        waiting(f"a worker of the Dask scheduler at {value}")
        client.wait_for_workers(1, timeout=seconds)
    except Exception:  # noqa: BLE001 - TimeoutError, or the scheduler went away: one line
        _close_quietly(client)
        raise ClusterError(f"the Dask scheduler at {value} has no workers: none joined within {seconds:.3g} s{why}"
                           ) from None
    finally:
        waiting(None)
    _send_at_once(client, own=False)
    return Cluster(spec, client, None, _install_reads(client))


def _install_reads(client: Any) -> bool:
    """Whether this process talks to the workers directly: their handler for reads of
    their stored results installed (store_reads.py), and each worker answering this
    process. Then a tile's windows go straight to its worker and its result straight
    back (Dask's own default goes through the scheduler: its process copies every byte
    on the way). False where the workers cannot take the handler or cannot be reached
    but through the scheduler: reads are then tasks, which wait behind tiles."""
    try:
        from . import store_reads

        store_reads.install(client)
        return store_reads.reachable(client, CONNECT_TIMEOUT)
    except Exception:  # noqa: BLE001 - only slower
        return False


SEND_INTERVAL = 0.0005  # seconds: how long a message waits for others to go with it


def _send_at_once(client: Any, own: bool) -> None:
    """Dask batches what a client, a scheduler and a worker send (a message waits up to
    10 ms in the client, 5 ms in the scheduler and 2 ms in a worker for others to go
    with it): a dispatch of tens of milliseconds waited up to 17 ms for its tiles to
    start. This process's client sends at once; so do the scheduler and workers of a
    `local:N` cluster (`own`), which this process started and nobody else uses. A Dask
    without these attributes is left as it is."""
    try:
        client.scheduler_comm.interval = SEND_INTERVAL
    except AttributeError:
        return
    if not own:
        return

    def scheduler_side(dask_scheduler: Any) -> None:
        for stream in list(dask_scheduler.stream_comms.values()) + list(dask_scheduler.client_comms.values()):
            stream.interval = SEND_INTERVAL

    def worker_side(dask_worker: Any) -> None:
        dask_worker.batched_stream.interval = SEND_INTERVAL

    try:
        client.run_on_scheduler(scheduler_side)
        client.run(worker_side)
    except Exception:  # noqa: BLE001 - only slower
        pass


def _connect(distributed: Any, address: str, seconds: float, why: str) -> Any:
    """Dask's Client for `address` within `seconds`. Client(timeout=...) bounds the TCP
    connection, not the handshake: a listener that accepts and never answers held it
    for good (issue 28). So it is made on a thread of its own, which is left behind
    (daemon, as is Dask's loop) when it does not finish in time."""
    import threading

    box: list[Any] = []  # the Client, or what its making raised

    def connect() -> None:
        try:
            box.append(distributed.Client(address, timeout=seconds))
        except BaseException as error:  # noqa: BLE001 - carried to the caller
            box.append(error)

    thread = threading.Thread(target=connect, name="cint-cluster-connect", daemon=True)
    thread.start()
    thread.join(seconds + 0.05)
    if not box:
        raise TimeoutError(f"no answer within {seconds:.3g} s{why}")
    if isinstance(box[0], BaseException):
        raise box[0]
    return box[0]


def _close_quietly(client: Any) -> None:
    try:
        client.close(timeout=1)
    except Exception:  # noqa: BLE001 - closing what failed: nothing more to say
        pass


def _line(error: BaseException) -> str:
    text = " ".join(str(error).split()) or type(error).__name__
    return text[:300]


# ---- the worker's side

_worker_libraries: dict[str, tuple[Any, Any]] = {}  # cffi's FFI and library


def _worker_library(key: str, library: bytes | None) -> tuple[Any, Any]:
    """The library of hash `key` loaded in this worker process (once; None: it must be)."""
    loaded = _worker_libraries.get(key)
    if loaded is None:
        if library is None:  # (a call, tile_calls.py, to a worker restarted since)
            raise LookupError("the worker has not loaded the run's library")
        import cffi

        directory = os.path.join(tempfile.gettempdir(), f"cint-ls-tiles-{os.getuid()}")
        os.makedirs(directory, mode=0o700, exist_ok=True)
        path = os.path.join(directory, f"{key}.so")
        if hashlib.sha256(library).hexdigest() != key:
            raise RuntimeError("the library that arrived does not match its hash")
        temporary = f"{path}.{os.getpid()}.tmp"
        with open(temporary, "wb") as handle:
            handle.write(library)
        os.replace(temporary, path)
        from .headers import header_types

        ffi = cffi.FFI()
        ffi.cdef(header_types(WORKER_CDEF))
        lib = ffi.dlopen(path)
        loaded = _worker_libraries[key] = (ffi, lib)
        _keep_freed_memory()
    return loaded


def load_library(key: str, library: bytes) -> None:
    """A Dask task: the run's library loaded on this worker before its first tile, while
    the host is still sending the first dispatch's windows (tiles.py)."""
    _worker_library(key, library)


def _keep_freed_memory() -> None:
    """glibc's malloc told to keep what a tile frees for the next one: its windows and
    results (megabytes each, every dispatch) would else be mapped fresh each time and
    their pages faulted in and zeroed again, which costs about as much as the tile's
    copies themselves (Dask's nanny asks glibc to give freed memory back early,
    MALLOC_TRIM_THRESHOLD_). Nothing where the C library is not glibc."""
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return
    mallopt(-1, 1 << 30)  # M_TRIM_THRESHOLD: keep up to 1 GiB free at the heap's top
    mallopt(-4, 0)  # M_MMAP_MAX: every block from the heap, however large (a window can pass 32 MiB)


in_place_results = 0  # kept results the run-time wrote in place (tests/cluster/test_residency.py)


# A test's wrong worker (tests/cluster/test_residency.py sets it in one worker process
# through Client.run): the last byte of each of its tiles' results is flipped, so that
# the host's check must catch it.
_wrong_answers = False


def _answer_wrongly(wrong: bool) -> None:
    global _wrong_answers
    _wrong_answers = wrong


def run_tile(key: str, library: bytes | None, parts: list[Any], first: int, end: int,
             shape: tuple[int, list[bool], list[int]] | None = None, store_as: str | None = None,
             forgotten: tuple[str, ...] = (), digest: bool = False) -> tuple[str, float, bytes, Any]:
    """A Dask task, or a call of the worker's handler (tile_calls.py, `library` None:
    loaded before): work-items [first, end) of the windowed plan made of `parts`;
    (worker, seconds, result, summary). With `shape` (the bytes of the kernel's
    reduction states, per output array whether it stays here, and the bytes of its edge
    rows that go to the host) the summary is what
    the host takes in instead of the result (`summarize`), and the result stays in this
    worker's store as `store_as` (b"" in its place); else the summary is None. The
    results `forgotten` are dropped from the store first. With `digest` (a tile the host
    will check) the summary ends with the digest of the whole result (`result_digest`),
    so that the check compares it without reading the result from behind this worker's
    queue of tiles."""
    started = time.perf_counter()
    worker_store.running = store_as or ""
    try:
        return _run_tile(key, library, parts, first, end, shape, store_as, forgotten, digest, started)
    finally:
        worker_store.running = ""


def _run_tile(key: str, library: bytes | None, parts: list[Any], first: int, end: int,
              shape: tuple[int, list[bool], list[int]] | None, store_as: str | None,
              forgotten: tuple[str, ...], digest: bool, started: float) -> tuple[str, float, bytes, Any]:
    forget(list(forgotten))
    if store_as is not None and worker_store.ended(store_as):
        raise LookupError("the run of this tile has ended")
    ffi, lib = _worker_library(key, library)
    plan = assemble(parts)
    result = ffi.new("char **")
    length = ffi.new("size_t *")
    kept = shape is not None and store_as is not None
    # A kept result goes into a buffer of the size the run-time says it will have (where
    # every output's window goes back whole): its work-items write the result in it
    # (cint_tile_run_into), not copied out of the run-time's own (a heat tile's first
    # dispatch had two fresh 32 MB buffers, tens of milliseconds of page faults each on a
    # VM); from a tile's second dispatch on it is a buffer the store freed, no fresh memory.
    known = lib.cint_tile_result_bytes(lib.cint_program_info(), plan, len(plan)) if kept else 0
    into = _buffer(known) if known else None
    pointer = ffi.from_buffer(into) if into is not None else ffi.NULL
    if lib.cint_tile_run_into(lib.cint_program_info(), plan, len(plan), first, end, pointer,
                              len(into) if into is not None else 0, result, length) != 0:
        raise RuntimeError("the worker could not unpack the dispatch's plan")
    data: Any
    if into is not None and result[0] == pointer:
        global in_place_results
        in_place_results += 1
        data = into
    else:
        try:
            if kept:
                data = _buffer(length[0])
                ffi.memmove(data, result[0], length[0])
            else:
                data = ffi.buffer(result[0], length[0])[:]
        finally:
            lib.cint_free(result[0])
        if into is not None:
            forget_buffer(into)
    if _wrong_answers and len(data) > 1:
        data = data[:-1] + bytes([data[-1] ^ 1])
    try:
        from distributed import get_worker

        where = get_worker().address
    except (ImportError, ValueError):
        where = f"pid {os.getpid()}"
    summary = None if shape is None else (*summarize(data, *shape), result_digest(data) if digest else None)
    if summary is not None and store_as is not None:
        _store[store_as] = data
        if worker_store.ended(store_as):  # (its run ended while it ran: `forget` found nothing)
            _store.pop(store_as, None)
        data = b""
    return where, time.perf_counter() - started, data, summary


def result_digest(data: bytes | bytearray) -> bytes:
    """What a check compares of a kept tile's result: its BLAKE2b digest (a worker's
    result and the host's are equal when their digests are)."""
    return hashlib.blake2b(data, digest_size=32).digest()


def summarize(data: bytes, reductions: int, stays: list[bool],
              edges: list[int] | None = None) -> tuple[bytes, dict[int, int], dict[int, tuple[bytes, bytes]]]:
    """A tile's result for the host when outputs stay on the workers (issue 33): the
    result (rt/pool.c tile_result) with each staying output's one run left out (its
    count of runs 0), where in the result each such run's bytes begin, by its position
    among the outputs, and the first and last `edges[position]` bytes of the run (what
    the neighbouring tiles' stencils read next: the host hands them on, so that a halo
    does not wait for a task on this worker). A result whose state is not done, or whose
    staying output is not one run, is given whole (no position for it)."""
    from .layout import CHUNK_DONE, Reader

    r = Reader(data)
    state, _, _, _, out_length = r.i64s(5)
    r.skip(out_length + reductions)
    if state != CHUNK_DONE:
        return data, {}, {}
    out, at, ats = [data[:r.at]], r.at, {}
    cuts: dict[int, tuple[bytes, bytes]] = {}
    for position, stays_here in enumerate(stays):
        runs = r.i64()
        spans = []
        for _ in range(runs):
            _, n = r.i64s(2)
            spans.append(r.at)
            r.skip(n)
        if stays_here and runs == 1:
            out.append((0).to_bytes(8, "little"))
            ats[position] = spans[0]
            edge = edges[position] if edges is not None else 0
            if 0 < edge and 2 * edge <= r.at - spans[0]:
                cuts[position] = (data[spans[0]:spans[0] + edge], data[r.at - edge:r.at])
        else:
            out.append(data[at:r.at])
        at = r.at
    return b"".join(out), ats, cuts


CHECKS = ("first16", "all", "none")  # which tiles the host runs again to check (cluster_check; tiles.py)
# cluster_keep: whether what the tiles write stays on the workers until the host reads it
# (outputs) or comes back at once (none: a worker's death then never loses an output)
KEEPS = ("outputs", "none")


def cluster_options(options: Options) -> tuple[str | None, int, int]:
    """(the cluster's spec or None, cluster_min, cluster_tiles: tiles per worker)."""
    spec = options.get("cluster")
    if spec is None:
        return None, CLUSTER_MIN, TILES_PER_WORKER
    if not isinstance(spec, str):
        raise ClusterError(f"cpu-c17: the option cluster takes an address, not {spec!r}")
    parse_address(spec)
    check = options.get("cluster_check", "first16")
    if check not in CHECKS:
        raise ClusterError(f"cpu-c17: the option cluster_check is one of {', '.join(CHECKS)}, not {check!r}")
    keep = options.get("cluster_keep", "outputs")
    if keep not in KEEPS:
        raise ClusterError(f"cpu-c17: the option cluster_keep is one of {', '.join(KEEPS)}, not {keep!r}")
    values = []
    for name, default in (("cluster_min", CLUSTER_MIN), ("cluster_tiles", TILES_PER_WORKER)):
        value = options.get(name, default)
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= (1 << 62):
            raise ClusterError(f"cpu-c17: the option {name} takes a whole number from 1, not {value!r}")
        values.append(value)
    return spec, values[0], values[1]
