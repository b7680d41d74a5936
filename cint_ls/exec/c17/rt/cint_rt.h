/* The cint run-time for cpu-c17: the ABI between emitted C and its host.
 *
 * Emitted C includes this header only. It compiles without a warning under
 *   -std=c17 -Wall -Wextra -Wconversion -Wsign-conversion -Wshadow -Wpedantic -Werror
 * with GCC and Clang, has no undefined behaviour (checked operations test first or use
 * __builtin_*_overflow; divisions test 0 and MIN / -1, shifts their count, before the
 * native instruction) and no __int128.  See ../README.md for the whole ABI.
 *
 * Values: Bool is `bool`; integer and fixed-point types of up to 64 bits are the
 * <stdint.h> type of their width and signedness (a fixed Qm.n holds its stored integer);
 * wider ones are little-endian two's-complement limb arrays cint_w2 .. cint_w16.  The
 * same layout is the element layout of arrays.  A type is named at run time by a type
 * code (CINT_TC_*).
 */
#ifndef CINT_RT_H
#define CINT_RT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cint_faults.h" /* the fault codes, generated from the vocabulary */

#define CINT_ABI_VERSION 3

/* ------------------------------------------------------------------ type codes */

#define CINT_TC_SIGNED 0x1000u
#define CINT_TC_FIXED 0x2000u
#define CINT_TC_BOOL 0x4000u
#define CINT_TC_BITS(tc) ((int)((tc) & 0x7ffu))
#define CINT_TC_FRAC(tc) ((int)(((tc) >> 16) & 0xffu))
#define CINT_TC_IS_SIGNED(tc) (((tc) & CINT_TC_SIGNED) != 0u)
#define CINT_TC_IS_FIXED(tc) (((tc) & CINT_TC_FIXED) != 0u)
#define CINT_TC_IS_BOOL(tc) (((tc) & CINT_TC_BOOL) != 0u)
#define CINT_TC_I(bits) ((uint32_t)(bits) | CINT_TC_SIGNED)
#define CINT_TC_U(bits) ((uint32_t)(bits))
#define CINT_TC_Q(m, n) ((uint32_t)((m) + (n)) | CINT_TC_SIGNED | CINT_TC_FIXED | ((uint32_t)(n) << 16))
#define CINT_TC_BOOLEAN (8u | CINT_TC_BOOL)
#define CINT_TC_I64 CINT_TC_I(64)
#define CINT_TC_U64 CINT_TC_U(64)

/* Bytes of one value (and one element): bits / 8, Bool one byte. */
#define CINT_TC_SIZE(tc) ((size_t)CINT_TC_BITS(tc) / 8u)

/* ------------------------------------------------------------------ wide values */

typedef struct { uint64_t w[2]; } cint_w2;
typedef struct { uint64_t w[4]; } cint_w4;
typedef struct { uint64_t w[8]; } cint_w8;
typedef struct { uint64_t w[16]; } cint_w16;

/* An exact integer for the run-time's own use (fault records, conversions, wide
 * arithmetic): two's complement in CINT_BIG_LIMBS limbs, 2304 bits, more than every
 * exact result of the language needs (a 1024-bit product has 2048). */
#define CINT_BIG_LIMBS 36
typedef struct { uint64_t w[CINT_BIG_LIMBS]; } cint_big;

/* ------------------------------------------------------------------ fault records */

#define CINT_MAX_RANK 8
#define CINT_MAX_OPERANDS 3

typedef struct { int32_t start_byte, end_byte, line, column, end_line, end_column; } cint_span;

typedef struct { uint32_t tc; cint_big value; } cint_typed;

typedef struct { const char *function; int32_t span; } cint_frame;

typedef struct {
    uint32_t element;
    int32_t rank;
    int64_t origin;
    int64_t extents[CINT_MAX_RANK];
    int64_t strides[CINT_MAX_RANK];
    bool writable;
} cint_view_desc;

enum { CINT_EXACT_NONE = 0, CINT_EXACT_INT = 1, CINT_EXACT_FRACTION = 2 };
enum { CINT_PHASE_ENTRY = 0, CINT_PHASE_WORK_ITEM = 1, CINT_PHASE_EPILOGUE = 2 };

/* Every field of FaultRecord (cint_ls/exec/faults.py); serialized by cint_fault_json
 * to the shape of FaultRecord.to_json. */
