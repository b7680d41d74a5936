"""`cint run --device null` (gpu-cuda's launches do nothing, to measure the host): its
result is never shown without the note that it is not the program's; `--report` shows
the bytes gpu-cuda's host in C copied (docs/cli.md)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CONFORMANCE = Path(__file__).resolve().parent.parent / "conformance"
HEAT_TOUR = CONFORMANCE / "heat_tour.ci"
NULL_NOTE = "note: gpu-cuda ran on the null device: launches did nothing"
pytestmark = pytest.mark.skipif(not any(shutil.which(c) for c in ("cc", "gcc", "clang")),
                                reason="no C compiler: the null device needs gpu-cuda's host in C")


def cint(*args: str) -> subprocess.CompletedProcess:
    # -P: the installed cint_ls, not the checkout's (no built binding)
    return subprocess.run([sys.executable, "-P", "-m", "cint_ls.cli.main", *args], capture_output=True, text=True,
                          timeout=300, check=False)


def test_the_null_device_always_says_its_output_is_not_the_programs():
    done = cint("run", "--executor", "gpu-cuda", "--device", "null", str(HEAT_TOUR))
    assert done.returncode == 0, done.stderr
    assert done.stdout != "after 40 steps: total=60150 center=1042 edge=72\n"  # the launches did nothing
    assert done.stderr.count(NULL_NOTE) == 1 and "not the program's" in done.stderr
    verbose = cint("run", "--executor", "gpu-cuda", "--device", "null", "--verbose", str(HEAT_TOUR))
    assert verbose.stderr.count(NULL_NOTE) == 1
    assert "note: gpu-cuda ran on the null device (launches do nothing)" in verbose.stderr


def test_the_null_device_in_the_report_and_a_check():
    done = cint("run", "--executor", "gpu-cuda", "--device", "null", "--report=json", str(HEAT_TOUR))
    assert NULL_NOTE in done.stderr
    report = json.loads(done.stderr.strip().splitlines()[-1])
    assert report["device"] == "the null device (launches do nothing)"
    assert all(row["copies"]["to_device"] > 0 for row in report["dispatches"])
    checked = cint("run", "--executor", "cpu-sir-interp", "--check", "gpu-cuda", "--device", "null", str(HEAT_TOUR))
    assert checked.returncode == 4 and NULL_NOTE in checked.stderr  # differs from the reference, and says why


def test_the_null_device_needs_gpu_cuda_named():
    done = cint("run", "--device", "null", str(HEAT_TOUR))
    assert done.returncode == 2 and done.stdout == ""
    assert "--device null" in done.stderr and "--executor gpu-cuda" in done.stderr
    assert "null" in cint("run", "--help").stdout


def test_the_simulated_device_named_prints_no_note_and_the_report_shows_copies():
    done = cint("run", "--executor", "gpu-cuda", "--device", "sim", "--report", str(HEAT_TOUR))
    assert done.returncode == 0 and done.stdout == "after 40 steps: total=60150 center=1042 edge=72\n"
    assert "note:" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("report:   ")]
    assert lines[0].endswith("to device  from device  already there")
    assert lines[1].split()[-6:-4] == ["1.0", "KB"] and lines[2].split()[-6:-4] == ["8", "B"]
    assert lines[2].split()[-2:] == ["1.0", "KB"]  # the grid the previous dispatch published: already there
    c17 = cint("run", "--executor", "cpu-c17", "--report", str(HEAT_TOUR))
    assert "to device" not in c17.stderr  # nothing copied, no columns
