/* gemm_weights.c - weights packed once per graph (gemm_weights.h). */
#include "compute/gemm_weights.h"

#include <string.h>

#include "compute/gemm_kernel.h"
#include "graph/graph_cache.h"

#if defined(TP_GEMM_ARM_KERNELS)
typedef struct weights {
    const float *b;
    int64_t k, n;
} weights;

static void *make_panels(const void *arg)
{
    const weights *w = arg;
    return tp_gemm_pack_panels(w->b, w->k, w->n, w->n);
}

/* Whether panels hold exactly w's values (bit for bit), in the same shape:
 * the key covers the shape and a hash of the values. */
static bool panels_match(const void *value, const void *arg)
{
    const weights *w = arg;
    const float *panels = value;
    for (int64_t col = 0; col < w->n; col += TP_GEMM_NR) {
        const int64_t cols = w->n - col < TP_GEMM_NR ? w->n - col : TP_GEMM_NR;
        const float *panel = panels + col / TP_GEMM_NR * w->k * TP_GEMM_NR;
        for (int64_t row = 0; row < w->k; row++)
            if (memcmp(panel + row * TP_GEMM_NR, w->b + row * w->n + col, sizeof(float) * (size_t)cols) != 0)
                return false;
    }
    return true;
}
#endif

const float *tp_gemm_graph_panels(const tfpi_graph *graph, const float *b, int64_t k, int64_t n)
{
#if defined(TP_GEMM_ARM_KERNELS)
    const weights w = {b, k, n};
    const int64_t shape[3] = {k, n, TP_GEMM_NR};
    uint64_t key = tp_hash_bytes(TP_HASH_START, shape, sizeof shape);
    /* a sample of the values: the full check is panels_match */
    const int64_t count = k * n, step = count / 4096 + 1;
    for (int64_t i = 0; i < count; i += step)
        key = tp_hash_bytes(key, b + i, sizeof *b);
    return tp_graph_cache_get(graph, key, panels_match, make_panels, &w);
#else
    (void)graph, (void)b, (void)k, (void)n;
    return NULL;
#endif
}