typedef struct {
    const char *code;
    const char *operation;
    int32_t noperands;
    cint_typed operands[CINT_MAX_OPERANDS];
    int32_t exact_kind;
    cint_big exact_num, exact_den; /* a fraction is reduced, its denominator positive */
    bool has_limit;
    cint_typed limit;
    int32_t span; /* an index into the program's span table, -1 for none */
    int64_t step; /* the step ordinal where it was raised (meaningful in counting code) */
    int32_t nframes, frames_cap;
    cint_frame *frames; /* innermost first */
    bool has_address;
    const char *kernel;
    int64_t dispatch;
    int32_t phase;
    bool has_item;
    int64_t item, item_step;
    int32_t nviews;
    cint_view_desc views[2];
} cint_fault;

/* ------------------------------------------------------------------ storage and views */

typedef struct cint_storage {
    int64_t count; /* elements */
    uint32_t element;
    uint32_t element_size;
    uint64_t generation;
    void *data;
    /* gpu-cuda (gpu_host.c): a number no other storage of the process had (views.c), and
     * the stores of sequential code into it (CINT_STORED), so that the host knows that a
     * device copy still equals it and need not send it again; a cluster's (cluster.py)
     * also the dispatches that published into it (dispatch.c), and `remote`: nonzero
     * while some of its elements are newer on the cluster's workers than here (a
     * dispatch whose tiles kept what they wrote; cint_storage_fetch brings them). */
    uint64_t serial, stores, publications, remote;
} cint_storage;

typedef struct {
    cint_storage *storage;
    void *data; /* the storage's elements */
    uint32_t element;
    int32_t rank;
    bool writable;
    uint64_t generation;
    int64_t origin;
    int64_t extents[CINT_MAX_RANK];
    int64_t strides[CINT_MAX_RANK];
} cint_view;

/* One index of a select: an integer, or a slice lo..hi by step (has_lo/has_hi false:
 * 0 / the extent). */
typedef struct {
    bool slice, has_lo, has_hi;
    int64_t lo, hi, step;
} cint_select_spec;

/* ------------------------------------------------------------------ kernels, dispatch */

typedef struct cint_ctx cint_ctx;

enum { CINT_MODE_IN = 0, CINT_MODE_OUT = 1, CINT_MODE_INOUT = 2 };

typedef struct {
    int32_t size;   /* the size symbol's index, -1 for a constant */
    int64_t offset; /* the constant, or c of S + c (negative for S - c) */
} cint_extent;

typedef struct {
    int32_t mode;
    uint32_t type; /* the element type of an array, the type of a scalar */
    int32_t rank;  /* -1 for a scalar */
    const cint_extent *extents;
    /* An out array that every work-item which completes writes at its own index tuple
     * (rank = over rank): when the iteration space is the array's shape, its staging
     * needs no copy-in, since a dispatch that completes overwrites every element. */
    bool overwritten;
} cint_param;

enum {
    CINT_RED_SUM = 0, CINT_RED_SUM_WRAP, CINT_RED_SUM_SAT, CINT_RED_MIN, CINT_RED_MAX, CINT_RED_COUNT,
    CINT_RED_FOLD
};

typedef struct {
    int32_t param;
    int32_t kind;
    uint32_t contribution, target;
    const char *operation; /* sum.checked.i32.i64 ... */
    int32_t span;          /* the operator's name in the reduce statement */
    const void *init;      /* fold_checked's initial value, a value of the target type */
} cint_reduction_desc;

/* The state of one reduction during a dispatch.  `acc` holds the exact sum (sum,
 * sum_wrap: two's complement, 2 limbs for contributions up to 64 bits, else 18) or
 * the current value of the target type (sum_sat, min, max, fold_checked) in the
 * layout of that type.
 *
 * A chunk of work-items run by a thread of the pool (pool.c) keeps a *partial* state
 * (`partial`), which starts empty whatever came before the chunk: sum_sat as the map
 * x -> clamp(x + c, L, H) its contributions compose to (SPEC-02P.1 9.2 para 3: c exact
 * in `acc` as a sum, L in `lo`, H in `hi`, values of the target type), fold_checked as
 * the exact sum of its contributions in `acc` and the least and greatest of its
 * prefix sums in `lo` and `hi` (9.2 para 4; all three in the sum's layout), so that
 * the dispatch finds a fold's first overflow, and the sequential value of sum_sat,
 * from the chunks in ascending order.  Neither faults in a partial state. */
