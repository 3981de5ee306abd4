/* flatten_atrous_conv.c - the atrous (dilated) convolution that
 * tf.nn.atrous_conv2d builds, SpaceToBatchND -> Conv2D -> BatchToSpaceND,
 * becomes one Conv2D with the filter spread out by the rate (zeros between
 * the taps): kernel size (k - 1) * rate + 1, stride 1, SAME padding if the
 * SpaceToBatchND padded in front, else VALID. It keeps the BatchToSpaceND's
 * name. Block shapes, paddings and the filter must be constants. */
#include <stdlib.h>
#include <string.h>

#include "graphdef_edit.h"
#include "rewrite.h"
#include "transforms.h"
#include "xalloc.h"

/* Larger rates are no atrous convolution anyone builds (and the spread
 * filter's size must not overflow). */
#define MAX_RATE 1024

/* The int constant behind input with exactly n values, into out. */
static bool int_values(const rw_graph *g, const char *input, int64_t n, int64_t *out)
{
    bool private_chain;
    Tfpi__NodeDef *node = rw_source(g, input, &private_chain);
    tfpi_tensor t = {0};
    void *owned = NULL;
    bool ok = node && rw_const_value(node, &t, &owned) && (t.dtype == TFPI_INT32 || t.dtype == TFPI_INT64) &&
              tp_num_elements(&t) == n;
    for (int64_t i = 0; ok && i < n; i++)
        out[i] = tp_get_int(&t, i);
    free(owned);
    return ok;
}

/* A Conv2D with stride 1 and VALID padding, as atrous_conv2d makes it. */
static bool plain_valid_conv(const Tfpi__NodeDef *conv)
{
    char padding[16];
    const Tfpi__AttrValue *strides = tp_attr(conv, "strides");
    bool unit = true;
    for (size_t i = 0; strides && strides->value_case == TFPI__ATTR_VALUE__VALUE_LIST && i < strides->list->n_i; i++)
        unit = unit && strides->list->i[i] == 1;
    return unit && rw_is_nhwc(conv) && rw_unit_dilations(conv) && rw_num_data_inputs(conv) == 2 &&
           strcmp(tp_attr_string(conv, "padding", padding, sizeof padding, ""), "VALID") == 0;
}

/* The filter with rate_h - 1 / rate_w - 1 zero rows / columns between taps. */
static float *spread_filter(const tfpi_tensor *w, const int64_t *rate, int64_t *dims)
{
    int64_t kh = w->dims[0], kw = w->dims[1], depth = w->dims[2] * w->dims[3];
    dims[0] = (kh - 1) * rate[0] + 1;
    dims[1] = (kw - 1) * rate[1] + 1;
    dims[2] = w->dims[2];
    dims[3] = w->dims[3];
    float *out = xcalloc((size_t)(dims[0] * dims[1] * depth), sizeof *out);
    for (int64_t y = 0; y < kh; y++)
        for (int64_t x = 0; x < kw; x++)
            memcpy(&out[((y * rate[0]) * dims[1] + x * rate[1]) * depth],
                   &((const float *)w->data)[(y * kw + x) * depth], (size_t)depth * sizeof *out);
    return out;
}

/* Flattens one atrous convolution; true if there was one. */
static bool flatten_one(rw_graph *g, const transform_ctx *ctx)
{
    for (size_t i = 0; i < g->def->n_node; i++) {
        Tfpi__NodeDef *b2s = g->def->node[i], *conv, *s2b, *filter;
        int64_t rate[2], rate2[2], paddings[4], crops[4], dims[4];
        bool private_filter;
        if (strcmp(b2s->op, "BatchToSpaceND") != 0 || rw_num_data_inputs(b2s) != 3 ||
            !(conv = rw_private_input(g, b2s, 0, "Conv2D", ctx)) || !plain_valid_conv(conv) ||
            !(s2b = rw_private_input(g, conv, 0, "SpaceToBatchND", ctx)) || rw_num_data_inputs(s2b) != 3 ||
            !int_values(g, s2b->input[1], 2, rate) || !int_values(g, b2s->input[1], 2, rate2) ||
            rate[0] != rate2[0] || rate[1] != rate2[1] || rate[0] < 1 || rate[1] < 1 || rate[0] > MAX_RATE ||
            rate[1] > MAX_RATE ||
            !int_values(g, s2b->input[2], 4, paddings) || !int_values(g, b2s->input[2], 4, crops) ||
            !(filter = rw_source(g, conv->input[1], &private_filter)))
            continue;
        tfpi_tensor w = {0};
        void *owned = NULL;
        if (!rw_const_value(filter, &w, &owned) || w.dtype != TFPI_FLOAT || w.ndims != 4 ||
            tp_num_elements(&w) * rate[0] * rate[1] > ((int64_t)1 << 28)) {
            free(owned);
            continue;
        }
        float *spread = spread_filter(&w, rate, dims);
        free(owned);
        bool same = paddings[0] > 0 || paddings[2] > 0; /* padding in front: SAME */
        char base[300];
        snprintf(base, sizeof base, "%s/flattened_filter", b2s->name);
        char *filter_name = rw_unique_name(g, base);
        Tfpi__NodeDef *node = gd_node_new(filter_name, "Const");
        rw_make_const(node, TFPI_FLOAT, dims, 4, spread);
        gd_append_node(g->def, node);
        free(spread);
        bool *candidates = xcalloc(g->def->n_node + 1, sizeof *candidates);
        candidates[rw_node_index(g, b2s->input[0])] = true; /* the conv, and through it the rest */
        for (int k = 1; k < 3; k++)
            candidates[rw_node_index(g, b2s->input[k])] = true;
        const char *inputs[2] = {s2b->input[0], filter_name};
        rw_set_data_inputs(b2s, inputs, 2);
        gd_attr_remove_all(b2s);
        for (size_t a = 0; a < conv->n_attr; a++)
            if (conv->attr[a]->value)
                gd_attr_set_copy(b2s, conv->attr[a]->key, conv->attr[a]->value);
        gd_set_string(&b2s->op, "Conv2D");
        gd_attr_set_string(b2s, "padding", same ? "SAME" : "VALID");
        free(filter_name);
        rw_refresh(g);
        rw_delete_unused(g, candidates, ctx);
        free(candidates);
        return true;
    }
    return false;
}

tfpi_code transform_flatten_atrous_conv(Tfpi__GraphDef *graph, const transform_ctx *ctx)
{
    rw_graph g;
    rw_open(&g, graph);
    while (flatten_one(&g, ctx))
        ;
    rw_close(&g);
    return TFPI_OK;
}
