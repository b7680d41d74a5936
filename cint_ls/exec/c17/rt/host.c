/* The host's side of the ABI: a context per entry, running it, and reading back the
 * output, the fault record (JSON), the fuel consumed and the --check trace.  These are
 * the functions cint_ls/exec/c17/host.py calls through cffi. */
#include "cint_rt.h"

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
    return ctx;
}

void cint_ctx_free(cint_ctx *ctx) {
    if (ctx == NULL) return;
    free(ctx->out);
    free(ctx->fault.frames);
    free(ctx->boundaries);
    free(ctx);
}

void cint_ctx_set_host(cint_ctx *ctx, const cint_host *host) { ctx->host = host; }

/* Run the program's entry: CINT_OK, CINT_FAULT (the record in ctx->fault) or
 * CINT_RESOURCE (ctx->message). */
int cint_ctx_run(cint_ctx *ctx, const cint_program *program) {
    ctx->program = program;
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

void cint_free(void *p) { free(p); }
