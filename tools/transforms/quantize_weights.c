/* quantize_weights.c - smaller weights for float Consts of at least
 * minimum_size (1024) values:
 *   quantize_weights: the Const NAME becomes Dequantize(NAME_quantized_const
 *     (quint8), NAME_quantized_min, NAME_quantized_max), mode MIN_FIRST:
 *     a quarter of the bytes, read back as min + q * (max - min) / 255.
 *   round_weights(num_steps=256): the values snap to the centres of
 *     num_steps equal buckets over [min, max]; still float (same size),
 *     but few distinct values, so the file compresses well.
 * The range always includes 0; a range of one value is widened, as
 * TensorFlow does, since quantized ops cannot use an empty range. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graphdef_edit.h"
#include "rewrite.h"
#include "transforms.h"
#include "xalloc.h"

/* The range of the finite values, widened to include 0. */
static void value_range(const float *v, int64_t n, float *min_out, float *max_out)
{
    float min = 0.0f, max = 0.0f;
    for (int64_t i = 0; i < n; i++) {
        if (!isfinite(v[i]))
            continue;
        min = v[i] < min ? v[i] : min;
        max = v[i] > max ? v[i] : max;
    }
    if (min == max) {
        if (fabsf(min) < 0.000001f)
            max = min + 1.0f;
        else if (min > 0)
            max = 2.0f * min;
        else
            max = min / 2.0f;
    }
    *min_out = min;
    *max_out = max;
}

/* Calls fn on every float Const with at least minimum_size values. */
typedef void (*weights_fn)(rw_graph *g, Tfpi__NodeDef *node, const tfpi_tensor *value, void *arg);

static tfpi_code for_each_weights(Tfpi__GraphDef *graph, const transform_ctx *ctx, weights_fn fn, void *arg)
{
    int64_t minimum_size;
    tfpi_code code = transform_param_int(ctx, "minimum_size", 1024, 0, &minimum_size);
    if (code != TFPI_OK)
        return code;
    rw_graph g;
    rw_open(&g, graph);
    size_t n = graph->n_node; /* fn may append nodes: those are not weights */
    for (size_t i = 0; i < n; i++) {
        tfpi_tensor value = {0};
        void *owned = NULL;
        if (rw_const_value(graph->node[i], &value, &owned) && value.dtype == TFPI_FLOAT &&
            tp_num_elements(&value) >= minimum_size)
            fn(&g, graph->node[i], &value, arg);
        free(owned);
    }
    rw_close(&g);
    return TFPI_OK;
}

/* A scalar float Const named NAME<suffix>, placed on node's device. */
static char *add_scalar(rw_graph *g, const Tfpi__NodeDef *node, const char *suffix, float value)
{
    char base[300];
    snprintf(base, sizeof base, "%s%s", node->name, suffix);
    char *name = rw_unique_name(g, base);
    Tfpi__NodeDef *scalar = gd_node_new(name, "Const");
    rw_make_const(scalar, TFPI_FLOAT, NULL, 0, &value);
    gd_set_string(&scalar->device, node->device);
    gd_append_node(g->def, scalar);
    rw_refresh(g);
    return name;
}

static void quantize_one(rw_graph *g, Tfpi__NodeDef *node, const tfpi_tensor *value, void *arg)
{
    (void)arg;
    int64_t n = tp_num_elements(value);
    const float *v = value->data;
    float min, max;
    value_range(v, n, &min, &max);
    double scale = 255.0 / ((double)max - (double)min), base = round((double)min * scale);
    uint8_t *q = xmalloc((size_t)n + 1);
    for (int64_t i = 0; i < n; i++) {
        double level = round((double)v[i] * scale) - base;
        q[i] = level > 255 ? 255 : level >= 0 ? (uint8_t)level : 0; /* NaN: 0 */
    }
    char base_name[300];
    snprintf(base_name, sizeof base_name, "%s_quantized_const", node->name);
    char *q_name = rw_unique_name(g, base_name);
    Tfpi__NodeDef *q_node = gd_node_new(q_name, "Const");
    rw_make_const(q_node, TFPI_QUINT8, value->dims, value->ndims, q);
    gd_set_string(&q_node->device, node->device);
    gd_append_node(g->def, q_node);
    rw_refresh(g);
    char *min_name = add_scalar(g, node, "_quantized_min", min);
    char *max_name = add_scalar(g, node, "_quantized_max", max);
    /* The Const becomes the Dequantize, keeping its name and any control
     * inputs. */
    const char *inputs[3] = {q_name, min_name, max_name};
    rw_make_dequantize(node, inputs);
    free(q);
    free(q_name);
    free(min_name);
    free(max_name);
}

tfpi_code transform_quantize_weights(Tfpi__GraphDef *graph, const transform_ctx *ctx)
{
    return for_each_weights(graph, ctx, quantize_one, NULL);
}

static void round_one(rw_graph *g, Tfpi__NodeDef *node, const tfpi_tensor *value, void *arg)
{
    int64_t steps = *(const int64_t *)arg, n = tp_num_elements(value);
    const float *v = value->data;
    float min, max;
    value_range(v, n, &min, &max);
    float *rounded = xmalloc((size_t)n * sizeof *rounded + 1);
    double width = ((double)max - (double)min) / (double)steps;
    for (int64_t i = 0; i < n; i++) {
        double b = floor(((double)v[i] - min) / width);
        int64_t bucket = b >= (double)steps ? steps - 1 : b >= 0 ? (int64_t)b : 0; /* NaN: 0 */
        rounded[i] = (float)(min + width * ((double)bucket + 0.5));
    }
    (void)g;
    rw_make_const(node, TFPI_FLOAT, value->dims, value->ndims, rounded);
    free(rounded);
}

tfpi_code transform_round_weights(Tfpi__GraphDef *graph, const transform_ctx *ctx)
{
    int64_t steps;
    tfpi_code code = transform_param_int(ctx, "num_steps", 256, 1, &steps);
    return code == TFPI_OK ? for_each_weights(graph, ctx, round_one, &steps) : code;
}
