"""Where requests run: the loop, or the one worker thread of the heavy requests.

Latency-sensitive requests (hover, completion, signature help, definition, ...) are
answered on the event loop as they arrive. Heavy ones (semantic tokens, inlay hints,
code lenses, symbols, folding ranges, formatting, rename, references) go to the
`Worker`: one thread, first come first served, computing on the version of the document
the request was asked about (what the loop thread pinned for it). So a hover never
queues behind them, and the loop reads the next message while they compute.

A heavy request is answered:
- with its result, when its document has not changed meanwhile;
- with `ContentModified` (-32801) as soon as its document changes or closes (LSP advises
  it for a result the server knows is out of date): the client asks again;
- with `RequestCancelled` (-32800) on `$/cancelRequest` (pygls cancels the handler's
  task; the job is dropped if it has not started, and stops at its next checkpoint if
  it has).

The worker and the loop share the GIL (and, with `ide.Document.snapshot`, each
document's lock): a job that computes in pure Python slows the loop down by the switch
interval at each hand-over. Long jobs work in chunks and call `checkpoint()` between
them, which stops a job that is no longer wanted, and pauses while the loop answers a
light request (`loop_busy`), so that the loop has the GIL and the document to itself.
Between two jobs the worker waits, a few ms at most, until the loop has taken the last
answer and the writer thread has written it out (`Worker._give_way`).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from pygls.exceptions import JsonRpcContentModified

_current = threading.local()
_loop_busy = 0  # what the loop does while the worker waits (written by the loop thread only)
_light = 0  # light requests being answered on the loop (the same)
YIELD_LIMIT = 0.25  # seconds a checkpoint waits at most for the loop
# Seconds the worker waits at most, before its next job, for the answer of the last one
# to be handed to the loop and written out (`Worker._give_way`).
GIVE_WAY_LIMIT = 0.003
POLL = 0.0002  # seconds between two looks while the worker waits


class Stopped(Exception):
    """A job that nobody waits for any more (superseded or cancelled)."""


class Job:
    __slots__ = ("answer", "future", "stopped", "uri")

    def __init__(self, uri: str, answer: asyncio.Future) -> None:
        self.uri = uri
        self.answer = answer
        self.future: Future | None = None
        self.stopped = False

    def stop(self) -> None:
        self.stopped = True
        if self.future is not None:
            self.future.cancel()  # never starts if it has not yet


def _no_input() -> bool:
    return False


_input_waiting: Callable[[], bool] = _no_input  # whether messages arrived that the loop has not read


def watch_input(waiting: Callable[[], bool]) -> None:
    """How `checkpoint` knows that messages wait to be read (the server's stdin reader)."""
    global _input_waiting
    _input_waiting = waiting


def _always_idle() -> bool:
    return True


_output_idle: Callable[[], bool] = _always_idle  # whether everything written has gone out


def watch_output(idle: Callable[[], bool]) -> None:
    """How the worker knows that answers are still being written (the server's stdout
    writer, a thread of its own)."""
    global _output_idle
    _output_idle = idle


def checkpoint() -> None:
    """Called by long jobs between chunks of work (holding no document lock): raises
    `Stopped` when the job's answer is no longer wanted, and lets the loop run first:
    while it answers a light request, and while messages wait to be read. (Each turn of
    the loop gives up the GIL in its select(); against a thread computing in Python it
    gets it back only at the worker's next checkpoint, so reading a burst of six
    messages took the loop 300 ms of the worker's chunks, and the hover in it waited.)"""
    job = getattr(_current, "job", None)
    if job is not None and job.stopped:
        raise Stopped
    time.sleep(0)  # releases the GIL: a waiting loop thread takes it
    if _loop_busy or _input_waiting():
        deadline = time.monotonic() + YIELD_LIMIT
        while (_loop_busy or _input_waiting()) and time.monotonic() < deadline:
            time.sleep(0.0005)


def light_in_flight() -> bool:
    """Whether a light request is being answered on the loop."""
    return _light > 0


class loop_busy:
    """`with loop_busy():` around what the loop does while the worker should wait (a
    light request, a publication waiting for the document): the worker pauses at its
    next checkpoint until it is done. `light=True` for a light request."""

    def __init__(self, light: bool = False) -> None:
        self.light = light

    def __enter__(self) -> None:
        global _loop_busy, _light
        _loop_busy += 1
        _light += self.light

    def __exit__(self, *exc) -> None:
        global _loop_busy, _light
        _loop_busy -= 1
        _light -= self.light


def content_modified(uri: str) -> JsonRpcContentModified:
    return JsonRpcContentModified(f"the document changed before the request was answered: {uri}")


class Worker:
    """The heavy requests' thread, and the jobs in flight by document (loop thread only,
    except `_call`)."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cint-heavy")
        self._jobs: dict[str, set[Job]] = {}
        self._last: Job | None = None  # the job the worker ran last (worker thread only)

    async def run(self, uri: str, fn: Callable[..., Any], *args: Any) -> Any:
        """`fn(*args)` on the worker thread; its result, or the exception it raised.
        ContentModified if `uri` changes first (`supersede`)."""
        loop = asyncio.get_running_loop()
        job = Job(uri, loop.create_future())
        self._jobs.setdefault(uri, set()).add(job)

        def done(future: Future) -> None:
            if not future.cancelled():
                try:
                    loop.call_soon_threadsafe(self._settle, job, future)
                except RuntimeError:  # the loop is closed: the server is ending
                    pass

        try:
            job.future = self._pool.submit(self._call, job, fn, args)
            job.future.add_done_callback(done)
            return await job.answer
        finally:  # answered, superseded or cancelled: the job is no longer wanted
            job.stop()
            # The thread's future holds `done`, which holds the job, which holds both
            # futures: a cycle that would keep the answer (megabytes for a big file)
            # until a full collection, which a frozen heap rarely gets.
            job.future = job.answer = None
            jobs = self._jobs.get(uri)
            if jobs is not None:
                jobs.discard(job)
                if not jobs:
                    del self._jobs[uri]

    def _call(self, job: Job, fn: Callable[..., Any], args: tuple) -> Any:
        if job.stopped:
            raise Stopped
        last, self._last = self._last, job
        if last is not None:
            self._give_way(last)
        _current.job = job
        try:
            return fn(*args)
        finally:
            _current.job = None

    @staticmethod
    def _give_way(last: Job) -> None:
        """Before the next job, wait (GIVE_WAY_LIMIT at most) until the loop has taken
        the last job's answer (`run` lets go of it) and the writer thread has written
        everything out. Started at once, the next job held the GIL, and the loop, then
        the writer, each got it back only after Python's switch interval (5 ms): two
        hand-overs on the way out of every answer. At 5,000 lines in VS Code's burst,
        side by side, the token delta's p95 fell from 29-32 ms to 21-24 ms, and the
        answers queued behind it came out as much sooner."""
        deadline = time.monotonic() + GIVE_WAY_LIMIT
        while (last.answer is not None or not _output_idle()) and time.monotonic() < deadline:
            time.sleep(POLL)

    @staticmethod
    def _settle(job: Job, future: Future) -> None:
        if job.answer is None or job.answer.done():  # no longer wanted
            return
        error = future.exception()
        if error is None:
            job.answer.set_result(future.result())
        elif not isinstance(error, Stopped):
            job.answer.set_exception(error)

    def supersede(self, uri: str) -> int:
        """The document changed or closed: its requests in flight answer ContentModified
        now. Returns how many there were."""
        jobs = self._jobs.pop(uri, set())
        for job in jobs:
            if not job.answer.done():
                job.answer.set_exception(content_modified(uri))
            job.stop()
        return len(jobs)

    def pending(self, uri: str | None = None) -> int:
        if uri is not None:
            return len(self._jobs.get(uri, ()))
        return sum(len(jobs) for jobs in self._jobs.values())

    def shutdown(self) -> None:
        for uri in list(self._jobs):
            for job in self._jobs.pop(uri):
                job.stop()
                try:
                    job.answer.cancel()
                except RuntimeError:  # its loop is closed
                    pass
        self._pool.shutdown(wait=False, cancel_futures=True)
