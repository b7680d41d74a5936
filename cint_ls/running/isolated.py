"""Isolated runs: a program runs on an executor in a child process, so a hang or a
crash of user code (or of native code) is an error message, not a dead server.

The parent sends one request on the child's stdin, pickled (the child is this package on
this interpreter): the program as the parent built it (its IR, admitted by the executor
and its entry in place; spans pickle as where they are, `syntax.source.Anchor`), so the
child neither parses nor analyses and does not import the parser (tree-sitter) at all:
a Run builds once. The parent reads one JSON result from the child's stdout; the
program's output travels inside the result, and the child's stderr is kept for crash
messages. The output also goes to the parent as it is
printed, on a pipe of its own ($CINT_OUTPUT_FD), of which the parent keeps the first
OUTPUT_KEEP bytes and the last lines (`_Kept`): a run cut short (time or memory limit,
crash, cancel) keeps what it printed before (IsolatedRunError.output). The parent enforces a time limit (the child
is killed) and the child a memory limit (RLIMIT_AS).

The child also writes the stages it reaches (`stages.py`: compiling, running, describing
the fault), one line each, on a pipe of their own ($CINT_STAGE_FD). The time limit counts
only the time spent running; the rest (the child's start, translation, the C compiler,
a fault's description) has a limit of its own, COMPILE_LIMIT, so that a cold compile
cache does not eat the program's time.

The child dies with its parent. It leads its own process group, which the parent kills
on every way out of `run_isolated` (a result, the time limit, cancellation, an exception,
KeyboardInterrupt, and SIGTERM or SIGHUP while the default action is in place: the group
is killed, then the signal takes its default course). A parent that dies without a chance
to do so (SIGKILL, a crash) is covered on Linux by the child's parent-death signal
(PR_SET_PDEATHSIG, SIGKILL, set before exec), and everywhere by a thread of the child that
polls its parent's pid (`_watch_parent`).

A process that runs again and again (the server) keeps one child started ahead of the
next run (`keep_spare`): the child imports the executors and then waits for its request,
so a Run of a cached program does not wait for an interpreter's start and its imports
(about 120 ms of a 180 ms Run here, benchmarks/run_latency.py). The spare is taken only
when it was started under the same environment, working directory and memory limit as
the run would be; it is killed with the others, and when the spare is turned off.

    python -m cint_ls.running.isolated  < request.pickle  > result.json   (Request.to_bytes)
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import functools
import gc
import json
import os
import pickle
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import FrameType
from typing import IO, TYPE_CHECKING, Any

from ..exec.executors import Options
from ..exec.faults import FaultRecord, JsonObject
from ..exec.runtime import RunResult
from ..exec.stages import COMPILING, RUNNING, STAGES, WAITING, listen, reached

if TYPE_CHECKING:
    from ..ir import nodes as ir

DEFAULT_MEMORY_LIMIT = 4 << 30  # bytes
# What a child inherits when it starts (_conditions): the memory limit, the environment,
# the working directory and the interpreter.
Conditions = tuple[int, dict[str, str], str, str]
COMPILE_LIMIT = 120.0  # seconds of everything but running, when a run has a time limit
# Seconds a spare has to say it took its request: one that does not (stopped by SIGSTOP
# or a debugger, stuck) is killed and the run starts a fresh child (issue 28). A spare
# still importing when it was taken (it has not said `compiling`) has SPARE_START; one
# that Linux shows stopped or traced is killed at once.
SPARE_ANSWER, SPARE_START = 1.0, 5.0


class IsolatedRunError(Exception):
    """The run did not produce a result: time limit, crash, executor unavailable.
    The message is one line that names the cause."""

    output: str | None = None  # what the program printed before the run was cut short
    refusal: str | None = None  # the executor's ExecutorUnavailable.refusal, from the child's reply

    def __init__(self, message: str, refusal: str | None = None) -> None:
        super().__init__(message)
        self.refusal = refusal


class _SpareSilent(Exception):
    """The spare did not take its request in time (SPARE_ANSWER), or is stopped."""


def _stopped(pid: int) -> bool:
    """Whether the process is stopped (SIGSTOP, SIGTSTP) or held by a debugger (Linux's
    /proc; False where there is none)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] in (b"T", b"t")
    except (OSError, IndexError):
        return False


