/* top_k.c - TopKV2: the k largest values along the last dimension, sorted
 * from largest, and their int32 indices; equal values keep the lower index
 * first (TF's order). k must be known while planning.
 *
 * Each row's values become 64-bit keys whose unsigned order is the values'
 * order (-0 equal to +0, NaN above everything), so one selection serves
 * every type: a heap of the k best indices so far, whose root is the worst
 * kept, emptied from the back at the end. Rows are spread over the pool. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/array_kernel_util.h"

typedef struct top_k_state {
    int64_t k, n, rows;
    uint64_t *keys; /* rows * n */
    int64_t *heap;  /* rows * k */
} top_k_state;

static void free_top_k_state(void *state)
{
    top_k_state *s = state;
    if (s) {
        free(s->keys);
        free(s->heap);
    }
    free(s);
}

static bool has_keys(tfpi_dtype t)
{
    switch (t) {
    case TFPI_FLOAT: case TFPI_DOUBLE: case TFPI_INT32: case TFPI_INT64: case TFPI_INT16: case TFPI_INT8:
    case TFPI_UINT8: case TFPI_UINT16:
        return true;
    default:
        return false;
    }
}

static tfpi_code top_k_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 2, 2);
    int64_t k = 0;
    if (code == TFPI_OK)
        code = tp_read_index_scalar(ctx, 1, "k", &k);
    if (code == TFPI_OK)
        code = tp_expect_outputs_at_most(ctx, 2);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *in = ctx->inputs[0];
    if (!has_keys(in->dtype))
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "does not handle %s values", tfpi_dtype_name(in->dtype));
    if (in->ndims < 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input must have at least one dimension");
    int64_t n = in->dims[in->ndims - 1];
    if (k < 0 || k > n || n > INT32_MAX)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "k = %lld must be in [0, %lld], the last dimension",
                       (long long)k, (long long)n);
    top_k_state *s = calloc(1, sizeof *s);
    if (!(ctx->state = s))
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    s->k = k;
    s->n = n;
    s->rows = n ? tp_num_elements(in) / n : 0;
    s->keys = malloc((size_t)(s->rows * n + 1) * sizeof *s->keys);
    s->heap = malloc((size_t)(s->rows * k + 1) * sizeof *s->heap);
    if (!s->keys || !s->heap)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory for %lld rows of %lld", (long long)s->rows,
                       (long long)n);
    int64_t dims[TFPI_MAX_DIMS];
    memcpy(dims, in->dims, sizeof dims);
    dims[in->ndims - 1] = k;
    code = tp_set_output(ctx, 0, in->dtype, in->ndims, dims);
    if (code != TFPI_OK || ctx->num_outputs < 2)
        return code;
    return tp_set_output(ctx, 1, TFPI_INT32, in->ndims, dims);
}

static uint64_t double_key(double v)
{
    const uint64_t sign = UINT64_C(1) << 63;
    if (isnan(v))
        return UINT64_MAX;
    if (v == 0)
        v = 0.0; /* -0 ties with +0 */
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    return bits & sign ? ~bits : bits | sign;
}

static uint64_t key_of(const tfpi_tensor *in, int64_t i)
{
    switch (in->dtype) {
    case TFPI_FLOAT: return double_key(((const float *)in->data)[i]);
    case TFPI_DOUBLE: return double_key(((const double *)in->data)[i]);
    default: return (uint64_t)tp_get_int(in, i) ^ (UINT64_C(1) << 63); /* signed to unsigned order */
    }
}

/* Index a ranks before index b: larger value, or the same and lower index. */
static bool ranks_before(const uint64_t *keys, int64_t a, int64_t b)
{
    return keys[a] > keys[b] || (keys[a] == keys[b] && a < b);
}

/* Restores the heap (worst at the root) below position i. */
static void sift_down(int64_t *heap, int64_t size, int64_t i, const uint64_t *keys)
{
    for (;;) {
        int64_t worst = i, left = 2 * i + 1, right = left + 1;
        if (left < size && ranks_before(keys, heap[worst], heap[left]))
            worst = left;
        if (right < size && ranks_before(keys, heap[worst], heap[right]))
            worst = right;
        if (worst == i)
            return;
        int64_t t = heap[i];
        heap[i] = heap[worst];
        heap[worst] = t;
        i = worst;
    }
}

static void sift_up(int64_t *heap, int64_t i, const uint64_t *keys)
{
    while (i > 0 && ranks_before(keys, heap[(i - 1) / 2], heap[i])) {
        int64_t parent = (i - 1) / 2, t = heap[i];
        heap[i] = heap[parent];
        heap[parent] = t;
        i = parent;
    }
}

typedef struct top_k_job {
    tp_op_ctx *ctx;
    top_k_state *s;
} top_k_job;

static void top_k_rows(void *arg, int64_t begin, int64_t end)
{
    const top_k_job *job = arg;
    const top_k_state *s = job->s;
    const tfpi_tensor *in = job->ctx->inputs[0];
    size_t size = tfpi_dtype_size(in->dtype);
    for (int64_t row = begin; row < end; row++) {
        uint64_t *keys = s->keys + row * s->n;
        int64_t *heap = s->heap + row * s->k, count = 0;
        for (int64_t i = 0; i < s->n; i++)
            keys[i] = key_of(in, row * s->n + i);
        for (int64_t i = 0; i < s->n && s->k > 0; i++) {
            if (count < s->k) {
                heap[count] = i;
                sift_up(heap, count++, keys);
            } else if (ranks_before(keys, i, heap[0])) {
                heap[0] = i;
                sift_down(heap, count, 0, keys);
            }
        }
        /* Pop the worst first into the last free place; heap[count] is free
         * once count has dropped, so the sorted order fills from the end. */
        while (count > 0) {
            int64_t worst = heap[0];
            heap[0] = heap[--count];
            sift_down(heap, count, 0, keys);
            heap[count] = worst;
        }
        char *values = (char *)job->ctx->outputs[0].data + (size_t)(row * s->k) * size;
        const char *src = (const char *)in->data + (size_t)(row * s->n) * size;
        for (int64_t j = 0; j < s->k; j++) {
            memcpy(values + (size_t)j * size, src + (size_t)heap[j] * size, size);
            if (job->ctx->num_outputs > 1)
                ((int32_t *)job->ctx->outputs[1].data)[row * s->k + j] = (int32_t)heap[j];
        }
    }
}

static tfpi_code top_k_run(tp_op_ctx *ctx)
{
    top_k_job job = {ctx, ctx->state};
    tp_parallel_for(ctx->pool, job.s->rows, 1 + 4096 / (job.s->n + 1), top_k_rows, &job);
    return TFPI_OK;
}

const tp_kernel tp_kernels_top_k[] = {
    TP_KERNEL("TopKV2", top_k_prepare, top_k_run, free_top_k_state, TP_OUTPUTS(2)),
    TP_KERNELS_END,
};
