/* gpu-cuda's real device: the CUDA driver API through dlopen("libcuda.so.1"), the few
 * entry points the host needs resolved by name (cint_ls/exec/cuda/README.md says why
 * not cuda-python).  The device's primary context, synchronously (cuCtxSynchronize
 * after each launch, so that a launch stopped by a time limit or an illegal address is
 * reported by that launch).  No setting of the driver or of the system is changed
 * [B-16e].
 *
 * Hardening: a message that tells "no driver" (the library cannot be loaded, or lacks
 * an entry point) from "a driver but no device" (cuInit's CUDA_ERROR_NO_DEVICE, or no
 * device counted); the primary context released on every failure path after it is
 * retained; cuModuleLoadDataEx with the JIT's error log in the message; each entry's
 * CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK read when it is resolved, so that the host
 * never launches more threads per block than the kernel can run (gpu_host.c). */
#include "gpu_host.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef int cu_result;
typedef int cu_device;
typedef void *cu_context;
typedef void *cu_module;
typedef void *cu_function;
typedef uint64_t cu_ptr;

enum {
    CU_NO_DEVICE = 100, /* CUDA_ERROR_NO_DEVICE */
    CU_ATTR_MAX_BLOCK_DIM_X = 2, CU_ATTR_MAX_GRID_DIM_X = 5, CU_ATTR_MAJOR = 75, CU_ATTR_MINOR = 76,
    CU_FUNC_MAX_THREADS = 0, CU_FUNC_NUM_REGS = 4,
    CU_JIT_ERROR_LOG_BUFFER = 5, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6
};

typedef struct {
    void *library;
    cu_result (*cuInit)(unsigned);
    cu_result (*cuDeviceGetCount)(int *);
    cu_result (*cuDeviceGet)(cu_device *, int);
    cu_result (*cuDeviceGetName)(char *, int, cu_device);
    cu_result (*cuDeviceGetAttribute)(int *, int, cu_device);
    cu_result (*cuDevicePrimaryCtxRetain)(cu_context *, cu_device);
    cu_result (*cuDevicePrimaryCtxRelease)(cu_device);
    cu_result (*cuCtxSetCurrent)(cu_context);
    cu_result (*cuCtxSynchronize)(void);
    cu_result (*cuModuleLoadDataEx)(cu_module *, const void *, unsigned, int *, void **);
    cu_result (*cuModuleUnload)(cu_module);
    cu_result (*cuModuleGetFunction)(cu_function *, cu_module, const char *);
    cu_result (*cuFuncGetAttribute)(int *, int, cu_function);
    cu_result (*cuMemAlloc)(cu_ptr *, size_t);
    cu_result (*cuMemFree)(cu_ptr);
    cu_result (*cuMemcpyHtoD)(cu_ptr, const void *, size_t);
    cu_result (*cuMemcpyDtoH)(void *, cu_ptr, size_t);
    cu_result (*cuMemsetD8)(cu_ptr, unsigned char, size_t);
    cu_result (*cuLaunchKernel)(cu_function, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                void *, void **, void **);
    cu_result (*cuGetErrorName)(cu_result, const char **);
    cu_result (*cuGetErrorString)(cu_result, const char **);
    cu_device device;
    cu_context context;
    bool retained;
    cu_module modules[8];
    int nmodules;
} cuda;

/* "CUDA_ERROR_X: what it means (cuCall)" */
static int failed(const cuda *c, cu_result status, const char *call, char *message) {
    const char *name = NULL, *text = NULL;
    if (c->cuGetErrorName == NULL || c->cuGetErrorName(status, &name) != 0) name = NULL;
    if (c->cuGetErrorString == NULL || c->cuGetErrorString(status, &text) != 0) text = NULL;
    if (name != NULL && text != NULL) snprintf(message, 512, "%s: %s (%s)", name, text, call);
    else if (name != NULL) snprintf(message, 512, "%s (%s)", name, call);
    else snprintf(message, 512, "CUresult %d (%s)", status, call);
    return 1;
}

