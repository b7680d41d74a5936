/* The generic evaluator: every operation of LANGUAGE.md on every type, on exact
 * integers, with the fault records of cint_ls/exec/arith (the reference).  Wide types
 * always come here; values of up to 64 bits come here only to describe a fault that an
 * inline operation of cint_rt.h detected (cint_fail_*64). */
#include "cint_rt.h"

#include <stdio.h>

static void big_one(cint_big *r) { cint_big_from_u64(r, 1u); }

static void power_of_two(cint_big *r, int k) {
    cint_big one;
    big_one(&one);
    cint_big_shl(r, &one, k);
}

/* floor(a / b) and a - floor * b, b != 0. */
static void floor_divmod(cint_big *q, cint_big *rem, const cint_big *a, const cint_big *b) {
    cint_big_divmod(q, rem, a, b);
    if (!cint_big_is_zero(rem) && cint_big_is_negative(rem) != cint_big_is_negative(b)) {
        cint_big one;
        big_one(&one);
        cint_big_sub(q, q, &one);
        cint_big_add(rem, rem, b);
    }
}

/* a / b (b != 0) rounded by `mode`: rounding.py's _rounder, on the floor quotient. */
static void rounded_quotient(cint_big *q, const cint_big *a, const cint_big *b, int mode) {
    cint_big rem;
    floor_divmod(q, &rem, a, b);
    if (cint_big_is_zero(&rem)) return;
    cint_big ar = rem, ab = *b, twice;
    if (cint_big_is_negative(&ar)) cint_big_neg(&ar, &ar);
    if (cint_big_is_negative(&ab)) cint_big_neg(&ab, &ab);
    cint_big_add(&twice, &ar, &ar);
    int side = cint_big_cmp(&twice, &ab);
    bool q_negative = cint_big_is_negative(q);
    bool q_odd = (q->w[0] & 1u) != 0u;
    bool up;
    switch (mode) {
    case CINT_ROUND_FLOOR: up = false; break;
    case CINT_ROUND_CEIL: up = true; break;
    case CINT_ROUND_TRUNC: up = q_negative; break;
    case CINT_ROUND_AWAY: up = !q_negative; break;
    case CINT_ROUND_HALF_EVEN: up = side > 0 || (side == 0 && q_odd); break;
    case CINT_ROUND_HALF_AWAY: up = side > 0 || (side == 0 && !q_negative); break;
    default: up = side > 0 || (side == 0 && q_negative); break;
    }
    if (up) {
        cint_big one;
        big_one(&one);
        cint_big_add(q, q, &one);
    }
}

/* a / 2^n rounded half-to-even: fixed-point `*`. */
static void shift_half_even(cint_big *r, const cint_big *a, int n) {
    if (n == 0) {
        *r = *a;
        return;
    }
    cint_big q, back, rem, half;
    cint_big_sar(&q, a, n);
    cint_big_shl(&back, &q, n);
    cint_big_sub(&rem, a, &back);
    power_of_two(&half, n - 1);
    int c = cint_big_cmp(&rem, &half);
    if (c > 0 || (c == 0 && (q.w[0] & 1u) != 0u)) {
        cint_big one;
        big_one(&one);
        cint_big_add(&q, &q, &one);
    }
    *r = q;
}

static void clamp(cint_big *r, const cint_big *v, uint32_t tc) {
    cint_big lo, hi;
    cint_big_min_of(&lo, tc);
    cint_big_max_of(&hi, tc);
    if (cint_big_cmp(v, &lo) < 0) *r = lo;
    else if (cint_big_cmp(v, &hi) > 0) *r = hi;
    else *r = *v;
}

static void two_operands(cint_ctx *ctx, uint32_t tc, const cint_big *a, const cint_big *b) {
    cint_fault_operand(ctx, tc, a);
    cint_fault_operand(ctx, tc, b);
}

