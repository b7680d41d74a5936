/* A stand-in for libcuda.so.1 (tests/cuda/test_c_host.py): the driver entry points
 * rt/gpu_cuda.c resolves, over host memory, with launches that do nothing.
 * FAKE_CUDA_MODE: "nodevice" (cuInit: CUDA_ERROR_NO_DEVICE), "badptx"
 * (cuModuleLoadDataEx fails with a JIT log), else one device "Fake GPU" sm_90 whose
 * every entry runs at most 64 threads per block (a launch of more fails as a GPU's
 * does).  fake_retained/fake_released count the primary context's retains and releases. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int retained, released, launched, widest;
int fake_retained(void) { return retained; }
int fake_released(void) { return released; }
int fake_launched(void) { return launched; }
int fake_widest(void) { return widest; }

static int mode(void) {
    const char *e = getenv("FAKE_CUDA_MODE");
    if (e == NULL) return 0;
    if (strcmp(e, "nodevice") == 0) return 1;
    if (strcmp(e, "badptx") == 0) return 2;
    return 0;
}

int cuInit(unsigned flags) { (void)flags; return mode() == 1 ? 100 : 0; }
int cuDeviceGetCount(int *count) { *count = 1; return 0; }
int cuDeviceGet(int *device, int ordinal) { *device = ordinal; return 0; }
int cuDeviceGetName(char *name, int length, int device) {
    (void)device;
    strncpy(name, "Fake GPU", (size_t)length);
    return 0;
}
int cuDeviceGetAttribute(int *value, int attribute, int device) {
    (void)device;
    *value = attribute == 75 ? 9 : attribute == 76 ? 0 : attribute == 2 ? 1024 : attribute == 5 ? 2147483647 : 0;
    return 0;
}
int cuDevicePrimaryCtxRetain(void **context, int device) { (void)device; *context = &retained; retained++; return 0; }
int cuDevicePrimaryCtxRelease_v2(int device) { (void)device; released++; return 0; }
int cuCtxSetCurrent(void *context) { (void)context; return 0; }
int cuCtxSynchronize(void) { return 0; }
int cuModuleLoadDataEx(void **module, const void *image, unsigned n, int *options, void **values) {
    (void)image;
    if (mode() == 2) {
        for (unsigned i = 0; i < n; i++)
            if (options[i] == 5) strcpy((char *)values[i], "ptxas fatal   : Unresolved extern function 'x'\n");
        return 218;
    }
    *module = &launched;
    return 0;
}
int cuModuleUnload(void *module) { (void)module; return 0; }
int cuModuleGetFunction(void **function, void *module, const char *name) {
    (void)module, (void)name;
    *function = &widest;
    return 0;
}
int cuFuncGetAttribute(int *value, int attribute, void *function) {
    (void)function;
    *value = attribute == 0 ? 64 : 40;
    return 0;
}
int cuMemAlloc_v2(uint64_t *address, size_t bytes) { *address = (uint64_t)(uintptr_t)calloc(1, bytes); return 0; }
int cuMemFree_v2(uint64_t address) { free((void *)(uintptr_t)address); return 0; }
int cuMemcpyHtoD_v2(uint64_t to, const void *from, size_t bytes) {
    memcpy((void *)(uintptr_t)to, from, bytes);
    return 0;
}
int cuMemcpyDtoH_v2(void *to, uint64_t from, size_t bytes) {
    memcpy(to, (const void *)(uintptr_t)from, bytes);
    return 0;
}
int cuMemsetD8_v2(uint64_t to, unsigned char byte, size_t bytes) {
    memset((void *)(uintptr_t)to, byte, bytes);
    return 0;
}
int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                   unsigned shared, void *stream, void **params, void **extra) {
    (void)f, (void)gx, (void)gy, (void)gz, (void)by, (void)bz, (void)shared, (void)stream, (void)params, (void)extra;
    if (bx > 64) return 701; /* CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES */
    launched++;
    if ((int)bx > widest) widest = (int)bx;
    return 0;
}
int cuGetErrorName(int status, const char **name) {
    *name = status == 218 ? "CUDA_ERROR_INVALID_PTX" : status == 701 ? "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"
                                                                     : "CUDA_ERROR_UNKNOWN";
    return 0;
}
int cuGetErrorString(int status, const char **text) {
    *text = status == 218 ? "a PTX JIT compilation failed" : "an error";
    return 0;
}
