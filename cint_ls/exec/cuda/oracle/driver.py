"""The real device: the CUDA driver API through cuda-python (`pip install 'cint-ls[cuda]'`).

Module management (cuModuleLoadData, cuModuleGetFunction), device memory (cuMemAlloc,
cuMemcpyHtoD, cuMemcpyDtoH, cuMemsetD8, cuMemFree) and cuLaunchKernel on the device's
primary context, synchronously (cuCtxSynchronize after each launch, so that a launch
stopped by a time limit or an illegal address is reported by that launch). No setting
of the driver or of the operating system is changed [B-16e].

Placement (SPEC-02P.1 5.3 check 4, Table 3): the program's arrays are host memory that
the context owns; the host protocol gives the device the storage each dispatch reads
and stages each output in device memory (`oracle/machine.py`).

Opening the device on a machine without cuda-python, without a driver or without a GPU
raises `DeviceUnavailable` with one line, never a traceback. Every failing driver call
afterwards raises `DeviceError` ("CUDA_ERROR_LAUNCH_TIMEOUT: ..."), which ends the entry
with host.resource.

`driver` is the cuda-python driver module; tests pass a stand-in to exercise this code
without a GPU.
"""

from __future__ import annotations

import ctypes
from typing import Any

from ..device import Device, DeviceError, DeviceUnavailable, Function, Module


def _import_driver() -> Any:  # cuda-python's driver module (no type information)
    try:
        from cuda.bindings import driver  # cuda-python 12.6 and later

        return driver
    except ImportError:
        pass
    try:
        from cuda import cuda as driver  # older cuda-python

        return driver
    except ImportError:
        raise DeviceUnavailable("cuda-python is not installed: pip install 'cint-ls[cuda]'") from None


def _one_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__


class CudaFunction(Function):
    def __init__(self, handle: Any, name: str) -> None:
        self.handle = handle
        self.name = name
        self.max_threads = 0  # CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, read by CudaModule.function


class CudaModule(Module):
    def __init__(self, device: CudaDevice, handle: Any) -> None:
        self.device = device
        self.handle = handle

    def function(self, name: str) -> Function:
        function = CudaFunction(self.device.call("cuModuleGetFunction", self.handle, name.encode()), name)
        attribute = self.device.cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
        function.max_threads = int(self.device.call("cuFuncGetAttribute", attribute, function.handle))
        return function


