"""The real-driver path without hardware: `CudaDevice` over a stand-in for cuda-python's
driver module whose calls have cuda-python's shapes ((CUresult, values...), kernel
parameters as an array of pointers) and whose launches run on the simulated device; and
the one-line messages of a machine without a driver."""

from __future__ import annotations

import ctypes
import enum

import pytest
from conftest import CONFORMANCE
from cuda_support import outcome, program_of, run_cuda

from cint_ls.cli.main import main
from cint_ls.exec.cuda import CudaOptions
from cint_ls.exec.cuda.device import DeviceUnavailable
from cint_ls.exec.cuda.oracle import driver as driver_module
from cint_ls.exec.cuda.oracle import open_device
from cint_ls.exec.cuda.oracle.driver import CudaDevice
from cint_ls.exec.cuda.simulator import SimulatedDevice
from cint_ls.exec.executors import ExecutorUnavailable
from cint_ls.exec.interp import run_program


class CUresult(enum.IntEnum):
    CUDA_SUCCESS = 0
    CUDA_ERROR_NO_DEVICE = 100
    CUDA_ERROR_LAUNCH_TIMEOUT = 702


class CUdeviceptr:
    def __init__(self, value: int = 0) -> None:
        self.value = int(value)

    def __int__(self) -> int:
        return self.value


class CUdevice_attribute(enum.IntEnum):
    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76


class CUfunction_attribute(enum.IntEnum):
    CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0


OK = CUresult.CUDA_SUCCESS


