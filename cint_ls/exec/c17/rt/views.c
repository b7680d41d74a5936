/* Arrays and views (SPEC-02P.1 6.2; cint_ls/exec/views.py): an array is a storage with
 * a row-major view over all of it; a view reaches into a storage through an origin and,
 * per dimension, an extent and a stride, all in elements. */
#include "cint_rt.h"

#include <stdlib.h>

static size_t element_size(uint32_t tc) { return CINT_TC_IS_BOOL(tc) ? 1u : CINT_TC_SIZE(tc); }

void cint_array_free(cint_view *v) {
    if (v->storage != NULL) {
        free(v->storage->data);
        free(v->storage);
    }
    memset(v, 0, sizeof *v);
}

/* A fresh zeroed array (`T[e1, ...] a;`): E_SHAPE array.make for a negative extent
 * (dimension, extent; limit 0), E_UNSUPPORTED array.limit above 2^28 elements, as the
 * interpreter. */
/* The serial numbers of storages (cint_storage.serial): one more for each. */
static uint64_t storage_serials;

int cint_array_make(cint_ctx *ctx, cint_view *v, uint32_t element, int32_t rank, const int64_t *extents,
                    int32_t span) {
    cint_array_free(v);
    for (int32_t d = 0; d < rank; d++) {
        if (extents[d] < 0) {
            cint_fault_begin(ctx, CINT_E_SHAPE, "array.make", span);
            cint_fault_operand_i64(ctx, d);
            cint_fault_operand_i64(ctx, extents[d]);
            cint_fault_limit_i64(ctx, 0);
            return 1;
        }
    }
    cint_big count, e;
    cint_big_from_u64(&count, 1u);
    for (int32_t d = 0; d < rank; d++) {
        cint_big_from_i64(&e, extents[d]);
        cint_big_mul(&count, &count, &e);
    }
    cint_big limit;
    cint_big_from_i64(&limit, CINT_MAX_ARRAY_ELEMENTS);
    if (cint_big_cmp(&count, &limit) > 0) {
        cint_fault_begin(ctx, CINT_E_UNSUPPORTED, "array.limit", span);
        cint_fault_operand(ctx, CINT_TC_I64, &count);
        cint_fault_limit_i64(ctx, CINT_MAX_ARRAY_ELEMENTS);
        return 1;
    }
    int64_t n = (int64_t)count.w[0];
    size_t size = element_size(element);
    cint_storage *storage = calloc(1, sizeof *storage);
    void *data = calloc(n > 0 ? (size_t)n : 1u, size);
    if (storage == NULL || data == NULL) {
        free(storage);
        free(data);
        cint_resource(ctx, "the cpu-c17 run exceeded its memory limit");
        return 1;
    }
    storage->count = n;
    storage->element = element;
    storage->element_size = (uint32_t)size;
    storage->data = data;
    storage->serial = __atomic_add_fetch(&storage_serials, 1u, __ATOMIC_RELAXED); /* gpu_host.c */
    v->storage = storage;
    v->data = data;
    v->element = element;
    v->rank = rank;
    v->writable = true;
    v->generation = 0;
    v->origin = 0;
    int64_t stride = 1;
    for (int32_t d = rank - 1; d >= 0; d--) {
        v->extents[d] = extents[d];
        v->strides[d] = stride;
        /* as View.whole (a zero extent makes the outer strides 0); wrapping, so that the
         * strides of an empty array with huge extents are defined */
        stride = cint_to_i64((uint64_t)stride * (uint64_t)extents[d]);
    }
    return 0;
}

/* An array literal gives `given` values: E_SHAPE array.init when the array has another
 * number of elements. */
int cint_array_init_count(cint_ctx *ctx, const cint_view *v, int64_t given, int32_t span) {
    if (v->storage->count == given) return 0;
    cint_fault_begin(ctx, CINT_E_SHAPE, "array.init", span);
    cint_fault_operand_i64(ctx, given);
    cint_fault_limit_i64(ctx, v->storage->count);
    return 1;
}

static int bounds(cint_ctx *ctx, const char *operation, int32_t span, int n, const int64_t *operands,
                  int64_t limit) {
    cint_fault_begin(ctx, CINT_E_BOUNDS, operation, span);
    for (int i = 0; i < n; i++) cint_fault_operand_i64(ctx, operands[i]);
    cint_fault_limit_i64(ctx, limit);
    return 1;
}

/* `v[s1, ..., sk]`: an integer drops its dimension, a slice keeps it; missing trailing
 * dimensions are whole.  Dimensions are checked in order. */
int cint_view_select(cint_ctx *ctx, cint_view *r, const cint_view *base, int32_t nspecs,
                     const cint_select_spec *specs, int32_t span) {
    cint_view out = *base;
    int32_t rank = 0;
    out.origin = base->origin;
    for (int32_t d = 0; d < base->rank; d++) {
        int64_t e = base->extents[d], s = base->strides[d];
        if (d >= nspecs || specs[d].slice) {
            bool whole = d >= nspecs;
            int64_t lo = whole || !specs[d].has_lo ? 0 : specs[d].lo;
            int64_t hi = whole || !specs[d].has_hi ? e : specs[d].hi;
            int64_t step = whole ? 1 : specs[d].step;
            if (lo < 0 || hi > e || hi < lo) {
                int64_t operands[3] = {lo, hi, d};
                return bounds(ctx, "slice.checked", span, 3, operands, e);
            }
            out.origin += lo * s;
            out.extents[rank] = (hi - lo) / step + ((hi - lo) % step != 0 ? 1 : 0);
            out.strides[rank] = s * step;
            rank++;
        } else {
            int64_t i = specs[d].lo;
            if (i < 0 || i >= e) {
                int64_t operands[2] = {i, d};
                return bounds(ctx, "index.checked", span, 2, operands, e);
            }
            out.origin += i * s;
        }
    }
    out.rank = rank;
    *r = out;
    return 0;
}

void cint_view_reverse(cint_view *r, const cint_view *base, int32_t d) {
    cint_view out = *base;
    int64_t e = base->extents[d], s = base->strides[d];
    if (e > 0) out.origin = base->origin + s * (e - 1);
    out.strides[d] = -s;
    *r = out;
}

void cint_view_transpose(cint_view *r, const cint_view *base) {
    cint_view out = *base;
    out.extents[0] = base->extents[1];
    out.extents[1] = base->extents[0];
    out.strides[0] = base->strides[1];
    out.strides[1] = base->strides[0];
    *r = out;
}

int cint_view_offset(cint_ctx *ctx, const cint_view *v, const int64_t *index, int64_t *offset,
                     const char *operation, int32_t span) {
    int64_t off = v->origin;
    for (int32_t d = 0; d < v->rank; d++) {
        int64_t i = index[d];
        if (i < 0 || i >= v->extents[d]) {
            cint_fail_index(ctx, operation, i, d, v->extents[d], span);
            return 1;
        }
        off += i * v->strides[d];
    }
    *offset = off;
    return 0;
}

void cint_fail_view_index(cint_ctx *ctx, const cint_view *v, const int64_t *index, const char *operation,
                          int32_t span) {
    int64_t offset;
    if (!cint_view_offset(ctx, v, index, &offset, operation, span))
        cint_resource(ctx, "internal error: an index in range was reported out of range");
}
