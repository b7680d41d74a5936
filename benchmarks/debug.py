"""cint-debug's speed (issue 30): a step, and a run to a breakpoint beside a plain run.

- **A step**: `next` (or `stepIn`) sent, to the answer of the last request an editor
  sends to show where it stopped (the `stopped` event, then stackTrace, scopes and the
  locals' variables), on the statements of heat_e1 (from a breakpoint at the kernel's
  first statement): the time a person waits at each F10. Target: p95 <= 30 ms.
- **To a breakpoint in a called function**: heat_tour.ci (40 dispatches of 256
  work-items) under the debugger with a breakpoint at the last statement of `tour`, from
  `configurationDone` to the `stopped` event, beside the same program run in process by
  the reference (the interpreter without an observer). Target: at most 1.5x.

- **To the fault of a big program**: heat_fault_1024.ci (a heat kernel of 1024 x 1024
  that faults in dispatch 30, work-item 6151) launched with `stopOnFault`, from
  `initialize` (F5) to the `stopped` event at the fault: cpu-c17 runs it, runs it again
  up to the dispatch and the work-items before the fault, and the reference runs the one
  work-item (debug/replay.py). Warm (the program's C built before) and cold (an empty
  compile cache, as after an edit). Target: within 5 s. With `--reference`, the
  reference alone beside it: the same program run in process by the interpreter to its
  fault (minutes).

The client is raw DAP over the adapter's pipes (`python -P -m cint_ls.debug`), so the
times are the adapter's and the program's, with one round trip of a pipe.

    python benchmarks/debug.py [--steps 200] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.append(str(REPO))  # the fuzzers' package: the one reader of framed messages

from fuzz.lsp_raw import read_messages  # noqa: E402

CONFORMANCE = REPO / "tests" / "conformance"


class Client:
    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-P", "-m", "cint_ls.debug"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.seq = 0
        self.messages: queue.Queue[tuple[float, dict[str, Any]]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for message in read_messages(self.proc.stdout):
            self.messages.put((time.perf_counter(), message))

    def send(self, command: str, arguments: dict[str, Any] | None = None) -> None:
        self.seq += 1
        body = json.dumps({"seq": self.seq, "type": "request", "command": command,
                           "arguments": arguments or {}}).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def until(self, test: Any) -> tuple[float, dict[str, Any]]:
        while True:
            when, message = self.messages.get(timeout=120)
            if test(message):
                return when, message

    def event(self, name: str) -> tuple[float, dict[str, Any]]:
        return self.until(lambda m: m.get("type") == "event" and m.get("event") in (name, "terminated"))

    def start(self, program: Path, breakpoints: list[int]) -> float:
        """Up to configurationDone; the time it was sent."""
        self.send("initialize", {"adapterID": "cint"})
        self.send("launch", {"program": str(program)})
        self.event("initialized")
        self.send("setBreakpoints", {"source": {"path": str(program)}, "breakpoints": [{"line": n} for n in breakpoints]})
        self.send("setExceptionBreakpoints", {"filters": []})
        sent = time.perf_counter()
        self.send("configurationDone")
        return sent

    def close(self) -> None:
        self.send("disconnect")
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def steps(count: int) -> list[float]:
    client = Client()
    client.start(CONFORMANCE / "heat_e1.ci", [8])
    client.event("stopped")
    times = []
    for i in range(count):
        sent = time.perf_counter()
        client.send("stepIn" if i % 2 else "next", {"threadId": 1})
        _, message = client.event("stopped")
        if message.get("event") == "terminated":
            break
        # What the editor asks at once to show the stop: the stack, the top frame's scopes,
        # its locals.
        client.send("stackTrace", {"threadId": 1, "startFrame": 0, "levels": 20})
        _, trace = client.until(lambda m: m.get("command") == "stackTrace")
        client.send("scopes", {"frameId": trace["body"]["stackFrames"][0]["id"]})
        _, scopes = client.until(lambda m: m.get("command") == "scopes")
        client.send("variables", {"variablesReference": scopes["body"]["scopes"][0]["variablesReference"]})
        when, _ = client.until(lambda m: m.get("command") == "variables")
        times.append(1e3 * (when - sent))
    client.close()
    return times


def to_breakpoint() -> float:
    client = Client()
    sent = client.start(CONFORMANCE / "heat_tour.ci", [29])
    when, message = client.event("stopped")
    assert message.get("event") == "stopped", message
    client.close()
    return when - sent


def plain() -> float:
    from cint_ls.exec.interp import Machine
    from cint_ls.ir.build import build

    built = build((CONFORMANCE / "heat_tour.ci").read_text(), str(CONFORMANCE / "heat_tour.ci"))
    assert built.program is not None
    start = time.perf_counter()
    Machine(built.program, None, lambda text: None).run()
    return time.perf_counter() - start


HEAT_FAULT = REPO / "benchmarks" / "heat_fault_1024.ci"


def to_fault() -> float:
    """F5 with stopOnFault on heat_fault_1024.ci: initialize sent -> stopped at the fault."""
    client = Client()
    sent = time.perf_counter()
    client.send("initialize", {"adapterID": "cint"})
    client.send("launch", {"program": str(HEAT_FAULT), "stopOnFault": True})
    client.event("initialized")
    client.send("setBreakpoints", {"source": {"path": str(HEAT_FAULT)}, "breakpoints": []})
    client.send("setExceptionBreakpoints", {"filters": ["faults"]})
    client.send("configurationDone")
    when, message = client.event("stopped")
    assert message.get("event") == "stopped" and message["body"]["reason"] == "exception", message
    client.close()
    return when - sent


def reference_to_fault() -> float:
    from cint_ls.exec.interp import Machine
    from cint_ls.ir.build import build

    built = build(HEAT_FAULT.read_text(), str(HEAT_FAULT))
    assert built.program is not None
    start = time.perf_counter()
    result = Machine(built.program, None, lambda text: None).run()
    assert result.fault is not None and result.fault.address is not None and result.fault.address.dispatch == 30
    return time.perf_counter() - start


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--reference", action="store_true", help="also run heat_fault_1024 on the reference alone")
    args = parser.parse_args()
    print(f"{os.uname().machine}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
    times = steps(args.steps)
    print(f"a step (next/stepIn -> stopped, stackTrace, scopes, variables), n={len(times)}: p50 {statistics.median(times):.1f} ms, "
          f"p95 {p95(times):.1f} ms, max {max(times):.1f} ms (target p95 <= 30 ms)")
    debugged, alone = [], []
    for _ in range(args.runs):  # interleaved
        debugged.append(to_breakpoint())
        alone.append(plain())
    d, a = statistics.median(debugged), statistics.median(alone)
    print(f"heat_tour to a breakpoint at its last statement: {1e3 * d:.0f} ms (median of {args.runs}); "
          f"the reference alone, in process: {1e3 * a:.0f} ms; {d / a:.2f}x (target <= 1.5x)")
    warm = [to_fault() for _ in range(args.runs)]
    with tempfile.TemporaryDirectory() as cache:
        os.environ["XDG_CACHE_HOME"] = cache  # the adapter's: an empty compile cache
        cold = to_fault()
        del os.environ["XDG_CACHE_HOME"]
    print(f"heat_fault_1024 (1024 x 1024, fault in dispatch 30), F5 with stopOnFault to the stop at the fault: "
          f"warm {statistics.median(warm):.2f} s (median of {args.runs}, max {max(warm):.2f} s), "
          f"cold compile cache {cold:.2f} s (target <= 5 s)")
    if args.reference:
        print(f"heat_fault_1024 on the reference alone, in process, to its fault: {reference_to_fault():.1f} s")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
