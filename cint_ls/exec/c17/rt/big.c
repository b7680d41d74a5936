/* cint_big: exact integers of 2304 bits in two's complement, for the run-time's own
 * use: wide arithmetic, conversions, exact results of fault records, value text.
 * Portable C17: products of limbs are formed from 32-bit halves (no __int128). */
#include "cint_rt.h"

#define L CINT_BIG_LIMBS

static void big_zero(cint_big *r) { memset(r->w, 0, sizeof r->w); }

void cint_big_from_i64(cint_big *r, int64_t v) {
    uint64_t fill = v < 0 ? UINT64_MAX : 0u;
    for (int i = 0; i < L; i++) r->w[i] = fill;
    r->w[0] = (uint64_t)v;
}

void cint_big_from_u64(cint_big *r, uint64_t v) {
    big_zero(r);
    r->w[0] = v;
}

bool cint_big_is_negative(const cint_big *a) { return (a->w[L - 1] >> 63) != 0u; }

bool cint_big_is_zero(const cint_big *a) {
    for (int i = 0; i < L; i++)
        if (a->w[i] != 0u) return false;
    return true;
}

/* Native layout of a value of type tc <-> big (sign- or zero-extended). */
void cint_big_load(cint_big *r, uint32_t tc, const void *p) {
    int bits = CINT_TC_BITS(tc);
    bool sign = CINT_TC_IS_SIGNED(tc);
    if (CINT_TC_IS_BOOL(tc)) {
        cint_big_from_u64(r, *(const bool *)p ? 1u : 0u);
        return;
    }
    switch (bits) {
    case 8:
        if (sign) cint_big_from_i64(r, *(const int8_t *)p);
        else cint_big_from_u64(r, *(const uint8_t *)p);
        return;
    case 16:
        if (sign) cint_big_from_i64(r, *(const int16_t *)p);
        else cint_big_from_u64(r, *(const uint16_t *)p);
        return;
    case 32:
        if (sign) cint_big_from_i64(r, *(const int32_t *)p);
        else cint_big_from_u64(r, *(const uint32_t *)p);
        return;
    case 64:
        if (sign) cint_big_from_i64(r, *(const int64_t *)p);
        else cint_big_from_u64(r, *(const uint64_t *)p);
        return;
    default: {
        int n = bits / 64;
        const uint64_t *w = (const uint64_t *)p;
        uint64_t fill = (sign && (w[n - 1] >> 63) != 0u) ? UINT64_MAX : 0u;
        for (int i = 0; i < L; i++) r->w[i] = i < n ? w[i] : fill;
        return;
    }
    }
}

void cint_big_store(const cint_big *a, uint32_t tc, void *p) {
    int bits = CINT_TC_BITS(tc);
    if (CINT_TC_IS_BOOL(tc)) {
        *(bool *)p = a->w[0] != 0u;
        return;
    }
    switch (bits) {
    case 8:
        if (CINT_TC_IS_SIGNED(tc)) *(int8_t *)p = cint_to_i8(a->w[0]);
        else *(uint8_t *)p = (uint8_t)a->w[0];
        return;
    case 16:
        if (CINT_TC_IS_SIGNED(tc)) *(int16_t *)p = cint_to_i16(a->w[0]);
        else *(uint16_t *)p = (uint16_t)a->w[0];
        return;
    case 32:
        if (CINT_TC_IS_SIGNED(tc)) *(int32_t *)p = cint_to_i32(a->w[0]);
        else *(uint32_t *)p = (uint32_t)a->w[0];
        return;
    case 64:
        if (CINT_TC_IS_SIGNED(tc)) *(int64_t *)p = cint_to_i64(a->w[0]);
        else *(uint64_t *)p = a->w[0];
        return;
    default:
        memcpy(p, a->w, (size_t)bits / 8u);
        return;
    }
}

int cint_big_cmp(const cint_big *a, const cint_big *b) {
    bool na = cint_big_is_negative(a), nb = cint_big_is_negative(b);
    if (na != nb) return na ? -1 : 1;
    for (int i = L - 1; i >= 0; i--) {
        if (a->w[i] != b->w[i]) return a->w[i] < b->w[i] ? -1 : 1;
    }
    return 0;
}

void cint_big_add(cint_big *r, const cint_big *a, const cint_big *b) {
    uint64_t carry = 0;
    for (int i = 0; i < L; i++) {
        uint64_t s = a->w[i] + carry;
        uint64_t c1 = s < carry;
        uint64_t t = s + b->w[i];
        uint64_t c2 = t < s;
        r->w[i] = t;
        carry = c1 + c2;
    }
}

