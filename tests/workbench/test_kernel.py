"""cint-workbench as a Jupyter kernel (issue 31), through jupyter_client as a notebook
front end drives it: execute (answers, a fault as the cell's error with the session
intact after it, a 2-D array as a heat map), complete, inspect, interrupt; and a
notebook executed with nbclient (what `jupyter nbconvert --execute` runs)."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("ipykernel")
jupyter_client = pytest.importorskip("jupyter_client")

pytestmark = pytest.mark.slow  # a kernel process per module

HEAT_E1 = Path(__file__).resolve().parent.parent / "conformance" / "heat_e1.ci"


@pytest.fixture(scope="module")
def kernelspec(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The kernelspec `cint` where jupyter_client looks first, for these tests only."""
    root = tmp_path_factory.mktemp("jupyter")
    (root / "kernels" / "cint").mkdir(parents=True)
    (root / "kernels" / "cint" / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-P", "-m", "cint_ls.workbench.kernel", "-f", "{connection_file}"],
        "display_name": "cint (workbench)", "language": "cint", "interrupt_mode": "signal"}))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("JUPYTER_PATH", str(root))
        yield


@pytest.fixture(scope="module")
def kernel(kernelspec: None) -> Iterator[tuple[Any, Any]]:
    from jupyter_client.manager import start_new_kernel

    manager, client = start_new_kernel(kernel_name="cint", startup_timeout=60)
    try:
        yield manager, client
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def run(client: Any, code: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    seen: list[dict[str, Any]] = []
    reply = client.execute_interactive(code, timeout=60, output_hook=seen.append)
    return reply["content"], [m for m in seen if m["msg_type"] in ("stream", "display_data", "error")]


def text(outputs: list[dict[str, Any]]) -> str:
    return "".join(m["content"].get("text", "") for m in outputs if m["msg_type"] == "stream")


def test_a_cell_of_inputs_a_fault_and_the_state_after(kernel: tuple[Any, Any]) -> None:
    _, client = kernel
    reply, out = run(client, "kernel scale[n](in I64[n] a, I64 k, out I64[n] b) over [i: n] {\n"
                             "    b[i] = a[i] * k;\n}\nI64[2] a = [1, 9223372036854775807];\nI64[2] b;")
    assert reply["status"] == "ok"
    assert "scale   revision session@r1" in text(out) and "a : I64[2]   2 elements   host" in text(out)
    reply, out = run(client, "scale(a, 2, b);")
    assert reply["status"] == "error" and reply["ename"] == "E_OVERFLOW"
    assert any("address: session.scale, dispatch 0, phase 1, work-item 1" in line for line in reply["traceback"])
    reply, out = run(client, "b[1]")
    assert reply["status"] == "ok" and text(out) == "= 0 : I64\n"  # nothing published


def test_completion_and_inspection(kernel: tuple[Any, Any]) -> None:
    _, client = kernel
    run(client, "I64 total_here = 1;")
    client.complete("total_h", 7)
    reply = client.get_shell_msg(timeout=30)["content"]
    assert reply["matches"] == ["total_here"] and reply["cursor_start"] == 0
    client.inspect("total_here", 3)
    found = client.get_shell_msg(timeout=30)["content"]
    assert found["found"] and "I64" in found["data"]["text/plain"]


def test_a_two_dimensional_array_is_a_heat_map(kernel: tuple[Any, Any]) -> None:
    _, client = kernel
    run(client, f":load {HEAT_E1}\nI32[8, 8] u;\nI32[8, 8] v;\nu[3, 4] = 1000;\nI64 total = 0;\n"
                "heat_e1.diffuse(u, 1, 8, v, total);")
    reply, out = run(client, "v")
    (shown,) = [m for m in out if m["msg_type"] == "display_data"]
    page = shown["content"]["data"]["text/html"]
    assert 'data-shape="8,8"' in page and 'data-max="500"' in page and "data:image/png;base64," in page
    assert "<script" not in page and "http" not in page  # nothing runs, nothing is fetched


def test_interrupt_stops_the_entry_and_keeps_the_session(kernel: tuple[Any, Any]) -> None:
    manager, client = kernel
    run(client, "I64 kept = 7;\nexport I64 spin() { I64 x = 0; while (true) { x = x + 1; } return x; }")
    started = time.monotonic()
    # stop_on_error=False: ipykernel aborts the requests that reach it until a message of
    # its own clears the abort after an error, and the next cell could arrive first
    msg_id = client.execute("spin()", stop_on_error=False)
    while True:  # the kernel has taken the cell: then give it time to be in the loop
        message = client.get_iopub_msg(timeout=30)
        if message["parent_header"].get("msg_id") == msg_id and message["msg_type"] == "execute_input":
            break
    time.sleep(1.5)
    manager.interrupt_kernel()
    reply = client.get_shell_msg(timeout=30)
    while reply["parent_header"].get("msg_id") != msg_id:
        reply = client.get_shell_msg(timeout=30)
    assert reply["content"]["status"] == "error" and time.monotonic() - started < 20
    reply, out = run(client, "kept")
    assert text(out) == "= 7 : I64\n", (reply, out)


def test_a_notebook_executes(kernelspec: None, tmp_path: Path) -> None:
    import nbformat
    from nbclient import NotebookClient

    book = nbformat.v4.new_notebook()
    book.cells = [nbformat.v4.new_code_cell(c) for c in (
        f":load {HEAT_E1}", "I32[8, 8] a;\nI32[8, 8] b;\na[3, 4] = 1000;\nI64 total = 0;",
        "heat_e1.diffuse(a, 2305843009213693952, 9223372036854775807, b, total);",
        "heat_e1.diffuse(a, 1, 8, b, total);\ntotal", "b")]
    NotebookClient(book, kernel_name="cint", timeout=60, allow_errors=True).execute()
    outputs = [cell.outputs for cell in book.cells]
    assert outputs[2][0]["output_type"] == "error" and outputs[2][0]["ename"] == "E_OVERFLOW"
    assert outputs[3][0]["text"] == "= 1000 : I64\n"
    assert "text/html" in outputs[4][0]["data"] and 'data-shape="8,8"' in outputs[4][0]["data"]["text/html"]


def test_install_kernel_writes_a_kernelspec(tmp_path: Path) -> None:
    """`cint-workbench --install-kernel --user`: the kernelspec `cint`, this Python, with
    -P (the working folder never shadows the installed package)."""
    import os
    import subprocess

    env = dict(os.environ, JUPYTER_DATA_DIR=str(tmp_path))
    done = subprocess.run([sys.executable, "-P", "-m", "cint_ls.workbench", "--install-kernel", "--user"], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    spec = json.loads((tmp_path / "kernels" / "cint" / "kernel.json").read_text())
    assert spec["argv"][:4] == [sys.executable, "-P", "-m", "cint_ls.workbench.kernel"]
    assert spec["language"] == "cint" and "installed the kernelspec cint" in done.stdout
