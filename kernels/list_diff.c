/* list_diff.c - ListDiff (TF1-era exports use it where tf.setdiff1d was
 * called): the elements of vector x that are not in vector y, in x's order
 * (repeats kept), and their positions in x (int32 or int64, out_idx).
 * Integers compare exactly, floats by value (-0 equals 0, NaN equals
 * nothing), strings by bytes. y is sorted once and searched, so the work is n log m. The output
 * size depends on the values: the op runs on the dynamic executor. */
#include <stdlib.h>
#include <string.h>

#include "kernel/kernel.h"

typedef struct list_diff_state {
    unsigned char *keep; /* per element of x */
    int64_t count;
} list_diff_state;

static void free_state(void *state)
{
    list_diff_state *s = state;
    if (s)
        free(s->keep);
    free(s);
}

/* NaNs sort last (a total order for qsort); they are never searched for. */
static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    bool x_nan = x != x, y_nan = y != y;
    if (x_nan || y_nan)
        return (int)x_nan - (int)y_nan;
    return (x > y) - (x < y);
}

static int compare_ints(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int compare_strings(const void *a, const void *b)
{
    const tfpi_bytes *x = a, *y = b;
    size_t n = x->size < y->size ? x->size : y->size;
    int c = n ? memcmp(x->data, y->data, n) : 0;
    return c ? c : (x->size > y->size) - (x->size < y->size);
}

/* How elements of a type are compared: as what key, of what size. */
typedef struct key_kind {
    size_t size;
    int (*compare)(const void *, const void *);
} key_kind;

static key_kind kind_of(tfpi_dtype t)
{
    if (t == TFPI_STRING)
        return (key_kind){sizeof(tfpi_bytes), compare_strings};
    if (t == TFPI_FLOAT || t == TFPI_DOUBLE)
        return (key_kind){sizeof(double), compare_doubles};
    return (key_kind){sizeof(int64_t), compare_ints};
}

/* Element i of t as its key into key. */
static void key_of(const tfpi_tensor *t, int64_t i, void *key)
{
    if (t->dtype == TFPI_STRING)
        memcpy(key, &((const tfpi_bytes *)t->data)[i], sizeof(tfpi_bytes));
    else if (t->dtype == TFPI_FLOAT || t->dtype == TFPI_DOUBLE)
        *(double *)key = t->dtype == TFPI_FLOAT ? ((const float *)t->data)[i] : ((const double *)t->data)[i];
    else
        *(int64_t *)key = tp_get_int(t, i);
}

/* Marks the elements of x that y does not hold. */
static tfpi_code mark(tp_op_ctx *ctx, list_diff_state *s)
{
    const tfpi_tensor *x = ctx->inputs[0], *y = ctx->inputs[1];
    int64_t n = tp_num_elements(x), m = tp_num_elements(y);
    key_kind k = kind_of(x->dtype);
    char *sorted = malloc((size_t)(m + 1) * k.size);
    union {
        double d;
        int64_t i;
        tfpi_bytes b;
    } key;
    if (!(s->keep = malloc((size_t)n + 1)) || !sorted) {
        free(sorted);
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory for %lld elements", (long long)(n + m));
    }
    for (int64_t i = 0; i < m; i++)
        key_of(y, i, sorted + (size_t)i * k.size);
    qsort(sorted, (size_t)m, k.size, k.compare);
    for (int64_t i = 0; i < n; i++) {
        key_of(x, i, &key);
        bool nan = k.compare == compare_doubles && key.d != key.d;
        s->keep[i] = nan || !bsearch(&key, sorted, (size_t)m, k.size, k.compare);
        s->count += s->keep[i];
    }
    free(sorted);
    return TFPI_OK;
}

static tfpi_code list_diff_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 2, 2);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *x = ctx->inputs[0], *y = ctx->inputs[1];
    tfpi_dtype index_type = tp_attr_type(ctx->def, "out_idx", TFPI_INT32);
    if (x->ndims != 1 || y->ndims != 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "x and y must be vectors, have ranks %d and %d", x->ndims, y->ndims);
    if (x->dtype != y->dtype)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "x is %s, y is %s", tfpi_dtype_name(x->dtype),
                       tfpi_dtype_name(y->dtype));
    switch (x->dtype) {
    case TFPI_STRING: case TFPI_FLOAT: case TFPI_DOUBLE: case TFPI_INT64: case TFPI_INT32: case TFPI_INT16:
    case TFPI_INT8: case TFPI_UINT8: case TFPI_UINT16:
        break;
    default:
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "does not handle %s values", tfpi_dtype_name(x->dtype));
    }
    if (index_type != TFPI_INT32 && index_type != TFPI_INT64)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "out_idx must be int32 or int64");
    if (!x->data || !y->data)
        return tp_fail(ctx, TFPI_INTERNAL, "needs its inputs' values");
    list_diff_state *s = calloc(1, sizeof *s);
    if (!s)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    ctx->state = s;
    if ((code = mark(ctx, s)) != TFPI_OK)
        return code;
    code = tp_set_output(ctx, 0, x->dtype, 1, &s->count);
    if (code == TFPI_OK && ctx->num_outputs > 1)
        code = tp_set_output(ctx, 1, index_type, 1, &s->count);
    return code;
}

static tfpi_code list_diff_run(tp_op_ctx *ctx)
{
    const list_diff_state *s = ctx->state;
    const tfpi_tensor *x = ctx->inputs[0];
    size_t size = tfpi_dtype_size(x->dtype);
    char *out = ctx->outputs[0].data;
    int64_t n = tp_num_elements(x), at = 0;
    for (int64_t i = 0; i < n; i++) {
        if (!s->keep[i])
            continue;
        memcpy(out + (size_t)at * size, (const char *)x->data + (size_t)i * size, size);
        if (ctx->num_outputs > 1 && ctx->outputs[1].dtype == TFPI_INT32)
            ((int32_t *)ctx->outputs[1].data)[at] = (int32_t)i;
        else if (ctx->num_outputs > 1)
            ((int64_t *)ctx->outputs[1].data)[at] = i;
        at++;
    }
    return TFPI_OK;
}

const tp_kernel tp_kernels_list_diff[] = {
    TP_KERNEL("ListDiff", list_diff_prepare, list_diff_run, free_state, TP_DYNAMIC | TP_OUTPUTS(2)),
    TP_KERNELS_END,
};
