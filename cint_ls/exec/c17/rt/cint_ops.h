/* The inline operations of the cint run-time on values of up to 64 bits, the fast paths
 * the emitted C uses (included by cint_rt.h). Each checked operation returns true when
 * it faults, before any result that depends on it is stored; the emitted C then calls
 * cint_fail_* for the record (rt/arith.c recomputes it), or, on a kernel's fast path,
 * leaves the work-item. No undefined behaviour: overflow is detected with
 * __builtin_*_overflow or by testing operands first; signed results are formed from
 * unsigned bits with explicit, value-preserving conversions. */
#ifndef CINT_OPS_H
#define CINT_OPS_H

#define CINT_UNLIKELY(x) __builtin_expect(!!(x), 0)
/* What the emitted C knows and the compiler cannot see: a work-item's index is within
 * its extent (SPEC-02P.1 8.2). Without it GCC's -Warray-bounds (in -Wall, [B-7]) takes a
 * store in a branch that can never run (an index compared with INT64_MAX - 1) for an
 * access out of bounds, and -Werror refuses the program (the differential fuzzer,
 * seed 305:1990). */
#define CINT_ASSUME(x) do { if (!(x)) __builtin_unreachable(); } while (0)

static inline int8_t cint_to_i8(uint64_t u) {
    uint8_t x = (uint8_t)u;
    return x <= 127u ? (int8_t)x : (int8_t)((int)x - 256);
}
static inline int16_t cint_to_i16(uint64_t u) {
    uint16_t x = (uint16_t)u;
    return x <= 32767u ? (int16_t)x : (int16_t)((int32_t)x - 65536);
}
static inline int32_t cint_to_i32(uint64_t u) {
    uint32_t x = (uint32_t)u;
    return x <= 2147483647u ? (int32_t)x : (int32_t)(x - 2147483648u) - 2147483647 - 1;
}
static inline int64_t cint_to_i64(uint64_t u) {
    return u <= (uint64_t)INT64_MAX ? (int64_t)u : (int64_t)(u - ((uint64_t)INT64_MAX + 1u)) - INT64_MAX - 1;
}
static inline uint8_t cint_to_u8(uint64_t u) { return (uint8_t)u; }
static inline uint16_t cint_to_u16(uint64_t u) { return (uint16_t)u; }
static inline uint32_t cint_to_u32(uint64_t u) { return (uint32_t)u; }
static inline uint64_t cint_to_u64(uint64_t u) { return u; }

/* add, sub, mul in three forms; div, rem checked; min, max.  T: the C type, S: the
 * suffix, MIN/MAX its bounds. */
#define CINT_DEFINE_ARITH(T, S)                                                                              \
    static inline bool cint_add_checked_##S(T a, T b, T *r) { return __builtin_add_overflow(a, b, r); }     \
    static inline bool cint_sub_checked_##S(T a, T b, T *r) { return __builtin_sub_overflow(a, b, r); }     \
    static inline bool cint_mul_checked_##S(T a, T b, T *r) { return __builtin_mul_overflow(a, b, r); }     \
    static inline T cint_add_wrap_##S(T a, T b) { T r; (void)__builtin_add_overflow(a, b, &r); return r; }  \
    static inline T cint_sub_wrap_##S(T a, T b) { T r; (void)__builtin_sub_overflow(a, b, &r); return r; }  \
    static inline T cint_mul_wrap_##S(T a, T b) { T r; (void)__builtin_mul_overflow(a, b, &r); return r; }  \
    static inline T cint_min_##S(T a, T b) { return a < b ? a : b; }                                         \
    static inline T cint_max_##S(T a, T b) { return a > b ? a : b; }

#define CINT_DEFINE_SIGNED(T, S, MIN, MAX)                                                                   \
    CINT_DEFINE_ARITH(T, S)                                                                                  \
    static inline T cint_add_sat_##S(T a, T b) {                                                             \
        T r;                                                                                                 \
        if (!__builtin_add_overflow(a, b, &r)) return r;                                                     \
        return a < 0 ? (MIN) : (MAX);                                                                        \
    }                                                                                                        \
    static inline T cint_sub_sat_##S(T a, T b) {                                                             \
        T r;                                                                                                 \
        if (!__builtin_sub_overflow(a, b, &r)) return r;                                                     \
        return a < 0 ? (MIN) : (MAX);                                                                        \
    }                                                                                                        \
    static inline T cint_mul_sat_##S(T a, T b) {                                                             \
        T r;                                                                                                 \
        if (!__builtin_mul_overflow(a, b, &r)) return r;                                                     \
        return ((a < 0) != (b < 0)) ? (MIN) : (MAX);                                                         \
    }                                                                                                        \
    static inline bool cint_div_checked_##S(T a, T b, T *r) {                                               \
        if (b == 0 || (a == (MIN) && b == -1)) return true;                                                  \
        *r = (T)(a / b);                                                                                     \
        return false;                                                                                        \
    }                                                                                                        \
    static inline bool cint_rem_checked_##S(T a, T b, T *r) {                                                \
        if (b == 0) return true;                                                                             \
        *r = b == -1 ? (T)0 : (T)(a % b); /* MIN % -1 is 0, computed without the instruction */             \
        return false;                                                                                        \
    }

