/* Reductions of a dispatch (SPEC-02P.1 clause 9; cint_ls/exec/arith/reduce.py).
 *
 * sum and sum_wrap hold the exact total: in acc[0..1] as a 128-bit two's-complement
 * integer for contributions of up to 64 bits (the I128 / U128 accumulator of Table 2;
 * cint_red_sum_s64/u64 on the fast path), otherwise in acc[0..17], 1152 bits, which
 * holds the 1088-bit accumulator of 1024-bit contributions.  sum_sat, min, max and
 * fold_checked hold a value of the target type in its native layout in acc.  Fixed
 * point reductions act on the stored integers.
 *
 * A chunk of work-items on a thread of the pool keeps a partial state (cint_rt.h,
 * cint_reduction): cint_red_start_partial, cint_red_add on it, and cint_red_fits /
 * cint_red_merge to add it to the dispatch's state in ascending order of chunks. */
#include "cint_rt.h"

#define ACC_LIMBS 18

static bool small(uint32_t tc) { return CINT_TC_BITS(tc) <= 64; }

static void load_acc(cint_big *r, const cint_reduction *red, uint32_t contribution) {
    int n = small(contribution) ? 2 : ACC_LIMBS;
    uint64_t fill = (red->acc[n - 1] >> 63) != 0u ? UINT64_MAX : 0u;
    for (int i = 0; i < CINT_BIG_LIMBS; i++) r->w[i] = i < n ? red->acc[i] : fill;
}

static void store_acc(cint_reduction *red, const cint_big *v, uint32_t contribution) {
    int n = small(contribution) ? 2 : ACC_LIMBS;
    for (int i = 0; i < n; i++) red->acc[i] = v->w[i];
}

/* A value in the sum's layout for type tc (2 limbs up to 64 bits, else 18), sign-extended. */
static void load_limbs(cint_big *r, const uint64_t *limbs, uint32_t tc) {
    int n = small(tc) ? 2 : ACC_LIMBS;
    uint64_t fill = (limbs[n - 1] >> 63) != 0u ? UINT64_MAX : 0u;
    for (int i = 0; i < CINT_BIG_LIMBS; i++) r->w[i] = i < n ? limbs[i] : fill;
}

static void store_limbs(uint64_t *limbs, const cint_big *v, uint32_t tc) {
    int n = small(tc) ? 2 : ACC_LIMBS;
    for (int i = 0; i < n; i++) limbs[i] = v->w[i];
}

static void clamp(cint_big *v, const cint_big *lo, const cint_big *hi) {
    if (cint_big_cmp(v, lo) < 0) *v = *lo;
    else if (cint_big_cmp(v, hi) > 0) *v = *hi;
}

/* A contribution to a chunk's partial sum_sat or fold_checked (never a fault). */
static void add_partial(cint_reduction *r, const cint_reduction_desc *d, const void *x) {
    cint_big c, v, lo, hi, min, max;
    uint32_t t = d->target;
    cint_big_load(&v, t, x);
    if (d->kind == CINT_RED_SUM_SAT) { /* compose with x -> clamp(x + v, MIN, MAX) */
        cint_big_min_of(&min, t);
        cint_big_max_of(&max, t);
        if (!r->has) {
            c = v;
            lo = min;
            hi = max;
        } else {
            load_limbs(&c, r->acc, t);
            cint_big_add(&c, &c, &v);
            cint_big_load(&lo, t, r->lo);
            cint_big_add(&lo, &lo, &v);
            clamp(&lo, &min, &max);
            cint_big_load(&hi, t, r->hi);
            cint_big_add(&hi, &hi, &v);
            clamp(&hi, &min, &max);
        }
        store_limbs(r->acc, &c, t);
        cint_big_store(&lo, t, r->lo);
        cint_big_store(&hi, t, r->hi);
    } else { /* fold_checked: the prefix sum and its least and greatest values */
        load_limbs(&c, r->acc, t);
        cint_big_add(&c, &c, &v);
        store_limbs(r->acc, &c, t);
        load_limbs(&lo, r->lo, t);
        load_limbs(&hi, r->hi, t);
        if (!r->has || cint_big_cmp(&c, &lo) < 0) store_limbs(r->lo, &c, t);
        if (!r->has || cint_big_cmp(&c, &hi) > 0) store_limbs(r->hi, &c, t);
    }
    r->has = true;
    r->count++;
}

