/* Fault records: filling them, and their JSON, exactly the shape of
 * FaultRecord.to_json (cint_ls/exec/faults.py), so that the host only calls
 * FaultRecord.from_json ("serialize it, do not re-derive"). */
#include "cint_rt.h"

#include <stdio.h>
#include <stdlib.h>

void cint_fault_begin(cint_ctx *ctx, const char *code, const char *operation, int32_t span) {
    cint_fault *f = &ctx->fault;
    f->code = code;
    f->operation = operation;
    f->noperands = 0;
    f->exact_kind = CINT_EXACT_NONE;
    f->has_limit = false;
    f->span = span;
    f->step = ctx->step;
    f->nframes = 0;
    f->has_address = false;
    f->nviews = 0;
    if (ctx->status == CINT_OK) ctx->status = CINT_FAULT;
}

void cint_fault_operand(cint_ctx *ctx, uint32_t tc, const cint_big *value) {
    cint_fault *f = &ctx->fault;
    if (f->noperands >= CINT_MAX_OPERANDS) return;
    f->operands[f->noperands].tc = tc;
    f->operands[f->noperands].value = *value;
    f->noperands++;
}

void cint_fault_operand_i64(cint_ctx *ctx, int64_t value) {
    cint_big v;
    cint_big_from_i64(&v, value);
    cint_fault_operand(ctx, CINT_TC_I64, &v);
}

void cint_fault_exact_int(cint_ctx *ctx, const cint_big *value) {
    ctx->fault.exact_kind = CINT_EXACT_INT;
    ctx->fault.exact_num = *value;
}

static void gcd(cint_big *g, const cint_big *a, const cint_big *b) {
    cint_big x = *a, y = *b, r;
    if (cint_big_is_negative(&x)) cint_big_neg(&x, &x);
    if (cint_big_is_negative(&y)) cint_big_neg(&y, &y);
    while (!cint_big_is_zero(&y)) {
        cint_big_divmod(NULL, &r, &x, &y);
        x = y;
        y = r;
    }
    *g = x;
}

/* num / den as Python's Fraction keeps it: reduced, the denominator positive. */
void cint_fault_exact_fraction(cint_ctx *ctx, const cint_big *num, const cint_big *den) {
    cint_big n = *num, d = *den, g;
    if (cint_big_is_negative(&d)) {
        cint_big_neg(&n, &n);
        cint_big_neg(&d, &d);
    }
    gcd(&g, &n, &d);
    if (!cint_big_is_zero(&g)) {
        cint_big_divmod(&n, NULL, &n, &g);
        cint_big_divmod(&d, NULL, &d, &g);
    }
    ctx->fault.exact_kind = CINT_EXACT_FRACTION;
    ctx->fault.exact_num = n;
    ctx->fault.exact_den = d;
}

/* The exact real value of a stored value of type tc: an integer, or for a fixed type
 * the fraction stored / 2^n (a fraction even when it is whole, like arith.real). */
void cint_fault_exact_real(cint_ctx *ctx, uint32_t tc, const cint_big *stored) {
    if (!CINT_TC_IS_FIXED(tc)) {
        cint_fault_exact_int(ctx, stored);
        return;
    }
    cint_big one, den;
    cint_big_from_u64(&one, 1u);
    cint_big_shl(&den, &one, CINT_TC_FRAC(tc));
    cint_fault_exact_fraction(ctx, stored, &den);
}

void cint_fault_limit(cint_ctx *ctx, uint32_t tc, const cint_big *value) {
    ctx->fault.has_limit = true;
    ctx->fault.limit.tc = tc;
    ctx->fault.limit.value = *value;
}

void cint_fault_limit_i64(cint_ctx *ctx, int64_t value) {
    cint_big v;
    cint_big_from_i64(&v, value);
    cint_fault_limit(ctx, CINT_TC_I64, &v);
}

/* The bound of tc that `result` crossed: the max above, the min below. */
void cint_fault_crossed(cint_ctx *ctx, uint32_t tc, const cint_big *result) {
    cint_big hi, lo;
    cint_big_max_of(&hi, tc);
    if (cint_big_cmp(result, &hi) > 0) {
        cint_fault_limit(ctx, tc, &hi);
        return;
    }
    cint_big_min_of(&lo, tc);
    cint_fault_limit(ctx, tc, &lo);
}

void cint_push_frame(cint_ctx *ctx, const char *function, int32_t span) {
    cint_fault *f = &ctx->fault;
    if (ctx->status != CINT_FAULT) return;
    if (f->nframes == f->frames_cap) {
        int32_t cap = f->frames_cap == 0 ? 16 : 2 * f->frames_cap;
        cint_frame *frames = realloc(f->frames, (size_t)cap * sizeof *frames);
        if (frames == NULL) {
            cint_resource(ctx, "the cpu-c17 run exceeded its memory limit");
            return;
        }
        f->frames = frames;
        f->frames_cap = cap;
    }
    f->frames[f->nframes].function = function;
    f->frames[f->nframes].span = span;
    f->nframes++;
}

