/* gpu-cuda's host in C (SPEC-02P.1 10.5 paragraphs 4 to 9, 10.6): the dispatch protocol
 * of cpu-c17 (dispatch.c: numbering, the entry checks of Table 1, staging, the
 * description of the canonical fault by the counting variant, the epilogue,
 * publication) with the work-item phase replaced by launches of the kernel's PTX entry
 * on a device, through a launch interface (cint_gpu_device), and the fault word of 10.6.
 *
 * The work-item phase of a dispatch (gpu_work_phase):
 *   1. each storage the dispatch reads goes to device memory (its bounding interval of
 *      the views read, in its own layout) unless the device already holds it unchanged
 *      (a storage published from a staging of the device and not written since, or one
 *      uploaded before and not written since: cint_storage.stores); each output's
 *      staging (the host's, a copy of the output unless every element is overwritten)
 *      goes to device memory [B-16d]; the fault word is set to all ones [F-9];
 *   2. the work-items run in launches over ascending ranges of at most `max_launch`;
 *      after each launch the host reads the fault word (k_b) and scans the work-items
 *      below it in ascending order: the fuel totals C(i) by their exact prefix (k_f,
 *      [B-16c]), each fold_checked's and sum_sat's contributions and marks, each
 *      fold_checked by its own routine (k_r, [R-9]).  A sum, sum_wrap, count, min or
 *      max is combined on the device per block (ptx.py, SLOT_WORDS): when the launch
 *      has no fault, the host reads its blocks' slots and merges them (merge_slots).  A
 *      launch wholly above a fault found is not started [B-16a];
 *   3. with k = min(k_b, k_f, k_r), the phase returns 1 with work-item k, the fuel and
 *      the folds before it, and dispatch.c runs k again in the counting variant
 *      `describe` (cpu-c17's code of the kernel) for the canonical record; if that run
 *      completes, the entry ends with host.divergence [F-11]; otherwise the staging
 *      comes back into the host's staging, which dispatch.c publishes after the epilogue;
 *   4. a device error ends the entry with host.resource [B-16e].
 *
 * The device: the CUDA driver (gpu_cuda.c, dlopen of libcuda.so.1), the simulated
 * device (cint_ls/exec/cuda/c_host.py: cffi callbacks into the PTX simulator) or the
 * null device (below: launches do nothing; the host's own cost). */
#include "cint_rt.h"
#include "gpu_host.h"

#include <stdio.h>
#include <stdlib.h>

#define SCAN_CHUNK ((int64_t)1 << 16) /* work-items whose scratch the host reads at once */
#define M64 UINT64_MAX

static size_t elem_size(uint32_t tc) { return CINT_TC_IS_BOOL(tc) ? 1u : CINT_TC_SIZE(tc); }

static int64_t view_count(const cint_view *v) {
    int64_t n = 1;
    for (int32_t d = 0; d < v->rank; d++)
        if (v->extents[d] == 0) return 0;
    for (int32_t d = 0; d < v->rank; d++) n *= v->extents[d];
    return n;
}

/* The element offsets [lo, hi] of a view's elements in its storage; false when empty. */
static bool bounding(const cint_view *v, int64_t *lo, int64_t *hi) {
    if (view_count(v) == 0) return false;
    *lo = *hi = v->origin;
    for (int32_t d = 0; d < v->rank; d++) {
        int64_t span = v->strides[d] * (v->extents[d] - 1);
        if (span < 0) *lo += span;
        else *hi += span;
    }
    return true;
}

static bool dense_view(const cint_view *v) {
    int64_t stride = 1;
    for (int32_t d = v->rank - 1; d >= 0; d--) {
        if (v->extents[d] != 1 && v->strides[d] != stride) return false;
        stride *= v->extents[d];
    }
    return true;
}

/* ------------------------------------------------------------------ device memory */

/* A host status: the entry ends with CINT_RESOURCE; c_host.py reads what (host.resource,
 * host.divergence) from the gpu state and builds the boundary record. */
static int device_failed(cint_ctx *ctx, cint_gpu *g) {
    g->status_kind = CINT_GPU_RESOURCE;
    g->status_number = g->current_number;
    g->status_kernel = g->current_kernel;
    g->status_span = g->current_span;
    snprintf(g->status_message, sizeof g->status_message, "%s", g->message[0] ? g->message : "device error");
    cint_resource(ctx, g->status_message);
    return 1;
}

/* Device memory of `bytes`: a buffer of exactly that size kept from an earlier dispatch,
 * else a new allocation. */
static int dev_alloc(cint_gpu *g, uint64_t bytes, uint64_t *address) {
    if (bytes == 0) bytes = 1;
    for (int32_t i = 0; i < g->nfree; i++) {
        if (g->free_bytes[i] == bytes) {
            *address = g->free_address[i];
            g->free_address[i] = g->free_address[g->nfree - 1];
            g->free_bytes[i] = g->free_bytes[g->nfree - 1];
            g->nfree--;
            return 0;
        }
    }
    g->message[0] = '\0';
    return g->dev.alloc(g->dev.user, bytes, address, g->message);
}

/* Device memory given back, kept for the next dispatch (the oldest kept goes when full). */
static void dev_release(cint_gpu *g, uint64_t address, uint64_t bytes) {
    if (address == 0) return;
    if (bytes == 0) bytes = 1;
    if (g->nfree == CINT_GPU_KEPT) {
        g->dev.release(g->dev.user, g->free_address[0]);
        for (int32_t i = 1; i < g->nfree; i++) {
            g->free_address[i - 1] = g->free_address[i];
            g->free_bytes[i - 1] = g->free_bytes[i];
        }
        g->nfree--;
    }
    g->free_address[g->nfree] = address;
    g->free_bytes[g->nfree] = bytes;
    g->nfree++;
}

