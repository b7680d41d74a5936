"""The trace page drawn by a real browser (headless Chromium): the timeline's dispatch
count for heat_tour, the fault map marking work-item 20 of heat_e1's faulting dispatch,
screenshots of both, and the time to draw 10,000 dispatches and a 2048 × 2048 array.

Skips where Chromium is absent (with the reason); fails instead under CI (the CI
variable set), where `.ci/run` installs Debian's `chromium`."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cint_ls.exec.run import RunRequest, run
from cint_ls.exec.trace import ArraySelection, records
from cint_ls.exec.trace_page import render_page

CONFORMANCE = Path(__file__).resolve().parent.parent / "conformance"
SHOTS = os.environ.get("CINT_TRACE_SHOTS")  # a directory to keep the screenshots in (docs/images)


def find_chromium() -> str | None:
    for name in (os.environ.get("CINT_CHROMIUM"), "chromium", "chromium-browser", "google-chrome", "chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


@pytest.fixture(scope="module")
def chromium() -> str:
    found = find_chromium()
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("chromium not found in CI: .ci/run must install Debian's chromium (apt-get install chromium)")
        pytest.skip("headless Chromium not found (`apt-get install chromium`, or CINT_CHROMIUM=/path/to/it): "
                    "the trace page is not drawn by a browser here")
    return found


def browse(chromium: str, page: Path, *what: str, size: str = "1200,1000", budget: int = 20000) -> str:
    command = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
               "--no-first-run", "--hide-scrollbars", f"--window-size={size}", f"--virtual-time-budget={budget}",
               *what, page.as_uri()]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False, cwd=page.parent)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def attributes(dom: str, tag_pattern: str) -> list[dict[str, str]]:
    return [dict(re.findall(r'([\w-]+)="([^"]*)"', tag)) for tag in re.findall(tag_pattern, dom)]


def page_for(tmp_path: Path, name: str, executor: str = "cpu-sir-interp") -> Path:
    path = CONFORMANCE / name
    outcome = run(RunRequest(str(path), path.read_text(), executor, report=True,
                             trace_arrays=ArraySelection.parse("all").to_json(), learn=False))
    page = tmp_path / (path.stem + ".html")
    page.write_text(render_page(records(outcome, name, arrays_asked=True), f"cint trace: {name}"))
    return page


def screenshot(chromium: str, page: Path, size: str) -> Path:
    shot = page.with_suffix(".png")
    browse(chromium, page, f"--screenshot={shot}", size=size)
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000  # a picture, not a blank page
    if SHOTS:
        shutil.copy(shot, Path(SHOTS) / f"trace_{page.stem}.png")
    return shot


def test_heat_tour_timeline_draws_every_dispatch(chromium, tmp_path):
    page = page_for(tmp_path, "heat_tour.ci")
    dom = browse(chromium, page, "--dump-dom")
    (timeline,) = attributes(dom, r'<section id="timeline"[^>]*>')
    assert timeline["data-dispatches"] == "40" and timeline["data-lanes"] == "1"
    (heat,) = attributes(dom, r'<figure class="heat-map"[^>]*>')
    assert heat["data-dispatch"] == "39" and heat["data-shape"] == "16x16"
    assert heat["data-min"] == "0" and heat["data-max"] == "1042"  # a[8, 8] after 40 steps is the largest
    assert not attributes(dom, r'<figure class="fault-map"[^>]*>')
    screenshot(chromium, page, "1200,760")


def test_heat_e1_fault_map_marks_work_item_20(chromium, tmp_path):
    page = page_for(tmp_path, "heat_e1.ci")
    dom = browse(chromium, page, "--dump-dom")
    (timeline,) = attributes(dom, r'<section id="timeline"[^>]*>')
    assert timeline["data-dispatches"] == "1"
    (fault,) = attributes(dom, r'<figure class="fault-map"[^>]*>')
    assert fault["data-dispatch"] == "0" and fault["data-canonical-work-item"] == "20"
    assert fault["data-canonical-index"] == "2,4" and fault["data-space"] == "8x8"
    assert (fault["data-ran"], fault["data-not-run"], fault["data-unknown"]) == ("20", "43", "0")
    (mark,) = attributes(dom, r'<div class="canonical-mark"[^>]*>')
    assert mark["data-work-item"] == "20"
    screenshot(chromium, page, "900,620")


def test_page_draws_10000_dispatches_and_a_2048_square_array_in_under_a_second(chromium, tmp_path):
    lines = [{"type": "run", "format": "cint-trace", "version": 1, "role": "run", "file": "big.ci",
              "executor": "cpu-c17", "device": "cpu", "chosen": "named", "decision": "", "outcome": "finished",
              "error": None, "seconds": 1.0, "fuel": 10000, "dispatch_count": 10000, "recorded": 10000,
              "fault": None, "arrays_note": None}]
    for k in range(10000):
        lines.append({"type": "dispatch", "role": "run", "number": k, "kernel": f"big.k{k % 3}",
                      "executor": "cpu-c17", "device": "cpu", "start": k * 1e-4, "end": k * 1e-4 + 8e-5,
                      "seconds": 8e-5, "work_items": 4096, "space": [64, 64], "threads": 2, "launches": None,
                      "copies": None, "fuel": 4096, "fault": None})
    n = 2048
    lines.append({"type": "array", "role": "run", "dispatch": 9999, "kernel": "big.k0", "param": "v",
                  "element": "I32", "shape": [n, n], "values": [(y * 7 + x * 13) % 100003 for y in range(n)
                                                                for x in range(n)]})
    page = tmp_path / "big.html"
    page.write_text(render_page(lines))
    dom = browse(chromium, page, "--dump-dom", budget=60000)
    (timeline,) = attributes(dom, r'<section id="timeline"[^>]*>')
    assert timeline["data-dispatches"] == "10000"
    (heat,) = attributes(dom, r'<figure class="heat-map"[^>]*>')
    assert heat["data-shape"] == "2048x2048" and heat["data-block"] == "4"  # downsampled to 512 × 512
    values = lines[-1]["values"]
    assert heat["data-min"] == str(min(values)) and heat["data-max"] == str(max(values))
    (body,) = attributes(dom, r"<body[^>]*>")
    draw_ms = float(body["data-draw-ms"])
    print(f"drew 10,000 dispatches and a 2048 x 2048 array in {draw_ms:.0f} ms "
          f"(ready {float(body['data-ready-ms']):.0f} ms after navigation)")
    assert draw_ms < 1000
