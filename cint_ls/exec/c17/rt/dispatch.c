/* The dispatch protocol of cpu-c17 (SPEC-02P.1 clauses 5 to 9; the reference is
 * cint_ls/exec/dispatch.py): the entry checks of Table 1 in order, staging by copy,
 * the work-items on the kernel's fast path (in ascending order, or in chunks on a
 * pool of threads with the same outcome: pool.c), the canonical fault described by
 * running its work-item again in the counting variant (10.6 para 6), the epilogue in
 * declaration order, publication by copy-out. */
#include "cint_rt.h"

#include <stdlib.h>

static size_t element_size(uint32_t tc) { return CINT_TC_IS_BOOL(tc) ? 1u : CINT_TC_SIZE(tc); }

static int64_t view_size(const cint_view *v) {
    int64_t n = 1;
    for (int32_t d = 0; d < v->rank; d++) {
        if (v->extents[d] == 0) return 0;
    }
    for (int32_t d = 0; d < v->rank; d++) n *= v->extents[d]; /* within its storage: no overflow */
    return n;
}

/* ---- the entry checks */

static bool is_array(const cint_param *p) { return p->rank >= 0; }
static bool is_output(const cint_param *p) { return p->mode != CINT_MODE_IN; }

static bool compare(int op, int64_t a, int64_t b) {
    switch (op) {
    case CINT_CMP_EQ: return a == b;
    case CINT_CMP_NE: return a != b;
    case CINT_CMP_LT: return a < b;
    case CINT_CMP_LE: return a <= b;
    case CINT_CMP_GT: return a > b;
    default: return a >= b;
    }
}

static int shape_fault(cint_ctx *ctx, int32_t p, int32_t d, int64_t actual, int64_t expected) {
    cint_fault_begin(ctx, CINT_E_SHAPE, "bind.shape", -1);
    cint_fault_operand_i64(ctx, p);
    cint_fault_operand_i64(ctx, d);
    cint_fault_operand_i64(ctx, actual);
    cint_fault_limit_i64(ctx, expected);
    return 1;
}

/* Check 5's size binding in two passes: bare symbols bind in parameter order, then the
 * compound extents S + c, S - c and constants are computed (in I64, checked) and
 * compared. */
static int bind_sizes(cint_ctx *ctx, const cint_kernel *k, const cint_arg *args, int64_t *sizes) {
    bool bound[16] = {false};
    for (int32_t p = 0; p < k->nparams; p++) {
        const cint_param *param = &k->params[p];
        if (!is_array(param)) continue;
        for (int32_t d = 0; d < param->rank; d++) {
            const cint_extent *e = &param->extents[d];
            if (e->size < 0 || e->offset != 0) continue;
            int64_t actual = args[p].view.extents[d];
            if (!bound[e->size]) {
                bound[e->size] = true;
                sizes[e->size] = actual;
            } else if (sizes[e->size] != actual) {
                return shape_fault(ctx, p, d, actual, sizes[e->size]);
            }
        }
    }
    for (int32_t s = 0; s < k->nsizes; s++)
        if (!bound[s]) sizes[s] = 0;
    for (int32_t p = 0; p < k->nparams; p++) {
        const cint_param *param = &k->params[p];
        if (!is_array(param)) continue;
        for (int32_t d = 0; d < param->rank; d++) {
            const cint_extent *e = &param->extents[d];
            if (e->size >= 0 && e->offset == 0) continue;
            int64_t expected;
            if (e->size < 0) {
                expected = e->offset;
            } else {
                int64_t base = sizes[e->size];
                /* offset is never INT64_MIN: the emitter refuses it */
                int64_t c = e->offset >= 0 ? e->offset : -e->offset;
                bool add = e->offset >= 0;
                if (add ? __builtin_add_overflow(base, c, &expected) : __builtin_sub_overflow(base, c, &expected)) {
                    cint_big x, y, r;
                    cint_big_from_i64(&x, base);
                    cint_big_from_i64(&y, c);
                    if (add) cint_big_add(&r, &x, &y);
                    else cint_big_sub(&r, &x, &y);
                    cint_fault_begin(ctx, CINT_E_OVERFLOW, add ? "add.checked.i64" : "sub.checked.i64", -1);
                    cint_fault_operand(ctx, CINT_TC_I64, &x);
                    cint_fault_operand(ctx, CINT_TC_I64, &y);
                    /* no exact result: "no entry check has an exact result" (5.3) */
                    cint_fault_crossed(ctx, CINT_TC_I64, &r);
                    return 1;
                }
            }
            int64_t actual = args[p].view.extents[d];
            if (actual != expected) return shape_fault(ctx, p, d, actual, expected);
        }
    }
    return 0;
}