static int dev_upload(cint_gpu *g, uint64_t address, const void *data, uint64_t bytes) {
    if (bytes == 0) return 0;
    g->message[0] = '\0';
    if (g->dev.upload(g->dev.user, address, data, bytes, g->message)) return 1;
    g->row.uploaded += (int64_t)bytes;
    return 0;
}

static int dev_download(cint_gpu *g, void *data, uint64_t address, uint64_t bytes, bool counted) {
    if (bytes == 0) return 0;
    g->message[0] = '\0';
    if (g->dev.download(g->dev.user, data, address, bytes, g->message)) return 1;
    if (counted) g->row.downloaded += (int64_t)bytes;
    return 0;
}

/* ------------------------------------------------------------------ resident storages */

/* The device copy of a storage's interval [lo, hi] that still equals the host's: its
 * index in g->resident, or -1. */
static int32_t find_resident(cint_gpu *g, const cint_storage *s, int64_t lo, int64_t hi) {
    for (int32_t i = 0; i < g->nresident; i++) {
        const cint_gpu_resident *r = &g->resident[i];
        if (r->storage == s && r->serial == s->serial && r->stores == s->stores && r->lo <= lo && hi <= r->hi)
            return i;
    }
    return -1;
}

static void drop_resident(cint_gpu *g, int32_t i) {
    dev_release(g, g->resident[i].address, g->resident[i].bytes);
    g->resident[i] = g->resident[--g->nresident];
}

/* Every resident copy of storage `s` (it is about to change, or has). */
static void forget_storage(cint_gpu *g, const cint_storage *s) {
    for (int32_t i = g->nresident - 1; i >= 0; i--)
        if (g->resident[i].storage == s) drop_resident(g, i);
}

static bool uses(const uint64_t *addresses, int32_t n, uint64_t address) {
    for (int32_t i = 0; i < n; i++)
        if (addresses[i] == address) return true;
    return false;
}

/* Keep a device buffer as the copy of storage `s`'s elements [lo, hi] (its current
 * contents). When the table is full a copy goes that is none of `in_use`, the buffers
 * the dispatch being placed reads: releasing one of those let a later buffer of the
 * same dispatch (its fault word, a staging) take its memory, and the dispatch read the
 * wrong elements (differential fuzzer, seed 307:3113). A dispatch places at most 64
 * storages, fewer than the table holds, so such a copy always exists. */
static void keep_resident(cint_gpu *g, cint_storage *s, int64_t lo, int64_t hi, uint64_t address, uint64_t bytes,
                          const uint64_t *in_use, int32_t nin_use) {
    forget_storage(g, s);
    if (g->nresident == CINT_GPU_RESIDENT) {
        int32_t victim = 0;
        while (victim < g->nresident - 1 && uses(in_use, nin_use, g->resident[victim].address)) victim++;
        drop_resident(g, victim);
    }
    cint_gpu_resident *r = &g->resident[g->nresident++];
    r->storage = s;
    r->serial = s->serial;
    r->stores = s->stores;
    r->lo = lo;
    r->hi = hi;
    r->address = address;
    r->bytes = bytes;
}

/* ------------------------------------------------------------------ the launch parameters */

static uint64_t scalar_pattern(uint32_t tc, const void *value) {
    cint_big v;
    cint_big_load(&v, tc, value); /* sign- or zero-extended: the canonical register pattern */
    return CINT_TC_IS_BOOL(tc) ? (v.w[0] != 0u ? 1u : 0u) : v.w[0];
}

typedef struct {
    uint64_t input[64];     /* per parameter: the device address of the storage read, 0: none */
    int64_t input_lo[64];   /* its first element offset */
    uint64_t staged[64];    /* per parameter: the device staging of an output, 0: none */
    uint64_t staged_bytes[64];
    bool staged_kept[64];   /* the staging became a resident copy (not given back) */
    uint64_t fault_word, fuel, contrib[64], marks[64], args;
    uint64_t args_bytes;
    uint64_t slots, slots_bytes; /* the block slots of the combined reductions (one launch) */
    int64_t launch;
} placement;

static uint64_t param_value(const cint_gpu_param *p, const cint_ctx *ctx, const cint_plan *plan,
                            const placement *pl) {
    const cint_arg *args = plan->args;
    switch (p->kind) {
    case CINT_GP_FAULT: return pl->fault_word;
    case CINT_GP_FUEL_LEFT: return ctx->budget < 0 ? M64 : ctx->fuel_left;
    case CINT_GP_FUEL: return pl->fuel;
    case CINT_GP_SIZE: return (uint64_t)plan->sizes[p->a];
    case CINT_GP_OVER: return (uint64_t)plan->over[p->a];
    case CINT_GP_SCALAR: return scalar_pattern(plan->kernel->params[p->a].type, args[p->a].in);
    case CINT_GP_READ: return pl->input[p->a];
    case CINT_GP_ORIGIN: return pl->input[p->a] != 0u ? (uint64_t)(args[p->a].view.origin - pl->input_lo[p->a]) : 0u;
    case CINT_GP_EXTENT: return (uint64_t)args[p->a].view.extents[p->b];
    case CINT_GP_STRIDE: return (uint64_t)args[p->a].view.strides[p->b];
    case CINT_GP_WRITE: return pl->staged[p->a];
    case CINT_GP_WSTRIDE: return (uint64_t)plan->writes[p->a].strides[p->b];
    case CINT_GP_CONTRIB: return pl->contrib[p->a];
    case CINT_GP_MARK: return pl->marks[p->a];
    case CINT_GP_ARGS: return pl->args;
    case CINT_GP_SLOTS: return pl->slots;
    case CINT_GP_FOLD: /* before each launch: the fold so far (a value of the target type) */
        return scalar_pattern(plan->kernel->reductions[p->a].target, plan->reductions[p->a].acc);
    default: return 0u; /* first, end: per launch */
    }
}

