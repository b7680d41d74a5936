"""Tiles sent straight to their worker's handler instead of as Dask tasks (issue 33).

A Dask task goes from this process to the scheduler, from the scheduler to its worker,
and back the same way before its result is gathered: 7 to 9 ms a round on a 2-core VM,
against the 20 to 30 ms of work in a tile of the heat kernel's dispatch. A worker handler
(`cint_tile`, as store_reads' `cint_read` and Dask's own `get_data`) is one round trip
between this process and the worker (under 1 ms). It runs the tile on the worker's own
thread (the executor Dask's tasks run on), so a worker still runs one tile at a time.

A tile goes this way only where it needs nothing that Dask must bring (`needs_no_dask`):
its worker has this run's library loaded, and every window is made of that worker's own
stored results and bytes that go with the call. Else, and after any failure of a call (a
worker gone, a store restarted), it is a task as before. A call changes only the way
there and back: the same run_tile runs, and the scheduler does not see the tile. The handler is installed with a run's first
dispatch (tiles.py). Imported only where a cluster is used."""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import queue
from collections.abc import Iterator
from typing import Any

from distributed.diagnostics.plugin import WorkerPlugin
from distributed.protocol import to_serialize

HANDLER = "cint_tile"


async def _run_here(worker: Any, args: Any) -> dict[str, Any]:
    """The handler: run_tile(*args) on the worker's thread; its answer, with this worker's
    address as where it ran, or the one line of why it could not run."""
    from .cluster import _line, run_tile

    loop = asyncio.get_running_loop()
    try:
        _, seconds, data, summary = await loop.run_in_executor(worker.executors["default"],
                                                               functools.partial(run_tile, *args))
    except Exception as error:  # noqa: BLE001 - the host sends the tile again as a task
        return {"error": _line(error)}
    # (the ignores: distributed is typed where installed, Any where not, as in CI's type check)
    return {"answer": to_serialize((worker.address, seconds, data, summary))}  # type: ignore[no-untyped-call, unused-ignore]


class TileCalls(WorkerPlugin):  # type: ignore[misc, unused-ignore]
    """Installs the handler on every worker, those that join later included."""

    name = "cint-tile-calls"
    idempotent = True

    def setup(self, worker: Any) -> None:
        async def cint_tile(args: Any) -> dict[str, Any]:  # (Dask logs a handler by its __name__)
            return await _run_here(worker, args)

        worker.handlers[HANDLER] = cint_tile


def install(client: Any) -> None:
    client.register_plugin(TileCalls())


def needs_no_dask(parts: list[Any]) -> bool:
    """Whether a tile's parts (tiles.TileRunner._parts) are all bytes and segments of the
    store's results (a key) or of bytes: no Dask future whose value Dask must bring."""
    return all(isinstance(part, (bytes, bytearray))
               or all(isinstance(segment[0], (str, bytes, bytearray)) for segment in part) for part in parts)


def call(client: Any, worker: str, args: tuple[Any, ...]) -> concurrent.futures.Future[Any]:
    """run_tile(*args) on `worker` through its handler: the future of its answer
    (where, seconds, result, summary); RuntimeError where it did not run."""

    async def ask() -> Any:
        answer = await getattr(client.rpc(worker), HANDLER)(args=to_serialize(args))  # type: ignore[no-untyped-call, unused-ignore]
        if "error" in answer:
            raise RuntimeError(f"{worker}: {answer['error']}")
        return answer["answer"]

    return asyncio.run_coroutine_threadsafe(ask(), client.loop.asyncio_loop)


class Arrivals:
    """Dask futures and calls' futures as each is done, in the order they finish (Dask's
    as_completed takes only its own futures). `add` takes one more while iterating."""

    def __init__(self, futures: list[Any]) -> None:
        self._done: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._left = 0
        for future in futures:
            self.add(future)

    def add(self, future: Any) -> None:
        self._left += 1
        future.add_done_callback(self._done.put)  # (Dask's: on its callback thread; a call's: on the loop)

    def __iter__(self) -> Iterator[Any]:
        while self._left:
            self._left -= 1
            yield self._done.get()
