/* Reductions of a dispatch (SPEC-02P.1 clause 9; cint_ls/exec/arith/reduce.py).
 *
 * sum and sum_wrap hold the exact total: in acc[0..1] as a 128-bit two's-complement
 * integer for contributions of up to 64 bits (the I128 / U128 accumulator of Table 2;
 * cint_red_sum_s64/u64 on the fast path), otherwise in acc[0..17], 1152 bits, which
 * holds the 1088-bit accumulator of 1024-bit contributions.  sum_sat, min, max and
 * fold_checked hold a value of the target type in its native layout in acc.  Fixed
 * point reductions act on the stored integers. */
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

void cint_red_start(cint_reduction *r, const cint_reduction_desc *d) {
    memset(r, 0, sizeof *r);
    if (d->kind == CINT_RED_FOLD) memcpy(r->acc, d->init, CINT_TC_SIZE(d->target));
}

/* One contribution x (a value of the contribution type) of work-item `item`.  Only
 * fold_checked faults here: its first overflow is a fault of that work-item,
 * operands (the work-item, the accumulator, the contribution). */
int cint_red_add(cint_ctx *ctx, cint_reduction *r, const cint_reduction_desc *d, const void *x, int64_t item) {
    cint_big acc, v, sum;
    uint32_t c = d->contribution, t = d->target;
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
            cint_fault_begin(ctx, "E_OVERFLOW", d->operation, d->span);
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
            cint_fault_begin(ctx, "E_OVERFLOW", d->operation, d->span);
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
            cint_fault_begin(ctx, "E_OVERFLOW", d->operation, d->span);
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
            cint_fault_begin(ctx, "E_EMPTY", d->operation, d->span);
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
