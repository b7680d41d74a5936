/* Program output and value text (LANGUAGE.md "Statements"; cint_ls/exec/arith/text.py):
 * integers in decimal, Bool true/false, fixed point as the exact decimal with at least
 * one fractional digit. */
#include "cint_rt.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void append(cint_ctx *ctx, const char *text, size_t length) {
    if (ctx->out_len + length + 1 > ctx->out_cap) {
        size_t cap = ctx->out_cap == 0 ? 4096 : ctx->out_cap;
        while (ctx->out_len + length + 1 > cap) cap *= 2;
        char *out = realloc(ctx->out, cap);
        if (out == NULL) {
            cint_resource(ctx, "the cpu-c17 run exceeded its memory limit");
            return;
        }
        ctx->out = out;
        ctx->out_cap = cap;
    }
    memcpy(ctx->out + ctx->out_len, text, length);
    ctx->out_len += length;
    ctx->out[ctx->out_len] = '\0';
}

/* ---- the output as it is printed (an isolated run's child: cint_ls/running/isolated.py) */

static void send_all(cint_ctx *ctx, const char *data, size_t length) {
    while (length > 0 && ctx->out_fd > 0) {
        ssize_t n = write(ctx->out_fd, data, length);
        if (n < 0) {
            if (errno == EINTR) continue;
            ctx->out_fd = 0; /* the reader went away: the run goes on without the stream */
            return;
        }
        data += n;
        length -= (size_t)n;
    }
}

/* The stream's position of out[i]: past `keep`, after the bytes sent and dropped. */
static uint64_t stream_at(const cint_ctx *ctx, size_t i) {
    return ctx->out_keep > 0 && i >= ctx->out_keep ? (uint64_t)ctx->out_more + i : (uint64_t)i;
}

/* out[from, to), less what lies before the stream's `out_skip` (cint_ctx_set_output_skip). */
static void send_part(cint_ctx *ctx, size_t from, size_t to) {
    uint64_t at = stream_at(ctx, from);
    if (from < to && at < ctx->out_skip) from += (size_t)(ctx->out_skip - at) < to - from ? (size_t)(ctx->out_skip - at)
                                                                                          : to - from;
    if (from < to) send_all(ctx, ctx->out + from, to - from);
}

/* The kept bytes not yet sent, under the lock. */
static void flush_locked(cint_ctx *ctx) {
    if (ctx->out_sent > ctx->out_len) ctx->out_sent = ctx->out_len; /* a fault's re-run dropped some */
    size_t split = ctx->out_keep > 0 && ctx->out_keep < ctx->out_len ? ctx->out_keep : ctx->out_len;
    if (ctx->out_sent < split) send_part(ctx, ctx->out_sent, split); /* before keep, then past it */
    send_part(ctx, ctx->out_sent > split ? ctx->out_sent : split, ctx->out_len);
    ctx->out_sent = ctx->out_len;
}

uint64_t cint_ctx_output_streamed(const cint_ctx *ctx) { return stream_at(ctx, ctx->out_sent); }

void cint_ctx_set_output_skip(cint_ctx *ctx, uint64_t skip) { ctx->out_skip = skip; }

/* Send the output to `fd` as it is printed (cint_ctx_flush_output sends what waits);
 * past `keep` bytes (0: no limit) what is printed is sent and dropped by SPILL_BYTES.
 * Before the run; 0, or 1 without memory for the lock. */
int cint_ctx_stream_output(cint_ctx *ctx, int fd, uint64_t keep) {
    pthread_mutex_t *lock = malloc(sizeof *lock);
    if (lock == NULL) return 1;
    pthread_mutex_init(lock, NULL);
    ctx->out_lock = lock;
    ctx->out_fd = fd;
    ctx->out_keep = (size_t)keep;
    return 0;
}

/* Send what was printed and not yet sent (from a thread of the host's, while the entry
 * runs, and at its end). */
void cint_ctx_flush_output(cint_ctx *ctx) {
    if (ctx->out_lock == NULL) return;
    pthread_mutex_lock(ctx->out_lock);
    flush_locked(ctx);
    pthread_mutex_unlock(ctx->out_lock);
}

/* The bytes printed past `keep` that were sent and dropped (cint_ctx_output may still
 * hold up to SPILL_BYTES past `keep`: the host keeps `keep`). */
