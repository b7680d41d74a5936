"""How heavy requests run: as steps on the event loop, between the messages.

Every request is answered on the loop's one thread. A light one (hover, completion, ...)
in one go, as it arrives. A heavy one (semantic tokens, inlay hints, symbols, folding
ranges, formatting, ...) may be a generator: a step of it computes STEP_SECONDS at most
and yields, and `steps` runs the next step only once every message that has arrived is
handled (a hover that came after it goes first), every answer written is out (the
writer's thread has the GIL to itself: a publication of diagnostics is not held behind
a step) and the loop has had its turn (timers: the diagnostics of an edit). Since one thread reads the documents and computes their
layers, the document's lock (`ide.Snapshot`) is never waited for.

A heavy request is answered:
- with its result, when its document has not changed meanwhile;
- with `ContentModified` (-32801) when its document changed or closed before its next
  step (LSP advises it for a result the server knows is out of date): the client asks
  again;
- with `RequestCancelled` (-32800) on `$/cancelRequest`: pygls cancels its task, which
  stops at the `await` between two steps.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import Any

from pygls.exceptions import JsonRpcContentModified

STEP_SECONDS = 0.005  # the longest step of a heavy request (a hover behind it waits that long at most)


def content_modified(uri: str) -> JsonRpcContentModified:
    return JsonRpcContentModified(f"the document changed before the request was answered: {uri}")


async def steps(start: Callable[[], Any], current: Callable[[], bool], handled: Callable[[], Awaitable[None]],
                uri: str) -> Any:
    """What `start()` returns, or, when that is a generator, what the generator returns;
    each step (`start()`, then each `next`) in a turn of the loop of its own, once
    `handled()` (the messages that arrived are handled). Raises ContentModified as soon
    as `current()` turns false."""
    work: Any = None
    try:
        while True:
            await asyncio.sleep(0)
            await handled()
            if not current():
                raise content_modified(uri)
            if work is None:
                work = start()
                if not inspect.isgenerator(work):
                    return work
                continue
            try:
                next(work)
            except StopIteration as done:
                return done.value
    finally:
        if inspect.isgenerator(work):
            work.close()
