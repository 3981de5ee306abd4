/* unique.c - Unique(x [N]; out_idx): the distinct values of a vector in the
 * order they first appear (y [U]), and for each element the position of
 * its value in y (idx [N], int32 or int64), as vocabulary and embedding
 * lookups use it. Integers compare exactly, reals by value (-0 equals 0; a
 * NaN equals nothing, so each NaN is its own value), strings by bytes. The
 * elements are sorted once (stable), so the work is n log n. The output
 * size depends on the values: the op runs on the dynamic executor. */
#include <stdlib.h>
#include <string.h>

#include "kernel/kernel.h"

typedef struct unique_state {
    int64_t *first; /* per element: the element that first had its value */
    int64_t *slot;  /* per element: its value's position in y */
    int64_t count;
} unique_state;

static void free_state(void *state)
{
    unique_state *s = state;
    if (s) {
        free(s->first);
        free(s->slot);
    }
    free(s);
}

/* An element to sort: its value as a key, and its position. */
typedef struct entry {
    union {
        double real;
        int64_t integer;
        tfpi_bytes bytes;
    } key;
    int64_t pos;
} entry;

static int by_position(const entry *a, const entry *b) { return (a->pos > b->pos) - (a->pos < b->pos); }

/* Reals by value, NaNs after every number, each NaN its own value. */
static int compare_reals(const void *pa, const void *pb)
{
    const entry *a = pa, *b = pb;
    bool a_nan = a->key.real != a->key.real, b_nan = b->key.real != b->key.real;
    if (a_nan || b_nan)
        return a_nan && b_nan ? by_position(a, b) : (int)a_nan - (int)b_nan;
    int c = (a->key.real > b->key.real) - (a->key.real < b->key.real);
    return c ? c : by_position(a, b);
}

static int compare_integers(const void *pa, const void *pb)
{
    const entry *a = pa, *b = pb;
    int c = (a->key.integer > b->key.integer) - (a->key.integer < b->key.integer);
    return c ? c : by_position(a, b);
}

static int compare_strings(const void *pa, const void *pb)
{
    const entry *a = pa, *b = pb;
    size_t n = a->key.bytes.size < b->key.bytes.size ? a->key.bytes.size : b->key.bytes.size;
    int c = n ? memcmp(a->key.bytes.data, b->key.bytes.data, n) : 0;
    c = c ? c : (a->key.bytes.size > b->key.bytes.size) - (a->key.bytes.size < b->key.bytes.size);
    return c ? c : by_position(a, b);
}

/* True if two sorted neighbours hold the same value. */
static bool same_value(const tfpi_tensor *x, const entry *a, const entry *b)
{
    if (x->dtype == TFPI_STRING)
        return a->key.bytes.size == b->key.bytes.size &&
               (a->key.bytes.size == 0 || memcmp(a->key.bytes.data, b->key.bytes.data, a->key.bytes.size) == 0);
    if (x->dtype == TFPI_FLOAT || x->dtype == TFPI_DOUBLE)
        return a->key.real == b->key.real;
    return a->key.integer == b->key.integer;
}

/* Finds each element's first equal (s->first) from x's elements sorted. */
static void group(const tfpi_tensor *x, entry *e, int64_t n, unique_state *s)
{
    for (int64_t i = 0; i < n; i++) {
        if (x->dtype == TFPI_STRING)
            e[i].key.bytes = ((const tfpi_bytes *)x->data)[i];
        else if (x->dtype == TFPI_FLOAT)
            e[i].key.real = ((const float *)x->data)[i];
        else if (x->dtype == TFPI_DOUBLE)
            e[i].key.real = ((const double *)x->data)[i];
        else
            e[i].key.integer = tp_get_int(x, i);
        e[i].pos = i;
    }
    qsort(e, (size_t)n, sizeof *e,
          x->dtype == TFPI_STRING ? compare_strings
          : x->dtype == TFPI_FLOAT || x->dtype == TFPI_DOUBLE ? compare_reals
                                                                : compare_integers);
    for (int64_t i = 0; i < n; i++) /* each run of equal values starts with its first element */
        s->first[e[i].pos] = i > 0 && same_value(x, &e[i - 1], &e[i]) ? s->first[e[i - 1].pos] : e[i].pos;
}

static tfpi_code unique_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 1, 1);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *x = ctx->inputs[0];
    tfpi_dtype index_type = tp_attr_type(ctx->def, "out_idx", TFPI_INT32);
    if (x->ndims != 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "unique expects a 1D vector, has rank %d", x->ndims);
    if (index_type != TFPI_INT32 && index_type != TFPI_INT64)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "out_idx must be int32 or int64");
    switch (x->dtype) {
    case TFPI_STRING: case TFPI_FLOAT: case TFPI_DOUBLE: case TFPI_INT64: case TFPI_INT32: case TFPI_INT16:
    case TFPI_INT8: case TFPI_UINT8: case TFPI_UINT16: case TFPI_BOOL:
        break;
    default:
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "does not handle %s values", tfpi_dtype_name(x->dtype));
    }
    if (!x->data)
        return tp_fail(ctx, TFPI_INTERNAL, "needs its input's value");
    int64_t n = x->dims[0];
    if (index_type == TFPI_INT32 && n > INT32_MAX)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "%lld elements do not fit int32 positions", (long long)n);
    if ((code = tp_expect_within_budget(ctx, n, sizeof(entry) + 2 * sizeof(int64_t), "elements")) != TFPI_OK)
        return code;
    free_state(ctx->state);
    unique_state *s = ctx->state = calloc(1, sizeof *s);
    entry *sorted = malloc(((size_t)n + 1) * sizeof *sorted);
    if (!s || !sorted || !(s->first = malloc(((size_t)n + 1) * sizeof *s->first)) ||
        !(s->slot = malloc(((size_t)n + 1) * sizeof *s->slot))) {
        free(sorted);
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory for %lld elements", (long long)n);
    }
    group(x, sorted, n, s);
    free(sorted);
    for (int64_t i = 0; i < n; i++)
        s->slot[i] = s->first[i] == i ? s->count++ : s->slot[s->first[i]];
    code = tp_set_output(ctx, 0, x->dtype, 1, &s->count);
    if (code == TFPI_OK && ctx->num_outputs > 1)
        code = tp_set_output(ctx, 1, index_type, 1, &n);
    return code;
}

static tfpi_code unique_run(tp_op_ctx *ctx)
{
    const unique_state *s = ctx->state;
    const tfpi_tensor *x = ctx->inputs[0];
    size_t size = tfpi_dtype_size(x->dtype);
    for (int64_t i = 0; i < x->dims[0]; i++) {
        if (s->first[i] == i)
            memcpy((char *)ctx->outputs[0].data + (size_t)s->slot[i] * size, (const char *)x->data + (size_t)i * size,
                   size);
        if (ctx->num_outputs > 1 && ctx->outputs[1].dtype == TFPI_INT32)
            ((int32_t *)ctx->outputs[1].data)[i] = (int32_t)s->slot[i];
        else if (ctx->num_outputs > 1)
            ((int64_t *)ctx->outputs[1].data)[i] = s->slot[i];
    }
    return TFPI_OK;
}

const tp_kernel tp_kernels_unique[] = {
    TP_KERNEL("Unique", unique_prepare, unique_run, free_state, TP_DYNAMIC | TP_OUTPUTS(2)),
    TP_KERNELS_END,
};