typedef struct {
    int64_t count; /* contributions so far */
    int64_t trues; /* count: true contributions */
    bool has;      /* min, max: a value so far; partial sum_sat, fold_checked: a contribution so far */
    bool partial;  /* a chunk's partial state (above) */
    uint64_t acc[18];
    uint64_t saved[18]; /* fold_checked: the accumulator before the current work-item */
    uint64_t lo[18], hi[18];
} cint_reduction;

typedef struct cint_plan cint_plan;
typedef struct cint_kernel cint_kernel;

/* One argument of a dispatch: a view for an array parameter, the address of the value
 * for a scalar in parameter, the address of the variable for a scalar out parameter. */
typedef struct {
    cint_view view;
    const void *in;
    void *out;
} cint_arg;

struct cint_plan {
    const cint_kernel *kernel;
    int64_t number;
    int64_t sizes[16];
    int64_t over[CINT_MAX_RANK];
    int64_t count;
    const cint_arg *args;
    cint_view *writes; /* per parameter: the staging of an out or inout array */
    cint_reduction *reductions;
    uint64_t item_fuel; /* fuel_left before the current work-item (kernels that charge) */
    uint64_t kept; /* bit p: output p's elements stay on the cluster's workers (cint_tile_keep) */
};

struct cint_kernel {
    const char *qualified;
    int32_t nparams;
    const cint_param *params;
    int32_t nsizes;
    int32_t nover;
    int32_t nwhere;
    const int32_t *where_ops; /* CINT_CMP_* per constraint */
    int32_t nreductions;
    const cint_reduction_desc *reductions;
    bool charges; /* the body charges fuel (a loop or a call) */
    /* The over extent d (entry phase; a fault has a full record). */
    int (*over)(cint_ctx *ctx, const int64_t *sizes, int32_t d, int64_t *out);
    /* The two sides of constraint k. */
    int (*where)(cint_ctx *ctx, const int64_t *sizes, int32_t k, int64_t *left, int64_t *right);
    /* The work-items first .. end - 1, ascending, without counting steps, adding to
     * the reduction states in plan->reductions; on a fault, stores the work-item's
     * index in *item and returns 1 (no record). */
    int (*run)(cint_ctx *ctx, cint_plan *plan, int64_t first, int64_t end, int64_t *item);
    /* Work-item `item` alone, counting steps: on a fault, returns 1 with the full
     * record (step in fault.step). */
    int (*describe)(cint_ctx *ctx, cint_plan *plan, int64_t item);
};

enum { CINT_CMP_EQ = 0, CINT_CMP_NE, CINT_CMP_LT, CINT_CMP_LE, CINT_CMP_GT, CINT_CMP_GE };

/* The table a host fills in: how the emitted program carries out a dispatch.  cpu-c17
 * fills it with cint_rt_dispatch; gpu-cuda can fill it with its own protocol. */
typedef struct cint_host {
    int (*dispatch)(cint_ctx *ctx, const cint_kernel *kernel, cint_arg *args, int32_t span);
} cint_host;

typedef struct {
    uint32_t abi;
    const char *module;
    int32_t nspans;
    const cint_span *spans;
    int (*entry)(cint_ctx *ctx);
    /* The descriptor of every kernel the program dispatches, in IR order (NULL when
     * none): gpu-cuda's host finds a kernel here by its qualified name to describe a
     * fault (cint_ctx_describe). */
    int32_t nkernels;
    const cint_kernel *const *kernels;
} cint_program;

typedef struct {
    int64_t dispatch;
    uint64_t output_length;
    uint64_t fuel;
    uint64_t digest;
} cint_boundary;

/* One dispatch as `cint run --report` shows it (recorded when the host asks,
 * cint_ctx_set_report): its number, kernel, work-items (-1: the entry checks ended it
 * before N was known), the threads its work-items ran on, its wall time and the fuel it
 * consumed (the charge of N and the work-items' charges). */
typedef struct {
    int64_t number;
    const char *kernel;
    int64_t work_items;
    int32_t threads;
    int64_t nanoseconds;
    uint64_t fuel;
    int64_t started_ns; /* the monotonic clock when it began (the trace's start times) */
    int32_t nover;      /* the over extents the entry checks bound (0 before they did) */
    int64_t over[CINT_MAX_RANK];
    /* How its work-items ran (which ran, for a fault map): CINT_RAN_SERIAL in ascending
     * order on one thread, stopping at the first fault; CINT_RAN_POOL in chunks on the
     * pool, CINT_RAN_TILES in tiles on a cluster (pool.c): every work-item below the
     * canonical fault ran, those above it may or may not have. */
    int32_t ran;
} cint_dispatch_record;