static int simple_fault(cint_ctx *ctx, const char *code, const char *operation, int32_t p) {
    cint_fault_begin(ctx, code, operation, -1);
    cint_fault_operand_i64(ctx, p);
    return 1;
}

/* Table 1, in order [F-5].  Fills plan->sizes, over, count; the last check charges N. */
static int entry_checks(cint_ctx *ctx, const cint_kernel *k, const cint_arg *args, cint_plan *plan) {
    for (int32_t p = 0; p < k->nparams; p++) { /* 1: stale storage */
        const cint_view *v = &args[p].view;
        if (is_array(&k->params[p]) && v->storage != NULL && v->generation != v->storage->generation) {
            cint_big g;
            cint_fault_begin(ctx, CINT_E_STALE_HANDLE, "bind.stale", -1);
            cint_fault_operand_i64(ctx, p);
            cint_big_from_u64(&g, v->generation);
            cint_fault_operand(ctx, CINT_TC_U64, &g);
            cint_big_from_u64(&g, v->storage->generation);
            cint_fault_limit(ctx, CINT_TC_U64, &g);
            return 1;
        }
    }
    for (int32_t p = 0; p < k->nparams; p++) /* 2: outputs writable */
        if (is_array(&k->params[p]) && is_output(&k->params[p]) && !args[p].view.writable)
            return simple_fault(ctx, CINT_E_ALIAS, "bind.permission", p);
    for (int32_t p = 0; p < k->nparams; p++) { /* 3: element type and rank */
        const cint_param *param = &k->params[p];
        if (!is_array(param)) continue;
        if (args[p].view.element != param->type) return simple_fault(ctx, CINT_E_UNSUPPORTED, "bind.type", p);
        if (args[p].view.rank != param->rank) {
            simple_fault(ctx, CINT_E_SHAPE, "bind.type", p);
            cint_fault_operand_i64(ctx, args[p].view.rank);
            cint_fault_limit_i64(ctx, param->rank);
            return 1;
        }
    }
    /* 4 (placement): every storage of cpu-c17 is host memory. */
    if (bind_sizes(ctx, k, args, plan->sizes)) return 1; /* 5 */
    for (int32_t d = 0; d < k->nover; d++) {
        int64_t value = 0;
        if (k->over(ctx, plan->sizes, d, &value)) return 1;
        if (value < 0) {
            cint_fault_begin(ctx, CINT_E_SHAPE, "bind.over", -1);
            cint_fault_operand_i64(ctx, d);
            cint_fault_operand_i64(ctx, value);
            cint_fault_limit_i64(ctx, 0);
            return 1;
        }
        plan->over[d] = value;
    }
    for (int32_t w = 0; w < k->nwhere; w++) {
        int64_t left = 0, right = 0;
        if (k->where(ctx, plan->sizes, w, &left, &right)) return 1;
        if (!compare(k->where_ops[w], left, right)) {
            cint_fault_begin(ctx, CINT_E_SHAPE, "bind.where", -1);
            cint_fault_operand_i64(ctx, w);
            cint_fault_operand_i64(ctx, left);
            cint_fault_operand_i64(ctx, right);
            return 1;
        }
    }
    for (int32_t p = 0; p < k->nparams; p++) /* 6: the write-view test */
        if (is_array(&k->params[p]) && is_output(&k->params[p]) && !cint_write_view_passes(&args[p].view))
            return simple_fault(ctx, CINT_E_ALIAS, "bind.injective", p);
    for (int32_t p = 0; p < k->nparams; p++) { /* 7: the pairwise test */
        if (!is_array(&k->params[p]) || !is_output(&k->params[p])) continue;
        for (int32_t q = 0; q < k->nparams; q++) {
            if (q == p || !is_array(&k->params[q])) continue;
            if (is_output(&k->params[q]) && q < p) continue;
            if (!cint_pair_disjoint(&args[p].view, &args[q].view)) {
                simple_fault(ctx, CINT_E_ALIAS, "bind.alias", p);
                cint_fault_operand_i64(ctx, q);
                cint_describe_view(&ctx->fault.views[0], &args[p].view);
                cint_describe_view(&ctx->fault.views[1], &args[q].view);
                ctx->fault.nviews = 2;
                return 1;
            }
        }
    }
    /* 8: every executor's limit, N at most MAX(I64) (SPEC-02P.1 9.1 para 2; exec/dispatch.py
     * MAX_WORK_ITEMS): E_UNSUPPORTED bind.limit naming the first array parameter, before
     * check 9 charges anything. No limits of cpu-c17's own. 9: the fuel of N work-items. */
    bool zero = false, huge = false;
    int64_t count = 1;
    for (int32_t d = 0; d < k->nover; d++)
        if (plan->over[d] == 0) zero = true;
    if (!zero) {
        for (int32_t d = 0; d < k->nover; d++)
            if (__builtin_mul_overflow(count, plan->over[d], &count)) huge = true;
    }
    if (zero) count = 0;
    if (huge) {
        int32_t first = 0;
        while (first < k->nparams && !is_array(&k->params[first])) first++;
        return simple_fault(ctx, CINT_E_UNSUPPORTED, "bind.limit", first < k->nparams ? first : 0);
    }
    if (ctx->budget >= 0 && (uint64_t)count > ctx->fuel_left) {
        cint_fail_fuel(ctx, -1);
        return 1;
    }
    if (ctx->budget < 0 && (uint64_t)count > ctx->fuel_left) (void)cint_fuel_out(ctx, -1); /* unlimited */
    ctx->fuel_left -= (uint64_t)count;
    plan->count = count;
    return 0;
}

