/* gemm_weights.c - weights converted for the fp16 GEMM once per graph (gemm_weights.h). */
#include "compute/gemm_weights.h"

#include "compute/gemm_fp16.h"
#include "graph/derived.h"

void tp_gemm_fp16_pack_panels_into(const float *b, int64_t k, int64_t n, int64_t ldb, uint16_t *panels)
{
#if defined(TP_GEMM_FP16_KERNELS)
    if (tp_cpu_detect().fp16) {
        tp_gemm_fp16_pack_panels_aarch64(b, k, n, ldb, panels);
        return;
    }
#endif
    tp_gemm_fp16_pack_panels_portable(b, k, n, ldb, panels);
}

typedef struct weights {
    const float *b;
    int64_t k, n;
} weights;

static bool pack_fp16(void *arg, void *buffer)
{
    const weights *w = arg;
    tp_gemm_fp16_pack_panels_into(w->b, w->k, w->n, w->n, buffer);
    return true;
}

const uint16_t *tp_gemm_graph_panels_fp16(const tfpi_graph *graph, const void *owner, const float *b, int64_t k,
                                          int64_t n)
{
    weights w = {b, k, n};
    return tp_graph_derived(graph, owner, "gemm panels fp16", k,
                            sizeof(uint16_t) * (size_t)tp_gemm_fp16_panel_halves(k, n), pack_fp16, &w);
}
