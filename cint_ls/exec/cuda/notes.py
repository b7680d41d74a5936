"""The notes of a gpu-cuda run (RunResult.notes), in one place for the C host and the
tests' oracle (oracle/), so that the two say the same things in the same words."""

from __future__ import annotations

from collections.abc import Iterable

from ..words import counted


def run_notes(description: str, fallback: str | None, block: int, dispatches: int, launches: int, skipped: int,
              clamped: Iterable[tuple[str, int, int]], described: Iterable[tuple[int, int, str]]) -> list[str]:
    """`gpu-cuda ran on ...` (and why not on a GPU when the device was not chosen), the
    block size and launches, each kernel whose block the device clamped, and which code
    described each fault (10.6 para 9): `described` holds (dispatch, k, what ran it)."""
    notes = [f"gpu-cuda ran on {description}" + (f", not a GPU: {fallback}" if fallback else ""),
             f"block size {block}; {counted(launches, 'launch')} for {counted(dispatches, 'dispatch')}"
             + (f"; {counted(skipped, 'launch')} above a fault not started" if skipped else "")]
    for qualified, used, limit in clamped:
        notes.append(f"kernel {qualified} ran in blocks of {used}, not {block}: the device runs at most {limit} "
                     "threads per block of it (CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)")
    for number, k, by in described:
        notes.append(f"the fault of work-item {k} of dispatch {number} was described by {by}")
    return notes