/* ------------------------------------------------------------------ the scan */

typedef struct {
    int64_t k, k_b, k_f, k_r; /* -1: none */
    uint64_t left;            /* fuel_left after the work-items counted */
} scan_state;

/* Whether every reduction is a sum or sum_wrap of contributions of up to 64 bits or a
 * count, and the body charges nothing: the scan is one tight loop per reduction. */
static bool simple_scan(const cint_kernel *k, const cint_gpu_kernel *gk) {
    if (gk->charges) return false;
    for (int32_t r = 0; r < k->nreductions; r++) {
        const cint_reduction_desc *d = &k->reductions[r];
        if (gk->slot_offset[r] >= 0) continue; /* combined per block: merge_slots */
        bool sum = (d->kind == CINT_RED_SUM || d->kind == CINT_RED_SUM_WRAP) && CINT_TC_BITS(d->contribution) <= 64;
        if (!sum && d->kind != CINT_RED_COUNT) return false;
    }
    return true;
}

/* The work-items [lo, hi) of a simple scan (above): branch-free sums. */
static void scan_simple(const cint_kernel *k, const cint_gpu_kernel *gk, cint_plan *plan,
                        const uint64_t *const *contrib, const uint8_t *const *marks, int64_t n) {
    for (int32_t r = 0; r < k->nreductions; r++) {
        const cint_reduction_desc *d = &k->reductions[r];
        if (gk->slot_offset[r] >= 0) continue;
        cint_reduction *state = &plan->reductions[r];
        const uint64_t *c = contrib[r];
        const uint8_t *m = marks[r];
        int64_t counted = 0;
        if (d->kind == CINT_RED_COUNT) {
            int64_t trues = 0;
            for (int64_t i = 0; i < n; i++) {
                counted += m[i] != 0u;
                trues += (m[i] != 0u) & (c[i] != 0u);
            }
            state->count += counted;
            state->trues += trues;
            continue;
        }
        bool sign = CINT_TC_IS_SIGNED(d->contribution);
        uint64_t lo = 0, hi = 0;
        for (int64_t i = 0; i < n; i++) {
            uint64_t mask = 0u - (uint64_t)(m[i] != 0u);
            uint64_t x = c[i] & mask;
            uint64_t s = lo + x;
            hi += (uint64_t)(s < x) + (sign && (x >> 63) != 0u ? M64 : 0u);
            lo = s;
            counted += m[i] != 0u;
        }
        uint64_t s = state->acc[0] + lo;
        state->acc[1] += hi + (uint64_t)(s < lo);
        state->acc[0] = s;
        state->count += counted;
    }
}

/* The work-items [first, first + n) one by one: fuel by its prefix (k_f), each
 * contribution by its reduction's routine (fold_checked: k_r).  Stops at the first,
 * with the fuel and the folds as they were before it; returns whether it found one. */
static bool scan_items(cint_ctx *ctx, const cint_kernel *k, cint_plan *plan, const cint_gpu_kernel *gk,
                       const uint64_t *fuel, const uint64_t *const *contrib, const uint8_t *const *marks,
                       int64_t first, int64_t n, scan_state *s) {
    for (int64_t j = 0; j < n; j++) {
        int64_t i = first + j;
        uint64_t before = s->left;
        if (gk->charges) {
            uint64_t c = fuel[j];
            if (ctx->budget >= 0 && c > s->left) {
                s->k_f = i; /* its charges take the entry past its budget [B-16c] */
                return true;
            }
            s->left -= c; /* unlimited: a counter, as cpu-c17's */
        }
        for (int32_t r = 0; r < k->nreductions; r++) {
            if (gk->slot_offset[r] >= 0 || (marks[r][j] & 1u) == 0u) continue; /* bit 1: completed */
            const cint_reduction_desc *d = &k->reductions[r];
            cint_reduction *state = &plan->reductions[r];
            uint64_t x[2] = {contrib[r][j], 0u}; /* the value in its layout (little-endian, up to 64 bits) */
            if (d->kind != CINT_RED_FOLD) {
                (void)cint_red_add(ctx, state, d, x, i);
                continue;
            }
            memcpy(state->saved, state->acc, sizeof state->acc);
            if (cint_red_add(ctx, state, d, x, i) == 0) continue;
            /* Its first overflow: the work-item does not count, so the folds
             * it already added to go back (the others are not used again). */
            ctx->status = CINT_OK;
            for (int32_t q = 0; q <= r; q++)
                if (k->reductions[q].kind == CINT_RED_FOLD && gk->slot_offset[q] < 0 && (marks[q][j] & 1u) != 0u)
                    memcpy(plan->reductions[q].acc, plan->reductions[q].saved, sizeof plan->reductions[q].acc);
            s->k_r = i;
            s->left = before;
            return true;
        }
    }
    return false;
}

/* ------------------------------------------------------------------ the work-item phase */

static cint_gpu_kernel *gpu_kernel(cint_gpu *g, const cint_kernel *k) {
    for (int32_t i = 0; i < g->nkernels; i++)
        if (g->program->kernels[i] == k) return &g->kernels[i];
    return NULL;
}

static void give_back(cint_gpu *g, placement *pl, const cint_kernel *k) {
    for (int32_t p = 0; p < k->nparams; p++)
        if (pl->staged[p] != 0u && !pl->staged_kept[p]) dev_release(g, pl->staged[p], pl->staged_bytes[p]);
    dev_release(g, pl->fault_word, 8);
    dev_release(g, pl->fuel, 8u * (uint64_t)pl->launch);
    for (int32_t r = 0; r < k->nreductions; r++) {
        dev_release(g, pl->contrib[r], 8u * (uint64_t)pl->launch);
        dev_release(g, pl->marks[r], (uint64_t)pl->launch);
    }
    dev_release(g, pl->slots, pl->slots_bytes);
    dev_release(g, pl->args, pl->args_bytes);
}