uint64_t cint_ctx_output_more(const cint_ctx *ctx) { return ctx->out_more; }

#define SPILL_BYTES 65536 /* bytes past `keep` gathered before they are sent and dropped */

void cint_print(cint_ctx *ctx, const char *text, size_t length) {
    if (ctx->out_lock == NULL) {
        append(ctx, text, length);
        return;
    }
    pthread_mutex_lock(ctx->out_lock);
    append(ctx, text, length);
    if (ctx->out_keep > 0 && ctx->out_len >= ctx->out_keep + SPILL_BYTES) {
        /* Past the bytes kept: sent, then dropped, so a flood takes no memory.  Only
         * here, on the thread that prints (and dispatch.c reads out_len on). */
        flush_locked(ctx);
        ctx->out_more += ctx->out_len - ctx->out_keep;
        ctx->out_len = ctx->out_sent = ctx->out_keep;
        ctx->out[ctx->out_len] = '\0';
    }
    pthread_mutex_unlock(ctx->out_lock);
}

void cint_print_i64(cint_ctx *ctx, int64_t v) {
    char text[32];
    int n = snprintf(text, sizeof text, "%lld", (long long)v);
    cint_print(ctx, text, (size_t)n);
}

void cint_print_u64(cint_ctx *ctx, uint64_t v) {
    char text[32];
    int n = snprintf(text, sizeof text, "%llu", (unsigned long long)v);
    cint_print(ctx, text, (size_t)n);
}

void cint_print_bool(cint_ctx *ctx, bool v) {
    if (v) cint_print(ctx, "true", 4);
    else cint_print(ctx, "false", 5);
}

/* The exact decimal of stored / 2^n: whole part, then the fraction's digits
 * (frac * 5^n over 10^n) without trailing zeros, at least one. */
static size_t format_fixed(const cint_big *stored, int n, char *buffer, size_t capacity) {
    cint_big m = *stored, whole, back, frac, five, power;
    bool negative = cint_big_is_negative(stored);
    if (negative) cint_big_neg(&m, &m);
    cint_big_sar(&whole, &m, n);
    cint_big_shl(&back, &whole, n);
    cint_big_sub(&frac, &m, &back);
    cint_big_from_u64(&five, 5u);
    cint_big_from_u64(&power, 1u);
    for (int i = 0; i < n; i++) cint_big_mul(&power, &power, &five);
    cint_big_mul(&frac, &frac, &power);
    char digits[720];
    size_t nd = cint_big_to_decimal(&frac, digits, sizeof digits);
    size_t out = 0;
    if (negative && out + 1 < capacity) buffer[out++] = '-';
    out += cint_big_to_decimal(&whole, buffer + out, capacity - out);
    if (out + 1 < capacity) buffer[out++] = '.';
    /* the fraction's digits, right-justified to n places, trailing zeros dropped */
    size_t width = (size_t)n, zeros = width > nd ? width - nd : 0;
    size_t last = nd;
    while (last > 0 && digits[last - 1] == '0') last--;
    if (last == 0 || cint_big_is_zero(&frac)) {
        if (out + 1 < capacity) buffer[out++] = '0';
    } else {
        for (size_t i = 0; i < zeros && out + 1 < capacity; i++) buffer[out++] = '0';
        for (size_t i = 0; i < last && out + 1 < capacity; i++) buffer[out++] = digits[i];
    }
    if (capacity > 0) buffer[out < capacity ? out : capacity - 1] = '\0';
    return out;
}

size_t cint_format_value(uint32_t tc, const cint_big *v, char *buffer, size_t capacity) {
    if (CINT_TC_IS_BOOL(tc)) return (size_t)snprintf(buffer, capacity, "%s", cint_big_is_zero(v) ? "false" : "true");
    if (CINT_TC_IS_FIXED(tc)) return format_fixed(v, CINT_TC_FRAC(tc), buffer, capacity);
    return cint_big_to_decimal(v, buffer, capacity);
}

void cint_print_value(cint_ctx *ctx, uint32_t tc, const void *v) {
    cint_big x;
    char text[800];
    cint_big_load(&x, tc, v);
    size_t n = cint_format_value(tc, &x, text, sizeof text);
    cint_print(ctx, text, n);
}