void cint_resource(cint_ctx *ctx, const char *message) {
    if (ctx->status == CINT_RESOURCE) return;
    ctx->status = CINT_RESOURCE;
    snprintf(ctx->message, sizeof ctx->message, "%s", message);
}

/* ---- faults the emitted code raises */

void cint_fail_fuel(cint_ctx *ctx, int32_t span) {
    cint_fault_begin(ctx, CINT_E_FUEL, "fuel.charge", span);
    cint_fault_limit_i64(ctx, ctx->budget);
}

int cint_fuel_out(cint_ctx *ctx, int32_t span) {
    if (ctx->chunk != NULL) return cint_chunk_fuel_out(ctx, span); /* a thread of the pool (pool.c) */
    if (ctx->budget < 0) { /* unlimited: 2^64 - 1 more charges (unreachable in practice) */
        ctx->fuel_left = UINT64_MAX;
        ctx->fuel_start = UINT64_MAX;
        return 0;
    }
    cint_fail_fuel(ctx, span);
    return 1;
}

void cint_fail_assert(cint_ctx *ctx, int32_t span) { cint_fault_begin(ctx, CINT_E_ASSERT, "assert", span); }

void cint_fail_index(cint_ctx *ctx, const char *operation, int64_t index, int32_t dimension, int64_t extent,
                     int32_t span) {
    cint_fault_begin(ctx, CINT_E_BOUNDS, operation, span);
    cint_fault_operand_i64(ctx, index);
    cint_fault_operand_i64(ctx, dimension);
    cint_fault_limit_i64(ctx, extent);
}

int cint_call_enter(cint_ctx *ctx, int32_t span) {
    if (ctx->fuel_left == 0u && cint_fuel_out(ctx, span)) return 1;
    ctx->fuel_left--;
    if (ctx->depth >= CINT_MAX_CALL_DEPTH) { /* every executor's limit */
        cint_fault_begin(ctx, CINT_RESOURCE_CODE, "host.stack", span);
        cint_fault_operand_i64(ctx, ctx->depth + 1);
        cint_fault_limit_i64(ctx, CINT_MAX_CALL_DEPTH);
        return 1;
    }
    if (CINT_UNLIKELY((uintptr_t)__builtin_frame_address(0) < ctx->stack_low)) { /* this thread's stack */
        cint_fault_begin(ctx, CINT_RESOURCE_CODE, "host.stack", span);
        cint_fault_operand_i64(ctx, ctx->depth + 1);
        return 1;
    }
    ctx->depth++;
    return 0;
}

/* ---- JSON */

typedef struct {
    char *text;
    size_t len, cap;
    bool failed;
} builder;

static void put(builder *b, const char *s, size_t n) {
    if (b->failed) return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap == 0 ? 1024 : b->cap;
        while (b->len + n + 1 > cap) cap *= 2;
        char *text = realloc(b->text, cap);
        if (text == NULL) {
            b->failed = true;
            return;
        }
        b->text = text;
        b->cap = cap;
    }
    memcpy(b->text + b->len, s, n);
    b->len += n;
    b->text[b->len] = '\0';
}

static void puts_(builder *b, const char *s) { put(b, s, strlen(s)); }

static void put_i64(builder *b, int64_t v) {
    char text[32];
    int n = snprintf(text, sizeof text, "%lld", (long long)v);
    put(b, text, (size_t)n);
}

static void put_string(builder *b, const char *s) {
    put(b, "\"", 1);
    for (; *s != '\0'; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            char esc[2] = {'\\', (char)c};
            put(b, esc, 2);
        } else if (c < 0x20u) {
            char esc[8];
            int n = snprintf(esc, sizeof esc, "\\u%04x", (unsigned)c);
            put(b, esc, (size_t)n);
        } else {
            put(b, (const char *)&c, 1);
        }
    }
    put(b, "\"", 1);
}

static void put_big(builder *b, const cint_big *v) {
    char text[720];
    size_t n = cint_big_to_decimal(v, text, sizeof text);
    put(b, "\"", 1);
    put(b, text, n);
    put(b, "\"", 1);
}

