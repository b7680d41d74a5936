"""Running a compiled program: load its shared library with cffi, run the entry in a
thread with a large stack, and read back the output, the fault record (JSON, straight
into FaultRecord.from_json), the fuel consumed and, for --check, the trace.

Large dispatches run their work-items on a pool of threads (rt/pool.c), with the
outcome of one thread: option `threads` (default: the cores this process may run on,
`os.sched_getaffinity`), each thread with the entry thread's stack.

The library is native code: a defect in it can crash the process, so the CLI and the
language server run cpu-c17 in a child process (cint_ls/running/isolated.py), which calls
`run` here.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...ir import nodes as ir
from ..executors import UNTRANSLATABLE, ExecutorUnavailable, Options, Write
from ..faults import FaultRecord
from ..runtime import Boundary, DispatchRow, RunResult
from ..selection import current_selection
from ..stages import RUNNING, output_stream, reached
from .build import build_library
from .emit import EmitError, emit_program
from .headers import header_types
from .layout import C17RunError as C17RunError  # raised here; its home is layout.py (cluster.py reads it there)
from .pictures import Pictures

if TYPE_CHECKING:  # imported when a run uses a cluster: it needs dask
    from .tiles import TileRunner

EXECUTOR = "cpu-c17"
FLUSH_INTERVAL = 0.02  # seconds between sends of the output streamed to an isolated run's parent
STACK_SIZE = 512 << 20  # bytes: MAX_CALL_DEPTH (100,000) nested calls of frames up to 5 KiB (rt/stack.c)
MAX_BUDGET = (1 << 63) - 1
MAX_THREADS = 1024
PARALLEL_MIN = 4096  # work-items: a smaller dispatch runs on one thread (README.md "Threads")
WORKER_STACK_MIN = 64 << 20  # bytes: a pool thread's least stack under an address-space limit
CHUNK_MIN = 1024  # work-items: the least chunk a thread of the pool takes

CDEF = """
typedef struct cint_ctx cint_ctx;
typedef struct cint_program cint_program;
@TYPES cint_rt.h: cint_boundary@
@FUNCTIONS cint_rt.h: cint_ctx_new cint_ctx_free cint_ctx_run cint_ctx_fuel_consumed cint_ctx_output
    cint_ctx_message cint_ctx_dispatches cint_ctx_boundaries cint_fault_json cint_free
    cint_ctx_stream_output cint_ctx_flush_output cint_ctx_output_more cint_ctx_output_streamed
    cint_ctx_set_output_skip@
const cint_program *cint_program_info(void);
@TYPES cint_rt.h: cint_storage cint_view cint_arg cint_dispatch_record cint_reduction@
@FUNCTIONS cint_rt.h: cint_ctx_describe cint_ctx_set_threads cint_ctx_threads_used
    cint_ctx_parallel_dispatches cint_ctx_set_report cint_ctx_records cint_ctx_set_observer cint_ctx_set_remote
    cint_tile_accept cint_ctx_remote_dispatches cint_tile_run cint_tile_run_phase cint_program_kernel
    cint_ctx_set_remote_header cint_ctx_set_fetch cint_tile_keep cint_ctx_set_kernel_tiles@
