"""The server's start-up (issue 29, "a fast first impression"; benchmarks/startup.py
measures it): what it leaves for after the first diagnostics."""

from __future__ import annotations

import subprocess
import sys

from fuzz.lsp_raw import RawServer

# The server, with the collector's state recorded around each `settle_heap` (the step
# after a publication) and written to stderr at the end.
SPY = """
import atexit, gc, sys
from cint_ls.server.handlers import documents
settle, seen = documents.settle_heap, []
def spy(session):
    seen.append(gc.isenabled())
    settle(session)
    seen.append(gc.isenabled())
documents.settle_heap = spy
atexit.register(lambda: print("collector", seen, file=sys.stderr))
from cint_ls.server.main import main
sys.exit(main([]))
"""


def test_the_collector_is_off_until_the_first_publication():
    """The imports and the first analysis run without the cyclic collector (40% of a
    first analysis at 5,000 lines went to young collections), and it is on from the
    first publication on."""
    server = RawServer(command=[sys.executable, "-P", "-c", SPY], stderr=subprocess.PIPE)
    try:
        server.initialize()
        uri = "file:///tmp/startup_probe.ci"
        server.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "cint", "version": 1, "text": "I64 x = 1;\n"}})
        server.wait_for(lambda: any(n["method"] == "textDocument/publishDiagnostics" for n in server.notifications))
        server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                                 "contentChanges": [{"text": "I64 x = 2;\n"}]})
        server.wait_for(lambda: sum(n["method"] == "textDocument/publishDiagnostics"
                                    for n in server.notifications) >= 2)
        server.call("shutdown")
        server.notify("exit")
        assert server.end() == 0
        err = server.proc.stderr.read().decode()
    finally:
        server.kill()
    line = next(line for line in err.splitlines() if line.startswith("collector"))
    # Off before the first publication's settle_heap, on after it and from then on.
    assert line == "collector [False, True, True, True]", err