static int place(cint_ctx *ctx, cint_gpu *g, const cint_kernel *k, cint_plan *plan, placement *pl) {
    const cint_arg *args = plan->args;
    /* Inputs: each storage read, its bounding interval, in its own layout. */
    cint_storage *storages[64];
    int64_t lo[64], hi[64];
    int32_t nstorages = 0;
    for (int32_t p = 0; p < k->nparams; p++) {
        const cint_param *param = &k->params[p];
        int64_t a, b;
        if (param->rank < 0 || param->mode == CINT_MODE_OUT || !bounding(&args[p].view, &a, &b)) continue;
        int32_t s = 0;
        while (s < nstorages && storages[s] != args[p].view.storage) s++;
        if (s == nstorages) {
            storages[s] = args[p].view.storage;
            lo[s] = a;
            hi[s] = b;
            nstorages++;
        } else {
            if (a < lo[s]) lo[s] = a;
            if (b > hi[s]) hi[s] = b;
        }
    }
    uint64_t address[64];
    int64_t first[64];
    for (int32_t s = 0; s < nstorages; s++) {
        cint_storage *storage = storages[s];
        size_t size = storage->element_size;
        uint64_t bytes = (uint64_t)(hi[s] - lo[s] + 1) * size;
        int32_t r = find_resident(g, storage, lo[s], hi[s]);
        if (r >= 0) { /* already on the device, unchanged since */
            address[s] = g->resident[r].address;
            first[s] = g->resident[r].lo;
            g->row.kept += (int64_t)bytes;
            continue;
        }
        forget_storage(g, storage);
        if (dev_alloc(g, bytes, &address[s])) return device_failed(ctx, g);
        first[s] = lo[s];
        if (dev_upload(g, address[s], (const char *)storage->data + (size_t)lo[s] * size, bytes)) {
            dev_release(g, address[s], bytes);
            return device_failed(ctx, g);
        }
        keep_resident(g, storage, lo[s], hi[s], address[s], bytes, address, s);
    }
    for (int32_t p = 0; p < k->nparams; p++) {
        for (int32_t s = 0; s < nstorages; s++) {
            if (k->params[p].rank >= 0 && k->params[p].mode != CINT_MODE_OUT && args[p].view.storage == storages[s] &&
                view_count(&args[p].view) > 0) {
                pl->input[p] = address[s];
                pl->input_lo[p] = first[s];
            }
        }
    }
    /* Outputs: the host's staging (a copy of the output, unless overwritten) [B-16d]. */
    for (int32_t p = 0; p < k->nparams; p++) {
        const cint_param *param = &k->params[p];
        if (param->rank < 0 || param->mode == CINT_MODE_IN) continue;
        const cint_view *w = &plan->writes[p];
        int64_t n = view_count(w);
        if (n == 0) continue;
        uint64_t bytes = (uint64_t)n * elem_size(w->element);
        if (dev_alloc(g, bytes, &pl->staged[p])) return device_failed(ctx, g);
        pl->staged_bytes[p] = bytes;
        bool whole = param->overwritten && param->rank == k->nover;
        for (int32_t d = 0; whole && d < k->nover; d++) whole = args[p].view.extents[d] == plan->over[d];
        if (!whole && dev_upload(g, pl->staged[p], w->data, bytes)) return device_failed(ctx, g);
    }
    /* The fault word: all ones, no fault [F-9]. */
    uint64_t ones = M64;
    if (dev_alloc(g, 8, &pl->fault_word)) return device_failed(ctx, g);
    if (dev_upload(g, pl->fault_word, &ones, 8)) return device_failed(ctx, g);
    return 0;
}

static int scratch(cint_ctx *ctx, cint_gpu *g, const cint_kernel *k, const cint_gpu_kernel *gk, placement *pl) {
    if (gk->charges && dev_alloc(g, 8u * (uint64_t)pl->launch, &pl->fuel)) return device_failed(ctx, g);
    for (int32_t r = 0; r < k->nreductions; r++) {
        if (gk->slot_offset[r] >= 0) continue; /* combined per block */
        if (dev_alloc(g, 8u * (uint64_t)pl->launch, &pl->contrib[r])) return device_failed(ctx, g);
        if (dev_alloc(g, (uint64_t)pl->launch, &pl->marks[r])) return device_failed(ctx, g);
    }
    if (gk->slot_words > 0) {
        uint64_t blocks = (uint64_t)(pl->launch / gk->block_size + (pl->launch % gk->block_size != 0));
        pl->slots_bytes = 8u * (uint64_t)gk->slot_words * blocks;
        if (dev_alloc(g, pl->slots_bytes, &pl->slots)) return device_failed(ctx, g);
    }
    return 0;
}

/* The slots of a launch's `grid` blocks (no work-item of it faulted) merged into the
 * dispatch's reductions (ptx.py, SLOT_WORDS): a sum's block totals (one word for
 * contributions of 32 bits or fewer, else high * 2^32 + low) added in 128 bits, a count's trues and contributions, the greatest flipped pattern of
 * a min or max, each reduction's contributions counted. */