#define CINT_DEFINE_UNSIGNED(T, S, MAX)                                                                      \
    CINT_DEFINE_ARITH(T, S)                                                                                  \
    static inline T cint_add_sat_##S(T a, T b) {                                                             \
        T r;                                                                                                 \
        return __builtin_add_overflow(a, b, &r) ? (MAX) : r;                                                 \
    }                                                                                                        \
    static inline T cint_sub_sat_##S(T a, T b) {                                                             \
        T r;                                                                                                 \
        return __builtin_sub_overflow(a, b, &r) ? (T)0 : r;                                                  \
    }                                                                                                        \
    static inline T cint_mul_sat_##S(T a, T b) {                                                             \
        T r;                                                                                                 \
        return __builtin_mul_overflow(a, b, &r) ? (MAX) : r;                                                 \
    }                                                                                                        \
    static inline bool cint_div_checked_##S(T a, T b, T *r) {                                               \
        if (b == 0) return true;                                                                             \
        *r = (T)(a / b);                                                                                     \
        return false;                                                                                        \
    }                                                                                                        \
    static inline bool cint_rem_checked_##S(T a, T b, T *r) {                                                \
        if (b == 0) return true;                                                                             \
        *r = (T)(a % b);                                                                                     \
        return false;                                                                                        \
    }

CINT_DEFINE_SIGNED(int8_t, i8, INT8_MIN, INT8_MAX)
CINT_DEFINE_SIGNED(int16_t, i16, INT16_MIN, INT16_MAX)
CINT_DEFINE_SIGNED(int32_t, i32, INT32_MIN, INT32_MAX)
CINT_DEFINE_SIGNED(int64_t, i64, INT64_MIN, INT64_MAX)
CINT_DEFINE_UNSIGNED(uint8_t, u8, UINT8_MAX)
CINT_DEFINE_UNSIGNED(uint16_t, u16, UINT16_MAX)
CINT_DEFINE_UNSIGNED(uint32_t, u32, UINT32_MAX)
CINT_DEFINE_UNSIGNED(uint64_t, u64, UINT64_MAX)

/* Shifts: the count has the left operand's type and is tested first [IM-125].  `<<`
 * is checked (x * 2^k must fit), computed on the unsigned bits; `>>` is arithmetic for
 * signed types (floor division by 2^k) and logical for unsigned ones. */
#define CINT_DEFINE_SHIFTS_SIGNED(T, S, W, MAX)                                                              \
    static inline bool cint_shl_##S(T a, T k, T *r) {                                                        \
        if (k < 0 || k >= (W)) return true;                                                                  \
        if (a > (T)((MAX) >> k) || a < (T)(-((MAX) >> k) - 1)) return true; /* MIN >> k, no shift of < 0 */  \
        *r = cint_to_##S((uint64_t)(int64_t)a << k);                                                         \
        return false;                                                                                        \
    }                                                                                                        \
    static inline bool cint_shr_##S(T a, T k, T *r) {                                                        \
        if (k < 0 || k >= (W)) return true;                                                                  \
        *r = a < 0 ? (T) ~(T)((T)~a >> k) : (T)(a >> k);                                                     \
        return false;                                                                                        \
    }
#define CINT_DEFINE_SHIFTS_UNSIGNED(T, S, W, MAX)                                                            \
    static inline bool cint_shl_##S(T a, T k, T *r) {                                                        \
        if (k >= (W)) return true;                                                                           \
        if (a > (T)((MAX) >> k)) return true;                                                                \
        *r = (T)((uint64_t)a << k);                                                                          \
        return false;                                                                                        \
    }                                                                                                        \
    static inline bool cint_shr_##S(T a, T k, T *r) {                                                        \
        if (k >= (W)) return true;                                                                           \
        *r = (T)(a >> k);                                                                                    \
        return false;                                                                                        \
    }

CINT_DEFINE_SHIFTS_SIGNED(int8_t, i8, 8, INT8_MAX)
CINT_DEFINE_SHIFTS_SIGNED(int16_t, i16, 16, INT16_MAX)
CINT_DEFINE_SHIFTS_SIGNED(int32_t, i32, 32, INT32_MAX)
CINT_DEFINE_SHIFTS_SIGNED(int64_t, i64, 64, INT64_MAX)
CINT_DEFINE_SHIFTS_UNSIGNED(uint8_t, u8, 8, UINT8_MAX)
CINT_DEFINE_SHIFTS_UNSIGNED(uint16_t, u16, 16, UINT16_MAX)
CINT_DEFINE_SHIFTS_UNSIGNED(uint32_t, u32, 32, UINT32_MAX)
CINT_DEFINE_SHIFTS_UNSIGNED(uint64_t, u64, 64, UINT64_MAX)

