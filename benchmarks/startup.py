"""Start-up of the language server: spawn -> `initialize` answered, and spawn -> the
first `publishDiagnostics` of a 5,000-line file opened right after `initialized`
(issue 29, "a fast first impression"; target: spawn -> first diagnostics <= 250 ms).

The client is raw JSON-RPC over the child's pipes (no pygls, nothing imported for it
after the clock starts), so the times are the server's own: a clock read just before
the spawn, the initialize, initialized and didOpen written at once as an editor does,
and each answer timed when its last byte is read. The server's requests (configuration,
registrations) are answered null at once, as `fuzz.lsp_raw.RawServer` does.

    python benchmarks/startup.py [--runs 20] [--lines 5000] [--server "cint-ls"] [--clangd]
                                 [--also before=/tmp/old]

`--clangd` runs the same against clangd (if on PATH) on a C file of as many lines (the
heat kernel as C functions). Prints median and p95 of each, in milliseconds, with the
machine's load average. Run it with Python's bytecode cache usable, as a user has it
(PYTHONDONTWRITEBYTECODE unset): the first run writes the cache of the project's modules
(an installed wheel has it from pip), and that run is not counted (`--warm 1`).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from heat_kernel import heat_file

URI = "file:///cint-ls-benchmark/big.ci"

C_FUNCTION = """int diffuse{k}(const int *u, long long kn, long long kd, int *v, long long *total, int h, int w) {{
    for (int y = 0; y < h; y++) {{
        for (int x = 0; x < w; x++) {{
            long long c = u[y * w + x];
            int r = u[y * w + x];
            if (y > 0 && y < h - 1 && x > 0 && x < w - 1) {{
                long long lap = (long long) u[(y - 1) * w + x] + u[(y + 1) * w + x]
                    + u[y * w + x - 1] + u[y * w + x + 1] - 4 * c;
                long long flux = (kn * lap) / kd;
                r = (int) (c + flux);
            }}
            v[y * w + x] = r;
            *total += r;
        }}
    }}
    return 0;
}}