/* ---- staging and publication: copies in row-major order of the view's index tuples */

/* Whether a view is row-major dense: its elements are one run from its origin. */
static bool dense(const cint_view *v) {
    uint64_t stride = 1;
    for (int32_t d = v->rank - 1; d >= 0; d--) {
        if (v->extents[d] != 1 && (uint64_t)v->strides[d] != stride) return false;
        stride *= (uint64_t)v->extents[d];
    }
    return true;
}

static void copy_view(cint_ctx *ctx, const cint_view *to, const cint_view *from, size_t size) {
    int32_t rank = from->rank;
    int64_t n = view_size(from);
    if (n == 0) return;
    if (dense(to) && dense(from)) { /* one run: one memcpy (on the pool's threads too when large) */
        cint_copy(ctx, (char *)to->data + (size_t)to->origin * size,
                  (const char *)from->data + (size_t)from->origin * size, (size_t)n * size);
        return;
    }
    int64_t index[CINT_MAX_RANK] = {0};
    char *to_data = to->data;
    const char *from_data = from->data;
    /* the innermost dimension as one run when both are contiguous there */
    int64_t inner = rank > 0 ? from->extents[rank - 1] : 1;
    bool run = rank > 0 && from->strides[rank - 1] == 1 && to->strides[rank - 1] == 1;
    for (int64_t done = 0; done < n;) {
        int64_t a = from->origin, b = to->origin;
        for (int32_t d = 0; d < rank; d++) {
            a += index[d] * from->strides[d];
            b += index[d] * to->strides[d];
        }
        if (run) {
            memcpy(to_data + (size_t)b * size, from_data + (size_t)a * size, (size_t)inner * size);
            done += inner;
            if (rank > 0) index[rank - 1] = inner - 1;
        } else {
            memcpy(to_data + (size_t)b * size, from_data + (size_t)a * size, size);
            done++;
        }
        for (int32_t d = rank - 1; d >= 0; d--) {
            if (++index[d] < from->extents[d]) break;
            index[d] = 0;
        }
    }
}

/* A buffer of at least `bytes` for a staging: the smallest spare one that fits (its
 * size in *capacity), else a new one. */
