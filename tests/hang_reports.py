"""A test that still waits on its language server near pytest-timeout's limit asks the
server where it is (SIGUSR1: every thread's stack on the server's stderr, which pytest-lsp
forwards into the test's captured output), so that a hang in CI fails with the server's
side of it. The fixture is autouse from tests/conftest.py (a conftest.py of tests/server
would shadow the `from conftest import ...` of its modules); without a server child it
does nothing."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

import pytest

ASK_BEFORE_THE_LIMIT = 60.0  # seconds before pytest-timeout's limit


def server_processes() -> list[int]:
    """This process's children that run the language server."""
    me, found = str(os.getpid()), []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:  # gone meanwhile
            continue
        parent = stat.rsplit(")", 1)[1].split()[1]
        if parent == me and b"cint_ls.server" in command:
            found.append(int(entry.name))
    return found


def ask_where_they_are() -> None:
    for pid in server_processes():
        try:
            os.kill(pid, signal.SIGUSR1)
        except OSError:
            pass


@pytest.fixture(autouse=True)
def servers_asked_before_the_time_limit(request):
    limit = float(request.config.getini("timeout") or 0)
    if limit <= ASK_BEFORE_THE_LIMIT or not Path("/proc").is_dir() or not hasattr(signal, "SIGUSR1"):
        yield
        return
    timer = threading.Timer(limit - ASK_BEFORE_THE_LIMIT, ask_where_they_are)
    timer.daemon = True
    timer.start()
    yield
    timer.cancel()
