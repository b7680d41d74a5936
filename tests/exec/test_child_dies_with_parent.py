"""Issue 13 item 1: the child of an isolated run dies with its parent.

`cint run --executor cpu-c17` of an endless loop is killed with SIGINT, SIGTERM and
SIGKILL; no process of the run survives. The run's processes are found by walking /proc
for a `cint_ls.running.isolated` command line whose environment holds a marker unique to
the test (the child inherits the CLI's environment), so a re-parented child is found too.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from cint_ls.running.isolated import PARENT_ENV, Request, run_isolated

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="walks /proc (Linux)")

LOOP = "void f() { while (true) { } }\nf();\n"
MARKER = "CINT_TEST_DIES_WITH_PARENT"


def _has_compiler() -> bool:
    try:
        from cint_ls.exec.c17.build import find_compiler

        find_compiler()
        return True
    except Exception:  # noqa: BLE001
        return False


def _survivors(marker: str) -> list[int]:
    """Live (not zombie) processes of an isolated run started under `marker`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
            if b"cint_ls.running.isolated" not in cmdline:  # `-m cint_ls.running.isolated`
                continue
            environ = (entry / "environ").read_bytes().split(b"\0")
            if f"{MARKER}={marker}".encode() not in environ:
                continue
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        state = stat[stat.rindex(")") + 2]
        if state not in "ZX":
            found.append(int(entry.name))
    return found


def _wait_for(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def _cpu_ticks(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


@pytest.fixture(scope="module")
def warm_library(tmp_path_factory):
    """The loop's library built once (a run with a small budget), so the run below is
    looping rather than compiling when it is killed."""
    if not _has_compiler():
        pytest.skip("no C compiler")
    result = run_isolated(Request.of_text("cpu-c17", "loop.ci", LOOP, fuel=1000), time_limit=300)
    assert result.fault is not None and result.fault.code == "E_FUEL"


@pytest.mark.needs_cc
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL],
                         ids=["SIGINT", "SIGTERM", "SIGKILL"])
def test_the_child_of_an_interrupted_cpu_c17_run_dies(signum, tmp_path, warm_library):
    (tmp_path / "loop.ci").write_text(LOOP)
    marker = uuid.uuid4().hex
    env = {**os.environ, MARKER: marker}
    env.pop(PARENT_ENV, None)
    cli = subprocess.Popen(
        [sys.executable, "-c", "import sys; from cint_ls.cli.main import main; sys.exit(main())",
         "run", "loop.ci", "--executor", "cpu-c17"],  # no --fuel: unlimited, so it loops
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        # SIGINT's default action, so that Python turns it into KeyboardInterrupt even when
        # the test runs with SIGINT ignored (a background job).
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # noqa: PLW1509
    )
    try:
        assert _wait_for(lambda: _survivors(marker), 120), "the run's child did not start"
        (child,) = _survivors(marker)
        start = _cpu_ticks(child)
        assert _wait_for(lambda: _cpu_ticks(child) > start + 20, 60), "the child is not looping"
        os.kill(cli.pid, signum)
        _, err = cli.communicate(timeout=30)
        assert _wait_for(lambda: not _survivors(marker), 2.5), f"survivors: {_survivors(marker)}"
    finally:
        if cli.poll() is None:
            cli.kill()
            cli.wait()
        for pid in _survivors(marker):
            os.kill(pid, signal.SIGKILL)
    if signum == signal.SIGINT:
        assert cli.returncode == 130 and err.decode().strip().endswith("cint: interrupted")
    else:
        assert cli.returncode == -signum


@pytest.mark.needs_cc
def test_a_child_whose_parent_is_gone_ends_itself(tmp_path, warm_library):
    """The child's own backstop (no death signal involved): an intermediate process starts
    `python -m cint_ls.running.isolated` as run_isolated would, minus the death signal, hands
    it an endless loop and exits; the child notices the new parent and ends."""
    marker = uuid.uuid4().hex
    request = Request.of_text("cpu-c17", "loop.ci", LOOP).to_bytes().hex()
    script = (
        "import os, subprocess, sys\n"
        f"env = {{**os.environ, {PARENT_ENV!r}: str(os.getpid())}}\n"
        "child = subprocess.Popen([sys.executable, '-P', '-m', 'cint_ls.running.isolated'], stdin=subprocess.PIPE,\n"
        "                         stdout=subprocess.DEVNULL, env=env, start_new_session=True)\n"
        "child.stdin.write(bytes.fromhex(sys.argv[1])); child.stdin.close()\n"
        "print(child.pid, flush=True)\n"
        "sys.stdin.readline()\n"
        "os._exit(0)\n"
    )
    env = {**os.environ, MARKER: marker}
    env.pop(PARENT_ENV, None)
    middle = subprocess.Popen([sys.executable, "-c", script, request], env=env, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        pid = int(middle.stdout.readline())
        assert _wait_for(lambda: _survivors(marker) == [pid], 30)
        start = _cpu_ticks(pid)
        assert _wait_for(lambda: _cpu_ticks(pid) > start + 20, 60), "the child is not looping"
        middle.stdin.write("\n")
        middle.stdin.close()
        middle.wait(timeout=30)
        assert _wait_for(lambda: not _survivors(marker), 2.5), f"survivors: {_survivors(marker)}"
    finally:
        if middle.poll() is None:
            middle.kill()
            middle.wait()
        for pid in _survivors(marker):
            os.kill(pid, signal.SIGKILL)


def test_a_child_started_after_its_parent_died_does_not_run(tmp_path):
    """$CINT_ISOLATED_PARENT names a process that is not the parent: the child ends at once."""
    env = {**os.environ, PARENT_ENV: "1" if os.getpid() != 1 else "2"}
    child = subprocess.run([sys.executable, "-P", "-m", "cint_ls.running.isolated"],
                           input=Request.of_text("cpu-sir-interp", "loop.ci", LOOP).to_bytes(),
                           env=env, capture_output=True, timeout=60, start_new_session=True, check=False)
    assert child.returncode == -signal.SIGKILL and child.stdout == b""
