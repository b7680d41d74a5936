"""cint-workbench's speed (issue 31), as a person meets it:

- **Start**: `cint-workbench --plain` spawned with one input (`1 + 2`) on stdin, to its
  answer and exit; and `cint-workbench` on a terminal (a pty), to its prompt_toolkit
  prompt `ci[1]>`: the wait before a person can type. Target: 0.5 s.
- **An expression** in a session of a few kernels and variables (heat_e1 loaded, two
  8 x 8 arrays): `Session.enter("a[3, 4] + 1")` to its answer. Target: 20 ms.
- **A statement with a dispatch** of the heat kernel on the reference (64 work-items).
- **A dispatch of 65,536 work-items** with `:executor cpu-c17` (its library in the compile
  cache: the second and later), beside the same on the reference. Target: 150 ms.

    python benchmarks/workbench.py [--runs 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
HEAT_E1 = REPO / "tests" / "conformance" / "heat_e1.ci"


def start() -> float:
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-P", "-m", "cint_ls.workbench", "--plain"], input="1 + 2\n",
                          capture_output=True, text=True, check=True)
    assert "= 3 : I64" in done.stdout, done.stdout
    return time.perf_counter() - began


def interactive_start() -> float:
    import pty
    import select

    began = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # the child: the workbench on the pty
        os.execv(sys.executable, [sys.executable, "-P", "-m", "cint_ls.workbench"])
    seen = b""
    while b"ci[1]>" not in seen:
        ready, _, _ = select.select([fd], [], [], 10)
        if not ready:
            raise RuntimeError(f"no prompt: {seen!r}")
        seen += os.read(fd, 4096)
    took = time.perf_counter() - began
    os.write(fd, b"\x04")  # Ctrl-D
    os.waitpid(pid, 0)
    os.close(fd)
    return took


def session_times(runs: int) -> tuple[list[float], list[float]]:
    from cint_ls.workbench.session import Session

    s = Session()
    s.enter(f":load {HEAT_E1}")
    for text in ("I32[8, 8] a;", "I32[8, 8] b;", "a[3, 4] = 1000;", "I64 total = 0;"):
        s.enter(text)
    expression, dispatch = [], []
    for _ in range(runs):
        began = time.perf_counter()
        assert s.enter("a[3, 4] + 1").text == "= 1001 : I32\n"
        expression.append(time.perf_counter() - began)
        began = time.perf_counter()
        assert not s.enter("heat_e1.diffuse(a, 1, 8, b, total);").error
        dispatch.append(time.perf_counter() - began)
    return expression, dispatch


BIG = "kernel sq[n](in I64[n] a, out I64[n] b, out I64 t) over [i: n] { b[i] = a[i] * a[i]; reduce t = sum(a[i]); }"


def big_dispatch(executor: str, runs: int) -> list[float]:
    from cint_ls.workbench.session import Session

    s = Session()
    for text in (f":executor {executor}", BIG, "I64[65536] a;", "for i in 0..65536 { a[i] = i; }", "I64[65536] b;",
                 "I64 t = 0;", "sq(a, b, t);"):
        assert not s.enter(text).error, text
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        assert not s.enter("sq(a, b, t);").error
        times.append(time.perf_counter() - began)
    assert s.enter("t").text == "= 2147450880 : I64\n"
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    print(f"{os.uname().machine}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
    starts = [start() for _ in range(max(3, args.runs // 4))]
    print(f"start to the first answer: median {statistics.median(starts):.2f} s, max {max(starts):.2f} s "
          f"(target 0.5 s)")
    prompts = [interactive_start() for _ in range(max(3, args.runs // 4))]
    print(f"start to the interactive prompt (a pty): median {statistics.median(prompts):.2f} s, "
          f"max {max(prompts):.2f} s (target 0.5 s)")
    expression, dispatch = session_times(args.runs)
    print(f"an expression: median {1e3 * statistics.median(expression):.1f} ms, max {1e3 * max(expression):.1f} ms "
          f"(target 20 ms)")
    print(f"a statement dispatching heat_e1's kernel (64 work-items, the reference): median "
          f"{1e3 * statistics.median(dispatch):.1f} ms")
    c17 = big_dispatch("cpu-c17", max(3, args.runs // 2))
    reference = big_dispatch("cpu-sir-interp", 3)
    print(f"a dispatch of 65,536 work-items: :executor cpu-c17 median {1e3 * statistics.median(c17):.1f} ms "
          f"(max {1e3 * max(c17):.1f} ms; target 150 ms), the reference {1e3 * statistics.median(reference):.0f} ms")


if __name__ == "__main__":
    main()