static void merge_slots(const cint_kernel *k, const cint_gpu_kernel *gk, cint_plan *plan, const uint64_t *w,
                        int64_t grid) {
    int32_t words = gk->slot_words;
    for (int32_t r = 0; r < k->nreductions; r++) {
        int32_t o = gk->slot_offset[r];
        if (o < 0) continue;
        const cint_reduction_desc *d = &k->reductions[r];
        cint_reduction part;
        memset(&part, 0, sizeof part);
        if ((d->kind == CINT_RED_SUM || d->kind == CINT_RED_SUM_WRAP) && CINT_TC_BITS(d->contribution) <= 32) {
            /* the block's exact sum in one word, two's complement for a signed type */
            bool sign = CINT_TC_IS_SIGNED(d->contribution);
            uint64_t a0 = 0u, a1 = 0u;
            for (int64_t b = 0; b < grid; b++) {
                uint64_t x = w[b * words + o];
                uint64_t s0 = a0 + x;
                a1 += (uint64_t)(s0 < x) + (sign && (x >> 63) != 0u ? M64 : 0u);
                a0 = s0;
                part.count += (int64_t)w[b * words + o + 1];
            }
            part.acc[0] = a0;
            part.acc[1] = a1;
        } else if (d->kind == CINT_RED_SUM || d->kind == CINT_RED_SUM_WRAP) {
            uint64_t a0 = 0u, a1 = 0u;
            for (int64_t b = 0; b < grid; b++) {
                const uint64_t *x = w + b * words + o;
                uint64_t t0 = x[0] + (x[1] << 32);
                uint64_t t1 = (uint64_t)((int64_t)x[1] >> 32) + (uint64_t)(t0 < x[0]);
                uint64_t s0 = a0 + t0;
                a1 += t1 + (uint64_t)(s0 < t0);
                a0 = s0;
                part.count += (int64_t)x[2];
            }
            part.acc[0] = a0;
            part.acc[1] = a1;
        } else if (d->kind == CINT_RED_COUNT) {
            for (int64_t b = 0; b < grid; b++) {
                part.trues += (int64_t)w[b * words + o];
                part.count += (int64_t)w[b * words + o + 1];
            }
        } else { /* min, max */
            uint64_t best = 0u;
            for (int64_t b = 0; b < grid; b++) {
                const uint64_t *x = w + b * words + o;
                if (x[1] == 0u) continue;
                if (!part.has || x[0] > best) best = x[0];
                part.has = true;
                part.count += (int64_t)x[1];
            }
            uint64_t flip = (CINT_TC_IS_SIGNED(d->contribution) ? (uint64_t)1 << 63 : 0u) ^
                            (d->kind == CINT_RED_MIN ? M64 : 0u);
            best ^= flip; /* the canonical pattern of the extremum */
            memcpy(part.acc, &best, sizeof best);
        }
        cint_red_merge(&plan->reductions[r], &part, d);
    }
}

/* The host's buffers of one scan chunk. */
static int scan_buffers(cint_ctx *ctx, cint_gpu *g, const cint_kernel *k, int64_t chunk) {
    size_t need = (size_t)chunk * (8u + (size_t)k->nreductions * 9u);
    if (need <= g->scan_bytes) return 0;
    free(g->scan);
    g->scan = malloc(need);
    g->scan_bytes = g->scan == NULL ? 0 : need;
    if (g->scan == NULL) {
        cint_resource(ctx, "the gpu-cuda run exceeded its memory limit");
        return 1;
    }
    return 0;
}

