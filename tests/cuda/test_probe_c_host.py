"""The forecast of gpu-cuda's default device (exec/cuda/probe.py) where a run takes the
host in C (a C compiler is present): cuda-python plays no part, the child opens the
device as the C host does (c_host.open_cuda, rt/gpu_cuda.c), and the reason is the run's
own note. Against the stand-in libcuda (fake_libcuda.c), with cuda-python made
unimportable both here and in the probe's child: no driver, a driver but no device, a
driver with a device."""

from __future__ import annotations

import shutil
import subprocess
import sys

import cuda_support
import pytest
from cuda_support import program_of

from cint_ls.exec.cuda import device_ready, probe
from cint_ls.exec.cuda import run as run_cuda
from cint_ls.exec.executors import ExecutorUnavailable
from cint_ls.running.run import executor_label

fake_libcuda = cuda_support.fake_libcuda  # the fixture: a stand-in libcuda (cuda_support.py)

pytestmark = pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                                reason="the C host needs a C compiler")

PROGRAM = '"x\\n";\n'
WAIT = 300  # seconds at most for the child (it may build cpu-c17's run-time on a cold cache)


@pytest.fixture
def no_cuda_python(monkeypatch, tmp_path):
    """cuda-python not importable, in this process and in any child (a `cuda` package
    that refuses to import, first on PYTHONPATH), and the probe as if never asked (its
    answer is cached per process)."""
    shadow = tmp_path / "shadow" / "cuda"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('cuda-python is hidden by the test')\n")
    monkeypatch.setenv("PYTHONPATH", str(shadow.parent))
    for name in ("cuda", "cuda.bindings", "cuda.cuda", "cuda.bindings.driver"):
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.delenv("CC", raising=False)
    monkeypatch.delenv("FAKE_CUDA_MODE", raising=False)
    monkeypatch.setattr(probe, "_answer", {})
    monkeypatch.setattr(probe, "_probing", None)
    check = subprocess.run([sys.executable, "-P", "-c", "import cuda.bindings"], check=False, capture_output=True,
                           text=True)
    assert check.returncode != 0 and "hidden by the test" in check.stderr
    return probe


def note_reason() -> str | None:
    """What a run with the default device says after `not a GPU: `, or None (a GPU)."""
    result = run_cuda(program_of(PROGRAM), None, None, {"device": "auto"})
    assert result.output == "x\n"
    note = result.notes[0]
    assert note.startswith("gpu-cuda ran on ")
    return note.split(", not a GPU: ", 1)[1] if ", not a GPU: " in note else None


def test_gpu_cuda_without_a_c_compiler_is_unavailable_in_one_line(no_cuda_python, monkeypatch):
    """Issue 29, one gpu-cuda host: without a C compiler gpu-cuda does not run (no host in
    Python to fall back to): `ready` says why in cpu-c17's words, a run raises that one
    line, and the forecast is not "simulated" (the editor's label stays plain, as
    cpu-c17's does), with no child started."""
    monkeypatch.setenv("CC", "cint-no-such-compiler")
    why = "gpu-cuda needs a C compiler for its host: no C compiler found: CC=cint-no-such-compiler does not name a program"
    assert probe.simulated_reason() is None and probe._probing is None
    ready, reason = device_ready(1)
    assert not ready and reason.startswith(why) and "\n" not in reason
    with pytest.raises(ExecutorUnavailable) as caught:
        run_cuda(program_of(PROGRAM), None, None, {"device": "sim"})
    assert str(caught.value).startswith(why) and "\n" not in str(caught.value)


def test_no_default_driver_is_said_at_once_without_cuda_python(no_cuda_python, monkeypatch):
    monkeypatch.delenv(probe.LIBRARY_ENV, raising=False)
    monkeypatch.setattr(probe, "_LIBRARY", "libcint-no-such-library.so.1")
    assert probe.simulated_reason() == probe.NO_DRIVER  # not NO_PYTHON: the C host needs no cuda-python
    assert probe._probing is None
    assert executor_label("gpu-cuda") == "gpu-cuda (simulated)"


@pytest.mark.skipif(probe._driver_loads(), reason="libcuda.so.1 loads on this machine")
def test_no_default_driver_is_the_c_hosts_own_words(no_cuda_python, monkeypatch):
    monkeypatch.delenv(probe.LIBRARY_ENV, raising=False)
    assert probe.simulated_reason() == probe.NO_DRIVER
    assert note_reason() == probe.NO_DRIVER


def test_a_named_library_that_does_not_load_is_no_driver(no_cuda_python, monkeypatch, tmp_path):
    monkeypatch.setenv(probe.LIBRARY_ENV, str(tmp_path / "libcuda.so.1"))
    reason = probe.wait(WAIT)
    assert reason is not None and reason.startswith("no CUDA driver (the NVIDIA driver library ")
    assert reason == note_reason()
    assert executor_label("gpu-cuda") == "gpu-cuda (simulated)"
    assert device_ready(0) == (False, reason)


def test_a_driver_without_a_device(no_cuda_python, monkeypatch, fake_libcuda):
    library, _ = fake_libcuda
    monkeypatch.setenv(probe.LIBRARY_ENV, str(library))
    monkeypatch.setenv("FAKE_CUDA_MODE", "nodevice")
    reason = probe.wait(WAIT)
    assert reason == "a CUDA driver but no CUDA device (cuInit: CUDA_ERROR_NO_DEVICE)"  # not "no CUDA driver"
    assert reason == note_reason()
    assert executor_label("gpu-cuda") == "gpu-cuda (simulated)"


def test_a_driver_with_a_device_is_opened_in_the_child_only(no_cuda_python, monkeypatch, fake_libcuda):
    library, fake = fake_libcuda
    monkeypatch.setenv(probe.LIBRARY_ENV, str(library))
    retained, released = fake.fake_retained(), fake.fake_released()
    assert probe.wait(WAIT) is None
    assert not probe._probing.is_alive() and probe._answer == {"reason": None}  # answered: a GPU
    assert (fake.fake_retained(), fake.fake_released()) == (retained, released)  # not in this process
    assert executor_label("gpu-cuda") == "gpu-cuda"
    assert device_ready(0) == (True, "a CUDA device")
    assert note_reason() is None
    assert fake.fake_retained() - retained == 1 and fake.fake_released() - released == 1  # the run's, here


def test_a_child_that_cannot_build_leaves_no_forecast(no_cuda_python, monkeypatch, fake_libcuda, tmp_path):
    library, _ = fake_libcuda
    monkeypatch.setenv(probe.LIBRARY_ENV, str(library))
    monkeypatch.setenv("FAKE_CUDA_MODE", "nodevice")  # a child that opened the device would say so
    (tmp_path / "a-file").write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "a-file"))  # the compile cache cannot be made
    assert probe.wait(WAIT) is None
    assert probe._answer == {"reason": None}
