"""`cint-ls`: the cint language server, LSP over stdio.

    cint-ls [--stdio] [--log-file PATH] [--log-level LEVEL]

Editors start it with no arguments (or `--stdio`, accepted for clients that always pass
it). Settings come from the client (`workspace/configuration`, section `cint`); see
docs/server.md.
"""

from __future__ import annotations

import argparse
import gc
import logging
import os
import signal
import sys
import threading
import traceback
from types import FrameType
from typing import BinaryIO

from .. import __version__


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="cint-ls", description="The cint language server (LSP over stdio).")
    parser.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (the default)")
    parser.add_argument("--log-file", help="write the server's own log to this file (default: stderr)")
    parser.add_argument("--log-level", default="WARNING",
                        choices=["DEBUG", "INFO", "WARNING", "ERROR"], help="level of the server's own log")
    # Test-only requests (fuzz/lsp.py, the LSP fuzzer, reads the server's text of a document).
    parser.add_argument("--test-hooks", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--version", action="version", version=f"cint-ls {__version__}")
    args = parser.parse_args(argv)

    handler: logging.Handler = (logging.FileHandler(args.log_file, encoding="utf-8") if args.log_file
                                else logging.StreamHandler(sys.stderr))
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(getattr(logging, args.log_level))
    if args.log_level != "DEBUG":
        # pygls logs every message body at INFO: far too much for a 5,000-line file.
        logging.getLogger("pygls").setLevel(max(logging.WARNING, root.level))

    if hasattr(signal, "SIGUSR1"):
        signal.signal(signal.SIGUSR1, write_stacks)

    # No cyclic collection from here until the first publication (heap.py): the
    # imports and a first analysis make objects by the hundred thousand, next to no
    # garbage, and each young collection walked them again.
    gc.disable()
    from .heap import one_arena

    one_arena()  # before the server's threads start (heap.py)
    return serve_stdio(sys.stdin.buffer, sys.stdout.buffer, test_hooks=args.test_hooks)


def write_stacks(signum: int, frame: FrameType | None) -> None:
    """SIGUSR1's handler: a server that stops answering can be asked where it is (`kill
    -USR1 PID`); every thread's stack goes to stderr (the editor's log of the server) and
    the server goes on. A Python handler, not faulthandler's: that one reads other threads'
    frames without the GIL and crashed a server that was importing on another thread. The
    text goes out with os.write: a handler that wrote through sys.stderr while the main
    thread was inside a write to it would raise there."""
    # Not threading.enumerate(): a handler runs between two bytecodes of the main thread,
    # which may be inside `with _active_limbo_lock` (starting a thread), and that lock is
    # not reentrant.
    names = {ident: thread.name for ident, thread in dict(getattr(threading, "_active", {})).items()}
    parts = [f"cint-ls {os.getpid()}: the stack of each thread (SIGUSR1), most recent call last\n"]
    for ident, top in sys._current_frames().items():
        parts.append(f"\nthread {names.get(ident, '?')} ({ident}):\n")
        parts.extend(traceback.format_stack(top))
    try:
        os.write(2, "".join(parts).encode("utf-8", "replace"))
    except OSError:  # no stderr: nothing to say it on
        pass


def serve_stdio(stdin: BinaryIO, stdout: BinaryIO, test_hooks: bool = False) -> int:
    """Serve LSP on `stdin`/`stdout`: the fast start (prelude.py) first, then the server,
    built on pygls once the prelude hands over. LSP's exit status: 0 after `shutdown`
    then `exit`, 1 for an `exit` (or the end of the input) without `shutdown`."""
    from .framing import StdinReader
    from .prelude import Prelude

    reader = StdinReader(stdin)
    server = None
    writer = None
    try:
        taken = Prelude(reader, stdout).run()
        import asyncio  # the loop, pygls and lsprotocol, from here on

        from .framing import Writer
        from .protocol import create_server

        writer = Writer(stdout)
        server = create_server()
        if test_hooks:
            server.enable_test_hooks()
        asyncio.run(server.serve(reader, writer, taken))
    except (KeyboardInterrupt, SystemExit):  # pygls' `exit` raises SystemExit: its status is ours
        pass
    finally:
        if writer is not None:
            writer.flush()
        if server is not None:
            server.shutdown()
    return 0 if server is not None and server.shut_down_cleanly() else 1


if __name__ == "__main__":
    sys.exit(main())
