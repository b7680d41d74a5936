"""The Python host's driver wrapper (exec/cuda/driver.py) against the cuda-python that is
installed, without a GPU: the version is in the range pyproject's `cuda` extra allows
(and exec/cuda/README.md names as tested), every driver function and enumerator
driver.py names exists in its binding, and without the driver library opening the
device is one line, "no CUDA driver (...)", never a traceback. The range was tested
this way with cuda-python 12.6.2.post1, 12.9.0 (cuda-bindings 12.9.10), 13.0.0
(cuda-bindings 13.0.3) and 13.4.4 (exec/cuda/README.md); no version has run on a GPU.
gpu-cuda's host in C needs no cuda-python at all (rt/gpu_cuda.c dlopens libcuda)."""

from __future__ import annotations

import ctypes
import importlib.metadata
import re
from pathlib import Path

import pytest

from cint_ls.exec.cuda.device import DeviceUnavailable
from cint_ls.exec.cuda.oracle import driver as driver_py

LOWEST, BELOW = (12, 6), (14, 0)  # pyproject.toml: cuda-python>=12.6,<14


def installed() -> tuple[int, ...]:
    try:
        text = importlib.metadata.version("cuda-python")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("cuda-python is not installed (the `cuda` extra): the Python host's driver is not tested here")
    return tuple(int(part) for part in re.findall(r"\d+", text)[:3])


def test_the_installed_version_is_in_the_tested_range():
    assert LOWEST <= installed()[:2] < BELOW
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    if pyproject.exists():  # a checkout: the extra says the same
        assert '"cuda-python>=12.6,<14"' in pyproject.read_text()


def test_every_name_driver_py_uses_is_in_the_binding():
    installed()
    binding = driver_py._import_driver()
    source = Path(driver_py.__file__).read_text()
    calls = set(re.findall(r'call\("(cu\w+)"', source)) | {"cuGetErrorString"}
    assert {"cuInit", "cuModuleGetFunction", "cuFuncGetAttribute", "cuLaunchKernel", "cuDevicePrimaryCtxRelease"} <= calls
    assert sorted(name for name in calls if not callable(getattr(binding, name, None))) == []
    enumerators = re.findall(r"\b(CU\w+)\.(CU_\w+)", source)
    enumerators += [("CUdevice_attribute", name) for name in re.findall(r"attribute\.(CU_DEVICE_ATTRIBUTE_\w+)", source)]
    assert ("CUfunction_attribute", "CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK") in enumerators
    assert sorted(f"{kind}.{name}" for kind, name in enumerators
                  if not hasattr(getattr(binding, kind, None), name)) == []
    assert callable(binding.CUdeviceptr) and int(binding.CUdeviceptr(4096)) == 4096


def test_without_the_driver_library_the_device_is_unavailable_in_one_line():
    installed()
    try:
        ctypes.CDLL("libcuda.so.1")
    except OSError:
        pass
    else:
        pytest.skip("a CUDA driver library is installed here")
    with pytest.raises(DeviceUnavailable) as raised:
        driver_py.CudaDevice()
    assert str(raised.value).startswith("no CUDA driver") and "\n" not in str(raised.value)
