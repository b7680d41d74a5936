"""The byte layouts that the run-time (rt/pool.c) and Python share: the tile format's
constants, a reader of its fields, the library's kernel table. Apart from library.py,
which runs programs, so that the cluster's host side (cluster.py, windows.py), which
library.py imports, reads them without importing library.py back."""

from __future__ import annotations

from typing import Any

from ..executors import ExecutorUnavailable

TILE_MAGIC = 0x31454C4954544E49  # "INTTILE1" (rt/pool.c)
CHUNK_DONE = 1  # rt/pool.c's chunk states
SIZES, RANK = 16, 8  # cint_plan.sizes, CINT_MAX_RANK


class C17RunError(ExecutorUnavailable):
    """The run ended without an outcome (an internal error of the run-time)."""


class Reader:
    """Little-endian fields of the tile format, in order; C17RunError past its end."""

    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, 0

    def take(self, n: int) -> bytes:
        if n < 0 or self.at + n > len(self.data):
            raise C17RunError("the cpu-c17 dispatch plan is shorter than its kernel needs")
        chunk = self.data[self.at:self.at + n]
        self.at += n
        return chunk

    def skip(self, n: int) -> None:
        """Past n bytes, without copying them."""
        if n < 0 or self.at + n > len(self.data):
            raise C17RunError("the cpu-c17 dispatch plan is shorter than its kernel needs")
        self.at += n

    def i64(self) -> int:
        return int.from_bytes(self.take(8), "little", signed=True)

    def i64s(self, n: int) -> list[int]:
        return [self.i64() for _ in range(n)]


def kernel_names(ffi: Any, lib: Any) -> list[str]:
    """The qualified names of the library's kernel table (the emitted kernels only), in
    the order a packed plan's kernel index counts them."""
    info = lib.cint_program_info()
    names: list[str] = []
    while (name := lib.cint_program_kernel(info, len(names))) != ffi.NULL:
        names.append(ffi.string(name).decode("utf-8"))
    return names


__all__ = ["C17RunError", "CHUNK_DONE", "RANK", "Reader", "SIZES", "TILE_MAGIC", "kernel_names"]