"""


CDEF = header_types(CDEF)

CINT_OK, CINT_FAULT, CINT_RESOURCE = 0, 1, 2
RAN_SERIAL = 0  # cint_dispatch_record.ran (rt/cint_rt.h): CINT_RAN_SERIAL; else the pool's chunks or tiles


class Untranslatable(ExecutorUnavailable):
    """cpu-c17 cannot translate the program (beyond its limits: README.md "Limits")."""

    refusal = UNTRANSLATABLE


# cffi has no type information: its FFI, libraries and C data are Any here.
_ffi: Any = None
_ffi_lock = threading.Lock()
_libraries: dict[str, Any] = {}


def _declarations() -> Any:
    """cffi's FFI told the run-time's declarations (CDEF), made once: pycparser reads
    them in some 40 to 70 ms, which `run` spends while the C compiler runs."""
    global _ffi
    with _ffi_lock:
        if _ffi is None:
            import cffi

            ffi = cffi.FFI()
            ffi.cdef(CDEF)
            _ffi = ffi
    return _ffi


def _build_while_declaring(c_text: str) -> Path:
    """build_library, while cffi reads the declarations on a thread of its own: on a
    first Run the compiler runs meanwhile (issue 29). In turn where no thread starts (a
    tight memory limit); a failure to declare is left to `_load`, which says it."""

    def declare() -> None:
        try:
            _declarations()
        except Exception:  # noqa: BLE001 - said by _load, on the run's own thread
            pass

    helper = threading.Thread(target=declare, name="cint-c17-cdef", daemon=True)
    started = True
    try:
        helper.start()
    except RuntimeError:  # can't start new thread
        started = False
    try:
        return build_library(c_text)
    finally:
        if started:
            helper.join()


def _load(path: Path) -> tuple[Any, Any]:
    ffi = _declarations()
    key = str(path)
    if key not in _libraries:
        _libraries[key] = ffi.dlopen(key)
    return ffi, _libraries[key]


def emit(program: ir.Program, also: tuple[str, ...] = ()) -> str:
    try:
        return emit_program(program, also)
    except EmitError as error:
        raise Untranslatable(f"cpu-c17 cannot translate this program: {error}") from None


def emit_for_cluster(program: ir.Program) -> str:
    """The program's C for a run on a cluster: it counts the stores of sequential code
    into each storage, so that a storage the workers hold is sent again only once the
    host wrote it (windows.py)."""
    return "#define CINT_COUNT_STORES 1\n" + emit(program)


def default_threads() -> int:
    """The cores this process may run on (its CPU affinity), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # no sched_getaffinity (macOS)
        return max(1, os.cpu_count() or 1)


def _whole(options: Options, name: str, default: int, low: int, high: int) -> int:
    value = options.get(name)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ExecutorUnavailable(f"cpu-c17: the option {name} takes a whole number from {low} to {high}, "
                                  f"not {value!r}")
    return value


def thread_options(options: Options) -> tuple[int, int, int]:
    """(threads, parallel_min, chunk_min) from the executor's options: `threads` (1 to
    1024; default `default_threads()`), and for tests and tuning `parallel_min` (the
    least dispatch, in work-items, that runs on the pool; 4096) and `chunk_min` (the
    least chunk; 1024)."""
    threads = _whole(options, "threads", 0, 1, MAX_THREADS) or default_threads()
    return (threads, _whole(options, "parallel_min", PARALLEL_MIN, 1, MAX_BUDGET),
            _whole(options, "chunk_min", CHUNK_MIN, 1, MAX_BUDGET))


def run(program: ir.Program, fuel: int | None, write: Write | None = None, options: Options | None = None) -> RunResult:
    """The Executor interface: emit, build (cached), run in this process. Options:
    `trace` (for --check: the boundaries in RunResult.trace), `report` (a record per
    dispatch in RunResult.dispatch_log, for `cint run --report`), `stack_size` (bytes of
    the threads that run the entry and its work-items), `threads`, `parallel_min`,
    `chunk_min` (`thread_options`). With the trace's selection of arrays around the run
    (exec/selection.py `selected_arrays`), the rows also hold their pictures (pictures.py)."""
    options = options or {}
    threads, parallel_min, chunk_min = thread_options(options)
    text = emit_for_cluster(program) if options.get("cluster") is not None else emit(program)
    library = _build_while_declaring(text)
    selection = current_selection()  # pictures of arrays for the trace (exec/selection.py, pictures.py)
    tiles = None
    # The time limit of an isolated run counts from here (exec/stages.py): reaching the
    # cluster too, whose waits end within it (cluster.py).
    reached(RUNNING)
    if options.get("cluster") is not None:  # cluster.py: the work-items of large dispatches as tiles on Dask
        from . import cluster

        spec, cluster_min, per_worker = cluster.cluster_options(options)
        assert spec is not None, "the option cluster is given"
        from .tiles import TileRunner

        tiles = TileRunner(cluster.open_cluster(spec), str(library), program,
                           str(options.get("cluster_check", "first16")),
                           keep=options.get("cluster_keep", "outputs") == "outputs")
        tiles.minimum, tiles.per_worker_tiles = cluster_min, per_worker
        tiles.adapt = "cluster_tiles" not in options  # given: every dispatch in as many
    def attempt(skip: int = 0) -> tuple[RunResult, list[Boundary]]:
        return run_library(library, fuel, trace=bool(options.get("trace")),
                           stack_size=int(options.get("stack_size", STACK_SIZE)),
                           threads=threads, parallel_min=parallel_min, chunk_min=chunk_min,
                           report=bool(options.get("report")), tiles=tiles,
                           pictures=None if selection is None else Pictures(program, selection),
                           stream=output_stream(), skip=skip)

    restarted = None
    try:
        try:
            result, boundaries = attempt()
        except C17RunError:
            if tiles is None or not tiles.lost or not tiles.keep:
                raise
            # A worker died with outputs it kept, which nothing else holds: the run starts
            # again with every output coming back at once (a run is deterministic: the
            # same output, fuel and outcome; what the parent was sent already is not sent
            # again).
            restarted, streamed = tiles.lost, tiles.streamed
            tiles.finish()
            tiles = tiles.again()
            result, boundaries = attempt(streamed)
    finally:
        if tiles is not None:
            tiles.finish()
            tiles.cluster.close()
    if tiles is not None:
        tiles.attach(result.dispatch_log)  # the report's rows name the cluster, tiles, bytes, times
        note = tiles.note(result.dispatches)
        if note is not None:
            result.notes.append(note)
        if restarted is not None:
            result.notes.append(f"cpu-c17's run on the cluster started again after a worker died with outputs it "
                                f"kept ({restarted}), with every output coming back at once (--cluster-keep none)")
    if options.get("trace"):
        result.trace = [[b.dispatch, b.output_length, b.fuel, b.digest] for b in boundaries]
    if write is not None and result.output and output_stream() is None:  # streamed: already sent
        write(result.output)
    return result