class FakeDriver:
    """cuda.bindings.driver, as far as gpu-cuda uses it, on the simulated device."""

    CUresult = CUresult
    CUdeviceptr = CUdeviceptr
    CUdevice_attribute = CUdevice_attribute
    CUfunction_attribute = CUfunction_attribute

    def __init__(self, *, devices=1, capability=(9, 0), init_error=None, sync_error=None, raise_on_init=None):
        self.sim = SimulatedDevice()
        self.devices = devices
        self.capability = capability
        self.init_error = init_error
        self.sync_error = sync_error
        self.raise_on_init = raise_on_init
        self.calls: list[str] = []
        self.params_seen: list[list[int]] = []

    def __getattribute__(self, name):
        if name.startswith("cu"):
            object.__getattribute__(self, "calls").append(name)
        return object.__getattribute__(self, name)

    def cuInit(self, flags):
        if self.raise_on_init is not None:
            raise self.raise_on_init
        return (self.init_error or OK,)

    def cuGetErrorString(self, status):
        return OK, {CUresult.CUDA_ERROR_NO_DEVICE: b"no CUDA-capable device is detected",
                    CUresult.CUDA_ERROR_LAUNCH_TIMEOUT: b"the launch timed out and was terminated"}.get(status, b"")

    def cuDeviceGetCount(self):
        return OK, self.devices

    def cuDeviceGet(self, ordinal):
        return OK, ordinal

    def cuDevicePrimaryCtxRetain(self, dev):
        return OK, "context"

    def cuDevicePrimaryCtxRelease(self, dev):
        return (OK,)

    def cuCtxSetCurrent(self, ctx):
        return (OK,)

    def cuDeviceGetName(self, length, dev):
        return OK, b"Fake GPU" + b"\0" * (length - 8)

    def cuDeviceGetAttribute(self, attribute, dev):
        return OK, {CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: self.capability[0],
                    CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: self.capability[1],
                    CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: 1024,
                    CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: 2**31 - 1}[attribute]

    def cuModuleLoadData(self, image):
        assert isinstance(image, bytes) and image.endswith(b"\0")  # a NUL-terminated PTX text
        return OK, self.sim.load(image[:-1].decode())

    def cuModuleUnload(self, module):
        return (OK,)

    def cuModuleGetFunction(self, module, name):
        assert isinstance(name, bytes)
        return OK, module.function(name.decode())

    def cuFuncGetAttribute(self, attribute, function):
        assert attribute == CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
        return OK, function.max_threads

    def cuMemAlloc(self, size):
        return OK, CUdeviceptr(self.sim.alloc(size))

    def cuMemFree(self, pointer):
        self.sim.free(int(pointer))
        return (OK,)

    def cuMemcpyHtoD(self, device, host, size):
        self.sim.upload(int(device), ctypes.string_at(host, size))
        return (OK,)

    def cuMemcpyDtoH(self, host, device, size):
        data = self.sim.download(int(device), size)
        ctypes.memmove(host, data, size)
        return (OK,)

    def cuMemsetD8(self, device, byte, size):
        self.sim.fill(int(device), byte, size)
        return (OK,)

    def cuLaunchKernel(self, function, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        assert (gy, gz, by, bz, shared, stream, extra) == (1, 1, 1, 1, 0, None, 0)
        count = len(function.params)
        pointers = (ctypes.c_void_p * count).from_address(params)
        values = [ctypes.c_uint64.from_address(pointers[j]).value for j in range(count)]
        self.params_seen.append(values)
        self.sim.launch(function, gx, bx, values)
        return (OK,)

    def cuCtxSynchronize(self):
        return (self.sync_error or OK,)


def test_the_driver_path_gives_the_reference_outcomes():
    for name in ("heat_spot.ci", "heat_e1.ci", "heat_fold32.ci", "heat_tour.ci", "budget.ci"):
        text = (CONFORMANCE / name).read_text()
        program = program_of(text, name)
        fake = FakeDriver()
        device = CudaDevice(driver=fake)
        assert device.description == "Fake GPU (sm_90)" and not device.simulated
        result = run_cuda(program, None, None, {"block_size": 32, "host": "python"}, device=device)  # driver.py
        assert outcome(result) == outcome(run_program(program)), name
        assert result.notes[0] == "gpu-cuda ran on Fake GPU (sm_90)"
        assert "cuModuleLoadData" in fake.calls and "cuLaunchKernel" in fake.calls
        assert fake.sim.memory.in_use == 0  # every allocation freed
        assert "cuModuleUnload" in fake.calls


def test_a_launch_error_is_host_resource():
    program = program_of((CONFORMANCE / "heat_spot.ci").read_text())
    fake = FakeDriver(sync_error=CUresult.CUDA_ERROR_LAUNCH_TIMEOUT)
    result = run_cuda(program, None, None, {"host": "python"}, device=CudaDevice(driver=fake))  # driver.py
    assert (result.fault.code, result.fault.operation) == ("CINT_RESOURCE", "host.resource")
    assert result.fault.details[0] == ("CUDA_ERROR_LAUNCH_TIMEOUT: the launch timed out and was terminated "
                                       "(cuCtxSynchronize)")
    assert result.fault.details[1] == "on Fake GPU (sm_90)"


@pytest.mark.parametrize("fake,message", [
    (FakeDriver(raise_on_init=RuntimeError("Failed to dlopen libcuda.so.1\nmore")),
     "no CUDA driver: cuInit: RuntimeError: Failed to dlopen libcuda.so.1"),
    (FakeDriver(init_error=CUresult.CUDA_ERROR_NO_DEVICE),
     "no CUDA driver: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected (cuInit)"),
    (FakeDriver(devices=0), "no CUDA device"),
    (FakeDriver(capability=(5, 0)), "Fake GPU has compute capability 5.0; gpu-cuda needs sm_52 or later"),
])
def test_unavailable_devices_say_why_in_one_line(fake, message):
    with pytest.raises(DeviceUnavailable) as caught:
        CudaDevice(driver=fake)
    assert str(caught.value) == message


def test_auto_falls_back_to_the_simulated_device_and_says_so(monkeypatch):
    monkeypatch.setattr(driver_module, "_import_driver", lambda: FakeDriver(devices=0))
    device, why = open_device(CudaOptions(device="auto"))
    assert device.simulated and why == "no CUDA device"
    program = program_of((CONFORMANCE / "heat_spot.ci").read_text())
    result = run_cuda(program, None, None, {"host": "python"})  # driver.py's (the C host's: test_c_host.py)
    assert result.notes[0] == "gpu-cuda ran on the simulated device, not a GPU: no CUDA device"
    with pytest.raises(ExecutorUnavailable, match="^gpu-cuda: no CUDA device"):
        open_device(CudaOptions(device="cuda"))


def test_a_machine_without_a_driver_gets_one_line(capsys, monkeypatch):
    """With the cuda-python of this machine (or without it): never a traceback."""
    try:
        CudaDevice()
    except DeviceUnavailable:
        pass
    else:
        pytest.skip("this machine has a CUDA device")
    monkeypatch.chdir(CONFORMANCE)
    code = main(["run", "--executor", "gpu-cuda", "--device", "cuda", "heat_spot.ci"])
    out, err = capsys.readouterr()
    assert code == 3 and out == ""  # a run without an outcome, like a missing C compiler
    assert err.startswith("cint: error: gpu-cuda: ") and err.count("\n") == 1 and "Traceback" not in err
    code = main(["run", "--executor", "gpu-cuda", "heat_spot.ci"])
    out, err = capsys.readouterr()
    assert code == 0 and out.startswith("center 32768")
    assert err.startswith("note: gpu-cuda ran on the simulated device, not a GPU: ") and err.count("\n") == 1