static int overflow2(cint_ctx *ctx, const char *operation, int32_t span, uint32_t tc, const cint_big *a,
                     const cint_big *b, const cint_big *result) {
    cint_fault_begin(ctx, CINT_E_OVERFLOW, operation, span);
    two_operands(ctx, tc, a, b);
    cint_fault_crossed(ctx, tc, result);
    return 1;
}

static int div_zero(cint_ctx *ctx, const char *operation, int32_t span, uint32_t tc, const cint_big *a,
                    const cint_big *b) {
    cint_fault_begin(ctx, CINT_E_DIV_ZERO, operation, span);
    two_operands(ctx, tc, a, b);
    return 1;
}

int cint_binary(cint_ctx *ctx, int op, int form, uint32_t tc, void *r, const void *a, const void *b,
                const char *operation, int32_t span) {
    cint_big x, y, res;
    cint_big_load(&x, tc, a);
    cint_big_load(&y, tc, b);
    int n = CINT_TC_FRAC(tc);
    bool fixed = CINT_TC_IS_FIXED(tc);
    switch (op) {
    case CINT_OP_ADD:
    case CINT_OP_SUB:
    case CINT_OP_MUL: {
        cint_big product;
        if (op == CINT_OP_ADD) cint_big_add(&res, &x, &y);
        else if (op == CINT_OP_SUB) cint_big_sub(&res, &x, &y);
        else {
            cint_big_mul(&product, &x, &y);
            shift_half_even(&res, &product, fixed ? n : 0);
        }
        if (form == CINT_FORM_WRAP) cint_big_wrap(&res, &res, tc);
        else if (form == CINT_FORM_SAT) clamp(&res, &res, tc);
        else if (!cint_big_fits(&res, tc)) {
            overflow2(ctx, operation, span, tc, &x, &y, &res);
            if (op == CINT_OP_MUL && fixed) {
                cint_big den;
                power_of_two(&den, 2 * n);
                cint_fault_exact_fraction(ctx, &product, &den);
            } else {
                cint_fault_exact_real(ctx, tc, &res);
            }
            return 1;
        }
        break;
    }
    case CINT_OP_DIV:
        if (cint_big_is_zero(&y)) return div_zero(ctx, operation, span, tc, &x, &y);
        if (fixed) {
            cint_big scaled;
            cint_big_shl(&scaled, &x, n);
            rounded_quotient(&res, &scaled, &y, CINT_ROUND_HALF_EVEN);
            if (!cint_big_fits(&res, tc)) {
                overflow2(ctx, operation, span, tc, &x, &y, &res);
                cint_fault_exact_fraction(ctx, &x, &y);
                return 1;
            }
        } else {
            cint_big_divmod(&res, NULL, &x, &y);
            if (!cint_big_fits(&res, tc)) {
                overflow2(ctx, operation, span, tc, &x, &y, &res);
                cint_fault_exact_int(ctx, &res);
                return 1;
            }
        }
        break;
    case CINT_OP_REM:
        if (cint_big_is_zero(&y)) return div_zero(ctx, operation, span, tc, &x, &y);
        cint_big_divmod(NULL, &res, &x, &y);
        break;
    case CINT_OP_SHL:
    case CINT_OP_SHR: {
        cint_big width;
        int bits = CINT_TC_BITS(tc);
        cint_big_from_i64(&width, bits);
        if (cint_big_is_negative(&y) || cint_big_cmp(&y, &width) >= 0) {
            cint_big limit;
            cint_fault_begin(ctx, CINT_E_SHIFT, operation, span);
            two_operands(ctx, tc, &x, &y);
            cint_big_from_i64(&limit, cint_big_is_negative(&y) ? 0 : bits - 1);
            cint_fault_limit(ctx, tc, &limit);
            return 1;
        }
        int k = (int)y.w[0];
        if (op == CINT_OP_SHR) {
            cint_big_sar(&res, &x, k);
        } else {
            cint_big_shl(&res, &x, k);
            if (!cint_big_fits(&res, tc)) {
                overflow2(ctx, operation, span, tc, &x, &y, &res);
                cint_fault_exact_int(ctx, &res);
                return 1;
            }
        }
        break;
    }
    case CINT_OP_MIN: res = cint_big_cmp(&x, &y) <= 0 ? x : y; break;
    case CINT_OP_MAX: res = cint_big_cmp(&x, &y) >= 0 ? x : y; break;
    case CINT_OP_AND:
    case CINT_OP_OR:
    case CINT_OP_XOR: cint_big_bitwise(&res, &x, &y, op); break;
    default: cint_resource(ctx, "internal error: unknown binary operation"); return 1;
    }
    cint_big_store(&res, tc, r);
    return 0;
}

