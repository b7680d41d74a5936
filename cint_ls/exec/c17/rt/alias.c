/* The alias tests of a dispatch's entry checks (SPEC-02P.1 6.3, 6.4; the reference is
 * cint_ls/exec/alias.py): the write-view test (check 6) and the pairwise test (check 7),
 * and the view descriptors of a bind.alias record. */
#include "cint_rt.h"

static size_t element_size(uint32_t tc) { return CINT_TC_IS_BOOL(tc) ? 1u : CINT_TC_SIZE(tc); }

static bool view_empty(const cint_view *v) {
    for (int32_t d = 0; d < v->rank; d++)
        if (v->extents[d] == 0) return true;
    return false;
}

static void interval(const cint_view *v, int64_t *lo, int64_t *hi) {
    int64_t l = v->origin, h = v->origin;
    for (int32_t d = 0; d < v->rank; d++) {
        int64_t span = v->strides[d] * (v->extents[d] - 1);
        if (v->strides[d] < 0) l += span;
        else h += span;
    }
    *lo = l;
    *hi = h;
}

bool cint_write_view_passes(const cint_view *v) {
    if (view_empty(v)) return true;
    int32_t order[CINT_MAX_RANK], n = 0;
    for (int32_t d = 0; d < v->rank; d++)
        if (v->extents[d] != 1) order[n++] = d;
    /* sort by (abs(stride), dimension) */
    for (int32_t i = 1; i < n; i++) {
        int32_t d = order[i], j = i;
        uint64_t sd = v->strides[d] < 0 ? (uint64_t)0 - (uint64_t)v->strides[d] : (uint64_t)v->strides[d];
        while (j > 0) {
            int32_t p = order[j - 1];
            uint64_t sp = v->strides[p] < 0 ? (uint64_t)0 - (uint64_t)v->strides[p] : (uint64_t)v->strides[p];
            if (sp < sd || (sp == sd && p < d)) break;
            order[j] = p;
            j--;
        }
        order[j] = d;
    }
    cint_big reach, stride, step;
    cint_big_from_u64(&reach, 0u);
    for (int32_t i = 0; i < n; i++) {
        int32_t d = order[i];
        int64_t s = v->strides[d];
        cint_big_from_i64(&stride, s);
        if (s < 0) cint_big_neg(&stride, &stride);
        cint_big one, need;
        cint_big_from_u64(&one, 1u);
        cint_big_add(&need, &reach, &one);
        if (cint_big_cmp(&stride, &need) < 0) return false;
        cint_big_from_i64(&step, v->extents[d] - 1);
        cint_big_mul(&step, &step, &stride);
        cint_big_add(&reach, &reach, &step);
    }
    return true;
}

static uint64_t gcd64(uint64_t a, uint64_t b) {
    while (b != 0u) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static int64_t floor_mod(int64_t a, uint64_t g) {
    /* a mod g in [0, g), g >= 2 */
    uint64_t ua = a < 0 ? (uint64_t)0 - (uint64_t)a : (uint64_t)a;
    uint64_t r = ua % g;
    if (a < 0 && r != 0u) r = g - r;
    return (int64_t)r;
}

bool cint_pair_disjoint(const cint_view *p, const cint_view *q) {
    if (view_empty(p) || view_empty(q)) return true;
    if (p->storage != q->storage) return true;
    int64_t plo, phi, qlo, qhi;
    interval(p, &plo, &phi);
    interval(q, &qlo, &qhi);
    int64_t size = (int64_t)element_size(p->element), qsize = (int64_t)element_size(q->element);
    /* byte ranges in one memory; offsets lie within the storage, so no overflow */
    if ((phi + 1) * size - 1 < qlo * qsize || (qhi + 1) * qsize - 1 < plo * size) return true;
    if (size != qsize) return false;
    uint64_t g = 0;
    const cint_view *views[2] = {p, q};
    for (int k = 0; k < 2; k++) {
        const cint_view *v = views[k];
        for (int32_t d = 0; d < v->rank; d++) {
            if (v->extents[d] > 1) {
                int64_t s = v->strides[d];
                g = gcd64(g, s < 0 ? (uint64_t)0 - (uint64_t)s : (uint64_t)s);
            }
        }
    }
    return g >= 2u && floor_mod(p->origin, g) != floor_mod(q->origin, g);
}

void cint_describe_view(cint_view_desc *d, const cint_view *v) {
    d->element = v->element;
    d->rank = v->rank;
    d->origin = v->origin;
    for (int32_t i = 0; i < v->rank; i++) {
        d->extents[i] = v->extents[i];
        d->strides[i] = v->strides[i];
    }
    d->writable = v->writable;
}
