"""The forecast of gpu-cuda's default device (exec/cuda/probe.py): quick answers where
there is no GPU, a child process where a driver library loads, and agreement with what
a run's note says on this machine."""

from __future__ import annotations

import threading

import pytest

from cint_ls.exec.cuda import probe
from cint_ls.running.run import RunRequest, executor_label, run


@pytest.fixture
def fresh(monkeypatch):
    """The probe as if never asked (its answer is cached per process)."""
    monkeypatch.setattr(probe, "_answer", {})
    monkeypatch.setattr(probe, "_probing", None)
    return probe


def test_no_driver_library(fresh, monkeypatch):
    monkeypatch.delenv(probe.LIBRARY_ENV, raising=False)
    monkeypatch.setattr(probe, "_LIBRARY", "libcint-no-such-library.so.1")
    assert probe.simulated_reason() == probe.NO_DRIVER
    assert executor_label("gpu-cuda") == "gpu-cuda (simulated)"


def test_a_driver_library_is_probed_in_a_child(fresh, monkeypatch, tmp_path):
    monkeypatch.setattr(probe, "_driver_loads", lambda: True)
    # The child answers only once the test lets it (a file appears, 5 s later at the
    # latest): an asker that waited for it would get its answer, not None.
    go = tmp_path / "go"
    monkeypatch.setattr(probe, "_CHILD", (
        f"import json, os, time\nwhile not os.path.exists({str(go)!r}): time.sleep(0.01)\n"
        "print(json.dumps('no CUDA device'))\n"))
    release = threading.Timer(5.0, go.touch)
    release.start()
    try:
        assert probe.simulated_reason() is None  # not known yet: the asker does not wait
        assert executor_label("gpu-cuda") == "gpu-cuda"
    finally:
        go.touch()
        release.cancel()
    assert probe.wait(30) == "no CUDA device"
    assert executor_label("gpu-cuda") == "gpu-cuda (simulated)"


def test_a_failing_child_leaves_no_forecast(fresh, monkeypatch):
    monkeypatch.setattr(probe, "_driver_loads", lambda: True)
    monkeypatch.setattr(probe, "_CHILD", "raise SystemExit(3)\n")
    assert probe.wait(30) is None


def test_the_forecast_agrees_with_a_run():
    reason = probe.wait(60)
    outcome = run(RunRequest("/tmp/probe.ci", '"x\\n";\n', "gpu-cuda", isolate=True))
    assert outcome.result is not None and outcome.result.output == "x\n"
    assert outcome.simulated == (reason is not None)
    if reason is not None:
        assert reason in outcome.result.notes[0]