def run_library(path: Path, fuel: int | None, trace: bool = False, stack_size: int = STACK_SIZE,
                threads: int = 1, parallel_min: int = PARALLEL_MIN,
                chunk_min: int = CHUNK_MIN, report: bool = False, tiles: TileRunner | None = None,
                pictures: Pictures | None = None,
                stream: tuple[int, int | None] | None = None, skip: int = 0) -> tuple[RunResult, list[Boundary]]:
    ffi, lib = _load(path)
    budget = -1 if fuel is None or fuel > MAX_BUDGET else fuel
    ctx = lib.cint_ctx_new(budget, 1 if trace else 0)
    if ctx == ffi.NULL:
        raise MemoryError("the cpu-c17 run exceeded its memory limit")
    try:
        threads, worker_stack = _fit_threads(threads, _fit_stack(stack_size))
        lib.cint_ctx_set_threads(ctx, threads, worker_stack, parallel_min, chunk_min)
        if report:
            lib.cint_ctx_set_report(ctx, 1)
        lib.cint_ctx_set_output_skip(ctx, skip)  # streamed by an earlier attempt of the run
        remote = None
        if tiles is not None:  # kept alive until the run ends
            # the dispatch in its work-item phase took the number dispatches - 1 (rt/dispatch.c)
            remote = ffi.callback("int(void *, void *, const char *, size_t, int64_t, int64_t)",
                                  lambda user, job, plan, length, ntiles, size:
                                  tiles.remote(ffi, lib, job, plan, length, ntiles, size,
                                               int(lib.cint_ctx_dispatches(ctx)) - 1), error=0)
            lib.cint_ctx_set_remote(ctx, remote, ffi.NULL, tiles.minimum,
                                    max(1, tiles.cluster.worker_count()) * tiles.per_worker_tiles)
            lib.cint_ctx_set_remote_header(ctx, 1)  # the header: the host reads the storages (windows.py)
            tiles.context = ctx  # the tiles of each kernel, as the host chooses them (cint_ctx_set_kernel_tiles)
            fetch = ffi.callback("int(void *, cint_storage *)", lambda user, storage: tiles.fetch(ffi, storage),
                                 error=1)
            lib.cint_ctx_set_fetch(ctx, fetch)  # what the workers kept, brought back before the host reads it
        if pictures is not None:  # kept alive until the run ends
            pictures.listen(ffi, lib, ctx)
        with OutputStream(ffi, lib, ctx, stream, EXECUTOR) as printed:
            status = _run_in_thread(lib, ctx, stack_size)
        output, kept, more = printed.output, printed.kept, printed.more
        if status == CINT_RESOURCE:
            message = ffi.string(lib.cint_ctx_message(ctx)).decode("utf-8", "replace")
            if "memory limit" in message:
                raise MemoryError(message)
            if tiles is not None and tiles.lost:
                message += (f" ({tiles.lost}): a worker that died took them with it; with --cluster-keep none "
                            "(the option cluster_keep) every output comes back at once and a death costs a resend")
            raise C17RunError(f"the cpu-c17 run failed: {message}")
        fault = None
        if status == CINT_FAULT:
            fault = fault_record(ffi, lib, ctx, EXECUTOR)
        boundaries = []
        if trace:
            pointer = ffi.new("cint_boundary **")
            count = lib.cint_ctx_boundaries(ctx, pointer)
            for k in range(count):
                b = pointer[0][k]
                boundaries.append(Boundary(int(b.dispatch), int(b.output_length), int(b.fuel), int(b.digest)))
        consumed = int(lib.cint_ctx_fuel_consumed(ctx))
        boundaries.append(Boundary(None, kept + more, consumed, None))
        result = RunResult(output, fault, consumed, EXECUTOR, int(lib.cint_ctx_dispatches(ctx)))
        if printed.note is not None:
            result.notes.append(printed.note)
        if report:
            result.dispatch_log = _records(ffi, lib, ctx)
            note = None if pictures is None else pictures.attach(result.dispatch_log)
            if note is not None:
                result.notes.append(note)
        parallel = int(lib.cint_ctx_parallel_dispatches(ctx))
        if parallel:
            result.notes.append(f"cpu-c17 ran the work-items of {parallel} of {result.dispatches} dispatches on "
                                f"{int(lib.cint_ctx_threads_used(ctx))} threads")
        return result, boundaries
    finally:
        if tiles is not None:
            tiles.streamed = int(lib.cint_ctx_output_streamed(ctx))
        lib.cint_ctx_free(ctx)