static void *take_buffer(cint_ctx *ctx, size_t bytes, size_t *capacity) {
    int best = -1;
    for (int i = 0; i < 4; i++)
        if (ctx->spare[i] != NULL && ctx->spare_bytes[i] >= bytes &&
            (best < 0 || ctx->spare_bytes[i] < ctx->spare_bytes[best]))
            best = i;
    if (best < 0) {
        *capacity = bytes;
        return malloc(bytes);
    }
    void *data = ctx->spare[best];
    *capacity = ctx->spare_bytes[best];
    ctx->spare[best] = NULL;
    return data;
}

/* A staging's storage freed, its buffer kept as a spare (in place of a smaller one). */
static void release_staging(cint_ctx *ctx, cint_view *staging, size_t capacity) {
    if (staging->storage == NULL) return;
    void *data = staging->storage->data;
    free(staging->storage);
    memset(staging, 0, sizeof *staging);
    int slot = -1;
    for (int i = 0; i < 4; i++) {
        if (ctx->spare[i] == NULL) {
            slot = i;
            break;
        }
        if (ctx->spare_bytes[i] < capacity && (slot < 0 || ctx->spare_bytes[i] < ctx->spare_bytes[slot])) slot = i;
    }
    if (slot < 0) {
        free(data);
        return;
    }
    free(ctx->spare[slot]);
    ctx->spare[slot] = data;
    ctx->spare_bytes[slot] = capacity;
}

static int make_staging(cint_ctx *ctx, cint_view *staging, const cint_view *v, bool copy_in, size_t *capacity) {
    int64_t extents[CINT_MAX_RANK];
    for (int32_t d = 0; d < v->rank; d++) extents[d] = v->extents[d];
    size_t size = element_size(v->element);
    int64_t n = view_size(v);
    cint_storage *storage = calloc(1, sizeof *storage);
    void *data = take_buffer(ctx, n > 0 ? (size_t)n * size : 1u, capacity);
    if (storage == NULL || data == NULL) {
        free(storage);
        free(data);
        cint_resource(ctx, "the cpu-c17 run exceeded its memory limit");
        return 1;
    }
    storage->count = n;
    storage->element = v->element;
    storage->element_size = (uint32_t)size;
    storage->data = data;
    memset(staging, 0, sizeof *staging);
    staging->storage = storage;
    staging->data = data;
    staging->element = v->element;
    staging->rank = v->rank;
    staging->writable = true;
    int64_t stride = 1;
    for (int32_t d = v->rank - 1; d >= 0; d--) {
        staging->extents[d] = extents[d];
        staging->strides[d] = stride;
        stride *= extents[d];
    }
    if (copy_in) copy_view(ctx, staging, v, size); /* out staging starts as a copy too (docs/semantics.md) */
    return 0;
}

/* ---- the digest of published data, for --check (FNV-1a over each element's bytes,
 * little-endian, at its element size; scalars likewise) */

static uint64_t fnv(uint64_t h, const unsigned char *bytes, size_t n) {
    for (size_t i = 0; i < n; i++) {
        h ^= bytes[i];
        h *= 1099511628211u;
    }
    return h;
}

static uint64_t digest_value(uint64_t h, uint32_t tc, const void *v) {
    cint_big x;
    unsigned char bytes[128];
    size_t n = element_size(tc);
    cint_big_load(&x, tc, v);
    for (size_t i = 0; i < n; i++) bytes[i] = (unsigned char)(x.w[i / 8] >> (8 * (i % 8)));
    return fnv(h, bytes, n);
}

static uint64_t digest_view(uint64_t h, const cint_view *v) {
    int64_t n = view_size(v);
    int64_t index[CINT_MAX_RANK] = {0};
    size_t size = element_size(v->element);
    for (int64_t done = 0; done < n; done++) {
        int64_t off = v->origin;
        for (int32_t d = 0; d < v->rank; d++) off += index[d] * v->strides[d];
        h = digest_value(h, v->element, (const char *)v->data + (size_t)off * size);
        for (int32_t d = v->rank - 1; d >= 0; d--) {
            if (++index[d] < v->extents[d]) break;
            index[d] = 0;
        }
    }
    return h;
}