void cint_big_sub(cint_big *r, const cint_big *a, const cint_big *b) {
    uint64_t borrow = 0;
    for (int i = 0; i < L; i++) {
        uint64_t x = a->w[i], y = b->w[i];
        uint64_t d = x - y;
        uint64_t b1 = x < y;
        uint64_t e = d - borrow;
        uint64_t b2 = d < borrow;
        r->w[i] = e;
        borrow = b1 + b2;
    }
}

void cint_big_neg(cint_big *r, const cint_big *a) {
    cint_big zero;
    big_zero(&zero);
    cint_big_sub(r, &zero, a);
}

static void big_abs(cint_big *r, const cint_big *a) {
    if (cint_big_is_negative(a)) cint_big_neg(r, a);
    else *r = *a;
}

/* The number of limbs up to the most significant nonzero one (of a magnitude). */
static int big_length(const cint_big *a) {
    int n = L;
    while (n > 0 && a->w[n - 1] == 0u) n--;
    return n;
}

/* a * b = hi * 2^64 + lo, from 32-bit halves. */
static uint64_t mul64(uint64_t a, uint64_t b, uint64_t *hi) {
    uint64_t a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
    *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    return (mid << 32) | (p00 & 0xffffffffu);
}

void cint_big_mul(cint_big *r, const cint_big *a, const cint_big *b) {
    bool negative = cint_big_is_negative(a) != cint_big_is_negative(b);
    cint_big x, y, p;
    big_abs(&x, a);
    big_abs(&y, b);
    big_zero(&p);
    int nx = big_length(&x), ny = big_length(&y);
    for (int i = 0; i < nx; i++) {
        uint64_t carry = 0;
        for (int j = 0; j < ny && i + j < L; j++) {
            uint64_t hi, lo = mul64(x.w[i], y.w[j], &hi);
            uint64_t s = p.w[i + j] + lo;
            hi += s < lo;
            uint64_t t = s + carry;
            hi += t < s;
            p.w[i + j] = t;
            carry = hi;
        }
        if (i + ny < L) p.w[i + ny] = carry;
    }
    if (negative) cint_big_neg(r, &p);
    else *r = p;
}

void cint_big_shl(cint_big *r, const cint_big *a, int k) {
    cint_big t;
    int limbs = k / 64, bits = k % 64;
    for (int i = L - 1; i >= 0; i--) {
        int from = i - limbs;
        uint64_t v = 0;
        if (from >= 0) {
            v = a->w[from] << bits;
            if (bits != 0 && from >= 1) v |= a->w[from - 1] >> (64 - bits);
        }
        t.w[i] = v;
    }
    *r = t;
}

/* Arithmetic shift right: floor(a / 2^k). */
void cint_big_sar(cint_big *r, const cint_big *a, int k) {
    cint_big t;
    uint64_t fill = cint_big_is_negative(a) ? UINT64_MAX : 0u;
    int limbs = k / 64, bits = k % 64;
    for (int i = 0; i < L; i++) {
        int from = i + limbs;
        uint64_t lo = from < L ? a->w[from] : fill;
        uint64_t hi = from + 1 < L ? a->w[from + 1] : fill;
        t.w[i] = bits == 0 ? lo : (lo >> bits) | (hi << (64 - bits));
    }
    *r = t;
}

static int bit_length(const cint_big *a) {
    int n = big_length(a);
    if (n == 0) return 0;
    int bits = 64;
    uint64_t top = a->w[n - 1];
    while ((top >> 63) == 0u) {
        top <<= 1;
        bits--;
    }
    return (n - 1) * 64 + bits;
}

/* Truncating division (b != 0): q = trunc(a / b), rem = a - q * b (the sign of a).
 * Bit-serial on magnitudes, over the significant limbs only. */
void cint_big_divmod(cint_big *q, cint_big *rem, const cint_big *a, const cint_big *b) {
    bool na = cint_big_is_negative(a), nb = cint_big_is_negative(b);
    cint_big x, y, quot, r;
    big_abs(&x, a);
    big_abs(&y, b);
    big_zero(&quot);
    big_zero(&r);
    int n = big_length(&y) + 1; /* r < 2y fits in n limbs */
    if (n > L) n = L;
    for (int bit = bit_length(&x) - 1; bit >= 0; bit--) {
        for (int i = n - 1; i > 0; i--) r.w[i] = (r.w[i] << 1) | (r.w[i - 1] >> 63);
        r.w[0] = (r.w[0] << 1) | ((x.w[bit / 64] >> (bit % 64)) & 1u);
        int cmp = 0;
        for (int i = n - 1; i >= 0; i--) {
            if (r.w[i] != y.w[i]) {
                cmp = r.w[i] < y.w[i] ? -1 : 1;
                break;
            }
        }
        if (cmp >= 0) {
            uint64_t borrow = 0;
            for (int i = 0; i < n; i++) {
                uint64_t s = r.w[i], t = y.w[i];
                uint64_t d = s - t;
                uint64_t b1 = s < t;
                uint64_t e = d - borrow;
                uint64_t b2 = d < borrow;
                r.w[i] = e;
                borrow = b1 + b2;
            }
            quot.w[bit / 64] |= (uint64_t)1 << (bit % 64);
        }
    }
    if (q != NULL) {
        if (na != nb) cint_big_neg(q, &quot);
        else *q = quot;
    }
    if (rem != NULL) {
        if (na) cint_big_neg(rem, &r);
        else *rem = r;
    }
}