def fault_record(ffi: Any, lib: Any, ctx: Any, executor: str) -> FaultRecord:
    """The fault record of a run that ended with CINT_FAULT (rt/context.c
    cint_fault_json), for cpu-c17, its work-item descriptions and gpu-cuda's host."""
    text = lib.cint_fault_json(ctx)
    if text == ffi.NULL:
        raise MemoryError(f"the {executor} run exceeded its memory limit")
    try:
        return FaultRecord.from_json(json.loads(ffi.string(text).decode("utf-8")))
    finally:
        lib.cint_free(text)


class OutputStream:
    """What the entry prints, for cpu-c17 and gpu-cuda's host alike (one context of the C
    run-time, rt/text.c). In an isolated run (`stream`: the parent's pipe and how many
    bytes to keep) it goes to the parent every FLUSH_INTERVAL while the entry runs, and
    the rest at its end, so the parent has the output up to the moment it stops the run;
    after the run, `output` is what was kept, `kept` its length, `more` the bytes printed
    past it, `note` the truncation's note."""

    def __init__(self, ffi: Any, lib: Any, ctx: Any, stream: tuple[int, int | None] | None, executor: str) -> None:
        self.ffi, self.lib, self.ctx, self.stream, self.executor = ffi, lib, ctx, stream, executor
        self.done = threading.Event()
        self.thread: threading.Thread | None = None
        self.output, self.kept, self.more = "", 0, 0
        self.note: str | None = None

    def __enter__(self) -> OutputStream:
        if self.stream is not None:
            if self.lib.cint_ctx_stream_output(self.ctx, self.stream[0], self.stream[1] or 0) != 0:
                raise MemoryError(f"the {self.executor} run exceeded its memory limit")
            self.thread = threading.Thread(target=self._loop, name=f"{self.executor}-output", daemon=True)
            self.thread.start()
        return self

    def _loop(self) -> None:
        while not self.done.wait(FLUSH_INTERVAL):
            self.lib.cint_ctx_flush_output(self.ctx)

    def __exit__(self, *exc: object) -> None:
        if self.thread is not None:
            self.done.set()
            self.thread.join()
        length = self.ffi.new("size_t *")
        data = self.lib.cint_ctx_output(self.ctx, length)
        kept, more = length[0], int(self.lib.cint_ctx_output_more(self.ctx))
        keep = self.stream[1] if self.stream is not None else None
        if keep and kept > keep:  # the last bytes past those kept
            kept, more = keep, more + kept - keep
        self.output = self.ffi.buffer(data, kept)[:].decode("utf-8", "ignore" if more else "replace")
        self.kept, self.more = kept, more
        if more:  # past the bytes kept: as running.entry.cap_output says it
            self.note = f"output truncated after {keep} bytes (the program printed {kept + more})"
            self.lib.cint_ctx_flush_output(self.ctx)