static void trace_boundary(cint_ctx *ctx, const cint_kernel *k, const cint_arg *args, int64_t number) {
    uint64_t h = 14695981039346656037u;
    for (int32_t p = 0; p < k->nparams; p++) {
        const cint_param *param = &k->params[p];
        if (param->mode == CINT_MODE_IN) continue;
        h = is_array(param) ? digest_view(h, &args[p].view) : digest_value(h, param->type, args[p].out);
    }
    if (ctx->nboundaries == ctx->boundaries_cap) {
        size_t cap = ctx->boundaries_cap == 0 ? 16 : 2 * ctx->boundaries_cap;
        cint_boundary *b = realloc(ctx->boundaries, cap * sizeof *b);
        if (b == NULL) {
            cint_resource(ctx, "the cpu-c17 run exceeded its memory limit");
            return;
        }
        ctx->boundaries = b;
        ctx->boundaries_cap = cap;
    }
    cint_boundary *b = &ctx->boundaries[ctx->nboundaries++];
    b->dispatch = number;
    b->output_length = ctx->out_len + ctx->out_more; /* with the bytes past those kept (text.c) */
    b->fuel = cint_ctx_fuel_consumed(ctx);
    b->digest = h;
}

/* ---- the dispatch */

static void address(cint_ctx *ctx, const cint_kernel *k, int64_t number, int32_t phase) {
    ctx->fault.has_address = true;
    ctx->fault.kernel = k->qualified;
    ctx->fault.dispatch = number;
    ctx->fault.phase = phase;
    ctx->fault.has_item = false;
}

/* The address of a fault that `describe` found in work-item `item`. */
static void work_item_address(cint_ctx *ctx, const cint_kernel *k, int64_t number, int64_t item) {
    address(ctx, k, number, CINT_PHASE_WORK_ITEM);
    ctx->fault.has_item = true;
    ctx->fault.item = item;
    ctx->fault.item_step = ctx->fault.step;
}

static int dispatch_once(cint_ctx *ctx, const cint_kernel *k, cint_arg *args, int32_t span, int64_t *count,
                         int64_t *over);

int cint_fetch_args(cint_ctx *ctx, const cint_kernel *k, const cint_arg *args) {
    for (int32_t p = 0; p < k->nparams; p++)
        if (is_array(&k->params[p]) && cint_storage_fetch(ctx, args[p].view.storage)) return 1;
    return 0;
}

/* A dispatch that published, shown to the host's observer (cint_ctx_set_observer):
 * after publication and off the recorded time, since its copies are not the dispatch's. */
static void observe(cint_ctx *ctx, const cint_kernel *k, const cint_arg *args, int64_t number) {
    ctx->observer(ctx->observer_user, k->qualified, number, k->nparams, args);
}

/* The dispatch, and with the report on its record (cint_dispatch_record). */
int cint_rt_dispatch(cint_ctx *ctx, const cint_kernel *k, cint_arg *args, int32_t span) {
    if (!ctx->report) {
        int64_t count, over[CINT_MAX_RANK], number = ctx->dispatches;
        int rc = dispatch_once(ctx, k, args, span, &count, over);
        if (rc == 0 && ctx->observer != NULL) rc = cint_fetch_args(ctx, k, args) || (observe(ctx, k, args, number), 0);
        return rc;
    }
    int64_t number = ctx->dispatches, count = -1, parallel = ctx->parallel_dispatches;
    int64_t remote = ctx->remote_dispatches;
    uint64_t fuel = cint_ctx_fuel_consumed(ctx);
    int64_t over[CINT_MAX_RANK];
    int64_t started = cint_now_ns();
    int rc = dispatch_once(ctx, k, args, span, &count, over);
    int64_t took = cint_now_ns() - started;
    if (ctx->nrecords < CINT_MAX_RECORDS) {
        if (ctx->records == NULL) {
            ctx->records = malloc(CINT_MAX_RECORDS * sizeof *ctx->records);
            if (ctx->records == NULL) return rc; /* the report is not part of the outcome */
        }
        cint_dispatch_record *r = &ctx->records[ctx->nrecords++];
        r->number = number;
        r->kernel = k->qualified;
        r->work_items = count;
        r->threads = ctx->parallel_dispatches > parallel ? cint_ctx_threads_used(ctx) : 1;
        r->nanoseconds = took;
        r->fuel = cint_ctx_fuel_consumed(ctx) - fuel;
        r->started_ns = started;
        r->nover = count < 0 ? 0 : k->nover;
        for (int32_t d = 0; d < r->nover; d++) r->over[d] = over[d];
        r->ran = ctx->remote_dispatches > remote       ? CINT_RAN_TILES
                 : ctx->parallel_dispatches > parallel ? CINT_RAN_POOL
                                                       : CINT_RAN_SERIAL;
    }
    if (rc == 0 && ctx->observer != NULL) rc = cint_fetch_args(ctx, k, args) || (observe(ctx, k, args, number), 0);
    return rc;
}

