"""LSP's base protocol: the header part (`Content-Length: N`, an empty line) and the
body, read robustly from stdin (`StdinReader`) and written to stdout by a thread of its
own (`Writer`). No pygls here: the fast start (prelude.py) reads and writes with them
before pygls is imported, and `protocol.py` then hands each body to pygls.

What the specification asks, and what a client gets wrong:
- Header names are case-insensitive and the value may follow the colon with or
  without spaces (`content-length:12`); lines end with `\\r\\n` (a bare `\\n` is taken
  too). Headers other than Content-Length (Content-Type) are read and ignored.
- **Resynchronisation.** Whatever is not a header where a header is due (garbage
  between messages, a header part with no Content-Length, a line that is no header) is
  skipped up to the next `Content-Length`, searched for anywhere in the stream, with a
  warning in the log. When a body does not parse as JSON, the length was probably
  wrong (a client that counted characters, not bytes): the server answers ParseError
  and the body goes back to the stream less its first byte, so that the next header is
  found where it really is -- inside the body when the length was too long, after the
  body's rest when it was too short. A JSON body cannot hold a raw line break inside a
  string, so a header found this way is never part of a well-formed message. The
  message whose length was wrong is lost (its answer is the ParseError with a null
  id); the ones after it are read as usual. (A length that is too long leaves the
  server waiting for the bytes it was promised until the next message arrives: no
  reader can tell a wrong length from a slow client.)
- **A maximum message size**, `MAX_MESSAGE_BYTES` (64 MiB; a cint source of that size
  is far beyond any real one). A Content-Length above it is refused with an error in
  the log and the stream is resynchronised as above: its body, if there is one, is
  skipped as garbage up to the next header, in bounded memory. Ending the connection
  instead would cost the editor every open document and its state; clangd does the
  same (it refuses a message over 1 GiB and reads on).
- Memory stays bounded while skipping: a header line longer than `MAX_HEADER_BYTES`
  is garbage, and garbage is dropped as it is scanned.
"""

from __future__ import annotations

import functools
import logging
import os
import queue
import re
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, BinaryIO

if TYPE_CHECKING:
    import asyncio

# asyncio is imported where it is first needed, on the loop: the fast start (prelude.py)
# reads and writes before there is one, and asyncio's imports (ssl, sockets,
# subprocesses) are some 10 ms of the server's start.

logger = logging.getLogger("cint_ls.server")

MAX_MESSAGE_BYTES = 64 * 1024 * 1024
MAX_HEADER_BYTES = 8 * 1024