void cint_red_start(cint_reduction *r, const cint_reduction_desc *d) {
    memset(r, 0, sizeof *r);
    if (d->kind == CINT_RED_FOLD) memcpy(r->acc, d->init, CINT_TC_SIZE(d->target));
}

void cint_red_start_partial(cint_reduction *r, const cint_reduction_desc *d) {
    memset(r, 0, sizeof *r);
    r->partial = d->kind == CINT_RED_SUM_SAT || d->kind == CINT_RED_FOLD;
}

/* Whether adding the chunk's contributions to `into` raises no fault: only a
 * fold_checked can fault, when init plus some prefix sum leaves the target's range
 * (9.2 para 4); its least and greatest prefix sums decide. */
bool cint_red_fits(const cint_reduction *into, const cint_reduction *part, const cint_reduction_desc *d) {
    if (d->kind != CINT_RED_FOLD || !part->has) return true;
    cint_big a, p, s, min, max;
    uint32_t t = d->target;
    cint_big_load(&a, t, into->acc);
    cint_big_min_of(&min, t);
    cint_big_max_of(&max, t);
    load_limbs(&p, part->lo, t);
    cint_big_add(&s, &a, &p);
    if (cint_big_cmp(&s, &min) < 0) return false;
    load_limbs(&p, part->hi, t);
    cint_big_add(&s, &a, &p);
    return cint_big_cmp(&s, &max) <= 0;
}

/* The chunk's contributions added to `into`, as if they had been added one by one in
 * ascending order (for fold_checked, after cint_red_fits said they fit). */
void cint_red_merge(cint_reduction *into, const cint_reduction *part, const cint_reduction_desc *d) {
    cint_big a, b;
    uint32_t t = d->target;
    into->count += part->count;
    switch (d->kind) {
    case CINT_RED_SUM:
    case CINT_RED_SUM_WRAP:
        load_acc(&a, into, d->contribution);
        load_acc(&b, part, d->contribution);
        cint_big_add(&a, &a, &b);
        store_acc(into, &a, d->contribution);
        return;
    case CINT_RED_COUNT: into->trues += part->trues; return;
    case CINT_RED_MIN:
    case CINT_RED_MAX:
        if (!part->has) return;
        if (into->has) {
            int cmp = cint_compare(t, part->acc, into->acc);
            if (d->kind == CINT_RED_MIN ? cmp >= 0 : cmp <= 0) return;
        }
        memcpy(into->acc, part->acc, CINT_TC_SIZE(t));
        into->has = true;
        return;
    case CINT_RED_SUM_SAT: { /* into = clamp(into + c, L, H) */
        cint_big lo, hi;
        if (!part->has) return;
        cint_big_load(&a, t, into->acc);
        load_limbs(&b, part->acc, t);
        cint_big_add(&a, &a, &b);
        cint_big_load(&lo, t, part->lo);
        cint_big_load(&hi, t, part->hi);
        clamp(&a, &lo, &hi);
        cint_big_store(&a, t, into->acc);
        return;
    }
    default: /* fold_checked: into + the chunk's sum */
        if (!part->has) return;
        cint_big_load(&a, t, into->acc);
        load_limbs(&b, part->acc, t);
        cint_big_add(&a, &a, &b);
        cint_big_store(&a, t, into->acc);
        return;
    }
}

/* One contribution x (a value of the contribution type) of work-item `item`.  Only
 * fold_checked faults here: its first overflow is a fault of that work-item,
 * operands (the work-item, the accumulator, the contribution). */