/* neg and abs (checked): MIN, and `-x` of an unsigned x > 0, overflow. */
#define CINT_DEFINE_NEG_SIGNED(T, S, MIN)                                                                    \
    static inline bool cint_neg_##S(T a, T *r) {                                                             \
        if (a == (MIN)) return true;                                                                         \
        *r = (T)-a;                                                                                          \
        return false;                                                                                        \
    }                                                                                                        \
    static inline bool cint_abs_##S(T a, T *r) {                                                             \
        if (a == (MIN)) return true;                                                                         \
        *r = a < 0 ? (T)-a : a;                                                                              \
        return false;                                                                                        \
    }
#define CINT_DEFINE_NEG_UNSIGNED(T, S)                                                                       \
    static inline bool cint_neg_##S(T a, T *r) {                                                             \
        if (a != 0) return true;                                                                             \
        *r = 0;                                                                                              \
        return false;                                                                                        \
    }                                                                                                        \
    static inline bool cint_abs_##S(T a, T *r) {                                                             \
        *r = a;                                                                                              \
        return false;                                                                                        \
    }

CINT_DEFINE_NEG_SIGNED(int8_t, i8, INT8_MIN)
CINT_DEFINE_NEG_SIGNED(int16_t, i16, INT16_MIN)
CINT_DEFINE_NEG_SIGNED(int32_t, i32, INT32_MIN)
CINT_DEFINE_NEG_SIGNED(int64_t, i64, INT64_MIN)
CINT_DEFINE_NEG_UNSIGNED(uint8_t, u8)
CINT_DEFINE_NEG_UNSIGNED(uint16_t, u16)
CINT_DEFINE_NEG_UNSIGNED(uint32_t, u32)
CINT_DEFINE_NEG_UNSIGNED(uint64_t, u64)

/* div_round on signed 64-bit values (narrower signed types widen to it): the exact
 * quotient rounded by `mode`.  b = 0 and MIN / -1 fault.  The _nz form is for a divisor
 * known to be neither 0 nor -1 (a kernel's fast path tests a uniform divisor once). */
static inline int64_t cint_div_round_nz_s64(int mode, int64_t a, int64_t b);
static inline bool cint_div_round_s64(int mode, int64_t a, int64_t b, int64_t min, int64_t *r) {
    if (b == 0) return true;
    if (b == -1) {
        if (a == min) return true;
        *r = -a;
        return false;
    }
    *r = cint_div_round_nz_s64(mode, a, b);
    return false;
}
static inline int64_t cint_div_round_nz_s64(int mode, int64_t a, int64_t b) {
    int64_t q = a / b, rem = a % b;
    if (rem != 0) {
        bool negative = (rem < 0) != (b < 0); /* the exact quotient is below 0 */
        uint64_t ur = rem < 0 ? (uint64_t)0 - (uint64_t)rem : (uint64_t)rem;
        uint64_t ub = b < 0 ? (uint64_t)0 - (uint64_t)b : (uint64_t)b;
        uint64_t other = ub - ur; /* 2|r| vs |b|: |r| vs |b| - |r| */
        int side = ur > other ? 1 : (ur == other ? 0 : -1);
        bool away;
        switch (mode) {
        case CINT_ROUND_FLOOR: away = negative; break;
        case CINT_ROUND_CEIL: away = !negative; break;
        case CINT_ROUND_TRUNC: away = false; break;
        case CINT_ROUND_AWAY: away = true; break;
        case CINT_ROUND_HALF_EVEN: away = side > 0 || (side == 0 && (q & 1) != 0); break;
        case CINT_ROUND_HALF_AWAY: away = side >= 0; break;
        default: away = side > 0; break; /* half_trunc */
        }
        if (away) q += negative ? -1 : 1; /* |q| <= |a| / 2 here: no overflow */
    }
    return q;
}

