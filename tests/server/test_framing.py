"""LSP's base protocol on raw stdin (issue 13, item 9): header names in any case, no
space after the colon, a Content-Length a few bytes off, garbage between messages and
an absurd length leave the server answering; the bytes are sent as they are
(`fuzz/lsp_raw.py`). The reader alone (`framing.StdinReader`) is tested on
chunks split everywhere."""

from __future__ import annotations

import asyncio
import io
import json

import pytest

from cint_ls.server.framing import MAX_MESSAGE_BYTES, StdinReader
from fuzz.lsp_raw import RawServer, encode, frame

HOVER = {"textDocument": {"uri": "file:///nowhere.ci"}, "position": {"line": 0, "character": 0}}


def _request(msg_id, method="textDocument/hover", params=HOVER) -> bytes:
    return encode({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})


@pytest.fixture(scope="module")
def server():
    server = RawServer()
    server.initialize()
    yield server
    server.kill()


def _answers(server, msg_id) -> None:
    assert server.wait(msg_id, timeout=20)["result"] is None


def test_lowercase_header_name_and_no_space_after_the_colon(server):
    body = _request(101)
    server.send(b"content-length:%d\r\n\r\n" % len(body) + body)
    _answers(server, 101)
    body = _request(102)
    server.send(b"CONTENT-LENGTH: \t%d \r\ncontent-type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n"
                % len(body) + body)
    _answers(server, 102)
    body = _request(103)  # Content-Type first, and bare \n line ends
    server.send(b"Content-Type: application/vscode-jsonrpc\nContent-Length: %d\n\n" % len(body) + body)
    _answers(server, 103)


@pytest.mark.parametrize("off", [-3, -1, 1, 3])
def test_content_length_a_few_bytes_off_resynchronises(server, off):
    nulls = len(server.null_id)
    body = _request(200 + off)
    # The message with the wrong length is lost (ParseError, null id); the next one is
    # read, whether the wrong length ate into its header or left bytes before it.
    server.send(b"Content-Length: %d\r\n\r\n" % (len(body) + off) + body + frame(_request(300 + off)))
    _answers(server, 300 + off)
    assert 200 + off not in server.responses
    errors = server.null_id[nulls:]
    assert [e["error"]["code"] for e in errors] == [-32700]


def test_garbage_between_messages_is_skipped(server):
    server.send(b"\x00\xff garbage\r\n\r\nX-Header: 1\r\n\r\nContent-Length: twelve\r\n\r\n{}" + frame(_request(401)))
    _answers(server, 401)
    # A header part with no empty line after it: read on at the next header.
    server.send(b"Content-Length: 10\r\nnot a header line\r\n" + frame(_request(402)))
    _answers(server, 402)


def test_absurd_content_length_is_refused_and_the_server_reads_on(server):
    server.send(b"Content-Length: 99999999999\r\n\r\n" + b'{"jsonrpc": "2.0"' * 1000 + frame(_request(501)))
    _answers(server, 501)
    refused = [n for n in server.notifications if n["method"] == "window/logMessage"
               and "99999999999 bytes refused" in n["params"]["message"]]
    assert refused and refused[0]["params"]["type"] == 1  # Error
    assert server.proc.poll() is None


def test_body_split_in_bytes_arrives_whole(server):
    data = frame(_request(601))
    for i in range(len(data)):
        server.send(data[i:i + 1])
    _answers(server, 601)


# ---- the reader alone


class _Chunks(io.RawIOBase):
    """`data` read `chunk` bytes at a time, with no file descriptor."""

    def __init__(self, data: bytes, chunk: int):
        self.data, self.chunk, self.at = data, chunk, 0

    def read1(self, n=-1):
        piece = self.data[self.at:self.at + min(self.chunk, n)]
        self.at += len(piece)
        return piece

    def fileno(self):
        raise OSError


def _bodies(data: bytes, chunk: int) -> list[bytes]:
    async def collect():
        reader = StdinReader(_Chunks(data, chunk))
        reader._read = lambda: None  # fed by hand below, not by a thread
        reader._start()
        stream = reader._stream
        found = []
        while True:
            task = asyncio.ensure_future(reader.read_message())
            while not task.done():
                await asyncio.sleep(0)
                reader._feed(stream.read1(chunk))
            body = task.result()
            if body is None:
                return found
            try:
                json.loads(body)
                found.append(body)
            except ValueError:
                reader.resync(body)

    return asyncio.run(collect())


@pytest.mark.parametrize("chunk", [1, 2, 7, 64, 1 << 16])
def test_reader_on_any_chunking(chunk):
    good = [encode({"n": i, "text": "Content-Length: 5 é 😀"}) for i in range(3)]
    data = (frame(good[0]) + b"junk\r\n" + b"content-length:%d\r\n\r\n" % len(good[1]) + good[1]
            + b"Content-Length: %d\r\n\r\n" % (MAX_MESSAGE_BYTES + 1) + b"x" * 100
            + b"Content-Length: 5\r\n\r\n" + good[2][:3] + frame(good[2]))
    assert _bodies(data, chunk) == good


@pytest.mark.parametrize("chunk", [1, 7, 1 << 16])
def test_the_fast_starts_reading_and_the_loops_go_on_from_each_other(chunk):
    """`read_message_now` (the prelude's, blocking) takes the first messages; the loop's
    reader then goes on from the same buffer, the same framing errors reported once."""
    good = [encode({"n": i}) for i in range(4)]
    data = frame(good[0]) + b"junk\r\n" + frame(good[1]) + frame(good[2]) + frame(good[3])[:7]

    problems = []
    reader = StdinReader(_Chunks(data, chunk))
    assert [reader.read_message_now(), reader.read_message_now()] == good[:2]

    async def rest():
        found = []
        while (body := await reader.read_message()) is not None:
            found.append(body)
        return found

    assert asyncio.run(rest()) == good[2:3]
    reader.report_to(problems.append)
    kinds = [p.message.split(":")[0] for p in problems]  # how the junk is reported depends on the chunks
    assert kinds[-1] == "the input ended inside a message" and kinds[:-1]
    assert set(kinds[:-1]) <= {"input before a header", "input that is no message"}