static int run_launches(cint_ctx *ctx, cint_gpu *g, const cint_kernel *k, cint_gpu_kernel *gk, cint_plan *plan,
                        placement *pl, scan_state *s) {
    int64_t n = plan->count, launch = pl->launch;
    int32_t block = gk->block_size;
    uint64_t values[CINT_GPU_MAX_PARAMS];
    uint64_t entry[CINT_GPU_MAX_PARAMS];
    for (int32_t j = 0; j < gk->nparams; j++) values[j] = param_value(&gk->params[j], ctx, plan, pl);
    int32_t nentry = gk->nparams;
    if (gk->args_block) { /* the argument block: every value but first and end, in device memory */
        pl->args_bytes = 8u * (uint64_t)(gk->nparams - 2);
        if (dev_alloc(g, pl->args_bytes, &pl->args)) return device_failed(ctx, g);
        if (dev_upload(g, pl->args, values + 2, pl->args_bytes)) return device_failed(ctx, g);
        nentry = 3;
    }
    int64_t chunk = launch < SCAN_CHUNK ? launch : SCAN_CHUNK;
    if ((gk->charges || k->nreductions > 0) && scan_buffers(ctx, g, k, chunk)) return 1;
    uint64_t *fuel = g->scan;
    uint64_t *contrib[64];
    uint8_t *marks[64];
    for (int32_t r = 0; r < k->nreductions; r++) {
        contrib[r] = (uint64_t *)g->scan + (size_t)chunk * (size_t)(1 + r);
        marks[r] = (uint8_t *)((uint64_t *)g->scan + (size_t)chunk * (size_t)(1 + k->nreductions)) +
                   (size_t)chunk * (size_t)r;
    }
    bool simple = simple_scan(k, gk);
    bool folds = false; /* a watched fold_checked (ptx.py, KernelEmitter.watched): its value changes per launch */
    for (int32_t j = 0; j < gk->nparams; j++) folds = folds || gk->params[j].kind == CINT_GP_FOLD;
    bool per_item = false; /* a reduction with a contribution and a mark per work-item */
    for (int32_t r = 0; r < k->nreductions; r++) per_item = per_item || gk->slot_offset[r] < 0;
    for (int64_t first = 0; first < n;) {
        int64_t end = n - first < launch ? n : first + launch;
        int64_t count = end - first;
        int64_t grid = count / block + (count % block != 0);
        for (int32_t r = 0; r < k->nreductions; r++) {
            if (gk->slot_offset[r] >= 0) continue;
            g->message[0] = '\0';
            if (g->dev.fill(g->dev.user, pl->marks[r], 0, (uint64_t)count, g->message)) return device_failed(ctx, g);
        }
        uint64_t slot_bytes = 8u * (uint64_t)gk->slot_words * (uint64_t)grid;
        if (slot_bytes > 0u) {
            g->message[0] = '\0';
            if (g->dev.fill(g->dev.user, pl->slots, 0, slot_bytes, g->message)) return device_failed(ctx, g);
        }
        if (folds) { /* the watched folds' accumulators, as the launches before left them */
            for (int32_t j = 0; j < gk->nparams; j++)
                if (gk->params[j].kind == CINT_GP_FOLD) values[j] = param_value(&gk->params[j], ctx, plan, pl);
            if (gk->args_block && dev_upload(g, pl->args, values + 2, pl->args_bytes)) return device_failed(ctx, g);
        }
        if (gk->args_block) {
            entry[0] = (uint64_t)first;
            entry[1] = (uint64_t)end;
            entry[2] = pl->args;
        } else {
            for (int32_t j = 0; j < gk->nparams; j++) {
                int32_t kind = gk->params[j].kind;
                entry[j] = kind == CINT_GP_FIRST ? (uint64_t)first : kind == CINT_GP_END ? (uint64_t)end : values[j];
            }
        }
        int64_t started = cint_now_ns();
        g->message[0] = '\0';
        if (g->dev.launch(g->dev.user, gk->function, (uint32_t)grid, (uint32_t)block, entry, nentry, g->message))
            return device_failed(ctx, g);
        g->launch_ns += cint_now_ns() - started;
        g->launches++;
        g->row.launches++;
        uint64_t word = M64;
        if (dev_download(g, &word, pl->fault_word, 8, true)) return device_failed(ctx, g);
        int64_t stop = end;
        if (word < (uint64_t)end) s->k_b = s->k = stop = (int64_t)word; /* below it every work-item completed [F-10] */
        if (gk->charges || per_item) {
            for (int64_t at = first; at < stop; at += chunk) {
                int64_t m = stop - at < chunk ? stop - at : chunk;
                uint64_t offset = (uint64_t)(at - first);
                if (gk->charges && dev_download(g, fuel, pl->fuel + 8u * offset, 8u * (uint64_t)m, true))
                    return device_failed(ctx, g);
                for (int32_t r = 0; r < k->nreductions; r++) {
                    if (gk->slot_offset[r] >= 0) continue;
                    if (dev_download(g, contrib[r], pl->contrib[r] + 8u * offset, 8u * (uint64_t)m, true) ||
                        dev_download(g, marks[r], pl->marks[r] + offset, (uint64_t)m, true))
                        return device_failed(ctx, g);
                }
                if (simple) {
                    scan_simple(k, gk, plan, (const uint64_t *const *)contrib, (const uint8_t *const *)marks, m);
                } else if (scan_items(ctx, k, plan, gk, fuel, (const uint64_t *const *)contrib,
                                      (const uint8_t *const *)marks, at, m, s)) {
                    s->k = s->k_f >= 0 ? s->k_f : s->k_r; /* below k_b */
                    break;
                }
            }
        }
        if (s->k < 0 && slot_bytes > 0u) { /* no fault: the blocks' slots count */
            if (slot_bytes > g->slots_host_bytes) {
                free(g->slots_host);
                g->slots_host = malloc((size_t)slot_bytes);
                g->slots_host_bytes = g->slots_host == NULL ? 0u : (size_t)slot_bytes;
                if (g->slots_host == NULL) {
                    cint_resource(ctx, "the gpu-cuda run exceeded its memory limit");
                    return 1;
                }
            }
            if (dev_download(g, g->slots_host, pl->slots, slot_bytes, true)) return device_failed(ctx, g);
            merge_slots(k, gk, plan, g->slots_host, grid);
        }
        if (s->k >= 0) {
            /* Every later launch lies wholly above the fault: none starts [B-16a]. */
            g->skipped += (n - end) / launch + ((n - end) % launch != 0);
            break;
        }
        first = end;
    }
    return 0;
}

static int gpu_work_phase(cint_ctx *ctx, const cint_kernel *k, cint_plan *plan, int32_t span, int64_t *item) {
    cint_gpu *g = ctx->gpu;
    cint_gpu_kernel *gk = gpu_kernel(g, k);
    g->dispatches++;
    g->current_number = plan->number;
    g->current_span = span;
    g->current_kernel = (int32_t)(gk - g->kernels);
    if (gk == NULL) {
        cint_resource(ctx, "internal error: gpu-cuda has no entry for this kernel");
        return 1;
    }
    if (plan->count == 0) return 0;
    placement pl;
    memset(&pl, 0, sizeof pl);
    pl.launch = plan->count < g->max_launch ? plan->count : g->max_launch;
    scan_state s = {-1, -1, -1, -1, ctx->fuel_left};
    int rc = 1;
    if (place(ctx, g, k, plan, &pl) || scratch(ctx, g, k, gk, &pl) || run_launches(ctx, g, k, gk, plan, &pl, &s))
        goto done;
    if (s.k >= 0) {
        /* k = min(k_b, k_f, k_r) [F-11]: dispatch.c runs it again in `describe` from the
         * fuel and the folds before it (10.6 para 9). */
        plan->item_fuel = s.left;
        for (int32_t r = 0; r < k->nreductions; r++)
            if (k->reductions[r].kind == CINT_RED_FOLD)
                memcpy(plan->reductions[r].saved, plan->reductions[r].acc, sizeof plan->reductions[r].acc);
        g->found_number = plan->number;
        g->found_k = s.k;
        g->found_b = s.k_b;
        g->found_f = s.k_f;
        g->found_r = s.k_r;
        g->found_kernel = g->current_kernel;
        g->found_span = span;
        *item = s.k;
        goto done;
    }
    ctx->fuel_left = s.left;
    /* The staging comes back to the host's; dispatch.c publishes it after the epilogue.
     * A staging that is the whole of its storage's elements stays on the device as the
     * storage's copy: published, it equals the storage. */
    for (int32_t p = 0; p < k->nparams; p++) {
        if (pl.staged[p] == 0u) continue;
        if (dev_download(g, plan->writes[p].data, pl.staged[p], pl.staged_bytes[p], true)) {
            device_failed(ctx, g);
            goto done;
        }
        cint_storage *storage = plan->args[p].view.storage;
        const cint_view *v = &plan->args[p].view;
        forget_storage(g, storage);
        if (v->origin == 0 && dense_view(v) && view_count(v) == storage->count) {
            /* Published next (dispatch.c) unless the epilogue faults, which ends the
             * entry: no later dispatch can read a wrong copy. */
            keep_resident(g, storage, 0, storage->count - 1, pl.staged[p], pl.staged_bytes[p], NULL, 0);
            pl.staged_kept[p] = true;
        }
    }
    rc = 0;
done:
    give_back(g, &pl, k);
    if (ctx->report) cint_gpu_row(g, plan->number);
    return rc;
}