static inline uint64_t cint_div_round_nz_u64(int mode, uint64_t a, uint64_t b);
static inline bool cint_div_round_u64(int mode, uint64_t a, uint64_t b, uint64_t *r) {
    if (b == 0) return true;
    *r = cint_div_round_nz_u64(mode, a, b);
    return false;
}
static inline uint64_t cint_div_round_nz_u64(int mode, uint64_t a, uint64_t b) {
    uint64_t q = a / b, rem = a % b;
    if (rem != 0) {
        uint64_t other = b - rem;
        int side = rem > other ? 1 : (rem == other ? 0 : -1);
        bool up;
        switch (mode) {
        case CINT_ROUND_FLOOR: up = false; break;
        case CINT_ROUND_CEIL: up = true; break;
        case CINT_ROUND_TRUNC: up = false; break;
        case CINT_ROUND_AWAY: up = true; break;
        case CINT_ROUND_HALF_EVEN: up = side > 0 || (side == 0 && (q & 1u) != 0); break;
        case CINT_ROUND_HALF_AWAY: up = side >= 0; break;
        default: up = side > 0; break;
        }
        if (up) q += 1u; /* q < a here: no overflow */
    }
    return q;
}

/* An element's offset in a view, checked inline (the record: cint_fail_view_index). */
static inline bool cint_view_at(const cint_view *v, int32_t rank, const int64_t *index, int64_t *offset) {
    int64_t off = v->origin;
    for (int32_t d = 0; d < rank; d++) {
        if ((uint64_t)index[d] >= (uint64_t)v->extents[d]) return true;
        off += index[d] * v->strides[d];
    }
    *offset = off;
    return false;
}

/* Comparisons (through functions, so that a comparison with a constant at a type's
 * bound draws no -Wtype-limits warning). */
#define CINT_DEFINE_COMPARE(T, S)                                                                            \
    static inline bool cint_eq_##S(T a, T b) { return a == b; }                                              \
    static inline bool cint_ne_##S(T a, T b) { return a != b; }                                              \
    static inline bool cint_lt_##S(T a, T b) { return a < b; }                                               \
    static inline bool cint_le_##S(T a, T b) { return a <= b; }                                              \
    static inline bool cint_gt_##S(T a, T b) { return a > b; }                                               \
    static inline bool cint_ge_##S(T a, T b) { return a >= b; }

CINT_DEFINE_COMPARE(int8_t, i8)
CINT_DEFINE_COMPARE(int16_t, i16)
CINT_DEFINE_COMPARE(int32_t, i32)
CINT_DEFINE_COMPARE(int64_t, i64)
CINT_DEFINE_COMPARE(uint8_t, u8)
CINT_DEFINE_COMPARE(uint16_t, u16)
CINT_DEFINE_COMPARE(uint32_t, u32)
CINT_DEFINE_COMPARE(uint64_t, u64)

/* Fuel: one unit, as cheap as a counter:
 *   if (CINT_FUEL_EMPTY(ctx) && cint_fuel_out(ctx, span)) <fault>; ctx->fuel_left--; */
#define CINT_FUEL_EMPTY(ctx) CINT_UNLIKELY((ctx)->fuel_left == 0u)

/* Reductions on the fast path: contributions of up to 64 bits. */
static inline void cint_red_sum_s64(cint_reduction *r, int64_t x) {
    uint64_t v = (uint64_t)x, lo = r->acc[0] + v;
    r->acc[1] += (uint64_t)(lo < v) + (x < 0 ? UINT64_MAX : 0u);
    r->acc[0] = lo;
    r->count++;
}
static inline void cint_red_sum_u64(cint_reduction *r, uint64_t x) {
    uint64_t lo = r->acc[0] + x;
    r->acc[1] += (uint64_t)(lo < x);
    r->acc[0] = lo;
    r->count++;
}
/* The same on an accumulator held in two locals (a kernel's fast path). */
static inline void cint_sum_s64(uint64_t *lo, uint64_t *hi, int64_t x) {
    uint64_t v = (uint64_t)x, l = *lo + v;
    *hi += (uint64_t)(l < v) + (x < 0 ? UINT64_MAX : 0u);
    *lo = l;
}
static inline void cint_sum_u64(uint64_t *lo, uint64_t *hi, uint64_t x) {
    uint64_t l = *lo + x;
    *hi += (uint64_t)(l < x);
    *lo = l;
}
/* A 64-bit partial sum on the fast path: folded into the 128-bit total only when adding
 * x would overflow it (then x starts the next partial). */
static inline void cint_part_s64(int64_t *part, uint64_t *lo, uint64_t *hi, int64_t x) {
    int64_t s;
    if (CINT_UNLIKELY(__builtin_add_overflow(*part, x, &s))) {
        cint_sum_s64(lo, hi, *part);
        s = x;
    }
    *part = s;
}
static inline void cint_part_u64(uint64_t *part, uint64_t *lo, uint64_t *hi, uint64_t x) {
    uint64_t s;
    if (CINT_UNLIKELY(__builtin_add_overflow(*part, x, &s))) {
        cint_sum_u64(lo, hi, *part);
        s = x;
    }
    *part = s;
}
static inline void cint_red_count(cint_reduction *r, bool x) {
    r->count++;
    r->trues += x ? 1 : 0;
}

#endif
