"""Reads of the tile results a worker keeps (worker_store._store) that do not wait behind its
tiles. A Dask task runs on the worker's one thread after the tiles queued before it: the
host's check of a tile, or its read of a kept output, waited for every tile its worker
still had (a second of a compute-bound dispatch). A worker handler (`cint_read`, as
Dask's own `get_data`) answers on the worker's event loop at once, straight to the
host. Imported only where a cluster is used (it imports distributed)."""

from __future__ import annotations

import asyncio
from typing import Any

from distributed.diagnostics.plugin import WorkerPlugin
from distributed.protocol import to_serialize

from .worker_store import STORED, _segment_bytes

HANDLER = "cint_read"


def read_stored(key: str, at: int, n: int) -> dict[str, Any]:
    """The handler: n bytes from `at` (n < 0: to the end) of the stored result `key`
    (LookupError where this worker does not hold it: the host's call raises it)."""
    # (the ignores: distributed is typed where installed, Any where not, as in CI's type check)
    return {"data": to_serialize(bytes(_segment_bytes(key, STORED, at, n)))}  # type: ignore[no-untyped-call, unused-ignore]


class StoreReads(WorkerPlugin):  # type: ignore[misc, unused-ignore]
    """Installs the handler on every worker, those that join later included."""

    name = "cint-store-reads"
    idempotent = True

    def setup(self, worker: Any) -> None:
        worker.handlers[HANDLER] = read_stored


def install(client: Any) -> None:
    client.register_plugin(StoreReads())


def reachable(client: Any, seconds: float) -> bool:
    """Whether every worker answers this process directly (its identity, within `seconds`)."""

    workers = list(client.scheduler_info()["workers"])

    async def ask_all() -> list[Any]:
        return list(await asyncio.gather(*(client.rpc(worker).identity() for worker in workers)))

    try:
        return bool(workers) and len(client.sync(ask_all, callback_timeout=seconds)) == len(workers)
    except Exception:  # noqa: BLE001 - unreachable, or not in time
        return False


def read(client: Any, reads: list[tuple[str, str, int, int]], seconds: float | None) -> list[bytes]:
    """The bytes of each (key, worker, at, n), read at once from the workers, in parallel."""

    async def read_all() -> list[Any]:
        calls = [getattr(client.rpc(worker), HANDLER)(key=key, at=at, n=n) for key, worker, at, n in reads]
        return list(await asyncio.gather(*calls))

    answers = client.sync(read_all, callback_timeout=seconds)
    return [answer["data"] for answer in answers]