/* The copies of the dispatch just ended, as a row of the report. */
void cint_gpu_row(cint_gpu *g, int64_t number) {
    if (g->nrows == g->rows_cap) {
        size_t cap = g->rows_cap == 0 ? 64 : 2 * g->rows_cap;
        if (cap > CINT_MAX_RECORDS) cap = CINT_MAX_RECORDS;
        if (cap == g->rows_cap) goto reset;
        cint_gpu_row_t *rows = realloc(g->rows, cap * sizeof *rows);
        if (rows == NULL) goto reset;
        g->rows = rows;
        g->rows_cap = cap;
    }
    g->row.number = number;
    g->rows[g->nrows++] = g->row;
reset:
    memset(&g->row, 0, sizeof g->row);
}

/* ------------------------------------------------------------------ setting up */

cint_gpu *cint_gpu_new(const cint_gpu_device *device, const cint_program *program, int32_t block,
                       int64_t max_launch) {
    cint_gpu *g = calloc(1, sizeof *g);
    if (g == NULL) return NULL;
    g->dev = *device;
    g->program = program;
    g->block = block;
    g->max_launch = max_launch;
    g->nkernels = program->nkernels;
    g->kernels = calloc((size_t)(program->nkernels > 0 ? program->nkernels : 1), sizeof *g->kernels);
    g->found_number = -1;
    if (g->kernels == NULL) {
        free(g);
        return NULL;
    }
    return g;
}

/* The PTX module, once: 0, or 1 with the driver's message (and its JIT log). */
int cint_gpu_load(cint_gpu *g, const char *ptx) {
    g->message[0] = '\0';
    return g->dev.load(g->dev.user, ptx, &g->module, g->message);
}

/* Kernel `index` of the program (program->kernels order): its PTX entry, its
 * parameters (kind, a, b per parameter of KernelCode.params), whether they go in an
 * argument block and whether the body charges fuel.  Resolves the entry and its
 * CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: the kernel's block is the chosen one, or
 * that limit when it is lower (c_host.py's note says so).  0, or 1 with a message. */
int cint_gpu_kernel_set(cint_gpu *g, int32_t index, const char *entry, int32_t nparams, const int32_t *params,
                        int32_t block_params, int32_t charges) {
    if (index < 0 || index >= g->nkernels || nparams > CINT_GPU_MAX_PARAMS) {
        snprintf(g->message, sizeof g->message, "internal error: kernel %d with %d parameters", index, nparams);
        return 1;
    }
    cint_gpu_kernel *gk = &g->kernels[index];
    gk->nparams = nparams;
    gk->params = calloc((size_t)(nparams > 0 ? nparams : 1), sizeof *gk->params);
    if (gk->params == NULL) {
        snprintf(g->message, sizeof g->message, "the gpu-cuda run exceeded its memory limit");
        return 1;
    }
    for (int32_t j = 0; j < nparams; j++) {
        gk->params[j].kind = params[3 * j];
        gk->params[j].a = params[3 * j + 1];
        gk->params[j].b = params[3 * j + 2];
    }
    gk->args_block = block_params != 0;
    gk->charges = charges != 0;
    /* The reductions combined per block, as ptx.py's slot_layout places them; the entry
     * takes the slots' address exactly when there are some. */
    const cint_kernel *k = g->program->kernels[index];
    bool takes_slots = false;
    for (int32_t j = 0; j < nparams; j++) takes_slots = takes_slots || gk->params[j].kind == CINT_GP_SLOTS;
    gk->slot_words = 0;
    for (int32_t r = 0; r < k->nreductions && r < 64; r++) {
        int32_t kind = k->reductions[r].kind, words = 0;
        if (kind == CINT_RED_SUM || kind == CINT_RED_SUM_WRAP)
            words = CINT_TC_BITS(k->reductions[r].contribution) <= 32 ? 2 : 3;
        else if (kind == CINT_RED_COUNT || kind == CINT_RED_MIN || kind == CINT_RED_MAX)
            words = 2;
        gk->slot_offset[r] = words > 0 ? gk->slot_words : -1;
        gk->slot_words += words;
    }
    if (k->nreductions > 64 || takes_slots != (gk->slot_words > 0)) {
        snprintf(g->message, sizeof g->message, "internal error: the entry %s and the run-time disagree on the "
                 "reductions combined per block", entry);
        return 1;
    }
    g->message[0] = '\0';
    int32_t limit = 0;
    if (g->dev.function(g->dev.user, g->module, entry, &gk->function, &limit, g->message)) return 1;
    gk->max_threads = limit;
    gk->block_size = limit > 0 && limit < g->block ? limit : g->block;
    return 0;
}

int32_t cint_gpu_kernel_block(const cint_gpu *g, int32_t index) { return g->kernels[index].block_size; }
int32_t cint_gpu_kernel_limit(const cint_gpu *g, int32_t index) { return g->kernels[index].max_threads; }
const char *cint_gpu_message(const cint_gpu *g) { return g->message; }

void cint_gpu_attach(cint_ctx *ctx, cint_gpu *g) {
    ctx->gpu = g;
    ctx->work_phase = gpu_work_phase;
}

void cint_gpu_forget(cint_gpu *g) {
    while (g->nresident > 0) drop_resident(g, g->nresident - 1);
}