/* The type's name: Bool, I64, U8, Q16.16. */
size_t cint_type_name(uint32_t tc, char *buffer, size_t capacity) {
    int n;
    if (CINT_TC_IS_BOOL(tc)) n = snprintf(buffer, capacity, "Bool");
    else if (CINT_TC_IS_FIXED(tc))
        n = snprintf(buffer, capacity, "Q%d.%d", CINT_TC_BITS(tc) - CINT_TC_FRAC(tc), CINT_TC_FRAC(tc));
    else n = snprintf(buffer, capacity, "%c%d", CINT_TC_IS_SIGNED(tc) ? 'I' : 'U', CINT_TC_BITS(tc));
    return n < 0 ? 0u : (size_t)n;
}

static void put_typed(builder *b, const cint_typed *t) {
    char name[32];
    cint_type_name(t->tc, name, sizeof name);
    put(b, "[", 1);
    put_string(b, name);
    put(b, ", ", 2);
    put_big(b, &t->value);
    put(b, "]", 1);
}

static void put_span(builder *b, const cint_ctx *ctx, int32_t span) {
    if (span < 0 || ctx->program == NULL || span >= ctx->program->nspans) {
        puts_(b, "null");
        return;
    }
    const cint_span *s = &ctx->program->spans[span];
    char text[160];
    int n = snprintf(text, sizeof text, "[%d, %d, %d, %d, %d, %d]", (int)s->start_byte, (int)s->end_byte,
                     (int)s->line, (int)s->column, (int)s->end_line, (int)s->end_column);
    put(b, text, (size_t)n);
}

char *cint_fault_json(cint_ctx *ctx) {
    const cint_fault *f = &ctx->fault;
    builder b = {NULL, 0, 0, false};
    puts_(&b, "{\"code\": ");
    put_string(&b, f->code);
    puts_(&b, ", \"operation\": ");
    put_string(&b, f->operation);
    puts_(&b, ", \"operands\": [");
    for (int32_t i = 0; i < f->noperands; i++) {
        if (i > 0) puts_(&b, ", ");
        put_typed(&b, &f->operands[i]);
    }
    puts_(&b, "], \"exact\": ");
    if (f->exact_kind == CINT_EXACT_NONE) puts_(&b, "null");
    else if (f->exact_kind == CINT_EXACT_INT) put_big(&b, &f->exact_num);
    else {
        puts_(&b, "[");
        put_big(&b, &f->exact_num);
        puts_(&b, ", ");
        put_big(&b, &f->exact_den);
        puts_(&b, "]");
    }
    puts_(&b, ", \"limit\": ");
    if (f->has_limit) put_typed(&b, &f->limit);
    else puts_(&b, "null");
    puts_(&b, ", \"span\": ");
    put_span(&b, ctx, f->span);
    puts_(&b, ", \"stack\": [");
    for (int32_t i = 0; i < f->nframes; i++) {
        if (i > 0) puts_(&b, ", ");
        puts_(&b, "[");
        put_string(&b, f->frames[i].function);
        puts_(&b, ", ");
        put_span(&b, ctx, f->frames[i].span);
        puts_(&b, "]");
    }
    puts_(&b, "], \"address\": ");
    if (!f->has_address) puts_(&b, "null");
    else {
        puts_(&b, "[");
        put_string(&b, f->kernel);
        puts_(&b, ", ");
        put_i64(&b, f->dispatch);
        puts_(&b, ", ");
        put_i64(&b, f->phase);
        puts_(&b, ", ");
        if (f->has_item) {
            put_i64(&b, f->item);
            puts_(&b, ", ");
            put_i64(&b, f->item_step);
        } else {
            puts_(&b, "null, null");
        }
        puts_(&b, "]");
    }
    puts_(&b, ", \"views\": [");
    for (int32_t i = 0; i < f->nviews; i++) {
        const cint_view_desc *v = &f->views[i];
        char name[32];
        cint_type_name(v->element, name, sizeof name);
        if (i > 0) puts_(&b, ", ");
        puts_(&b, "[");
        put_string(&b, name);
        puts_(&b, ", ");
        put_i64(&b, v->origin);
        puts_(&b, ", [");
        for (int32_t d = 0; d < v->rank; d++) {
            if (d > 0) puts_(&b, ", ");
            put_i64(&b, v->extents[d]);
        }
        puts_(&b, "], [");
        for (int32_t d = 0; d < v->rank; d++) {
            if (d > 0) puts_(&b, ", ");
            put_i64(&b, v->strides[d]);
        }
        puts_(&b, "], ");
        puts_(&b, v->writable ? "true" : "false");
        puts_(&b, "]");
    }
    puts_(&b, "], \"fuel_consumed\": ");
    {
        char text[32];
        int n = snprintf(text, sizeof text, "%llu", (unsigned long long)cint_ctx_fuel_consumed(ctx));
        put(&b, text, (size_t)n);
    }
    puts_(&b, ", \"details\": []}");
    if (b.failed) {
        free(b.text);
        return NULL;
    }
    return b.text;
}
