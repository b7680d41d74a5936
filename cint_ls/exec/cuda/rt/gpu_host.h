/* gpu-cuda's host in C (gpu_host.c) and its launch interface (cint_gpu_device): the
 * functions cint_ls/exec/cuda/c_host.py calls through cffi. */
#ifndef CINT_GPU_HOST_H
#define CINT_GPU_HOST_H

#include "cint_rt.h"

/* A device.  Every function returns 0, or 1 with a one-line message in `message` (512
 * bytes).  Addresses are the device's (CUdeviceptr).  `function` gives the entry's
 * CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK in *max_threads (0: no limit known). */
typedef struct cint_gpu_device {
    void *user;
    int (*load)(void *user, const char *ptx, void **module, char *message);
    int (*function)(void *user, void *module, const char *name, void **function, int32_t *max_threads,
                    char *message);
    int (*alloc)(void *user, uint64_t bytes, uint64_t *address, char *message);
    void (*release)(void *user, uint64_t address);
    int (*upload)(void *user, uint64_t address, const void *data, uint64_t bytes, char *message);
    int (*download)(void *user, void *data, uint64_t address, uint64_t bytes, char *message);
    int (*fill)(void *user, uint64_t address, int byte, uint64_t bytes, char *message);
    int (*launch)(void *user, void *function, uint32_t grid, uint32_t block, uint64_t *params, int32_t nparams,
                  char *message);
    void (*close)(void *user);
} cint_gpu_device;

/* The kinds of an entry parameter (cint_ls/exec/cuda/ptx.py, Param.kind). */
enum {
    CINT_GP_FIRST = 0, CINT_GP_END, CINT_GP_FAULT, CINT_GP_FUEL_LEFT, CINT_GP_FUEL, CINT_GP_SIZE, CINT_GP_OVER,
    CINT_GP_SCALAR, CINT_GP_READ, CINT_GP_ORIGIN, CINT_GP_EXTENT, CINT_GP_STRIDE, CINT_GP_WRITE, CINT_GP_WSTRIDE,
    CINT_GP_CONTRIB, CINT_GP_MARK, CINT_GP_ARGS, CINT_GP_SLOTS,
    CINT_GP_FOLD /* fold_checked a's accumulator before the launch (per launch; ptx.py "fold") */
};

#define CINT_GPU_MAX_PARAMS 4096
#define CINT_GPU_KEPT 32     /* device buffers kept for the next dispatches */
#define CINT_GPU_RESIDENT 96 /* storages whose device copy is kept: more than a dispatch places (64) */

enum { CINT_GPU_NONE = 0, CINT_GPU_RESOURCE = 1 };

typedef struct { int32_t kind, a, b; } cint_gpu_param;

typedef struct {
    int32_t nparams;
    cint_gpu_param *params; /* KernelCode.params */
    bool args_block;        /* params[2:] in an argument block */
    bool charges;
    void *function;
    int32_t max_threads; /* CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 0: unknown */
    int32_t block_size;  /* the block its launches use */
    /* The reductions combined on the device per block (ptx.py, SLOT_WORDS): the offset
     * of reduction r's words in a block's slots, -1 when it has a contribution and a
     * mark per work-item; the words of a block. */
    int32_t slot_offset[64];
    int32_t slot_words;
} cint_gpu_kernel;

typedef struct {
    cint_storage *storage;
    uint64_t serial, stores; /* the storage's when the copy was made */
    int64_t lo, hi;          /* its elements [lo, hi] */
    uint64_t address, bytes;
} cint_gpu_resident;

/* A row of the report: what a dispatch copied. */
typedef struct {
    int64_t number;
    int64_t launches;
    int64_t uploaded, downloaded; /* bytes to and from the device */
    int64_t kept;                 /* bytes read that were already on the device, not sent again */
} cint_gpu_row_t;

typedef struct {
    int64_t dispatches, launches, skipped, launch_ns;
    int64_t found_number, found_k, found_b, found_f, found_r;
    int32_t found_kernel, found_span;
    int32_t status_kind;
    int64_t status_number;
    int32_t status_kernel, status_span;
    const char *status_message;
    const cint_gpu_row_t *rows;
    int64_t nrows;
} cint_gpu_stats;

typedef struct cint_gpu {
    cint_gpu_device dev;
    const cint_program *program;
    int32_t nkernels;
    cint_gpu_kernel *kernels; /* in program->kernels order */
    void *module;
    int32_t block;
    int64_t max_launch;
    char message[512];
    uint64_t free_address[CINT_GPU_KEPT], free_bytes[CINT_GPU_KEPT];
    int32_t nfree;
    cint_gpu_resident resident[CINT_GPU_RESIDENT];
    int32_t nresident;
    void *scan;
    size_t scan_bytes;
    void *slots_host; /* the block slots of a launch, read back */
    size_t slots_host_bytes;
    int64_t dispatches, launches, skipped, launch_ns;
    int64_t current_number;
    int32_t current_kernel, current_span;
    int64_t found_number, found_k, found_b, found_f, found_r;
    int32_t found_kernel, found_span;
    int32_t status_kind;
    int64_t status_number;
    int32_t status_kernel, status_span;
    char status_message[512];
    cint_gpu_row_t row;
    cint_gpu_row_t *rows;
    size_t nrows, rows_cap;
    cint_gpu_stats stats;
} cint_gpu;

cint_gpu *cint_gpu_new(const cint_gpu_device *device, const cint_program *program, int32_t block,
                       int64_t max_launch);
int cint_gpu_load(cint_gpu *g, const char *ptx);
int cint_gpu_kernel_set(cint_gpu *g, int32_t index, const char *entry, int32_t nparams, const int32_t *params,
                        int32_t block_params, int32_t charges);
int32_t cint_gpu_kernel_block(const cint_gpu *g, int32_t index);
int32_t cint_gpu_kernel_limit(const cint_gpu *g, int32_t index);
const char *cint_gpu_message(const cint_gpu *g);
void cint_gpu_attach(cint_ctx *ctx, cint_gpu *g);
void cint_gpu_free(cint_gpu *g);
/* Every device copy kept of a storage given back: the storages of a packed plan
 * (cint_tile_run_phase) live only as long as its run. */
void cint_gpu_forget(cint_gpu *g);
const cint_gpu_stats *cint_gpu_stats_of(cint_gpu *g);
void cint_gpu_row(cint_gpu *g, int64_t number);
int cint_gpu_null_device(cint_gpu_device *device);
int32_t cint_gpu_program_kernels(const cint_program *program);
const char *cint_gpu_program_kernel(const cint_program *program, int32_t index);
int cint_gpu_program_span(const cint_program *program, int32_t index, int32_t *out);
/* gpu_cuda.c: the CUDA driver through dlopen("libcuda.so.1") (or `library`). 0, or 1 with
 * a one-line message: CINT_GPU_NO_DRIVER (no driver library), CINT_GPU_NO_DEVICE (a
 * driver, no device) or CINT_GPU_UNUSABLE (a device that cannot be used). */
enum { CINT_GPU_NO_DRIVER = 1, CINT_GPU_NO_DEVICE = 2, CINT_GPU_UNUSABLE = 3 };
int cint_gpu_cuda_device(cint_gpu_device *device, const char *library, int32_t ordinal, char *description,
                         char *message);

#endif