_NAME = b"content-length"
_CONTENT_LENGTH = re.compile(re.escape(_NAME), re.IGNORECASE)
# The value: digits, possibly surrounded by spaces or tabs (RFC 7230's optional
# whitespace), then the end of the line.
_LENGTH_LINE = re.compile(rb"content-length[ \t]*:[ \t]*([0-9]+)[ \t]*\r?\n", re.IGNORECASE)
_HEADER_LINE = re.compile(rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+[ \t]*:[^\r\n]*\r?\n")
_END_OF_HEADERS = re.compile(rb"\r?\n")
_HEADERS_ONLY = re.compile(rb"(?:[!#$%&'*+.^_`|~0-9A-Za-z-]+[ \t]*:[^\r\n]*\r?\n)*")


CONTENT_TYPE = "application/vscode-jsonrpc; charset=utf-8"


def framed(body: bytes) -> bytes:
    """A message: its header part, then `body` (JSON in UTF-8)."""
    return f"Content-Length: {len(body)}\r\nContent-Type: {CONTENT_TYPE}\r\n\r\n".encode("ascii") + body


class FramingError:
    """What the reader skipped or refused, for the log the client sees."""

    def __init__(self, message: str, severe: bool = False) -> None:
        self.message = message
        self.severe = severe


class StdinReader:
    """Framed messages from a byte stream, read by a thread of its own a chunk at a
    time (whatever has arrived) and parsed on the loop: one hand-over of the GIL per
    chunk rather than one per header line."""

    CHUNK = 1 << 16

    def __init__(self, stream: BinaryIO, report: Callable[[FramingError], None] | None = None) -> None:
        self._stream = stream
        self._buffer = bytearray()
        self._eof = False
        self._arrived: asyncio.Event | None = None
        self._handled: asyncio.Event | None = None  # clear while a message that arrived waits to be handled
        self._loop: asyncio.AbstractEventLoop | None = None
        self._report = report
        self._held: list[FramingError] = []  # reported before there was anyone to tell

    # ---- the thread

    def _start(self) -> None:
        import asyncio

        self._loop = asyncio.get_running_loop()
        self._arrived = asyncio.Event()
        self._handled_event()
        threading.Thread(target=self._read, name="cint-stdin", daemon=True).start()

    def _handled_event(self) -> asyncio.Event:
        if self._handled is None:
            import asyncio

            self._handled = asyncio.Event()
            if not self._buffer.strip():  # else what the fast start left waits to be handled
                self._handled.set()
        return self._handled

    def _reading(self) -> Callable[[int], bytes]:
        # The file descriptor itself where there is one: a daemon thread blocked inside
        # a BufferedReader holds its lock, and the interpreter aborts at exit on it.
        try:
            return functools.partial(os.read, self._stream.fileno())
        except (AttributeError, OSError, ValueError):
            read: Callable[[int], bytes] = getattr(self._stream, "read1", None) or self._stream.read
            return read

    def _read_chunk(self, read: Callable[[int], bytes]) -> bytes:
        try:
            return read(self.CHUNK)
        except (OSError, ValueError):
            return b""

    def _read(self) -> None:
        read = self._reading()
        while True:
            chunk = self._read_chunk(read)
            try:
                self._loop.call_soon_threadsafe(self._feed, chunk)
            except RuntimeError:  # the loop is closed
                return
            if not chunk:
                return

    def _feed(self, chunk: bytes) -> None:
        if chunk:
            self._buffer += chunk
            self._handled_event().clear()
        else:
            self._eof = True
        assert self._arrived is not None
        self._arrived.set()

    async def _more(self) -> None:
        if self._loop is None:
            self._start()
            return
        assert self._arrived is not None
        self._arrived.clear()
        await self._arrived.wait()

    # ---- messages

    async def handled(self) -> None:
        """Return once every whole message that has arrived is handed on (a heavy
        request's next step waits for it: scheduling.steps)."""
        await self._handled_event().wait()

    async def read_message(self) -> bytes | None:
        """The next message's body; None at the end of the input."""
        import asyncio

        # Let the tasks of the messages handled so far take their first step (a heavy
        # request pins its version and queues its job) before the next message is
        # read: pygls' own reader always waited here.
        await asyncio.sleep(0)
        while True:
            body = self._frame()
            if body is not None:
                return body
            self._handled_event().set()
            if self._ended():
                return None
            await self._more()

    def read_message_now(self) -> bytes | None:
        """The next message's body, read here and now, blocking: the fast start's
        (prelude.py), before the loop and the reading thread. None at the end of the
        input."""
        assert self._loop is None, "the reading thread has started"
        read = self._reading()
        while True:
            body = self._frame()
            if body is not None:
                return body
            if self._ended():
                return None
            chunk = self._read_chunk(read)
            if chunk:
                self._buffer += chunk
            else:
                self._eof = True

    def _ended(self) -> bool:
        """At the end of the input, nothing more to read: what is left is dropped."""
        if not self._eof:
            return False
        if self._buffer.strip():
            self._problem(f"the input ended inside a message: {len(self._buffer)} bytes dropped")
        self._buffer.clear()
        return True

    def resync(self, body: bytes) -> None:
        """`body` did not parse: put it back less its first byte, so that the next
        header is searched for from there (the module's docstring says why)."""
        self._buffer[0:0] = body[1:]

    def report_to(self, report: Callable[[FramingError], None]) -> None:
        """From now on tell `report` of what was skipped or refused, and tell it now of
        what was before (while the fast start read)."""
        self._report = report
        held, self._held = self._held, []
        for error in held:
            report(error)

    def _problem(self, message: str, severe: bool = False) -> None:
        (logger.error if severe else logger.warning)("%s", message)
        if self._report is not None:
            self._report(FramingError(message, severe))
        else:
            self._held.append(FramingError(message, severe))

    def _skip(self, count: int, why: str | None) -> None:
        skipped = bytes(self._buffer[:count])
        del self._buffer[:count]
        if why is not None and skipped.strip() and not _HEADERS_ONLY.fullmatch(skipped):
            self._problem(f"{why}: {len(skipped)} bytes skipped ({skipped[:40]!r}...)")

    def _frame(self) -> bytes | None:
        """A whole message taken off the buffer, or None while more input is needed
        (what could not be a message is dropped on the way)."""
        buffer = self._buffer
        while True:
            found = _CONTENT_LENGTH.search(buffer)
            if found is None:
                # Keep what could be the start of the header name, split by a chunk.
                keep = len(_NAME) - 1
                if len(buffer) > keep:
                    self._skip(len(buffer) - keep, "input that is no message")
                return None
            if found.start():
                self._skip(found.start(), "input before a header")
            line = _LENGTH_LINE.match(buffer)
            if line is None:
                if buffer.find(b"\n") < 0 and len(buffer) < MAX_HEADER_BYTES:
                    return None  # the line is not complete yet
                self._skip(len(_NAME), None)
                self._problem("a Content-Length header whose value is not a length: skipped")
                continue
            length = int(line.group(1))
            if length > MAX_MESSAGE_BYTES:
                self._skip(line.end(), None)
                self._problem(f"a message of {length} bytes refused (the limit is {MAX_MESSAGE_BYTES}): "
                              "reading on at the next header", severe=True)
                continue
            # The other header lines, up to the empty line.
            at = line.end()
            while True:
                end = _END_OF_HEADERS.match(buffer, at)
                if end is not None:
                    start = end.end()
                    break
                header = _HEADER_LINE.match(buffer, at)
                if header is None:
                    if buffer.find(b"\n", at) < 0 and len(buffer) - at < MAX_HEADER_BYTES:
                        return None  # the header part is not complete yet
                    start = -1
                    break
                again = _LENGTH_LINE.match(header.group(0))
                if again is not None:  # a repeated Content-Length: the last one counts
                    length = int(again.group(1))
                at = header.end()
            if start < 0:
                self._skip(at, None)
                self._problem("a header part without its empty line: reading on at the next header")
                continue
            if length > MAX_MESSAGE_BYTES:
                self._skip(start, None)
                self._problem(f"a message of {length} bytes refused (the limit is {MAX_MESSAGE_BYTES})", severe=True)
                continue
            if len(buffer) < start + length:
                return None
            body = bytes(buffer[start:start + length])
            del buffer[:start + length]
            return body


class Writer:
    """stdout, written by a thread of its own, in order; quiet once closed or broken.

    A big answer (the tokens or symbols of a 50,000-line file are megabytes) goes
    through a 64 kB pipe as fast as the client reads it: written on the loop, it held
    the loop (and every hover behind it) for as long as the client took to read and
    parse. The loop hands the bytes over and goes on. After `exit` (pygls closes stdout)
    the tasks cancelled as the loop ends still send (progress ends, log messages), and
    each failure would be reported by sending again: those are dropped."""

    FLUSH_LIMIT = 5.0  # seconds `close` waits for what is queued to be written
    SLICE = 1 << 20  # characters of an ASCII text encoded at a time

    def __init__(self, stdout: BinaryIO) -> None:
        self._stdout = stdout
        self.lost = False
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._idle = threading.Event()
        self._idle.set()
        self._pending = 0
        # The same, for the loop: set once everything written is out (`written`).
        import asyncio

        self._written = asyncio.Event()
        self._written.set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._drain, name="cint-stdout", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self.flush()
        self.lost = True
        self._queue.put(None)
        self._stdout.close()

    def flush(self, limit: float = FLUSH_LIMIT) -> None:
        """Wait, at most `limit` seconds, until everything written so far is out."""
        self._idle.wait(limit)

    def write(self, data: bytes | str) -> None:
        if self.lost:
            logger.debug("not sent, the connection is closed: %d bytes", len(data))
            return
        with self._lock:
            self._pending += 1
            self._idle.clear()
        import asyncio

        try:
            self._loop = asyncio.get_running_loop()
            self._written.clear()
        except RuntimeError:  # not on the loop (at the end)
            pass
        self._queue.put(data)

    async def written(self) -> None:
        """Return once everything written so far is out (a heavy request's next step
        waits for it: the writer's thread then has the GIL to itself)."""
        await self._written.wait()

    def _out(self) -> None:  # on the loop
        if self._idle.is_set():
            self._written.set()

    def _drain(self) -> None:
        while (data := self._queue.get()) is not None:
            if not self.lost:
                try:
                    if isinstance(data, str):  # ASCII (`_send_serialized`), by slices
                        for at in range(0, len(data), self.SLICE):
                            self._stdout.write(data[at:at + self.SLICE].encode("ascii"))
                    else:
                        self._stdout.write(data)
                    self._stdout.flush()
                except (OSError, ValueError) as error:
                    self.lost = True
                    logger.error("the connection to the client is lost: %s", error)
            with self._lock:
                self._pending -= 1
                if not self._pending:
                    self._idle.set()
                    if self._loop is not None:
                        try:
                            self._loop.call_soon_threadsafe(self._out)
                        except RuntimeError:  # the loop is closed
                            pass