class CudaDevice(Device):
    simulated = False

    def __init__(self, ordinal: int = 0, driver: Any = None) -> None:
        self.cu = driver if driver is not None else _import_driver()
        self.modules: list[CudaModule] = []
        try:
            self.call("cuInit", 0)
        except DeviceError as error:
            if "NotFound" in str(error):  # cuda-python could not load libcuda
                raise DeviceUnavailable("no CUDA driver (the NVIDIA driver library libcuda is not installed)") from None
            raise DeviceUnavailable(f"no CUDA driver: {error}") from None
        except Exception as error:  # noqa: BLE001 - e.g. the driver library is not found
            raise DeviceUnavailable(f"no CUDA driver: {_one_line(error)}") from None
        try:
            count = self.call("cuDeviceGetCount")
            if count <= ordinal:
                raise DeviceUnavailable("no CUDA device" if count == 0 else f"no CUDA device {ordinal}")
            self.dev = self.call("cuDeviceGet", ordinal)
            self.context = self.call("cuDevicePrimaryCtxRetain", self.dev)
            self.call("cuCtxSetCurrent", self.context)
            raw = self.call("cuDeviceGetName", 256, self.dev)
            name = raw.split(b"\0", 1)[0].decode(errors="replace") if isinstance(raw, (bytes, bytearray)) else str(raw)
            attribute = self.cu.CUdevice_attribute
            major = self.call("cuDeviceGetAttribute", attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, self.dev)
            minor = self.call("cuDeviceGetAttribute", attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, self.dev)
            self.max_block = min(1024, self.call("cuDeviceGetAttribute",
                                                 attribute.CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, self.dev))
            self.max_grid = self.call("cuDeviceGetAttribute", attribute.CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, self.dev)
        except DeviceError as error:
            raise DeviceUnavailable(f"the CUDA device cannot be opened: {error}") from None
        if (major, minor) < (5, 2):
            raise DeviceUnavailable(f"{name} has compute capability {major}.{minor}; gpu-cuda needs sm_52 or later")
        self.description = f"{name} (sm_{major}{minor})"

    # ---- calls

    def call(self, name: str, *args: Any) -> Any:
        """Call a driver function; raise DeviceError unless it returns CUDA_SUCCESS.
        Returns the call's one value, its values as a tuple, or None."""
        try:
            result = getattr(self.cu, name)(*args)
        except DeviceError:
            raise
        except Exception as error:  # noqa: BLE001 - a binding error is a driver error here
            raise DeviceError(f"{name}: {_one_line(error)}") from None
        if not isinstance(result, tuple):
            result = (result,)
        status, values = result[0], result[1:]
        if int(status) != 0:
            raise DeviceError(self._describe(status, name))
        if not values:
            return None
        return values[0] if len(values) == 1 else values

    def _describe(self, status: Any, call: str) -> str:
        code = getattr(status, "name", None) or f"CUresult {int(status)}"
        text = ""
        try:
            err, message = self.cu.cuGetErrorString(status)
            if int(err) == 0 and message:
                text = message.decode() if isinstance(message, bytes) else str(message)
        except Exception:  # noqa: BLE001
            pass
        return f"{code}: {text} ({call})" if text else f"{code} ({call})"

    def _ptr(self, address: int) -> Any:
        return self.cu.CUdeviceptr(address)

    # ---- the Device interface

    def load(self, ptx: str) -> Module:
        handle = self.call("cuModuleLoadData", ptx.encode() + b"\0")
        module = CudaModule(self, handle)
        self.modules.append(module)
        return module

    def alloc(self, nbytes: int) -> int:
        return int(self.call("cuMemAlloc", max(1, nbytes)))

    def free(self, address: int) -> None:
        self.call("cuMemFree", self._ptr(address))

    def upload(self, address: int, data: bytes | bytearray | memoryview) -> None:
        if len(data):
            buffer = (ctypes.c_char * len(data)).from_buffer_copy(bytes(data))
            self.call("cuMemcpyHtoD", self._ptr(address), ctypes.addressof(buffer), len(data))

    def download(self, address: int, nbytes: int) -> bytes:
        if nbytes == 0:
            return b""
        buffer = (ctypes.c_char * nbytes)()
        self.call("cuMemcpyDtoH", ctypes.addressof(buffer), self._ptr(address), nbytes)
        return bytes(buffer)

    def fill(self, address: int, byte: int, nbytes: int) -> None:
        if nbytes:
            self.call("cuMemsetD8", self._ptr(address), byte, nbytes)

    def launch(self, function: Function, grid: int, block: int, params: list[int]) -> None:
        assert isinstance(function, CudaFunction)
        count = len(params)
        values = (ctypes.c_uint64 * max(count, 1))(*params)
        base = ctypes.addressof(values)
        pointers = (ctypes.c_void_p * max(count, 1))(*(base + 8 * j for j in range(count)))
        self.call("cuLaunchKernel", function.handle, grid, 1, 1, block, 1, 1, 0, None,
                  ctypes.addressof(pointers), 0)
        self.call("cuCtxSynchronize")

    def close(self) -> None:
        for module in self.modules:
            try:
                self.call("cuModuleUnload", module.handle)
            except DeviceError:
                pass
        self.modules.clear()
        try:
            self.call("cuDevicePrimaryCtxRelease", self.dev)
        except (DeviceError, AttributeError):
            pass