#define CU(c, call, args)                                                                                          \
    do {                                                                                                           \
        cu_result status_ = (c)->call args;                                                                        \
        if (status_ != 0) return failed((c), status_, #call, message);                                             \
    } while (0)

static bool resolve(void *library, const char *name, void *slot) {
    void *p = dlsym(library, name);
    if (p == NULL) return false;
    memcpy(slot, &p, sizeof p); /* a function pointer from dlsym (POSIX) */
    return true;
}

static int cuda_load(void *user, const char *ptx, void **module, char *message) {
    cuda *c = user;
    char log[4096];
    log[0] = '\0';
    int options[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[2] = {log, (void *)(uintptr_t)sizeof log};
    if (c->nmodules == 8) {
        snprintf(message, 512, "internal error: more than 8 modules");
        return 1;
    }
    cu_result status = c->cuModuleLoadDataEx(module, ptx, 2, options, values);
    if (status != 0) {
        failed(c, status, "cuModuleLoadDataEx", message);
        if (log[0] != '\0') { /* the JIT's own words, on one line */
            for (char *p = log; *p; p++)
                if (*p == '\n' || *p == '\r') *p = ' ';
            size_t used = strlen(message);
            snprintf(message + used, 512 - used, "; JIT: %s", log);
        }
        return 1;
    }
    c->modules[c->nmodules++] = *module;
    return 0;
}

static int cuda_function(void *user, void *module, const char *name, void **function, int32_t *max_threads,
                         char *message) {
    cuda *c = user;
    int limit = 0;
    CU(c, cuModuleGetFunction, ((cu_function *)function, module, name));
    CU(c, cuFuncGetAttribute, (&limit, CU_FUNC_MAX_THREADS, *function));
    *max_threads = limit;
    return 0;
}

static int cuda_alloc(void *user, uint64_t bytes, uint64_t *address, char *message) {
    cuda *c = user;
    CU(c, cuMemAlloc, (address, (size_t)bytes));
    return 0;
}

static void cuda_release(void *user, uint64_t address) {
    cuda *c = user;
    (void)c->cuMemFree(address);
}

static int cuda_upload(void *user, uint64_t address, const void *data, uint64_t bytes, char *message) {
    cuda *c = user;
    CU(c, cuMemcpyHtoD, (address, data, (size_t)bytes));
    return 0;
}

static int cuda_download(void *user, void *data, uint64_t address, uint64_t bytes, char *message) {
    cuda *c = user;
    CU(c, cuMemcpyDtoH, (data, address, (size_t)bytes));
    return 0;
}

static int cuda_fill(void *user, uint64_t address, int byte, uint64_t bytes, char *message) {
    cuda *c = user;
    CU(c, cuMemsetD8, (address, (unsigned char)byte, (size_t)bytes));
    return 0;
}

static int cuda_launch(void *user, void *function, uint32_t grid, uint32_t block, uint64_t *params,
                       int32_t nparams, char *message) {
    cuda *c = user;
    void *pointers[CINT_GPU_MAX_PARAMS];
    for (int32_t j = 0; j < nparams && j < CINT_GPU_MAX_PARAMS; j++) pointers[j] = &params[j];
    CU(c, cuLaunchKernel, (function, grid, 1, 1, block, 1, 1, 0, NULL, pointers, NULL));
    CU(c, cuCtxSynchronize, ());
    return 0;
}

static void cuda_close(void *user) {
    cuda *c = user;
    for (int i = 0; i < c->nmodules; i++) (void)c->cuModuleUnload(c->modules[i]);
    if (c->retained) (void)c->cuDevicePrimaryCtxRelease(c->device);
    dlclose(c->library);
    free(c);
}

/* Open device `ordinal`: 0, or 1 with the message and *kind (CINT_GPU_NO_DRIVER, ...). */
static int open_cuda(cuda *c, int32_t ordinal, char *description, char *message, int *kind) {
    int count = 0, major = 0, minor = 0;
    char name[200];
    *kind = CINT_GPU_NO_DEVICE;
    cu_result status = c->cuInit(0);
    if (status == CU_NO_DEVICE) {
        snprintf(message, 512, "a CUDA driver but no CUDA device (cuInit: CUDA_ERROR_NO_DEVICE)");
        return 1;
    }
    if (status != 0) {
        *kind = CINT_GPU_UNUSABLE;
        return failed(c, status, "cuInit", message);
    }
    CU(c, cuDeviceGetCount, (&count));
    if (count <= ordinal) {
        if (count == 0) snprintf(message, 512, "a CUDA driver but no CUDA device");
        else snprintf(message, 512, "a CUDA driver with %d devices, none numbered %d", count, ordinal);
        return 1;
    }
    *kind = CINT_GPU_UNUSABLE;
    CU(c, cuDeviceGet, (&c->device, ordinal));
    CU(c, cuDeviceGetName, (name, (int)sizeof name, c->device));
    name[sizeof name - 1] = '\0';
    CU(c, cuDeviceGetAttribute, (&major, CU_ATTR_MAJOR, c->device));
    CU(c, cuDeviceGetAttribute, (&minor, CU_ATTR_MINOR, c->device));
    if (major < 5 || (major == 5 && minor < 2)) {
        snprintf(message, 512, "%s has compute capability %d.%d; gpu-cuda needs sm_52 or later", name, major, minor);
        return 1;
    }
    CU(c, cuDevicePrimaryCtxRetain, (&c->context, c->device));
    c->retained = true;
    CU(c, cuCtxSetCurrent, (c->context));
    snprintf(description, 256, "%s (sm_%d%d)", name, major, minor);
    return 0;
}

int cint_gpu_cuda_device(cint_gpu_device *device, const char *library, int32_t ordinal, char *description,
                         char *message) {
    cuda *c = calloc(1, sizeof *c);
    if (c == NULL) {
        snprintf(message, 512, "out of memory");
        return CINT_GPU_UNUSABLE;
    }
    const char *path = library != NULL && library[0] != '\0' ? library : "libcuda.so.1";
    c->library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (c->library == NULL) {
        const char *why = dlerror();
        if (library == NULL || library[0] == '\0') /* the wording of cint_ls/exec/cuda/probe.py's forecast */
            snprintf(message, 512, "no CUDA driver (the NVIDIA driver library libcuda is not installed)");
        else
            snprintf(message, 512, "no CUDA driver (the NVIDIA driver library %s cannot be loaded: %s)", path,
                     why != NULL ? why : "not found");
        free(c);
        return CINT_GPU_NO_DRIVER;
    }
    struct { const char *name; void *slot; } entries[] = {
        {"cuInit", &c->cuInit}, {"cuDeviceGetCount", &c->cuDeviceGetCount}, {"cuDeviceGet", &c->cuDeviceGet},
        {"cuDeviceGetName", &c->cuDeviceGetName}, {"cuDeviceGetAttribute", &c->cuDeviceGetAttribute},
        {"cuDevicePrimaryCtxRetain", &c->cuDevicePrimaryCtxRetain},
        {"cuDevicePrimaryCtxRelease_v2", &c->cuDevicePrimaryCtxRelease}, {"cuCtxSetCurrent", &c->cuCtxSetCurrent},
        {"cuCtxSynchronize", &c->cuCtxSynchronize}, {"cuModuleLoadDataEx", &c->cuModuleLoadDataEx},
        {"cuModuleUnload", &c->cuModuleUnload}, {"cuModuleGetFunction", &c->cuModuleGetFunction},
        {"cuFuncGetAttribute", &c->cuFuncGetAttribute}, {"cuMemAlloc_v2", &c->cuMemAlloc},
        {"cuMemFree_v2", &c->cuMemFree}, {"cuMemcpyHtoD_v2", &c->cuMemcpyHtoD}, {"cuMemcpyDtoH_v2", &c->cuMemcpyDtoH},
        {"cuMemsetD8_v2", &c->cuMemsetD8}, {"cuLaunchKernel", &c->cuLaunchKernel},
        {"cuGetErrorName", &c->cuGetErrorName}, {"cuGetErrorString", &c->cuGetErrorString},
    };
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
        if (!resolve(c->library, entries[i].name, entries[i].slot)) {
            snprintf(message, 512, "no usable CUDA driver (%s has no %s: a driver older than CUDA 11)", path,
                     entries[i].name);
            dlclose(c->library);
            free(c);
            return CINT_GPU_NO_DRIVER;
        }
    }
    int kind = 0;
    if (open_cuda(c, ordinal, description, message, &kind)) {
        if (c->retained) (void)c->cuDevicePrimaryCtxRelease(c->device); /* every failure path */
        dlclose(c->library);
        free(c);
        return kind;
    }
    memset(device, 0, sizeof *device);
    device->user = c;
    device->load = cuda_load;
    device->function = cuda_function;
    device->alloc = cuda_alloc;
    device->release = cuda_release;
    device->upload = cuda_upload;
    device->download = cuda_download;
    device->fill = cuda_fill;
    device->launch = cuda_launch;
    device->close = cuda_close;
    return 0;
}