enum { CINT_RAN_SERIAL = 0, CINT_RAN_POOL = 1, CINT_RAN_TILES = 2 };

#define CINT_MAX_RECORDS 10000 /* dispatches recorded; later ones are counted only */

enum { CINT_OK = 0, CINT_FAULT = 1, CINT_RESOURCE = 2 };

typedef struct cint_pool cint_pool;
typedef struct cint_chunk cint_chunk;

struct cint_ctx {
    uint64_t fuel_left; /* charges left: budget - consumed (UINT64_MAX when unlimited) */
    int64_t step;       /* counted operations of the work-item being described */
    int64_t depth;      /* calls in progress */
    uintptr_t stack_low; /* a call whose frame lies below faults host.stack (stack.c); 0: none */
    const cint_host *host;
    const cint_program *program;
    uint64_t fuel_start;
    int64_t budget; /* -1: unlimited */
    int64_t dispatches;
    int status;
    char message[512];
    char *out;
    size_t out_len, out_cap;
    cint_fault fault;
    bool trace;
    cint_boundary *boundaries;
    size_t nboundaries, boundaries_cap;
    /* Threads (pool.c): a dispatch of at least `parallel_min` work-items runs its
     * work-item phase on `threads` threads (the pool, made at the first such dispatch
     * and kept until the context is freed), in chunks of at least `chunk_min`
     * work-items; `thread_stack` bytes of stack for each thread of the pool. */
    int32_t threads;
    size_t thread_stack;
    int64_t parallel_min, chunk_min;
    cint_pool *pool;
    int64_t parallel_dispatches; /* dispatches whose work-items ran on the pool */
    /* Staging buffers of finished dispatches, kept for the next ones (dispatch.c): no
     * allocation, and no page faults, for a step after step of the same shapes. */
    void *spare[4];
    size_t spare_bytes[4];
    /* In the context of a thread of the pool: the chunk it runs (NULL otherwise). */
    cint_chunk *chunk;
    /* gpu-cuda (gpu_host.c): the work-item phase of every dispatch on a device, in place
     * of cint_work_items (cint_gpu_attach); NULL: cpu-c17's. */
    int (*work_phase)(cint_ctx *ctx, const cint_kernel *k, cint_plan *plan, int32_t span, int64_t *item);
    struct cint_gpu *gpu;
    /* The report (cint_ctx_set_report): a record per dispatch, up to CINT_MAX_RECORDS. */
    bool report;
    cint_dispatch_record *records;
    size_t nrecords;
    /* Tiles on a cluster (pool.c, cint_ls/exec/c17/cluster.py): a dispatch of at least
     * `remote_min` work-items hands its work-item phase to `remote` (the host's
     * callback) as `remote_tiles` tiles of contiguous work-items; the callback hands each
     * tile's result back with cint_tile_accept, and the dispatch folds them as the pool
     * folds its chunks.  NULL: none. */
    int (*remote)(void *user, void *job, const char *plan, size_t plan_bytes, int64_t ntiles, int64_t tile);
    void *remote_user;
    int64_t remote_min, remote_tiles;
    /* Per kernel of the program's table, the tiles its dispatches are cut into where the
     * host chose (cint_ctx_set_kernel_tiles; 0 or past the end: remote_tiles). */
    int64_t *kernel_tiles;
    int32_t nkernel_tiles;
    bool remote_header; /* the callback takes the plan's header, not its storages (cint_ctx_set_remote_header) */
    int64_t remote_dispatches; /* dispatches whose work-items went to the cluster */
    int64_t remote_tiles_run;  /* tiles whose result came back from the cluster */
    /* Brings back a storage's elements that are newer on the workers (remote_user's;
     * cint_ctx_set_fetch): 0, and `remote` cleared; nonzero when they cannot come. */
    int (*fetch)(void *user, cint_storage *storage);
    /* An observer of every dispatch that published (cint_ctx_set_observer): called
     * after publication, off the dispatch's recorded time, with the kernel's qualified
     * name, the dispatch's number, its parameters' count and its arguments (the
     * published views), on the thread that runs the entry.  The trace's pictures of
     * arrays (cint_ls/exec/c17/pictures.py).  NULL: none, and no cost. */
    void (*observer)(void *user, const char *kernel, int64_t number, int32_t nparams, const cint_arg *args);
    void *observer_user;
    /* The output streamed as it is printed (text.c, cint_ctx_stream_output: an isolated
     * run's child sends it to its parent, which keeps it when the run is cut short):
     * `out_fd` (0: none), the bytes of `out` sent so far, and the lock (a pthread mutex)
     * that cint_print and cint_ctx_flush_output take.  With `out_keep` > 0 `out` keeps
     * that many bytes and up to 64 KiB more; past them, `out_more` bytes went to the
     * stream only. */
    int out_fd;
    size_t out_sent, out_keep, out_more;
    /* The stream's first `out_skip` bytes are not sent: the parent has them from an
     * earlier attempt of the same run (cint_ctx_set_output_skip; cluster.py's restart). */
    uint64_t out_skip;
    void *out_lock;
};

