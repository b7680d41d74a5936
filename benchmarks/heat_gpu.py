"""gpu-cuda on the heat kernel of SPEC-02P.1 clause 11, on an 8192 x 8192 grid, beside a
hand-written CUDA version of the same step. Needs an NVIDIA GPU, its driver and
cuda-python (`pip install 'cint-ls[cuda]'`); the hand-written version is compiled at run
time with NVRTC (`pip install nvidia-cuda-nvrtc`) and is skipped, saying so, without it.

Measures, per step (one dispatch over h * w work-items):

- gpu-cuda, device: the launch of the emitted PTX (checked 64-bit arithmetic, the fault
  word, the contributions of the reduction to device scratch), start to completion,
  median of `--repeat` identical launches;
- gpu-cuda, dispatch: the whole dispatch through the host protocol (copies to and from
  the device, the launch, the host's scan of the contributions, the exact sum, the
  copy-out), as `cint run --executor gpu-cuda` does it. The host side is Python today,
  and at this size its element-by-element staging and publication take minutes: this
  line measures the host, the one above the GPU;
- hand-written CUDA: a CUDA C++ kernel of the same step (64-bit arithmetic without
  overflow checks, round half to even, a block reduction and one atomicAdd per block
  for the total), median of `--repeat` launches; its grid and total are compared with
  gpu-cuda's.

    python benchmarks/heat_gpu.py [--size 8192] [--steps 1] [--repeat 10] [--block-size 256]
    python benchmarks/heat_gpu.py --device sim --size 64     # the script itself, without a GPU
    python benchmarks/heat_gpu.py --ptx-figures               # the emitted code's figures (ptxas, no GPU)
    python benchmarks/heat_gpu.py --device null --size 8192     # gpu-cuda's C host's own cost (no GPU)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from cint_ls.analysis.types import I32
from cint_ls.exec.cuda.device import Device, DeviceUnavailable
from cint_ls.exec.cuda.host import CudaMachine, pack, unpack
from cint_ls.exec.cuda.ptx import emit_module
from cint_ls.exec.cuda.simulator import SimulatedDevice
from cint_ls.exec.runtime import CintFault
from cint_ls.exec.views import Storage, View
from cint_ls.ir.build import build
from heat_kernel import heat_kernel

HEAT = heat_kernel()

HAND_WRITTEN = r"""
extern "C" __global__ void heat(const int *__restrict__ u, int *__restrict__ v, long long h, long long w,
                                long long kn, long long kd, unsigned long long *total) {
    __shared__ long long partial[32];
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long r = 0;
    if (i < h * w) {
        long long y = i / w, x = i % w;
        long long c = u[i];
        r = c;
        if (y > 0 && y < h - 1 && x > 0 && x < w - 1) {
            long long lap = (long long)u[i - w] + u[i + w] + u[i - 1] + u[i + 1] - 4 * c;
            long long num = kn * lap;
            long long q = num / kd, rem = num % kd;
            if (rem != 0) {  /* round half to even */
                unsigned long long ar = rem < 0 ? 0ull - (unsigned long long)rem : (unsigned long long)rem;
                unsigned long long ab = kd < 0 ? 0ull - (unsigned long long)kd : (unsigned long long)kd;
                long long s = ((num < 0) != (kd < 0)) ? -1 : 1;
                if (ar > ab - ar || (ar == ab - ar && (q & 1))) q += s;
            }
            r = (int)(c + q);
        }
        v[i] = (int)r;
    }
    for (int offset = 16; offset > 0; offset /= 2) r += __shfl_down_sync(0xffffffffu, r, offset);
    if ((threadIdx.x & 31) == 0) partial[threadIdx.x / 32] = r;
    __syncthreads();
    if (threadIdx.x < 32) {
        r = threadIdx.x < (blockDim.x + 31) / 32 ? partial[threadIdx.x] : 0;
        for (int offset = 16; offset > 0; offset /= 2) r += __shfl_down_sync(0xffffffffu, r, offset);
        if (threadIdx.x == 0) atomicAdd(total, (unsigned long long)r);
    }
}
"""


class TimedDevice(Device):
    """A device that runs every launch `repeat` times (the kernel is idempotent) and keeps
    the time of each, start to completion."""

    def __init__(self, device: Device, repeat: int) -> None:
        self.inner = device
        self.repeat = repeat
        self.simulated = device.simulated
        self.description = device.description
        self.max_grid, self.max_block = device.max_grid, device.max_block
        self.samples: list[float] = []

    def load(self, ptx):
        return self.inner.load(ptx)

    def alloc(self, nbytes):
        return self.inner.alloc(nbytes)

    def free(self, address):
        self.inner.free(address)

    def upload(self, address, data):
        self.inner.upload(address, data)

    def download(self, address, nbytes):
        return self.inner.download(address, nbytes)

    def fill(self, address, byte, nbytes):
        self.inner.fill(address, byte, nbytes)

    def launch(self, function, grid, block, params):
        for _ in range(self.repeat):
            started = time.perf_counter()
            self.inner.launch(function, grid, block, params)
            self.samples.append(time.perf_counter() - started)

    def close(self):
        self.inner.close()


def grid(size: int) -> list[int]:
    """A hot spot of 65536 in the middle of a cold grid, and a warm ring."""
    values = [0] * (size * size)
    for x in range(size):
        values[(size // 4) * size + x] = 1000
    values[(size // 2) * size + size // 2] = 65536
    return values


def run_gpu_cuda(device: Device, size: int, steps: int, repeat: int, block: int):
    program = build(HEAT, "heat_gpu.ci").program
    assert program is not None
    timed = TimedDevice(device, repeat)
    machine = CudaMachine(program, None, None, timed, emit_module(program), block_size=block,
                          max_launch=size * size)
    kernel = program.kernels["diffuse"]
    u = View.whole(Storage(I32, grid(size)), [size, size])
    v = View.whole(Storage(I32, [0] * (size * size)), [size, size])
    dispatch_times, device_times, totals = [], [], []
    first_step = None
    for step in range(steps):
        timed.samples.clear()
        started = time.perf_counter()
        try:
            results = machine.dispatch("diffuse", [u, 1, 8, v, None], kernel.span)
        except CintFault as fault:
            raise SystemExit(f"heat_gpu: the dispatch faulted: {fault.fault}") from None
        dispatch_times.append(time.perf_counter() - started)
        device_times.append(statistics.median(timed.samples))
        totals.append(results[4])
        if step == 0:
            first_step = list(v.storage.values)
        u, v = v, u
    return dispatch_times, device_times, totals, first_step


def run_hand_written(device, size: int, repeat: int, block: int):
    """(median launch time, the grid after one step, the total), or the reason it cannot run."""
    try:
        from cuda.bindings import nvrtc
    except ImportError:
        return "cuda-python's NVRTC bindings are not installed"
    cu = device.cu
    try:
        err, program = nvrtc.nvrtcCreateProgram(HAND_WRITTEN.encode(), b"heat.cu", 0, [], [])
        major = device.call("cuDeviceGetAttribute",
                            cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device.dev)
        minor = device.call("cuDeviceGetAttribute",
                            cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device.dev)
        options = [f"--gpu-architecture=compute_{major}{minor}".encode(), b"-O3"]
        (err,) = nvrtc.nvrtcCompileProgram(program, len(options), options)
        if int(err) != 0:
            return f"NVRTC could not compile the hand-written kernel ({err})"
        err, length = nvrtc.nvrtcGetPTXSize(program)
        ptx = b" " * length
        (err,) = nvrtc.nvrtcGetPTX(program, ptx)
    except Exception as error:  # noqa: BLE001 - NVRTC's library missing, and the like
        return f"NVRTC is not available ({type(error).__name__}: {error}); pip install nvidia-cuda-nvrtc"
    module = device.load(ptx.rstrip(b"\0 ").decode())
    function = module.function("heat")
    n = size * size
    u = device.alloc(4 * n)
    v = device.alloc(4 * n)
    total = device.alloc(8)
    device.upload(u, pack(I32, grid(size)))
    samples = []
    for _ in range(repeat):
        device.fill(total, 0, 8)
        started = time.perf_counter()
        device.launch(function, -(-n // block), block, [u, v, size, size, 1, 8, total])
        samples.append(time.perf_counter() - started)
    result = unpack(I32, device.download(v, 4 * n))
    value = int.from_bytes(device.download(total, 8), "little", signed=True)
    for address in (u, v, total):
        device.free(address)
    return statistics.median(samples), result, value


def _elf_sections(data: bytes) -> dict[str, int]:
    """Section name -> size, of a 64-bit little-endian ELF (a cubin)."""
    import struct

    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + k * shentsize) for k in range(shnum)]
    names = headers[shstrndx][4]
    out = {}
    for h in headers:
        end = data.index(b"\0", names + h[0])
        out[data[names + h[0]:end].decode()] = h[5]
    return out


def ptx_figures() -> int:
    """What the emitted PTX of the heat kernel costs, without a GPU: the 64-bit divide
    and remainder instructions (the kernel has no loop, so each is executed once per
    interior work-item, and ptxas compiles each to a call of a division subroutine), and
    for sm_75 and sm_90 ptxas -v's registers and the machine code's size (the cubin's
    .text section of the entry; 16 bytes an instruction on these architectures)."""
    import os
    import re
    import subprocess
    import tempfile

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "cuda"))
    from cuda_support import find_ptxas

    module = emit_module(build(HEAT, "heat.ci").program)
    body = module.text
    divisions = re.findall(r"^\t(?:@%p\d+ )?((?:div|rem)\.[su]64)", body, re.MULTILINE)
    print(f"PTX: {len(body.splitlines())} lines; 64-bit divide/remainder per interior work-item: "
          f"{len(divisions)} ({', '.join(divisions)})")
    loads = re.findall(r"^\tld\.global(\.nc)?\.u", body, re.MULTILINE)
    print(f"PTX: element loads {len(loads)}, of which ld.global.nc {sum(1 for x in loads if x)}")
    ptxas = find_ptxas()
    if ptxas is None:
        print("ptxas: not found (CINT_PTXAS, PATH, or pip install nvidia-cuda-nvcc)")
        return 0
    with tempfile.TemporaryDirectory() as scratch:
        source = os.path.join(scratch, "heat.ptx")
        with open(source, "w") as f:
            f.write(body)
        for arch in ("sm_75", "sm_90"):
            cubin = os.path.join(scratch, f"heat_{arch}.cubin")
            done = subprocess.run([ptxas, f"-arch={arch}", "-v", "-o", cubin, source], capture_output=True,
                                  text=True, check=True)
            usage = " ".join(line.split("info    : ")[-1] for line in done.stderr.splitlines() if "Used" in line)
            with open(cubin, "rb") as f:
                sections = _elf_sections(f.read())
            text = sum(size for name, size in sections.items() if name.startswith(".text."))
            print(f"ptxas {arch}: {usage}; machine code {text} bytes = {text // 16} instructions")
    return 0


def host_program(size: int, steps: int) -> str:
    """The heat kernel stepped `steps` times in each direction on a size x size grid."""
    return HEAT + f"""