int cint_unary(cint_ctx *ctx, int op, uint32_t tc, void *r, const void *a, const char *operation, int32_t span) {
    cint_big x, res;
    cint_big_load(&x, tc, a);
    if (op == CINT_OP_NOT) {
        cint_big_bitwise(&res, &x, NULL, CINT_OP_NOT);
        cint_big_wrap(&res, &res, tc);
    } else {
        if (op == CINT_OP_NEG || cint_big_is_negative(&x)) cint_big_neg(&res, &x);
        else res = x;
        if (!cint_big_fits(&res, tc)) {
            cint_fault_begin(ctx, CINT_E_OVERFLOW, operation, span);
            cint_fault_operand(ctx, tc, &x);
            cint_fault_exact_real(ctx, tc, &res);
            cint_fault_crossed(ctx, tc, &res);
            return 1;
        }
    }
    cint_big_store(&res, tc, r);
    return 0;
}

static int narrow(cint_ctx *ctx, const char *operation, int32_t span, uint32_t from, const cint_big *x) {
    cint_fault_begin(ctx, CINT_E_NARROW, operation, span);
    cint_fault_operand(ctx, from, x);
    return 1;
}

int cint_convert(cint_ctx *ctx, int form, uint32_t from, uint32_t to, void *r, const void *a,
                 const char *operation, int32_t span) {
    cint_big x, res;
    cint_big_load(&x, from, a);
    if (form == CINT_FORM_WRAP) {
        cint_big_wrap(&res, &x, to);
        cint_big_store(&res, to, r);
        return 0;
    }
    bool fixed = CINT_TC_IS_FIXED(from) || CINT_TC_IS_FIXED(to);
    if (!fixed) {
        if (!cint_big_fits(&x, to)) {
            narrow(ctx, operation, span, from, &x);
            cint_fault_exact_int(ctx, &x);
            cint_fault_crossed(ctx, to, &x);
            return 1;
        }
        cint_big_store(&x, to, r);
        return 0;
    }
    int ns = CINT_TC_FRAC(from), nd = CINT_TC_FRAC(to);
    cint_big den;
    power_of_two(&den, ns);
    if (nd >= ns) {
        cint_big_shl(&res, &x, nd - ns);
        if (!cint_big_fits(&res, to)) {
            narrow(ctx, operation, span, from, &x);
            cint_fault_exact_fraction(ctx, &x, &den);
            cint_fault_crossed(ctx, to, &res);
            return 1;
        }
        cint_big_store(&res, to, r);
        return 0;
    }
    int down = ns - nd;
    cint_big back, lost, lo, hi;
    cint_big_sar(&res, &x, down);
    cint_big_shl(&back, &res, down);
    cint_big_sub(&lost, &x, &back);
    bool inexact = !cint_big_is_zero(&lost);
    cint_big_min_of(&lo, to);
    cint_big_max_of(&hi, to);
    int above = cint_big_cmp(&res, &hi), below = cint_big_cmp(&res, &lo);
    if (!inexact && above <= 0 && below >= 0) {
        cint_big_store(&res, to, r);
        return 0;
    }
    narrow(ctx, operation, span, from, &x);
    cint_fault_exact_fraction(ctx, &x, &den);
    if (above > 0 || (above == 0 && inexact)) cint_fault_limit(ctx, to, &hi);
    else if (below < 0) cint_fault_limit(ctx, to, &lo);
    return 1;
}