#define CINT_MAX_CALL_DEPTH 100000 /* nested calls; the call beyond: host.stack (exec/faults.py) */
#define CINT_MAX_ARRAY_ELEMENTS ((int64_t)1 << 28)

/* A store of sequential code into view v's storage: counted when the program is built
 * for gpu-cuda (CINT_GPU_CUDA), whose host keeps device copies of unchanged storages. */
#if defined(CINT_GPU_CUDA) || defined(CINT_COUNT_STORES) /* CINT_COUNT_STORES: a cluster's run */
#define CINT_STORED(v) ((v).storage->stores++)
#else
#define CINT_STORED(v) ((void)0)
#endif
/* Before sequential code loads or stores an element of view v: in a cluster's run the
 * storage's elements that the workers kept are brought back first (nonzero: they could
 * not be, the run stops with CINT_RESOURCE). */
#if defined(CINT_COUNT_STORES)
#define CINT_FETCHED(v) ((v).storage->remote != 0 && cint_storage_fetch(ctx, (v).storage))
#else
#define CINT_FETCHED(v) 0
#endif

/* ------------------------------------------------------------------ run-time functions */

/* Operations of the generic evaluator (arith.c): the reference semantics on every type. */
enum {
    CINT_OP_ADD = 0, CINT_OP_SUB, CINT_OP_MUL, CINT_OP_DIV, CINT_OP_REM, CINT_OP_SHL, CINT_OP_SHR,
    CINT_OP_MIN, CINT_OP_MAX, CINT_OP_AND, CINT_OP_OR, CINT_OP_XOR, CINT_OP_NEG, CINT_OP_ABS, CINT_OP_NOT
};
enum { CINT_FORM_NONE = 0, CINT_FORM_CHECKED, CINT_FORM_WRAP, CINT_FORM_SAT };
enum {
    CINT_ROUND_FLOOR = 0, CINT_ROUND_CEIL, CINT_ROUND_TRUNC, CINT_ROUND_AWAY, CINT_ROUND_HALF_EVEN,
    CINT_ROUND_HALF_AWAY, CINT_ROUND_HALF_TRUNC
};

/* big.c */
void cint_big_load(cint_big *r, uint32_t tc, const void *p);
void cint_big_store(const cint_big *a, uint32_t tc, void *p);
void cint_big_from_i64(cint_big *r, int64_t v);
void cint_big_from_u64(cint_big *r, uint64_t v);
bool cint_big_is_negative(const cint_big *a);
bool cint_big_is_zero(const cint_big *a);
int cint_big_cmp(const cint_big *a, const cint_big *b);
void cint_big_add(cint_big *r, const cint_big *a, const cint_big *b);
void cint_big_sub(cint_big *r, const cint_big *a, const cint_big *b);
void cint_big_neg(cint_big *r, const cint_big *a);
void cint_big_mul(cint_big *r, const cint_big *a, const cint_big *b);
void cint_big_shl(cint_big *r, const cint_big *a, int k);
void cint_big_sar(cint_big *r, const cint_big *a, int k);
void cint_big_divmod(cint_big *q, cint_big *rem, const cint_big *a, const cint_big *b);
void cint_big_bitwise(cint_big *r, const cint_big *a, const cint_big *b, int op);
void cint_big_min_of(cint_big *r, uint32_t tc);
void cint_big_max_of(cint_big *r, uint32_t tc);
bool cint_big_fits(const cint_big *a, uint32_t tc);
void cint_big_wrap(cint_big *r, const cint_big *a, uint32_t tc);
size_t cint_big_to_decimal(const cint_big *a, char *buffer, size_t capacity);

/* arith.c: every operation on values in their native layout; 0, or 1 with the fault
 * record filled (code, operation, operands, exact, limit, span, step = ctx->step). */