void cint_big_bitwise(cint_big *r, const cint_big *a, const cint_big *b, int op) {
    for (int i = 0; i < L; i++) {
        uint64_t x = a->w[i], y = b != NULL ? b->w[i] : 0u;
        r->w[i] = op == CINT_OP_AND ? (x & y) : op == CINT_OP_OR ? (x | y) : op == CINT_OP_XOR ? (x ^ y) : ~x;
    }
}

void cint_big_min_of(cint_big *r, uint32_t tc) {
    big_zero(r);
    if (!CINT_TC_IS_SIGNED(tc)) return;
    cint_big one;
    cint_big_from_u64(&one, 1u);
    cint_big_shl(r, &one, CINT_TC_BITS(tc) - 1);
    cint_big_neg(r, r);
}

void cint_big_max_of(cint_big *r, uint32_t tc) {
    if (CINT_TC_IS_BOOL(tc)) {
        cint_big_from_u64(r, 1u);
        return;
    }
    cint_big one;
    cint_big_from_u64(&one, 1u);
    cint_big_shl(r, &one, CINT_TC_BITS(tc) - (CINT_TC_IS_SIGNED(tc) ? 1 : 0));
    cint_big_sub(r, r, &one);
}

bool cint_big_fits(const cint_big *a, uint32_t tc) {
    cint_big lo, hi;
    cint_big_min_of(&lo, tc);
    cint_big_max_of(&hi, tc);
    return cint_big_cmp(a, &lo) >= 0 && cint_big_cmp(a, &hi) <= 0;
}

/* a reduced modulo 2^bits into the range of tc (two's complement). */
void cint_big_wrap(cint_big *r, const cint_big *a, uint32_t tc) {
    int bits = CINT_TC_BITS(tc);
    cint_big t = *a;
    int full = bits / 64;
    bool negative = CINT_TC_IS_SIGNED(tc) && ((t.w[(bits - 1) / 64] >> ((bits - 1) % 64)) & 1u) != 0u;
    if (bits % 64 != 0) {
        uint64_t mask = ((uint64_t)1 << (bits % 64)) - 1u;
        t.w[full] = negative ? (t.w[full] | ~mask) : (t.w[full] & mask);
        full++;
    }
    for (int i = full; i < L; i++) t.w[i] = negative ? UINT64_MAX : 0u;
    *r = t;
}

/* Decimal text; returns its length (without the terminating 0). */
size_t cint_big_to_decimal(const cint_big *a, char *buffer, size_t capacity) {
    cint_big m;
    big_abs(&m, a);
    /* 32-bit digits, most significant first, divided by 10^9 repeatedly. */
    uint32_t digits[2 * L];
    int n = 2 * L;
    for (int i = 0; i < L; i++) {
        digits[2 * L - 1 - 2 * i] = (uint32_t)(m.w[i] & 0xffffffffu);
        digits[2 * L - 2 - 2 * i] = (uint32_t)(m.w[i] >> 32);
    }
    char reversed[720];
    size_t len = 0;
    int start = 0;
    while (start < n && digits[start] == 0u) start++;
    while (start < n) {
        uint64_t rem = 0;
        for (int i = start; i < n; i++) {
            uint64_t cur = (rem << 32) | digits[i];
            digits[i] = (uint32_t)(cur / 1000000000u);
            rem = cur % 1000000000u;
        }
        while (start < n && digits[start] == 0u) start++;
        for (int k = 0; k < 9; k++) {
            if (start >= n && rem == 0u) break;
            reversed[len++] = (char)('0' + (int)(rem % 10u));
            rem /= 10u;
        }
    }
    if (len == 0) reversed[len++] = '0';
    size_t out = 0;
    if (cint_big_is_negative(a) && out + 1 < capacity) buffer[out++] = '-';
    while (len > 0 && out + 1 < capacity) buffer[out++] = reversed[--len];
    if (capacity > 0) buffer[out] = '\0';
    return out;
}