int cint_div_round(cint_ctx *ctx, int mode, uint32_t tc, void *r, const void *a, const void *b,
                   const char *operation, int32_t span) {
    cint_big x, y, q;
    cint_big_load(&x, tc, a);
    cint_big_load(&y, tc, b);
    if (cint_big_is_zero(&y)) return div_zero(ctx, operation, span, tc, &x, &y);
    rounded_quotient(&q, &x, &y, mode);
    if (!cint_big_fits(&q, tc)) {
        overflow2(ctx, operation, span, tc, &x, &y, &q);
        cint_fault_exact_int(ctx, &q);
        return 1;
    }
    cint_big_store(&q, tc, r);
    return 0;
}

int cint_compare(uint32_t tc, const void *a, const void *b) {
    cint_big x, y;
    cint_big_load(&x, tc, a);
    cint_big_load(&y, tc, b);
    return cint_big_cmp(&x, &y);
}

/* ---- records of inline operations: the value bits back into the native layout */

typedef union {
    int8_t i8;
    int16_t i16;
    int32_t i32;
    int64_t i64;
    uint64_t u64;
    bool b;
} native64;

static native64 native_of(uint32_t tc, uint64_t bits) {
    cint_big v;
    native64 n;
    if (CINT_TC_IS_SIGNED(tc)) cint_big_from_i64(&v, cint_to_i64(bits));
    else cint_big_from_u64(&v, bits);
    memset(&n, 0, sizeof n);
    cint_big_store(&v, tc, &n);
    return n;
}

static void diverged(cint_ctx *ctx, const char *operation) {
    char text[200];
    snprintf(text, sizeof text, "internal error: the inline %s faulted but the run-time's does not", operation);
    cint_resource(ctx, text);
}

void cint_fail_binary64(cint_ctx *ctx, int op, int form, uint32_t tc, uint64_t a, uint64_t b,
                        const char *operation, int32_t span) {
    native64 x = native_of(tc, a), y = native_of(tc, b), r;
    if (!cint_binary(ctx, op, form, tc, &r, &x, &y, operation, span)) diverged(ctx, operation);
}

void cint_fail_unary64(cint_ctx *ctx, int op, uint32_t tc, uint64_t a, const char *operation, int32_t span) {
    native64 x = native_of(tc, a), r;
    if (!cint_unary(ctx, op, tc, &r, &x, operation, span)) diverged(ctx, operation);
}

void cint_fail_convert64(cint_ctx *ctx, int form, uint32_t from, uint32_t to, uint64_t a,
                         const char *operation, int32_t span) {
    native64 x = native_of(from, a);
    cint_w16 r;
    if (!cint_convert(ctx, form, from, to, &r, &x, operation, span)) diverged(ctx, operation);
}

void cint_fail_div_round64(cint_ctx *ctx, int mode, uint32_t tc, uint64_t a, uint64_t b,
                           const char *operation, int32_t span) {
    native64 x = native_of(tc, a), y = native_of(tc, b), r;
    if (!cint_div_round(ctx, mode, tc, &r, &x, &y, operation, span)) diverged(ctx, operation);
}

void cint_fail_div_zero_64(cint_ctx *ctx, uint32_t tc, uint64_t a, uint64_t b, const char *operation,
                           int32_t span) {
    cint_big x, y;
    if (CINT_TC_IS_SIGNED(tc)) {
        cint_big_from_i64(&x, cint_to_i64(a));
        cint_big_from_i64(&y, cint_to_i64(b));
    } else {
        cint_big_from_u64(&x, a);
        cint_big_from_u64(&y, b);
    }
    div_zero(ctx, operation, span, tc, &x, &y);
}