int cint_binary(cint_ctx *ctx, int op, int form, uint32_t tc, void *r, const void *a, const void *b,
                const char *operation, int32_t span);
int cint_unary(cint_ctx *ctx, int op, uint32_t tc, void *r, const void *a, const char *operation, int32_t span);
int cint_convert(cint_ctx *ctx, int form, uint32_t from, uint32_t to, void *r, const void *a,
                 const char *operation, int32_t span);
int cint_div_round(cint_ctx *ctx, int mode, uint32_t tc, void *r, const void *a, const void *b,
                   const char *operation, int32_t span);
int cint_compare(uint32_t tc, const void *a, const void *b);
/* The record of an inline operation on values up to 64 bits (the bits of each operand
 * in a uint64_t) that failed: the generic evaluator recomputes it. */
void cint_fail_binary64(cint_ctx *ctx, int op, int form, uint32_t tc, uint64_t a, uint64_t b,
                        const char *operation, int32_t span);
void cint_fail_unary64(cint_ctx *ctx, int op, uint32_t tc, uint64_t a, const char *operation, int32_t span);
void cint_fail_convert64(cint_ctx *ctx, int form, uint32_t from, uint32_t to, uint64_t a,
                         const char *operation, int32_t span);
void cint_fail_div_round64(cint_ctx *ctx, int mode, uint32_t tc, uint64_t a, uint64_t b,
                           const char *operation, int32_t span);

/* fault.c */
void cint_fault_begin(cint_ctx *ctx, const char *code, const char *operation, int32_t span);
void cint_fault_operand(cint_ctx *ctx, uint32_t tc, const cint_big *value);
void cint_fault_operand_i64(cint_ctx *ctx, int64_t value);
void cint_fault_exact_int(cint_ctx *ctx, const cint_big *value);
void cint_fault_exact_fraction(cint_ctx *ctx, const cint_big *num, const cint_big *den);
void cint_fault_exact_real(cint_ctx *ctx, uint32_t tc, const cint_big *stored);
void cint_fault_limit(cint_ctx *ctx, uint32_t tc, const cint_big *value);
void cint_fault_limit_i64(cint_ctx *ctx, int64_t value);
void cint_fault_crossed(cint_ctx *ctx, uint32_t tc, const cint_big *result);
void cint_push_frame(cint_ctx *ctx, const char *function, int32_t span);
void cint_resource(cint_ctx *ctx, const char *message);
char *cint_fault_json(cint_ctx *ctx);
size_t cint_type_name(uint32_t tc, char *buffer, size_t capacity);

/* Faults the emitted code raises itself. */
void cint_fail_fuel(cint_ctx *ctx, int32_t span);
/* A charge found fuel_left at 0: with a budget, the E_FUEL fault (returns 1); without
 * one, the counter starts again (returns 0), so that no loop can run out of unlimited
 * fuel, whatever a compiler proves about the counter. */
int cint_fuel_out(cint_ctx *ctx, int32_t span);
void cint_fail_assert(cint_ctx *ctx, int32_t span);
void cint_fail_index(cint_ctx *ctx, const char *operation, int64_t index, int32_t dimension, int64_t extent,
                     int32_t span);
void cint_fail_div_zero_64(cint_ctx *ctx, uint32_t tc, uint64_t a, uint64_t b, const char *operation,
                           int32_t span);
/* A call: charge one unit (E_FUEL), then test the depth and the stack (the host
 * status host.stack, carried as a fault record of code CINT_RESOURCE); on success the
 * depth is one more. */
int cint_call_enter(cint_ctx *ctx, int32_t span);
/* stack.c: set ctx->stack_low for the thread that runs `ctx` (at its start). */
void cint_stack_mark(cint_ctx *ctx);

/* views.c */
int cint_array_make(cint_ctx *ctx, cint_view *v, uint32_t element, int32_t rank, const int64_t *extents,
                    int32_t span);
void cint_array_free(cint_view *v);
int cint_array_init_count(cint_ctx *ctx, const cint_view *v, int64_t given, int32_t span);
int cint_view_select(cint_ctx *ctx, cint_view *r, const cint_view *base, int32_t nspecs,
                     const cint_select_spec *specs, int32_t span);
void cint_view_reverse(cint_view *r, const cint_view *base, int32_t d);
void cint_view_transpose(cint_view *r, const cint_view *base);
/* The offset of an element; a fault (index.checked or store.checked) with its record. */
int cint_view_offset(cint_ctx *ctx, const cint_view *v, const int64_t *index, int64_t *offset,
                     const char *operation, int32_t span);