int cint_red_add(cint_ctx *ctx, cint_reduction *r, const cint_reduction_desc *d, const void *x, int64_t item) {
    cint_big acc, v, sum;
    uint32_t c = d->contribution, t = d->target;
    if (r->partial) {
        add_partial(r, d, x);
        return 0;
    }
    switch (d->kind) {
    case CINT_RED_SUM:
    case CINT_RED_SUM_WRAP:
        load_acc(&acc, r, c);
        cint_big_load(&v, c, x);
        cint_big_add(&acc, &acc, &v);
        store_acc(r, &acc, c);
        r->count++;
        return 0;
    case CINT_RED_COUNT: cint_red_count(r, *(const bool *)x); return 0;
    case CINT_RED_SUM_SAT: {
        cint_big lo, hi;
        cint_big_load(&acc, t, r->acc);
        cint_big_load(&v, t, x);
        cint_big_add(&sum, &acc, &v);
        cint_big_min_of(&lo, t);
        cint_big_max_of(&hi, t);
        if (cint_big_cmp(&sum, &lo) < 0) sum = lo;
        else if (cint_big_cmp(&sum, &hi) > 0) sum = hi;
        cint_big_store(&sum, t, r->acc);
        r->count++;
        return 0;
    }
    case CINT_RED_MIN:
    case CINT_RED_MAX:
        r->count++;
        if (r->has) {
            int cmp = cint_compare(t, x, r->acc);
            if (d->kind == CINT_RED_MIN ? cmp >= 0 : cmp <= 0) return 0;
        }
        memcpy(r->acc, x, CINT_TC_SIZE(t));
        r->has = true;
        return 0;
    default: /* fold_checked */
        cint_big_load(&acc, t, r->acc);
        cint_big_load(&v, t, x);
        cint_big_add(&sum, &acc, &v);
        if (!cint_big_fits(&sum, t)) {
            cint_fault_begin(ctx, CINT_E_OVERFLOW, d->operation, d->span);
            cint_fault_operand_i64(ctx, item);
            cint_fault_operand(ctx, t, &acc);
            cint_fault_operand(ctx, t, &v);
            cint_fault_exact_real(ctx, t, &sum);
            cint_fault_crossed(ctx, t, &sum);
            return 1;
        }
        cint_big_store(&sum, t, r->acc);
        r->count++;
        return 0;
    }
}

/* The epilogue of one reduction: the result (a value of the target type) or its fault:
 * sum E_OVERFLOW (operand the number of contributions, exact the total), min/max of
 * nothing E_EMPTY (operand 0), count E_OVERFLOW count.checked. */
int cint_red_finish(cint_ctx *ctx, cint_reduction *r, const cint_reduction_desc *d, void *result) {
    cint_big total, n;
    uint32_t t = d->target;
    switch (d->kind) {
    case CINT_RED_SUM:
        load_acc(&total, r, d->contribution);
        if (!cint_big_fits(&total, t)) {
            cint_fault_begin(ctx, CINT_E_OVERFLOW, d->operation, d->span);
            cint_fault_operand_i64(ctx, r->count);
            cint_fault_exact_real(ctx, t, &total);
            cint_fault_crossed(ctx, t, &total);
            return 1;
        }
        cint_big_store(&total, t, result);
        return 0;
    case CINT_RED_SUM_WRAP:
        load_acc(&total, r, d->contribution);
        cint_big_wrap(&total, &total, t);
        cint_big_store(&total, t, result);
        return 0;
    case CINT_RED_COUNT:
        cint_big_from_i64(&n, r->trues);
        if (!cint_big_fits(&n, t)) {
            cint_fault_begin(ctx, CINT_E_OVERFLOW, d->operation, d->span);
            cint_fault_operand_i64(ctx, r->count);
            cint_fault_exact_int(ctx, &n);
            cint_fault_crossed(ctx, t, &n);
            return 1;
        }
        cint_big_store(&n, t, result);
        return 0;
    case CINT_RED_MIN:
    case CINT_RED_MAX:
        if (!r->has) {
            cint_fault_begin(ctx, CINT_E_EMPTY, d->operation, d->span);
            cint_fault_operand_i64(ctx, 0);
            return 1;
        }
        memcpy(result, r->acc, CINT_TC_SIZE(t));
        return 0;
    default: /* sum_sat, fold_checked */
        memcpy(result, r->acc, CINT_TC_SIZE(t));
        return 0;
    }
}