void main() {{
    I32[{size}, {size}] a;
    I32[{size}, {size}] b;
    a[{size // 2}, {size // 2}] = 65536;
    I64 heat = 0;
    for t in 0..{steps} {{
        diffuse(a, 1, 8, b, heat);
        diffuse(b, 1, 8, a, heat);
    }}
    "total={{heat}}\\n";
}}

main();
"""


def host_cost(size: int, steps: int, block: int) -> int:
    """gpu-cuda's host in C (rt/gpu_host.c) on the null device: launches do nothing and
    every byte that comes back is all ones, so each dispatch costs what the host does
    around a GPU's launch: the placement, the scans of the contributions and marks, the
    exact sum, the staging and publication. Prints the host's time per work-item of each
    dispatch and the process's peak resident memory beside the arrays' bytes."""
    import resource

    from cint_ls.exec.cuda import run

    program = build(host_program(size, steps), "heat_host.ci").program
    assert program is not None
    n = size * size
    arrays = 2 * 4 * n
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    started = time.perf_counter()
    result = run(program, None, None, {"device": "null", "block_size": block, "report": True, "max_launch": n})
    whole = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    rows = result.dispatch_log or []
    per_item = [row["seconds"] / n * 1e9 for row in rows]
    print(f"gpu-cuda's C host on the null device: heat step on a {size} x {size} grid ({n:,} work-items), "
          f"block size {block}, {len(rows)} dispatches, {result.notes[1]}")
    print(f"host time per work-item, per dispatch: median {statistics.median(per_item):.2f} ns, "
          f"min {min(per_item):.2f} ns, max {max(per_item):.2f} ns (first: {per_item[0]:.2f} ns)")
    for row in rows[:3]:
        copies = row.get("copies") or {}
        print(f"  dispatch {row['number']}: {row['seconds'] * 1000:.1f} ms; to the device {copies.get('to_device', 0):,} B, "
              f"from it {copies.get('from_device', 0):,} B, already there {copies.get('already_there', 0):,} B")
    print(f"whole run (compile cached, the entry's loops, {len(rows)} dispatches): {whole:.2f} s")
    print(f"peak resident memory {peak / 2**20:,.0f} MiB (before the run {before / 2**20:,.0f} MiB: Python and "
          f"the library); the run added {(peak - before) / 2**20:,.0f} MiB = {(peak - before) / arrays:.2f}x "
          f"the arrays' {arrays / 2**20:,.0f} MiB")
    return 0


def main() -> int:
    if sys.argv[1:] == ["--ptx-figures"]:
        return ptx_figures()
    if "--device" in sys.argv and "null" in sys.argv:
        parser = argparse.ArgumentParser(description="gpu-cuda's C host on the null device")
        parser.add_argument("--device", choices=("null",))
        parser.add_argument("--size", type=int, default=2048)
        parser.add_argument("--steps", type=int, default=3, help="dispatches in each direction (default 3)")
        parser.add_argument("--block-size", type=int, default=256)
        args = parser.parse_args()
        return host_cost(args.size, args.steps, args.block_size)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=8192, help="the grid is size x size (default 8192)")
    parser.add_argument("--steps", type=int, default=1, help="dispatches through the host protocol (default 1)")
    parser.add_argument("--repeat", type=int, default=10, help="launches timed per measurement (default 10)")
    parser.add_argument("--block-size", type=int, default=256)
    parser.add_argument("--device", choices=("cuda", "sim"), default="cuda",
                        help="sim: run the script on the simulated device (small --size only)")
    args = parser.parse_args()

    if args.device == "sim":
        device: Device = SimulatedDevice()
    else:
        from cint_ls.exec.cuda.driver import CudaDevice

        try:
            device = CudaDevice()
        except DeviceUnavailable as error:
            print(f"heat_gpu: this benchmark needs an NVIDIA GPU with its CUDA driver and cuda-python "
                  f"(pip install 'cint-ls[cuda]'), and this machine has none: {error}.\n"
                  f"heat_gpu: without a GPU, `python benchmarks/heat_gpu.py --device sim --size 64` runs the "
                  f"script on the simulated device, which says nothing about speed.", file=sys.stderr)
            return 2
    n = args.size * args.size
    print(f"heat step on a {args.size} x {args.size} grid ({n:,} work-items), block size {args.block_size}, "
          f"on {device.description}")
    dispatch_times, device_times, totals, first_step = run_gpu_cuda(device, args.size, args.steps, args.repeat,
                                                                   args.block_size)
    print(f"{'gpu-cuda, device (PTX launch)':<40} median {statistics.median(device_times) * 1000:10.3f} ms"
          f"   {n / statistics.median(device_times) / 1e9:8.2f} G work-items/s")
    print(f"{'gpu-cuda, whole dispatch (Python host)':<40} median {statistics.median(dispatch_times) * 1000:10.3f} ms")
    print(f"totals after each step: {', '.join(str(t) for t in totals)}")
    if device.simulated:
        print("hand-written CUDA: skipped (the simulated device runs only the PTX cint emits)")
        return 0
    hand = run_hand_written(device, args.size, args.repeat, args.block_size)
    if isinstance(hand, str):
        print(f"hand-written CUDA: skipped ({hand})")
        return 0
    seconds, result, total = hand
    print(f"{'hand-written CUDA (no checks)':<40} median {seconds * 1000:10.3f} ms"
          f"   {n / seconds / 1e9:8.2f} G work-items/s")
    print(f"gpu-cuda / hand-written: {statistics.median(device_times) / seconds:.2f}x")
    same = result == first_step and total == totals[0]
    print(f"results: {'identical' if same else 'DIFFERENT'} (grid and total after one step)")
    device.close()
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