static int dispatch_once(cint_ctx *ctx, const cint_kernel *k, cint_arg *args, int32_t span, int64_t *count,
                         int64_t *over) {
    int64_t number = ctx->dispatches++; /* every dispatch takes a number, faulting or not [F-1] */
    cint_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.kernel = k;
    plan.number = number;
    plan.args = args;
    *count = -1;
    if (entry_checks(ctx, k, args, &plan)) {
        if (ctx->status == CINT_FAULT) {
            ctx->fault.span = span; /* an entry-phase fault is at the dispatch [F-8] */
            ctx->fault.nframes = 0;
            address(ctx, k, number, CINT_PHASE_ENTRY);
        }
        return 1;
    }
    *count = plan.count;
    for (int32_t d = 0; d < k->nover; d++) over[d] = plan.over[d];
    cint_view writes[64];
    size_t capacity[64];
    cint_reduction reductions[64];
    uint64_t results[64][16];
    int rc = 1;
    memset(writes, 0, sizeof writes);
    memset(capacity, 0, sizeof capacity);
    plan.writes = writes;
    plan.reductions = reductions;
    bool away = cint_goes_remote(ctx, plan.count); /* a cluster's tiles read the storages where they are */
    for (int32_t p = 0; p < k->nparams; p++) {
        const cint_param *param = &k->params[p];
        if (!is_array(param) || !is_output(param)) continue;
        bool whole = param->overwritten && param->rank == k->nover;
        for (int32_t d = 0; whole && d < k->nover; d++) whole = args[p].view.extents[d] == plan.over[d];
        /* A staging that starts as a copy reads the output here; on the cluster an
         * output written whole needs nothing of it (cluster.py brings back what else of
         * its storage the workers kept, before publication overwrites it). */
        if ((!whole || !away) && cint_storage_fetch(ctx, args[p].view.storage)) goto done;
        if (make_staging(ctx, &writes[p], &args[p].view, !whole, &capacity[p])) goto done;
    }
    if (!away && cint_fetch_args(ctx, k, args)) goto done; /* this process runs the work-items */
    for (int32_t r = 0; r < k->nreductions; r++) cint_red_start(&reductions[r], &k->reductions[r]);
    int64_t item = 0;
    if (ctx->work_phase != NULL ? ctx->work_phase(ctx, k, &plan, span, &item) /* gpu-cuda: gpu_host.c */
                                : cint_work_items(ctx, k, &plan, &item)) {
        if (ctx->status == CINT_RESOURCE || cint_fetch_args(ctx, k, args)) goto done;
        /* The fast path found the canonical work-item: run it again, counting steps,
         * from the state before it (fuel, folds), for the complete record.  Its output
         * up to the fault is already there: the re-run's is dropped. */
        size_t printed = ctx->out_len;
        ctx->status = CINT_OK;
        if (k->charges) ctx->fuel_left = plan.item_fuel;
        for (int32_t r = 0; r < k->nreductions; r++)
            if (k->reductions[r].kind == CINT_RED_FOLD)
                memcpy(reductions[r].acc, reductions[r].saved, sizeof reductions[r].acc);
        ctx->step = 0;
        if (!k->describe(ctx, &plan, item)) {
            cint_resource(ctx, "internal error: a work-item did not fault when run again to describe its fault");
            goto done;
        }
        if (ctx->status != CINT_FAULT) goto done;
        ctx->out_len = printed;
        if (ctx->out != NULL) ctx->out[printed] = '\0';
        work_item_address(ctx, k, number, item);
        cint_push_frame(ctx, k->qualified, span);
        goto done;
    }
    for (int32_t r = 0; r < k->nreductions; r++) { /* the epilogue, in declaration order */
        if (cint_red_finish(ctx, &reductions[r], &k->reductions[r], results[r])) {
            address(ctx, k, number, CINT_PHASE_EPILOGUE);
            cint_push_frame(ctx, k->qualified, span);
            goto done;
        }
    }
    for (int32_t p = 0; p < k->nparams; p++) { /* publish: every output at once, by copy */
        if (!is_array(&k->params[p]) || !is_output(&k->params[p])) continue;
        if (plan.kept & ((uint64_t)1 << p))
            args[p].view.storage->remote = 1; /* the workers hold what the tiles wrote (cluster.py) */
        else
            copy_view(ctx, &args[p].view, &writes[p], element_size(args[p].view.element));
        args[p].view.storage->publications++; /* a cluster's copies of it are old (cluster.py) */
    }
    for (int32_t r = 0; r < k->nreductions; r++) {
        const cint_reduction_desc *d = &k->reductions[r];
        memcpy(args[d->param].out, results[r], CINT_TC_SIZE(d->target));
    }
    if (ctx->trace && cint_fetch_args(ctx, k, args)) goto done;
    if (ctx->trace) trace_boundary(ctx, k, args, number);
    rc = 0;
done:
    for (int32_t p = 0; p < k->nparams; p++) release_staging(ctx, &writes[p], capacity[p]);
    return rc;
}