def _records(ffi: Any, lib: Any, ctx: Any) -> list[DispatchRow]:
    """The dispatches the run-time recorded (rt/dispatch.c, cint_dispatch_record), as
    RunResult.dispatch_log's rows."""
    pointer = ffi.new("cint_dispatch_record **")
    count = lib.cint_ctx_records(ctx, pointer)
    rows = []
    origin = int(pointer[0][0].started_ns) if count else 0
    for k in range(count):
        r = pointer[0][k]
        rows.append({"number": int(r.number), "kernel": ffi.string(r.kernel).decode("utf-8", "replace"),
                     "work_items": None if r.work_items < 0 else int(r.work_items), "threads": int(r.threads),
                     "seconds": int(r.nanoseconds) / 1e9, "fuel": int(r.fuel),
                     # for the trace (running/trace.py): start from the first dispatch's, the over extents
                     "start": (int(r.started_ns) - origin) / 1e9,
                     "space": [int(r.over[d]) for d in range(r.nover)] if r.work_items >= 0 else None,
                     # which work-items ran (the trace's fault map, running/trace.py): on one thread in
                     # ascending order, stopping at the first fault; in chunks (the pool, a
                     # cluster's tiles: rt/pool.c) all below the canonical fault, the others unknown
                     "order": "ascending" if int(r.ran) == RAN_SERIAL else "chunks"})
    return rows


def _fit_stack(size: int) -> int:
    """The stack size, at most an eighth of the address-space limit (isolated runs set
    one), at least 1 MiB."""
    try:
        import resource

        limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    except (ImportError, OSError, ValueError):
        return size
    if limit != resource.RLIM_INFINITY and limit > 0:
        size = min(size, max(1 << 20, limit // 8))
    return max(size, 32 * 1024) // 4096 * 4096


def _fit_threads(threads: int, stack: int) -> tuple[int, int]:
    """(threads, the stack of each thread of the pool): the entry thread's stack, unless
    an address-space limit (isolated runs set one) would then go to stacks: the pool's
    stacks take at most a quarter of it, each at least WORKER_STACK_MIN (rt/stack.c
    guards each: calls nested deeper than it holds end with host.stack), and fewer
    threads when even that does not fit."""
    try:
        import resource

        limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    except (ImportError, OSError, ValueError):
        return threads, stack
    if threads <= 1 or limit == resource.RLIM_INFINITY or limit <= 0:
        return threads, stack
    share = limit // 4
    worker = min(stack, max(WORKER_STACK_MIN, share // (threads - 1)))
    worker = worker // 65536 * 65536
    return max(1, min(threads, 1 + share // worker)), worker


def _run_in_thread(lib: Any, ctx: Any, stack_size: int) -> int:
    return call_in_thread(lambda: lib.cint_ctx_run(ctx, lib.cint_program_info()), stack_size)


def call_in_thread(call: Callable[[], object], stack_size: int = STACK_SIZE) -> int:
    """`call()` (native code that may nest calls deeply) in a thread with a large stack."""
    outcome: list[Any] = []  # call()'s value (a status, int-like) or what it raised

    def target() -> None:
        try:
            outcome.append(call())
        except BaseException as error:  # noqa: BLE001 - carried to the caller
            outcome.append(error)

    previous = threading.stack_size(_fit_stack(stack_size))
    try:
        thread = threading.Thread(target=target, name="cpu-c17")
        thread.start()
    except RuntimeError:  # no room for the thread's stack
        raise MemoryError("the cpu-c17 run exceeded its memory limit") from None
    finally:
        threading.stack_size(previous)
    thread.join()
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return int(outcome[0])