"""


def c_file(lines: int) -> str:
    per = C_FUNCTION.count("\n")
    return "".join(C_FUNCTION.format(k=k) for k in range(lines // per + 1))


def frame(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_message(stream) -> dict | None:
    length = None
    while True:
        line = stream.readline()
        if not line:
            return None
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
        if line in (b"\r\n", b"\n"):
            break
    body = stream.read(length)
    return json.loads(body) if len(body) == length else None


def cpu_ms(pid: int) -> float | None:
    """The processor time a process has had (user and system, all its threads, those
    ended too), from /proc in clock ticks (10 ms): what a start costs whatever the load
    beside it; None where there is no /proc."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def one_start(command: list[str], uri: str, language: str, text: str, cwd: str | None,
              env: dict | None) -> tuple[float, float, float | None]:
    """(spawn -> initialize answered, spawn -> first publishDiagnostics of `uri`, the
    server's processor time by then), in ms."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, cwd=cwd, env=env)
    root = Path(cwd or ".").resolve().as_uri()
    proc.stdin.write(frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "processId": os.getpid(), "rootUri": root, "capabilities": {
            "workspace": {"configuration": True},
            "textDocument": {"publishDiagnostics": {"versionSupport": True}}},
        "workspaceFolders": [{"uri": root, "name": "bench"}]}}))
    proc.stdin.write(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
    proc.stdin.write(frame({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}}}))
    proc.stdin.flush()
    initialized = published = None
    try:
        while published is None:
            message = read_message(proc.stdout)
            if message is None:
                raise RuntimeError(f"{command[0]} ended before its first diagnostics")
            now = time.perf_counter()
            if message.get("id") == 1 and "method" not in message:
                initialized = now
            elif "method" in message and "id" in message:  # a request of the server's
                items = (message.get("params") or {}).get("items", [])
                result = [None] * len(items) if message["method"] == "workspace/configuration" else None
                proc.stdin.write(frame({"jsonrpc": "2.0", "id": message["id"], "result": result}))
                proc.stdin.flush()
            elif message.get("method") == "textDocument/publishDiagnostics" and \
                    message["params"]["uri"] == uri:
                published = now
                cpu = cpu_ms(proc.pid)
        proc.stdin.write(frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
        proc.stdin.write(frame({"jsonrpc": "2.0", "method": "exit"}))
        proc.stdin.close()
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return (initialized - start) * 1000, (published - start) * 1000, cpu


def p95(samples: list[float]) -> float:
    samples = sorted(samples)
    return samples[min(len(samples) - 1, int(len(samples) * 0.95))]


def measure(servers: list[tuple[str, list[str], dict | None]], uri: str, language: str, text: str, args,
            cwd: str | None = None) -> None:
    """Each server's starts, interleaved run by run (a load that comes and goes meets
    them all alike)."""
    for _name, command, env in servers:
        for _ in range(args.warm):
            one_start(command, uri, language, text, cwd, env)
    times: dict[str, tuple[list[float], list[float], list[float]]] = {name: ([], [], []) for name, _, _ in servers}
    for _ in range(args.runs):
        for name, command, env in servers:
            a, b, cpu = one_start(command, uri, language, text, cwd, env)
            times[name][0].append(a)
            times[name][1].append(b)
            if cpu is not None:
                times[name][2].append(cpu)
    for name, (init, first, cpu) in times.items():
        print(f"{name:<12} spawn -> initialize answered   median {statistics.median(init):7.1f} ms"
              f"   p95 {p95(init):7.1f} ms")
        print(f"{name:<12} spawn -> first diagnostics     median {statistics.median(first):7.1f} ms"
              f"   p95 {p95(first):7.1f} ms   (n={args.runs})")
        if cpu:
            print(f"{name:<12} processor time by the first diagnostics   median {statistics.median(cpu):7.1f} ms"
                  f"   p95 {p95(cpu):7.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--warm", type=int, default=1, help="unmeasured starts first (the bytecode cache)")
    parser.add_argument("--lines", type=int, default=5000)
    parser.add_argument("--server", default=None,
                        help="the server's command (default: cint-ls beside this Python)")
    parser.add_argument("--also", action="append", default=[], metavar="NAME=PYTHONPATH",
                        help="also a server of another checkout, `python -P -m cint_ls.server` with this "
                             "PYTHONPATH (a `git worktree` of an older commit: before and after in one run)")
    parser.add_argument("--clangd", action="store_true", help="clangd on a C file of as many lines too")
    args = parser.parse_args()

    text = heat_file(args.lines)
    command = shlex.split(args.server) if args.server else \
        [str(Path(sys.executable).with_name("cint-ls"))]
    print(f"{os.uname().machine}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} "
          f"{os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}; "
          f"PYTHONDONTWRITEBYTECODE={os.environ.get('PYTHONDONTWRITEBYTECODE', '(unset)')}")
    print(f"cint-ls: {' '.join(command)}; {text.count(chr(10))} lines, {len(text.encode())} bytes")
    servers: list[tuple[str, list[str], dict | None]] = [("cint-ls", command, None)]
    for also in args.also:
        name, _, path = also.partition("=")
        servers.append((name, [sys.executable, "-P", "-m", "cint_ls.server"], {**os.environ, "PYTHONPATH": path}))
        print(f"{name}: PYTHONPATH={path} {sys.executable} -P -m cint_ls.server")
    measure(servers, URI, "cint", text, args)
    if args.clangd:
        clangd = shutil.which("clangd")
        if clangd is None:
            print("clangd: not on PATH (apt-get install -y clangd)")
            return
        source = c_file(args.lines)
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "big.c"
            path.write_text(source)
            print(f"clangd: {clangd}; {source.count(chr(10))} lines of C")
            measure([("clangd", [clangd, "--log=error"], None)], path.as_uri(), "c", source, args, cwd=folder)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