/* The record of an index that cint_view_at found out of range (the first dimension). */
void cint_fail_view_index(cint_ctx *ctx, const cint_view *v, const int64_t *index, const char *operation,
                          int32_t span);

/* text.c: program output. */
void cint_print(cint_ctx *ctx, const char *text, size_t length);
void cint_print_i64(cint_ctx *ctx, int64_t v);
void cint_print_u64(cint_ctx *ctx, uint64_t v);
void cint_print_bool(cint_ctx *ctx, bool v);
void cint_print_value(cint_ctx *ctx, uint32_t tc, const void *v);
size_t cint_format_value(uint32_t tc, const cint_big *v, char *buffer, size_t capacity);

/* reduce.c */
void cint_red_start(cint_reduction *r, const cint_reduction_desc *d);
int cint_red_add(cint_ctx *ctx, cint_reduction *r, const cint_reduction_desc *d, const void *x, int64_t item);
int cint_red_finish(cint_ctx *ctx, cint_reduction *r, const cint_reduction_desc *d, void *result);

/* alias.c: the write-view test (check 6), the pairwise test (check 7), descriptors */
bool cint_write_view_passes(const cint_view *v);
bool cint_pair_disjoint(const cint_view *p, const cint_view *q);
void cint_describe_view(cint_view_desc *d, const cint_view *v);

/* pool.c: the work-item phase of a dispatch, on one thread or on the pool, with the
 * outcome of running `run` over every work-item in ascending order. */
int cint_work_items(cint_ctx *ctx, const cint_kernel *k, cint_plan *plan, int64_t *item);
void cint_pool_free(cint_pool *pool);
/* A monotonic clock in nanoseconds (the report's dispatch times). */
int64_t cint_now_ns(void);
/* memcpy, on the pool's threads too when there is a pool and the copy is large. */
void cint_copy(cint_ctx *ctx, void *to, const void *from, size_t bytes);
/* A charge found fuel_left at 0 in the context of a thread of the pool. */
int cint_chunk_fuel_out(cint_ctx *ctx, int32_t span);
/* Tiles on a cluster (pool.c): the host's side and the worker's side. */
void cint_ctx_set_remote(cint_ctx *ctx,
                         int (*remote)(void *user, void *job, const char *plan, size_t plan_bytes, int64_t ntiles,
                                       int64_t tile),
                         void *user, int64_t remote_min, int64_t tiles);
int cint_tile_accept(void *job, int64_t tile, const char *result, size_t bytes);
/* Output `param` of the job's dispatch stays on the workers: its tiles' results were
 * taken without its elements, and publication marks its storage `remote`. */
void cint_tile_keep(void *job, int32_t param);
/* Kernel `index`'s dispatches go to the cluster as `tiles` tiles from now on (0: as many
 * as cint_ctx_set_remote said): the host's choice from the tiles' times. */
void cint_ctx_set_kernel_tiles(cint_ctx *ctx, int32_t index, int64_t tiles);
/* The callback that brings a storage's kept elements back (its user: remote_user). */
void cint_ctx_set_fetch(cint_ctx *ctx, int (*fetch)(void *user, cint_storage *storage));
/* A storage's kept elements brought back: 0, or 1 with CINT_RESOURCE. */
int cint_storage_fetch(cint_ctx *ctx, cint_storage *storage);
/* Every array argument's kept elements brought back (dispatch.c), before anything of
 * this process reads them: a dispatch or tiles that run here, a work-item described
 * again, the trace's digest, the observer. 0, or 1 with CINT_RESOURCE. */
int cint_fetch_args(cint_ctx *ctx, const cint_kernel *k, const cint_arg *args);
/* Whether a dispatch of `count` work-items goes to the cluster (cint_work_items). */
bool cint_goes_remote(const cint_ctx *ctx, int64_t count);
/* The remote callback takes the plan's header (structures, no storage bytes: the host
 * reads the storages where they lie) instead of the packed plan: a cluster's (pool.c). */
void cint_ctx_set_remote_header(cint_ctx *ctx, int header);
/* The qualified name of kernel `index` of the program's table, NULL past its end: how
 * a packed plan names its kernel outside C (cint-debug's replay, capture.py). */
const char *cint_program_kernel(const cint_program *program, int64_t index);
int cint_tile_run(const cint_program *program, const char *plan, size_t plan_bytes, int64_t first, int64_t end,
                  char **result, size_t *result_bytes);