void cint_gpu_free(cint_gpu *g) {
    if (g == NULL) return;
    for (int32_t i = 0; i < g->nresident; i++) g->dev.release(g->dev.user, g->resident[i].address);
    for (int32_t i = 0; i < g->nfree; i++) g->dev.release(g->dev.user, g->free_address[i]);
    if (g->dev.close != NULL) g->dev.close(g->dev.user);
    for (int32_t i = 0; i < g->nkernels; i++) free(g->kernels[i].params);
    free(g->kernels);
    free(g->scan);
    free(g->slots_host);
    free(g->rows);
    free(g);
}

const cint_gpu_stats *cint_gpu_stats_of(cint_gpu *g) {
    g->stats.dispatches = g->dispatches;
    g->stats.launches = g->launches;
    g->stats.skipped = g->skipped;
    g->stats.launch_ns = g->launch_ns;
    g->stats.found_number = g->found_number;
    g->stats.found_k = g->found_k;
    g->stats.found_b = g->found_b;
    g->stats.found_f = g->found_f;
    g->stats.found_r = g->found_r;
    g->stats.found_kernel = g->found_kernel;
    g->stats.found_span = g->found_span;
    g->stats.status_kind = g->status_kind;
    g->stats.status_number = g->status_number;
    g->stats.status_kernel = g->status_kernel;
    g->stats.status_span = g->status_span;
    g->stats.status_message = g->status_message;
    g->stats.rows = g->rows;
    g->stats.nrows = (int64_t)g->nrows;
    return &g->stats;
}

/* ------------------------------------------------------------------ the null device */

static int null_load(void *user, const char *ptx, void **module, char *message) {
    (void)user, (void)ptx, (void)message;
    *module = NULL;
    return 0;
}
static int null_function(void *user, void *module, const char *name, void **function, int32_t *max_threads,
                         char *message) {
    (void)user, (void)module, (void)name, (void)message;
    *function = NULL;
    *max_threads = 1024;
    return 0;
}
/* The null device's state: the next address, and the last fill of each buffer the host
 * filled (the marks and the block slots before each launch), so that what comes back from
 * them is what a launch that writes nothing there leaves; everything else comes back as
 * all ones (the fault word says no fault; the staging and the other scratch are touched
 * as a GPU's would be).  The oldest fill is forgotten past NULL_FILLS. */
#define NULL_FILLS 256
typedef struct {
    uint64_t next;
    uint64_t address[NULL_FILLS], bytes[NULL_FILLS];
    int byte[NULL_FILLS];
    int32_t nfills, oldest;
} null_state;

/* Addresses without memory: distinct, 256-byte aligned, never dereferenced. */
static int null_alloc(void *user, uint64_t bytes, uint64_t *address, char *message) {
    null_state *state = user;
    (void)message;
    *address = state->next;
    state->next += (bytes + 511u) / 256u * 256u;
    return 0;
}
static void null_release(void *user, uint64_t address) { (void)user, (void)address; }
static int null_upload(void *user, uint64_t address, const void *data, uint64_t bytes, char *message) {
    (void)user, (void)address, (void)data, (void)bytes, (void)message;
    return 0;
}
static int null_download(void *user, void *data, uint64_t address, uint64_t bytes, char *message) {
    const null_state *state = user;
    (void)message;
    int byte = 0xff;
    for (int32_t i = 0; i < state->nfills; i++)
        if (state->address[i] <= address && address + bytes <= state->address[i] + state->bytes[i])
            byte = state->byte[i];
    memset(data, byte, (size_t)bytes);
    return 0;
}
static int null_fill(void *user, uint64_t address, int byte, uint64_t bytes, char *message) {
    null_state *state = user;
    (void)message;
    for (int32_t i = 0; i < state->nfills; i++) {
        if (state->address[i] == address) {
            state->bytes[i] = bytes;
            state->byte[i] = byte;
            return 0;
        }
    }
    int32_t at = state->nfills < NULL_FILLS ? state->nfills++ : state->oldest;
    if (at == state->oldest && state->nfills == NULL_FILLS) state->oldest = (state->oldest + 1) % NULL_FILLS;
    state->address[at] = address;
    state->bytes[at] = bytes;
    state->byte[at] = byte;
    return 0;
}
static int null_launch(void *user, void *function, uint32_t grid, uint32_t block, uint64_t *params,
                       int32_t nparams, char *message) {
    (void)user, (void)function, (void)grid, (void)block, (void)params, (void)nparams, (void)message;
    return 0;
}
static void null_close(void *user) { free(user); }

int cint_gpu_null_device(cint_gpu_device *device) {
    null_state *state = calloc(1, sizeof *state);
    if (state == NULL) return 1;
    state->next = 0x100000000u;
    memset(device, 0, sizeof *device);
    device->user = state;
    device->load = null_load;
    device->function = null_function;
    device->alloc = null_alloc;
    device->release = null_release;
    device->upload = null_upload;
    device->download = null_download;
    device->fill = null_fill;
    device->launch = null_launch;
    device->close = null_close;
    return 0;
}

/* ------------------------------------------------------------------ the program's tables (c_host.py) */

int32_t cint_gpu_program_kernels(const cint_program *program) { return program->nkernels; }

const char *cint_gpu_program_kernel(const cint_program *program, int32_t index) {
    return program->kernels[index]->qualified;
}

/* Span `index` of the program's table as six ints (syntax.source.Span); 0 when none. */
int cint_gpu_program_span(const cint_program *program, int32_t index, int32_t *out) {
    if (index < 0 || index >= program->nspans) return 0;
    const cint_span *s = &program->spans[index];
    out[0] = s->start_byte;
    out[1] = s->end_byte;
    out[2] = s->line;
    out[3] = s->column;
    out[4] = s->end_line;
    out[5] = s->end_column;
    return 1;
}
