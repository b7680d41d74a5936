"""The reference's boundaries for a comparison of runs (SPEC-02P.1 8.4 example 9): after
each published dispatch, the bytes of output so far, the fuel consumed and a digest of
the published data (exec/digest.py); then the entry's end. The recording itself is
`Machine(trace=True)`, so every executor hosted by the machine (gpu-cuda too) traces.
"""

from __future__ import annotations

from ...ir import nodes as ir
from ..runtime import RunResult
from .machine import Machine


def run_traced(program: ir.Program, fuel: int | None, write=None) -> RunResult:
    """Run on the reference with `RunResult.trace` filled in."""
    return Machine(program, fuel, write, trace=True).run()
