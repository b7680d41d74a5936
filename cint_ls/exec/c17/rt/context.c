/* The host's side of the ABI: a context (cint_ctx) per entry, running it, and reading back the
 * output, the fault record (JSON), the fuel consumed and the --check trace; and the
 * description of one work-item for gpu-cuda.  These are the functions
 * cint_ls/exec/c17/library.py and describe.py call through cffi. */
#include "cint_rt.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

cint_ctx *cint_ctx_new(int64_t budget, int trace) {
    cint_ctx *ctx = calloc(1, sizeof *ctx);
    if (ctx == NULL) return NULL;
    ctx->budget = budget;
    ctx->fuel_start = budget >= 0 ? (uint64_t)budget : UINT64_MAX;
    ctx->fuel_left = ctx->fuel_start;
    ctx->host = &cint_cpu_host;
    ctx->trace = trace != 0;
    ctx->threads = 1;
    ctx->parallel_min = 4096;
    ctx->chunk_min = 1024;
    return ctx;
}

/* Threads for the work-item phase of large dispatches (pool.c): `threads` in all (1:
 * none of the pool's), each with `stack` bytes of stack (0: the system's default); a
 * dispatch of fewer than `parallel_min` work-items runs on one thread; a chunk has at
 * least `chunk_min` work-items.  Before the run. */
void cint_ctx_set_threads(cint_ctx *ctx, int32_t threads, uint64_t stack, int64_t parallel_min, int64_t chunk_min) {
    ctx->threads = threads < 1 ? 1 : threads > 1024 ? 1024 : threads;
    ctx->thread_stack = (size_t)stack;
    ctx->parallel_min = parallel_min < 2 ? 2 : parallel_min;
    ctx->chunk_min = chunk_min < 1 ? 1 : chunk_min;
}

int64_t cint_ctx_parallel_dispatches(const cint_ctx *ctx) { return ctx->parallel_dispatches; }

void cint_ctx_free(cint_ctx *ctx) {
    if (ctx == NULL) return;
    cint_pool_free(ctx->pool);
    for (int i = 0; i < 4; i++) free(ctx->spare[i]);
    free(ctx->out);
    if (ctx->out_lock != NULL) {
        pthread_mutex_destroy(ctx->out_lock);
        free(ctx->out_lock);
    }
    free(ctx->fault.frames);
    free(ctx->boundaries);
    free(ctx->records);
    free(ctx->kernel_tiles);
    free(ctx);
}

void cint_ctx_set_host(cint_ctx *ctx, const cint_host *host) { ctx->host = host; }

/* Run the program's entry: CINT_OK, CINT_FAULT (the record in ctx->fault) or
 * CINT_RESOURCE (ctx->message). */
int cint_ctx_run(cint_ctx *ctx, const cint_program *program) {
    ctx->program = program;
    cint_stack_mark(ctx); /* this thread's stack bounds the calls (stack.c) */
    if (program->abi != CINT_ABI_VERSION) {
        cint_resource(ctx, "the emitted C and the run-time have different ABI versions");
        return ctx->status;
    }
    if (program->entry(ctx) != 0 && ctx->status == CINT_OK)
        cint_resource(ctx, "internal error: the entry failed without a fault record");
    return ctx->status;
}

uint64_t cint_ctx_fuel_consumed(const cint_ctx *ctx) { return ctx->fuel_start - ctx->fuel_left; }

const char *cint_ctx_output(const cint_ctx *ctx, size_t *length) {
    *length = ctx->out_len;
    return ctx->out != NULL ? ctx->out : "";
}

const char *cint_ctx_message(const cint_ctx *ctx) { return ctx->message; }

int64_t cint_ctx_dispatches(const cint_ctx *ctx) { return ctx->dispatches; }

size_t cint_ctx_boundaries(const cint_ctx *ctx, const cint_boundary **boundaries) {
    *boundaries = ctx->boundaries;
    return ctx->nboundaries;
}

/* Record each dispatch for the report (before the run). */
void cint_ctx_set_report(cint_ctx *ctx, int on) { ctx->report = on != 0; }

size_t cint_ctx_records(const cint_ctx *ctx, const cint_dispatch_record **records) {
    *records = ctx->records;
    return ctx->nrecords;
}

/* An observer of every dispatch that published (cint_rt.h, struct cint_ctx; the
 * trace's pictures of arrays), or NULL for none (before the run). */
void cint_ctx_set_observer(cint_ctx *ctx,
                           void (*observer)(void *user, const char *kernel, int64_t number, int32_t nparams,
                                            const cint_arg *args),
                           void *user) {
    ctx->observer = observer;
    ctx->observer_user = user;
}

void cint_free(void *p) { free(p); }

/* gpu-cuda's description of a fault (SPEC-02P.1 10.6 para 9; cint_ls/exec/c17/describe.py):
 * work-item `item` of dispatch `number` of the kernel of `program` whose qualified name
 * is `kernel`, run again by cint_rt_describe, with the entry's fuel consumed before it
 * (`consumed`, counted against the budget the context was made with) and the call
 * depth at the dispatch.  CINT_OK when the work-item completes, CINT_FAULT (the record
 * in ctx->fault: cint_fault_json; cint_ctx_fuel_consumed is then the fuel consumed
 * before the fault) or CINT_RESOURCE (ctx->message). */
int cint_ctx_describe(cint_ctx *ctx, const cint_program *program, const char *kernel, int64_t number,
                      const int64_t *sizes, const int64_t *over, cint_arg *args, const void *const *folds,
                      uint64_t consumed, int64_t depth, int64_t item) {
    const cint_kernel *k = NULL;
    ctx->program = program;
    if (program->abi != CINT_ABI_VERSION) {
        cint_resource(ctx, "the emitted C and the run-time have different ABI versions");
        return ctx->status;
    }
    for (int32_t i = 0; i < program->nkernels && k == NULL; i++)
        if (strcmp(program->kernels[i]->qualified, kernel) == 0) k = program->kernels[i];
    if (k == NULL) {
        cint_resource(ctx, "internal error: the program dispatches no kernel of that name");
        return ctx->status;
    }
    if (consumed > ctx->fuel_start) {
        cint_resource(ctx, "internal error: more fuel consumed than the budget");
        return ctx->status;
    }
    ctx->fuel_left = ctx->fuel_start - consumed;
    ctx->depth = depth;
    cint_stack_mark(ctx);
    if (cint_rt_describe(ctx, k, number, sizes, over, args, folds, item) != 0 && ctx->status == CINT_OK)
        cint_resource(ctx, "internal error: the description failed without a fault record");
    return ctx->status;
}