@dataclass
class Request:
    executor: str
    # The program as the parent built it: admitted by the executor, its entry in place
    # (running.entry.with_entry). The child runs it as it is.
    program: ir.Program
    fuel: int | None = None
    options: Options | None = None
    memory_limit: int = DEFAULT_MEMORY_LIMIT
    output_limit: int | None = None  # bytes of output sent back (running.entry.cap_output)
    # The run's time limit, set by run_isolated: what the child waits on (a cluster) gives
    # up within it and says what it waited for (stages.remaining).
    time_limit: float | None = None

    @classmethod
    def of_text(cls, executor: str, path: str, text: str, function: str | None = None, **fields: Any) -> Request:
        """The request for a program given as text, built here (tests and tools; the
        façade builds, admits and checks the entry itself, run.py; here the executor's
        emitter refuses what its admission would, in one line). Raises ValueError
        with the first translation error, NoSuchEntry for a `function` that cannot be
        an entry."""
        from ..ir.build import build
        from ..syntax.report import diagnostic_line
        from .entry import with_entry

        built = build(text, path)
        if built.program is None:
            raise ValueError(diagnostic_line(built.checked.errors[0]))
        return cls(executor, with_entry(built, function), **fields)

    def to_bytes(self) -> bytes:
        """What the child reads on its stdin: the fields, pickled (a dict, so that the
        child, which runs this module as __main__, imports no second copy of it)."""
        with _collector_paused():
            return pickle.dumps(self.__dict__, protocol=pickle.HIGHEST_PROTOCOL)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic collector off while a program's IR is pickled or unpickled: the
    state each node pickles as, or the nodes themselves, set off young collections that
    walk the whole heap again and again (at 5,000 lines, 305 ms of CPU to pickle with it,
    125 ms without; 480 and 70 ms to unpickle). Back on after, unless it was off (the
    server keeps it off until its first publication, server/heap.py)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def result_to_json(result: RunResult) -> JsonObject:
    return {
        "output": result.output,
        "fault": None if result.fault is None else result.fault.to_json(),
        "fuel_consumed": result.fuel_consumed,
        "executor": result.executor,
        "dispatches": result.dispatches,
        "notes": result.notes,
        "trace": result.trace,
        "dispatch_log": result.dispatch_log,
        "device": result.device,
        "device_kind": result.device_kind,
    }


def result_from_json(data: JsonObject) -> RunResult:
    fault = data["fault"]
    return RunResult(
        data["output"],
        None if fault is None else FaultRecord.from_json(fault),
        data["fuel_consumed"],
        data["executor"],
        data.get("dispatches", 0),
        list(data.get("notes", [])),
        data.get("trace"),
        data.get("dispatch_log"),
        data.get("device"),
        data.get("device_kind"),
    )


SPARE_ARG = "--spare"  # a child started ahead of its request (keep_spare)
# A spare's process name while it waits, and once its request came: tools that look for
# the processes running programs (the editors' tests) leave out the spares that wait.
SPARE_NAME, RUNNING_NAME = b"cint-spare", b"cint-run"
PARENT_ENV = "CINT_ISOLATED_PARENT"  # the pid of the run's parent, for the child's watcher
STAGE_ENV = "CINT_STAGE_FD"  # the child's end of the stage pipe
OUTPUT_ENV = "CINT_OUTPUT_FD"  # the child's end of the output pipe (the program's output as it is printed)
# What the parent keeps of the output a run printed before it was cut short (time or
# memory limit, a crash, a cancel): the first OUTPUT_KEEP bytes (or the request's
# output_limit) and the last TAIL_LINES lines of the last TAIL_BYTES bytes.
OUTPUT_KEEP = 1 << 20
TAIL_BYTES, TAIL_LINES = 64 << 10, 100
TAKEN = "taken"  # the child's line on the stage pipe once it has read its request (not a stage)
_PR_SET_PDEATHSIG, _PR_SET_NAME = 1, 15  # <linux/prctl.h>
_WATCH_INTERVAL = 0.2  # seconds between the child's looks at its parent