/* cint_tile_run with the caller's buffer for the result (a worker's kept results,
 * cluster.py): *result is `into` where the result filled it exactly, in place. */
int cint_tile_run_into(const cint_program *program, const char *plan, size_t plan_bytes, int64_t first, int64_t end,
                       char *into, size_t into_bytes, char **result, size_t *result_bytes);
/* The size of the result cint_tile_run_into fills in place for this plan; 0: unknown. */
size_t cint_tile_result_bytes(const cint_program *program, const char *plan, size_t plan_bytes);
/* Every work-item of a packed plan through ctx's work-item phase (gpu-cuda's once
 * attached): the workbench's `:executor gpu-cuda` (pool.c). */
int cint_tile_run_phase(cint_ctx *ctx, const cint_program *program, const char *plan, size_t plan_bytes,
                        char **result, size_t *result_bytes);
/* reduce.c: the empty partial state of a chunk, and a chunk's partial state added to
 * the dispatch's (`into`), in ascending order: cint_red_fits first says whether a
 * fold_checked would overflow in the chunk (then it must run again on the dispatch's
 * state, which finds the fault). */
void cint_red_start_partial(cint_reduction *r, const cint_reduction_desc *d);
bool cint_red_fits(const cint_reduction *into, const cint_reduction *part, const cint_reduction_desc *d);
void cint_red_merge(cint_reduction *into, const cint_reduction *part, const cint_reduction_desc *d);

/* dispatch.c */
int cint_rt_dispatch(cint_ctx *ctx, const cint_kernel *kernel, cint_arg *args, int32_t span);
extern const cint_host cint_cpu_host;
/* gpu-cuda's description of a fault (SPEC-02P.1 10.6 para 9): work-item `item` of
 * dispatch `number` run again alone in `describe`, from the state before it (see
 * dispatch.c).  1 with the record (or CINT_RESOURCE), 0 when it completes. */
int cint_rt_describe(cint_ctx *ctx, const cint_kernel *k, int64_t number, const int64_t *sizes,
                     const int64_t *over, cint_arg *args, const void *const *folds, int64_t item);

/* context.c: the API a library exports to its host (cffi): the context of a run. */
cint_ctx *cint_ctx_new(int64_t budget, int trace);
void cint_ctx_free(cint_ctx *ctx);
void cint_ctx_set_threads(cint_ctx *ctx, int32_t threads, uint64_t stack, int64_t parallel_min, int64_t chunk_min);
int32_t cint_ctx_threads_used(const cint_ctx *ctx);
int64_t cint_ctx_parallel_dispatches(const cint_ctx *ctx);
int64_t cint_ctx_remote_dispatches(const cint_ctx *ctx); /* dispatches whose work-items went to a cluster */
void cint_ctx_set_host(cint_ctx *ctx, const cint_host *host);
int cint_ctx_run(cint_ctx *ctx, const cint_program *program);
uint64_t cint_ctx_fuel_consumed(const cint_ctx *ctx);
const char *cint_ctx_output(const cint_ctx *ctx, size_t *length);
int cint_ctx_stream_output(cint_ctx *ctx, int fd, uint64_t keep);
void cint_ctx_flush_output(cint_ctx *ctx);
uint64_t cint_ctx_output_more(const cint_ctx *ctx);
/* The bytes of the stream sent so far, and the first bytes an attempt leaves unsent. */
uint64_t cint_ctx_output_streamed(const cint_ctx *ctx);
void cint_ctx_set_output_skip(cint_ctx *ctx, uint64_t skip);
const char *cint_ctx_message(const cint_ctx *ctx);
int64_t cint_ctx_dispatches(const cint_ctx *ctx);
size_t cint_ctx_boundaries(const cint_ctx *ctx, const cint_boundary **boundaries);
void cint_ctx_set_report(cint_ctx *ctx, int on);
size_t cint_ctx_records(const cint_ctx *ctx, const cint_dispatch_record **records);
void cint_ctx_set_observer(cint_ctx *ctx,
                           void (*observer)(void *user, const char *kernel, int64_t number, int32_t nparams,
                                            const cint_arg *args),
                           void *user);
void cint_free(void *p);
int cint_ctx_describe(cint_ctx *ctx, const cint_program *program, const char *kernel, int64_t number,
                      const int64_t *sizes, const int64_t *over, cint_arg *args, const void *const *folds,
                      uint64_t consumed, int64_t depth, int64_t item);

/* The inline operations on values of up to 64 bits. */
#include "cint_ops.h"

#endif