const cint_host cint_cpu_host = {cint_rt_dispatch};

/* ---- gpu-cuda's description of a fault (SPEC-02P.1 10.6 para 9)
 *
 * Work-item `item` of dispatch `number` of kernel `k`, alone, in the counting variant
 * `describe`, from the state before it: `args` as they were before the dispatch, each
 * out and inout staged as a copy of its argument (the staging the protocol starts
 * with); the sizes and over extents the entry checks bound; each fold_checked's
 * accumulator before the work-item (`folds[r]`, a value of the target type in its
 * layout; NULL: the initial value; the other reductions start empty, since only
 * fold_checked can fault in a work-item); and the context's fuel and call depth, which
 * the caller sets to those before the work-item, so that describing charges the entry
 * nothing (8.4 para 7).  Returns 1 with the complete record: its address (kernel,
 * dispatch, phase 1, work-item, step) and the frames of the calls inside the work-item,
 * without the dispatch's own frame, which the caller's dispatch adds [F-8]; 0 when the
 * work-item completes (the caller's host.divergence); 1 with CINT_RESOURCE when the run
 * cannot go on. */
int cint_rt_describe(cint_ctx *ctx, const cint_kernel *k, int64_t number, const int64_t *sizes,
                     const int64_t *over, cint_arg *args, const void *const *folds, int64_t item) {
    cint_plan plan;
    cint_view writes[64];
    size_t capacity[64];
    cint_reduction reductions[64];
    int rc = 1;
    memset(&plan, 0, sizeof plan);
    memset(writes, 0, sizeof writes);
    memset(capacity, 0, sizeof capacity);
    plan.kernel = k;
    plan.number = number;
    plan.args = args;
    plan.writes = writes;
    plan.reductions = reductions;
    for (int32_t s = 0; s < k->nsizes; s++) plan.sizes[s] = sizes[s];
    plan.count = 1;
    for (int32_t d = 0; d < k->nover; d++) {
        plan.over[d] = over[d];
        if (__builtin_mul_overflow(plan.count, over[d], &plan.count)) plan.count = INT64_MAX; /* refused at check 8 */
    }
    for (int32_t p = 0; p < k->nparams; p++) {
        const cint_param *param = &k->params[p];
        if (is_array(param) && is_output(param) && make_staging(ctx, &writes[p], &args[p].view, true, &capacity[p]))
            goto done;
    }
    for (int32_t r = 0; r < k->nreductions; r++) {
        cint_red_start(&reductions[r], &k->reductions[r]);
        if (k->reductions[r].kind == CINT_RED_FOLD && folds != NULL && folds[r] != NULL)
            memcpy(reductions[r].acc, folds[r], CINT_TC_SIZE(k->reductions[r].target));
    }
    ctx->step = 0;
    if (!k->describe(ctx, &plan, item)) {
        rc = 0;
        goto done;
    }
    if (ctx->status != CINT_FAULT) goto done;
    work_item_address(ctx, k, number, item);
done:
    for (int32_t p = 0; p < k->nparams; p++) release_staging(ctx, &writes[p], capacity[p]);
    return rc;
}