@functools.cache
def _prctl() -> Callable[..., int] | None:
    """libc's prctl (Linux), or None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    prctl.restype = ctypes.c_int
    return prctl


def _limit_memory(limit: int, parent: int | None = None) -> Callable[[], None]:
    """The child's set-up between fork and exec: the memory limit, its own session and
    process group, and (Linux) SIGKILL when the thread that started it ends. If `parent`
    (the starting process's pid) is no longer its parent by then, the child ends at once.
    Everything it needs is looked up before the fork."""
    try:
        import resource

        limits = True
    except ImportError:
        limits = False
    prctl = _prctl() if parent is not None else None

    def apply() -> None:
        if limits:
            try:
                resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
            except (ValueError, OSError):
                pass
        os.setsid()  # its own process group, so a kill reaches its children too
        if prctl is not None:
            prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            if os.getppid() != parent:  # the parent died before the death signal was armed
                os._exit(1)

    return apply


_live: set[subprocess.Popen[bytes]] = set()  # the children of runs in progress in this process


def _kill_live_children(signum: int, frame: FrameType | None) -> None:
    """SIGTERM or SIGHUP while a run is in progress (and the signal's action was the
    default): kill the children's process groups, then let the signal end the process
    as it would have."""
    for child in list(_live):
        _kill_group(child)
    spare = _spare
    if spare is not None:
        _kill_group(spare.child)
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _guard_signals() -> dict[int, signal.Handlers]:
    """In the main thread, handle the termination signals whose action is the default
    for the duration of a run; returns what to restore."""
    saved: dict[int, signal.Handlers] = {}
    if threading.current_thread() is not threading.main_thread():
        return saved
    for name in ("SIGTERM", "SIGHUP"):
        signum = getattr(signal, name, None)
        if signum is not None and signal.getsignal(signum) == signal.SIG_DFL:
            try:
                signal.signal(signum, _kill_live_children)
            except (ValueError, OSError):
                continue
            saved[signum] = signal.SIG_DFL
    return saved


def _restore_signals(saved: dict[int, signal.Handlers]) -> None:
    for signum, handler in saved.items():
        try:
            if signal.getsignal(signum) is _kill_live_children:
                signal.signal(signum, handler)
        except (ValueError, OSError):
            pass


def _start_child(memory_limit: int, stage_fd: int, output_fd: int, spare: bool = False) -> subprocess.Popen[bytes]:
    parent = os.getpid()
    return subprocess.Popen(
        # -P: the child imports the installed package, never a source tree in the cwd.
        [sys.executable, "-P", "-m", "cint_ls.running.isolated", *([SPARE_ARG] if spare else [])],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        pass_fds=(stage_fd, output_fd),
        env={**os.environ, PARENT_ENV: str(parent), STAGE_ENV: str(stage_fd), OUTPUT_ENV: str(output_fd)},
        # Between fork and exec: only calls looked up before the fork (no imports, no locks).
        preexec_fn=_limit_memory(memory_limit, parent),  # noqa: PLW1509
    )


class _StagePipe:
    """The parent's end of the stage pipe: the stages the child wrote so far."""

    def __init__(self) -> None:
        self.read_fd, self.write_fd = os.pipe()
        os.set_blocking(self.read_fd, False)
        # The program's output as it is printed: read by a _Kept's thread during the run.
        self.output_read, self.output_write = os.pipe()
        self.pending = b""
        self.taken = False  # the child has read its request (TAKEN)
        self.ready = False  # the child has imported what it needs and waits (COMPILING)
        self.waiting = ""  # what the child said it waits on (stages.waiting), "": nothing

    def started(self) -> None:
        self._close("write_fd")  # the child holds its own copy
        self._close("output_write")

    def take_output(self) -> int:
        """The read end of the output pipe, for a _Kept, which closes it at its end."""
        fd, self.output_read = self.output_read, -1
        return fd

    def poll(self) -> list[str]:
        while True:
            try:
                chunk = os.read(self.read_fd, 4096)
            except (BlockingIOError, InterruptedError):
                break
            if not chunk:
                break
            self.pending += chunk
        *lines, self.pending = self.pending.split(b"\n")
        texts = [line.decode("utf-8", "replace") for line in lines]
        self.taken = self.taken or TAKEN in texts
        self.ready = self.ready or COMPILING in texts
        for text in texts:
            if text.startswith(WAITING):
                self.waiting = text[len(WAITING):]
        return [s for s in texts if s in STAGES]

    def close(self) -> None:
        self._close("read_fd")
        self._close("write_fd")
        self._close("output_read")
        self._close("output_write")

    def _close(self, name: str) -> None:
        """Close one end once: the number of a closed descriptor is soon another's (the
        server's other threads open pipes and sockets), and a second close would close it."""
        fd = getattr(self, name)
        if fd < 0:
            return
        setattr(self, name, -1)
        try:
            os.close(fd)
        except OSError:
            pass


def _started(memory_limit: int, spare: bool = False) -> tuple[subprocess.Popen[bytes], _StagePipe]:
    pipe = _StagePipe()
    try:
        child = _start_child(memory_limit, pipe.write_fd, pipe.output_write, spare)
    except BaseException:
        pipe.close()
        raise
    pipe.started()
    return child, pipe


# ---- the spare child (keep_spare)

@dataclass
class _Spare:
    child: subprocess.Popen[bytes]
    pipe: _StagePipe
    started_as: Conditions  # _conditions() when it was started


_spare_lock = threading.Lock()
_spare: _Spare | None = None
_keep_spare = False


def _conditions(memory_limit: int) -> Conditions:
    """What a child inherits when it starts: a spare serves a run only when these are
    the same (the server sets $CC from its settings, a benchmark $XDG_CACHE_HOME)."""
    return memory_limit, dict(os.environ), os.getcwd(), sys.executable


def keep_spare(on: bool = True) -> None:
    """Whether each run leaves one child started for the next (the server: on from
    `initialize`; the CLI runs once and leaves it off). Off kills the spare."""
    global _keep_spare
    with _spare_lock:
        _keep_spare = on
    if on:
        atexit.unregister(_discard_spare)
        atexit.register(_discard_spare)
    else:
        _discard_spare()


def _discard_spare() -> None:
    global _spare
    with _spare_lock:
        spare, _spare = _spare, None
    if spare is not None:
        _drop(spare.child, spare.pipe)


def _drop(child: subprocess.Popen[bytes], pipe: _StagePipe) -> None:
    """Kill a spare (or a child taken as one) and close its pipes."""
    _kill(child)
    pipe.close()
    for stream in (child.stdin, child.stdout, child.stderr):
        if stream is not None:
            try:
                stream.close()
            except OSError:  # the request half written to a child now dead
                pass


def _take_spare(memory_limit: int) -> tuple[subprocess.Popen[bytes], _StagePipe] | None:
    """The spare, when it is alive and was started as a child for this run would be."""
    global _spare
    with _spare_lock:
        spare, _spare = _spare, None
    if spare is None:
        return None
    if spare.child.poll() is None and spare.started_as == _conditions(memory_limit):
        return spare.child, spare.pipe
    _drop(spare.child, spare.pipe)
    return None


def _replenish(memory_limit: int) -> None:
    """After a run: start the next run's child now, if spares are kept and there is none.
    From the run's own thread, which the server's runs keep (the child's parent-death
    signal follows the thread that started it)."""
    global _spare
    with _spare_lock:
        if not _keep_spare or _spare is not None:
            return
        try:
            child, pipe = _started(memory_limit, spare=True)
        except OSError:  # no process to spare: the next run starts its own, and says why
            return
        _spare = _Spare(child, pipe, _conditions(memory_limit))


class _Clock:
    """The run's two limits: `time_limit` counts the time in the running stage, and
    `compile_limit` the rest. The stage changes are seen every poll (50 ms)."""

    def __init__(self, time_limit: float | None, compile_limit: float | None) -> None:
        self.time_limit = time_limit
        self.compile_limit = compile_limit
        self.running = False
        self.used = {True: 0.0, False: 0.0}
        self.last = time.monotonic()

    def tick(self) -> None:
        now = time.monotonic()
        self.used[self.running] += now - self.last
        self.last = now

    def stage(self, stage: str) -> None:
        self.tick()
        self.running = stage == RUNNING

    def check(self, waiting: str = "") -> None:
        self.tick()
        if self.time_limit is not None and self.used[True] > self.time_limit:
            raise IsolatedRunError(f"the run took longer than {self.time_limit:g} s and was stopped"
                                   + (f" while waiting for {waiting}" if waiting else ""))
        if self.compile_limit is not None and self.used[False] > self.compile_limit:
            raise IsolatedRunError(f"compiling took longer than {self.compile_limit:g} s and was stopped")


class _Kept:
    """The parent's copy of the output a run prints, read as it comes (a thread): the
    first `head` bytes and the last TAIL_BYTES, so that a run cut short keeps what it
    printed, in bounded memory whatever it prints."""

    def __init__(self, fd: int, head: int) -> None:
        self.fd, self.limit = fd, head
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0
        self.thread = threading.Thread(target=self._read, name="cint-run-output", daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            self._read_all()
        finally:
            os.close(self.fd)  # this thread's own: no other closes it (a reused number)

    def _read_all(self) -> None:
        while True:
            try:
                chunk = os.read(self.fd, 1 << 16)
            except InterruptedError:
                continue
            except OSError:
                return
            if not chunk:  # every write end closed: the child (and all it started) ended
                return
            self.total += len(chunk)
            room = self.limit - len(self.head)
            if room > 0:
                self.head += chunk[:room]
                chunk = chunk[room:]
            if chunk:
                self.tail += chunk
                if len(self.tail) > 2 * TAIL_BYTES:
                    del self.tail[:-TAIL_BYTES]

    def finish(self, wait: float) -> None:
        """Wait up to `wait` s for the rest (the child has ended, or was killed)."""
        self.thread.join(wait)

    def text(self) -> tuple[str, str]:
        """The output kept, and what the message adds about it ("": nothing printed)."""
        if not self.total:
            return "", ""
        head = bytes(self.head)
        if self.total <= len(self.head) + len(self.tail) and len(self.tail) <= TAIL_BYTES:
            data = head + bytes(self.tail)
            lines = data.count(b"\n") + (not data.endswith(b"\n"))
            what = "line" if lines == 1 else "lines"
            return data.decode("utf-8", "replace"), f"the {lines} {what} it printed before are kept"
        tail = bytes(self.tail[-TAIL_BYTES:])
        if len(self.tail) > TAIL_BYTES and b"\n" in tail[:-1]:
            tail = tail[tail.find(b"\n") + 1:]  # whole lines
        tail = b"".join(tail.splitlines(keepends=True)[-TAIL_LINES:])
        cut = self.total - len(head) - len(tail)
        text = (head.decode("utf-8", "ignore") + f"\n[... {cut} bytes cut ...]\n"
                + tail.decode("utf-8", "ignore"))
        return text, (f"of the {self.total} bytes it printed before, the first {len(head)} and the last "
                      f"{len(tail.splitlines())} lines are kept")


def run_isolated(request: Request, time_limit: float | None = 30.0, cancel: Callable[[], bool] | None = None,
                 stage: Callable[[str], object] | None = None,
                 compile_limit: float | None = COMPILE_LIMIT) -> RunResult:
    """Run in a child process. `cancel`, if given, is polled (a callable returning
    True) to stop the run early; `stage`, if given, is called with each stage the child
    reaches (from this thread). `time_limit` counts running only, `compile_limit`
    everything else (None: no limit; without a time limit there is no compile limit
    either). Raises IsolatedRunError, whose `output` is what the program printed before
    the run was cut short (the first bytes and the last lines: _Kept), and whose message
    then says so. The child (and anything it started) is killed on every way out that
    does not wait for its result."""
    kept: list[_Kept] = []
    try:
        return _run_isolated(request, time_limit, cancel, stage, compile_limit, kept)
    except IsolatedRunError as error:
        if kept:
            kept[-1].finish(1.0)
            text, what = kept[-1].text()
            if text:
                error.output = text
                error.args = (f"{error}; {what}",)
        raise


def _run_isolated(request: Request, time_limit: float | None, cancel: Callable[[], bool] | None,
                  stage: Callable[[str], object] | None, compile_limit: float | None,
                  kept: list[_Kept]) -> RunResult:
    clock = _Clock(time_limit, compile_limit if time_limit is not None else None)
    request = dataclasses.replace(request, time_limit=time_limit)
    head = request.output_limit if request.output_limit is not None else OUTPUT_KEEP
    saved = _guard_signals()
    pipe = None
    try:
        taken = _take_spare(request.memory_limit)
        child, pipe = taken or _started(request.memory_limit)
        kept.append(_Kept(pipe.take_output(), head))
        _live.add(child)
        try:
            try:
                out, err = _communicate(child, request, clock, cancel, pipe, stage,
                                        answer_from=time.monotonic() if taken else None)
            except _SpareSilent:
                # A stopped or stuck spare: killed (SIGKILL reaches a stopped process) and
                # reaped, and the run goes on in a fresh child.
                _live.discard(child)
                _drop(child, pipe)
                pipe = None
                child, pipe = _started(request.memory_limit)
                kept.append(_Kept(pipe.take_output(), head))
                _live.add(child)
                out, err = _communicate(child, request, clock, cancel, pipe, stage)
        except BaseException:
            _kill(child)
            raise
        finally:
            _live.discard(child)
    except Exception:
        _replenish(request.memory_limit)  # a failed or cancelled run too; not on KeyboardInterrupt
        raise
    else:
        _replenish(request.memory_limit)
    finally:
        if pipe is not None:
            pipe.close()
        _restore_signals(saved)
    if child.returncode != 0 or not out:
        detail = err.decode("utf-8", "replace").strip().splitlines()
        last = detail[-1] if detail else ""
        if child.returncode < 0:
            name = signal.Signals(-child.returncode).name
            raise IsolatedRunError(f"the {request.executor} run crashed ({name})" + (f": {last}" if last else ""))
        if "MemoryError" in last:
            raise IsolatedRunError(f"the {request.executor} run exceeded its memory limit")
        raise IsolatedRunError(f"the {request.executor} run failed (exit {child.returncode})"
                               + (f": {last}" if last else ""))
    data = json.loads(out)
    if "error" in data:
        raise IsolatedRunError(data["error"], data.get("refusal"))
    return result_from_json(data)


def _communicate(child: subprocess.Popen[bytes], request: Request, clock: _Clock, cancel: Callable[[], bool] | None,
                 pipe: _StagePipe, stage: Callable[[str], object] | None, answer_from: float | None = None) -> tuple[bytes, bytes]:
    """Send the request, wait for the child's end within the limits, passing on the
    stages it reaches; the output and error bytes. With `answer_from` (a spare taken
    then), raises _SpareSilent when the child is stopped, or has not said it took the
    request within SPARE_ANSWER (SPARE_START while it was still starting)."""
    # The request goes on a thread of its own. communicate(input=..., timeout=...) writes
    # only during its first call (Python 3.11 refuses input on a retry and then leaves
    # stdin alone): a request past the pipe's 64 kB, which a child still importing did
    # not read within that first wait, was cut there, and the child waited for the rest
    # forever.
    stdin, child.stdin = child.stdin, None
    threading.Thread(target=_send, args=(stdin, request.to_bytes()), name="cint-request", daemon=True).start()

    def stages() -> None:
        for name in pipe.poll():
            clock.stage(name)
            if stage is not None:
                stage(name)

    while True:
        try:
            done = child.communicate(timeout=0.05)  # subprocess keeps what it read across time-outs
        except subprocess.TimeoutExpired:
            stages()
            if answer_from is not None and not pipe.taken:
                waited = time.monotonic() - answer_from
                if _stopped(child.pid) or waited > (SPARE_ANSWER if pipe.ready else SPARE_START):
                    raise _SpareSilent from None
            clock.check(pipe.waiting)
            if cancel is not None and cancel():
                raise IsolatedRunError("the run was cancelled") from None
        else:
            stages()
            return done


def _send(stdin: IO[bytes], payload: bytes) -> None:
    """Write the request to the child's stdin and close it. A child killed meanwhile (its
    limit, a cancellation) breaks the pipe: what it said is read from its other end."""
    try:
        stdin.write(payload)
    except OSError:
        pass
    finally:
        try:
            stdin.close()
        except OSError:
            pass


def _kill_group(child: subprocess.Popen[bytes]) -> None:
    """SIGKILL to the child's process group, while the child is not reaped (its pid,
    and so the group's id, cannot have been reused)."""
    if child.returncode is not None:
        return
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        try:
            child.kill()
        except OSError:
            pass


def _kill(child: subprocess.Popen[bytes]) -> None:
    _kill_group(child)
    child.wait()


def _watch_parent() -> None:
    """The child's backstop: when the process named by $CINT_ISOLATED_PARENT is no longer
    its parent (it died and the child was re-parented), the child kills its process group
    (itself and any compiler it started) or, when it does not lead one, itself."""
    try:
        parent = int(os.environ.pop(PARENT_ENV, ""))
    except ValueError:
        return  # started by hand, not by run_isolated

    def die() -> None:
        try:
            if os.getpgid(0) == os.getpid():
                os.killpg(0, signal.SIGKILL)
        finally:
            os.kill(os.getpid(), signal.SIGKILL)

    if os.getppid() != parent:
        die()

    def watch() -> None:
        while True:
            time.sleep(_WATCH_INTERVAL)
            if os.getppid() != parent:
                die()

    threading.Thread(target=watch, name="cint-watch-parent", daemon=True).start()


def _send_stages() -> None:
    """The child: each stage reached goes to the parent on the stage pipe (none when
    started by hand)."""
    try:
        fd = int(os.environ.pop(STAGE_ENV, ""))
    except ValueError:
        return

    def send(stage: str) -> None:
        try:
            os.write(fd, stage.encode() + b"\n")
        except OSError:  # the parent stopped listening: it is killing this process
            pass

    global _send_line
    _send_line = send
    listen(send)


def _no_line(text: str) -> None:
    """No parent listens: a child started by hand."""


_send_line: Callable[[str], None] = _no_line  # a line to the parent on the stage pipe (set by _send_stages)


def child_main() -> int:
    """The child: read the request, run the program its parent built (entry.run_entry:
    the same executor call as an in-process run), write the result. It imports the
    executor, the IR's nodes and the spans, never the parser or the checker."""
    from ..exec.executors import ExecutorUnavailable
    from ..exec.stages import limit, stream_output
    from .entry import cap_output, run_entry
    from .executors import preload

    spare = SPARE_ARG in sys.argv[1:]
    if spare:
        # A spare (keep_spare) imports the CPU executors while it waits for its request;
        # a child started for a run imports only its executor's. gpu-cuda's package is
        # left to the runs that need it.
        preload(("cpu-sir-interp", "cpu-c17"))
    _send_stages()
    reached(COMPILING)
    data = sys.stdin.buffer.read()
    _send_line(TAKEN)  # the parent waits SPARE_ANSWER for this from a spare (before a big program's unpickling)
    with _collector_paused():
        request = pickle.loads(data)
        gc.freeze()  # the program and the imports live to the end: no collection walks them again
    del data
    limit(request.get("time_limit"))
    if spare:
        _name_process(RUNNING_NAME)
    output = _OutputStream.from_environment()
    if output is not None:  # cpu-c17 sends its own (c17/library.py); the others through write
        stream_output(output.fd, request.get("output_limit"))
    try:
        result = run_entry(request["program"], request["executor"], request.get("fuel"),
                           request.get("options") or {}, write=None if output is None else output.write)
        reply = result_to_json(cap_output(result, request.get("output_limit")))
    except ExecutorUnavailable as error:
        reply = {"error": str(error), "refusal": error.refusal}
    finally:
        if output is not None:
            output.close()
    sys.stdout.write(json.dumps(reply))
    sys.stdout.flush()
    return 0


class _OutputStream:
    """The child's end of the output pipe: what the program prints (an executor's
    `write`) goes to the parent every FLUSH_INTERVAL from a thread of its own, and at
    once past FLUSH_BYTES, so that the parent has it when it stops the run."""

    FLUSH_INTERVAL, FLUSH_BYTES = 0.02, 1 << 16

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.lock = threading.Lock()
        self.pending: list[str] = []
        self.size = 0
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._loop, name="cint-output", daemon=True)
        self.thread.start()

    @classmethod
    def from_environment(cls) -> _OutputStream | None:
        try:
            return cls(int(os.environ.pop(OUTPUT_ENV, "")))
        except ValueError:  # started by hand
            return None

    def write(self, text: str) -> None:
        with self.lock:
            self.pending.append(text)
            self.size += len(text)  # characters: at least the bytes' count / 4
            if self.size >= self.FLUSH_BYTES:
                self._send()

    def _send(self) -> None:
        text, self.pending, self.size = "".join(self.pending), [], 0
        data = text.encode("utf-8", "surrogatepass")
        view = memoryview(data)
        while view and self.fd >= 0:
            try:
                view = view[os.write(self.fd, view):]
            except InterruptedError:
                continue
            except OSError:  # the parent stopped reading: it is stopping the run
                self.fd = -1

    def _loop(self) -> None:
        while not self.done.wait(self.FLUSH_INTERVAL):
            with self.lock:
                self._send()

    def close(self) -> None:
        self.done.set()
        self.thread.join()
        with self.lock:
            self._send()


def _name_process(name: bytes) -> None:
    """The process's name (/proc/PID/comm, what `ps -o comm` and `top` show), on Linux."""
    prctl = _prctl()
    if prctl is not None:
        import ctypes

        buffer = ctypes.create_string_buffer(name[:15])
        prctl(_PR_SET_NAME, ctypes.addressof(buffer), 0, 0, 0)


if __name__ == "__main__":
    if SPARE_ARG in sys.argv[1:]:
        _name_process(SPARE_NAME)  # waiting: no program runs in it (until RUNNING_NAME)
    _watch_parent()
    sys.exit(child_main())
