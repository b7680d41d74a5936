"""An attempt of a run that starts again (a cluster's worker died with outputs it kept,
cint_ls/exec/c17/library.py) streams only what the earlier attempt did not: the first
`skip` bytes of the stream are not sent again (rt/text.c cint_ctx_set_output_skip), below
and past the bytes the run keeps (`keep`: past them what is printed is sent and dropped)."""

from __future__ import annotations

import os
import threading

import pytest

from cint_ls.exec.c17.build import build_library
from cint_ls.exec.c17.library import emit, run_library
from cint_ls.ir.build import build

pytestmark = pytest.mark.needs_cc

PROGRAM = """
void main() {
    for i in 0..LINES {
        "line {i} of the run's output\\n";
    }
}

main();
"""


def _streamed(lines: int, keep: int | None, skip: int) -> tuple[bytes, str, int]:
    """What the run streams to a pipe; its output as the run keeps it; the bytes sent."""
    library = build_library(emit(build(PROGRAM.replace("LINES", str(lines)), "skip.ci").program))
    read, write = os.pipe()
    got = bytearray()

    def drain() -> None:
        while chunk := os.read(read, 1 << 16):
            got.extend(chunk)

    reader = threading.Thread(target=drain)
    reader.start()
    try:
        result, _ = run_library(library, None, stream=(write, keep), skip=skip)
    finally:
        os.close(write)
        reader.join()
        os.close(read)
    return bytes(got), result.output, len(got)


def whole(lines: int) -> bytes:
    return "".join(f"line {i} of the run's output\n" for i in range(lines)).encode()


@pytest.mark.parametrize("skip", [0, 1, 29, 300, 10_000])
def test_the_first_bytes_are_not_sent_again(skip):
    """Without a limit the stream goes out every FLUSH_INTERVAL while the run lasts (the
    rest comes with the run's result): what went out is the output from `skip` on."""
    sent, output, _ = _streamed(300, None, skip)
    assert sent == whole(300)[skip:skip + len(sent)]
    assert output == whole(300).decode()  # the run's own output is whole


@pytest.mark.parametrize("skip", [0, 100, 1_000, 70_000, 150_000])
def test_past_the_bytes_kept_too(skip):
    """5,000 lines (about 150 KB) kept to 1,000 bytes: past them the output is sent and
    dropped 64 KiB at a time; the skip holds across."""
    sent, output, _ = _streamed(5_000, 1_000, skip)
    assert sent == whole(5_000)[skip:]
    assert output.encode() == whole(5_000)[:1_000]
