/* fold_batch_norms.c - batch normalization folded into the weights of the
 * convolution (Conv2D, DepthwiseConv2dNative) or MatMul before it:
 *   fold_batch_norms:     conv -> Mul(by a constant per output channel):
 *                         the weights absorb the scale, the conv takes the
 *                         Mul's name and the Mul goes.
 *   fold_old_batch_norms: conv -> BatchNormWithGlobalNormalization or
 *                         FusedBatchNorm(V2/V3) with constant statistics:
 *                         weights *= gamma / sqrt(variance + epsilon), and
 *                         the batch norm becomes a BiasAdd (same name) of
 *                         beta - mean * that scale.
 * Constants may sit behind Identity nodes (the "/read" of frozen
 * variables). A conv whose output or weights something else also uses is
 * left alone, and so is a batch norm in training mode or NCHW layout. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graphdef_edit.h"
#include "rewrite.h"
#include "transforms.h"
#include "xalloc.h"

/* A conv whose weights can absorb a scale per output channel. */
typedef struct conv_site {
    Tfpi__NodeDef *conv, *weights;
    bool weights_private; /* only this conv reads them */
    tfpi_tensor w;
    void *owned;
    int64_t channels;
    bool transposed; /* MatMul with transpose_b: channel is the first dim */
} conv_site;

/* Finds the conv that `input` reads, if it can take the fold. */
static bool find_conv(const rw_graph *g, const char *input, const transform_ctx *ctx, conv_site *site)
{
    memset(site, 0, sizeof *site);
    gd_input in = gd_parse_input(input);
    int i = rw_node_index(g, input);
    if (i < 0 || in.control || in.index != 0 || g->uses[i] != 1)
        return false;
    Tfpi__NodeDef *conv = g->def->node[i];
    bool is_matmul = !strcmp(conv->op, "MatMul"), is_depthwise = !strcmp(conv->op, "DepthwiseConv2dNative");
    if ((!is_matmul && !is_depthwise && strcmp(conv->op, "Conv2D") != 0) || rw_num_data_inputs(conv) != 2 ||
        transform_is_output(ctx, conv->name) || (!is_matmul && !rw_is_nhwc(conv)))
        return false;
    const Tfpi__AttrValue *transpose = tp_attr(conv, "transpose_b");
    site->transposed = is_matmul && transpose && transpose->value_case == TFPI__ATTR_VALUE__VALUE_B && transpose->b;
    site->conv = conv;
    site->weights = rw_source(g, conv->input[1], &site->weights_private);
    if (!site->weights || !rw_const_value(site->weights, &site->w, &site->owned) || site->w.dtype != TFPI_FLOAT) {
        free(site->owned);
        return false;
    }
    int nd = site->w.ndims;
    const int64_t *d = site->w.dims;
    if (is_matmul && nd == 2)
        site->channels = site->transposed ? d[0] : d[1];
    else if (!is_matmul && nd == 4)
        site->channels = is_depthwise ? d[2] * d[3] : d[3];
    if (site->channels <= 0) {
        free(site->owned);
        return false;
    }
    return true;
}

/* weights[..., c] *= scale[c]; writes the new weights (in place when only
 * this conv reads them, else as a new Const the conv is pointed at). */
static void scale_weights(rw_graph *g, conv_site *site, const double *scale)
{
    int64_t n = tp_num_elements(&site->w), per_channel = n / site->channels;
    float *scaled = xmalloc((size_t)n * sizeof *scaled + 1);
    const float *w = site->w.data;
    for (int64_t e = 0; e < n; e++) {
        int64_t c = site->transposed ? e / per_channel : e % site->channels;
        scaled[e] = (float)((double)w[e] * scale[c]);
    }
    if (site->weights_private) {
        rw_make_const(site->weights, TFPI_FLOAT, site->w.dims, site->w.ndims, scaled);
    } else {
        char base[300];
        snprintf(base, sizeof base, "%s/folded_weights", site->conv->name);
        char *name = rw_unique_name(g, base);
        Tfpi__NodeDef *node = gd_node_new(name, "Const");
        rw_make_const(node, TFPI_FLOAT, site->w.dims, site->w.ndims, scaled);
        gd_set_string(&site->conv->input[1], name);
        gd_append_node(g->def, node);
        free(name);
    }
    free(scaled);
    free(site->owned);
    site->owned = NULL;
}

/* The float constant behind input (through Identity nodes) with n values
 * (or 1 when scalar_ok), as doubles in out[0..n) (a scalar repeats). */
static bool channel_values(const rw_graph *g, const char *input, int64_t n, bool scalar_ok, double *out)
{
    bool private_chain;
    Tfpi__NodeDef *node = rw_source(g, input, &private_chain);
    tfpi_tensor t = {0};
    void *owned = NULL;
    bool ok = node && rw_const_value(node, &t, &owned) && t.dtype == TFPI_FLOAT &&
              (tp_num_elements(&t) == n || (scalar_ok && tp_num_elements(&t) == 1)) &&
              (t.ndims == 0 || t.dims[t.ndims - 1] == tp_num_elements(&t));
    for (int64_t c = 0; ok && c < n; c++)
        out[c] = ((const float *)t.data)[tp_num_elements(&t) == 1 ? 0 : c];
    free(owned);
    return ok;
}

/* True unless some input reads an output of node other than 0. */
static bool only_output_zero_used(const rw_graph *g, const Tfpi__NodeDef *node)
{
    size_t len = strlen(node->name);
    for (size_t i = 0; i < g->def->n_node; i++)
        for (size_t k = 0; k < g->def->node[i]->n_input; k++) {
            gd_input in = gd_parse_input(g->def->node[i]->input[k]);
            if (!in.control && in.index != 0 && in.len == len && !memcmp(in.node, node->name, len))
                return false;
        }
    return true;
}

/* Deletes the nodes named in names[0..n) once nothing uses them, and what
 * only they used. */
static void delete_if_unused(rw_graph *g, char **names, int n, const transform_ctx *ctx)
{
    bool *candidates = xcalloc(g->def->n_node + 1, sizeof *candidates);
    for (int k = 0; k < n; k++) {
        int i = rw_node_index(g, names[k]);
        if (i >= 0)
            candidates[i] = true;
        free(names[k]);
    }
    rw_delete_unused(g, candidates, ctx);
    free(candidates);
}

/* conv -> Mul(constant): makes one such fold; true if there was one. */
static bool fold_one_mul(rw_graph *g, const transform_ctx *ctx)
{
    for (size_t i = 0; i < g->def->n_node; i++) {
        Tfpi__NodeDef *mul = g->def->node[i];
        if (strcmp(mul->op, "Mul") != 0 || rw_num_data_inputs(mul) != 2)
            continue;
        for (int side = 0; side < 2; side++) {
            conv_site site;
            if (!find_conv(g, mul->input[side], ctx, &site))
                continue;
            double *scale = xmalloc((size_t)site.channels * sizeof *scale);
            bool ok = channel_values(g, mul->input[1 - side], site.channels, true, scale);
            if (ok) {
                char *scale_input = xstrdup(mul->input[1 - side]);
                scale_weights(g, &site, scale);
                gd_set_string(&site.conv->name, mul->name); /* the conv takes the Mul's place */
                bool *gone = xcalloc(g->def->n_node + 1, sizeof *gone);
                gone[i] = true;
                rw_delete_nodes(g, gone);
                free(gone);
                delete_if_unused(g, &scale_input, 1, ctx);
            }
            free(scale);
            free(site.owned);
            if (ok)
                return true;
        }
    }
    return false;
}

tfpi_code transform_fold_batch_norms(Tfpi__GraphDef *graph, const transform_ctx *ctx)
{
    rw_graph g;
    rw_open(&g, graph);
    while (fold_one_mul(&g, ctx))
        ;
    rw_close(&g);
    return TFPI_OK;
}

/* Where a batch norm op keeps its statistics (data input positions). */
typedef struct batch_norm_layout {
    const char *op;
    int mean, variance, beta, gamma;
    const char *epsilon_attr;
    float default_epsilon;
} batch_norm_layout;

static const batch_norm_layout layouts[] = {
    {"BatchNormWithGlobalNormalization", 1, 2, 3, 4, "variance_epsilon", 0.001f},
    {"FusedBatchNorm", 3, 4, 2, 1, "epsilon", 0.0001f},
    {"FusedBatchNormV2", 3, 4, 2, 1, "epsilon", 0.0001f},
    {"FusedBatchNormV3", 3, 4, 2, 1, "epsilon", 0.0001f},
};

static const batch_norm_layout *layout_of(const Tfpi__NodeDef *node)
{
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
        if (strcmp(node->op, layouts[i].op) == 0)
            return &layouts[i];
    return NULL;
}

/* An inference-mode batch norm whose only used output is 0. */
static bool foldable_batch_norm(const rw_graph *g, const Tfpi__NodeDef *bn, const batch_norm_layout *layout)
{
    bool legacy = layout == &layouts[0];
    const Tfpi__AttrValue *training = tp_attr(bn, "is_training");
    bool is_training = !training || training->value_case != TFPI__ATTR_VALUE__VALUE_B || training->b;
    return rw_num_data_inputs(bn) == 5 && (legacy || (!is_training && rw_is_nhwc(bn))) &&
           only_output_zero_used(g, bn);
}

/* scale[c] and offset[c] from the batch norm's constant statistics. */
static bool batch_norm_factors(const rw_graph *g, const Tfpi__NodeDef *bn, const batch_norm_layout *layout,
                               int64_t n, double *scale, double *offset)
{
    double *mean = xmalloc(4 * (size_t)n * sizeof *mean), *variance = mean + n, *beta = mean + 2 * n,
           *gamma = mean + 3 * n;
    bool ok = channel_values(g, bn->input[layout->mean], n, false, mean) &&
              channel_values(g, bn->input[layout->variance], n, false, variance) &&
              channel_values(g, bn->input[layout->beta], n, false, beta) &&
              channel_values(g, bn->input[layout->gamma], n, false, gamma);
    const Tfpi__AttrValue *eps_attr = tp_attr(bn, layout->epsilon_attr);
    const Tfpi__AttrValue *use_gamma = tp_attr(bn, "scale_after_normalization");
    double epsilon = eps_attr && eps_attr->value_case == TFPI__ATTR_VALUE__VALUE_F ? eps_attr->f
                                                                                 : layout->default_epsilon;
    bool apply_gamma = layout != &layouts[0] ||
                       (use_gamma && use_gamma->value_case == TFPI__ATTR_VALUE__VALUE_B && use_gamma->b);
    for (int64_t c = 0; ok && c < n; c++) {
        scale[c] = (apply_gamma ? gamma[c] : 1.0) / sqrt(variance[c] + epsilon);
        offset[c] = beta[c] - mean[c] * scale[c];
    }
    free(mean);
    return ok;
}

/* The batch norm becomes BiasAdd(conv, offsets), keeping its name and
 * control inputs. */
static void become_bias_add(rw_graph *g, Tfpi__NodeDef *bn, const conv_site *site, const double *offset)
{
    char base[300];
    snprintf(base, sizeof base, "%s_bn_offset", site->conv->name);
    char *bias_name = rw_unique_name(g, base);
    float *bias = xmalloc((size_t)site->channels * sizeof *bias);
    for (int64_t c = 0; c < site->channels; c++)
        bias[c] = (float)offset[c];
    Tfpi__NodeDef *bias_node = gd_node_new(bias_name, "Const");
    rw_make_const(bias_node, TFPI_FLOAT, &site->channels, 1, bias);
    gd_append_node(g->def, bias_node);
    const char *inputs[2] = {bn->input[0], bias_name};
    rw_set_data_inputs(bn, inputs, 2);
    gd_attr_remove_all(bn);
    gd_set_string(&bn->op, "BiasAdd");
    gd_attr_set_type(bn, "T", TFPI_FLOAT);
    gd_attr_set_string(bn, "data_format", "NHWC");
    free(bias);
    free(bias_name);
}

/* Folds one batch norm; true if there was one to fold. */
static bool fold_one_batch_norm(rw_graph *g, const transform_ctx *ctx)
{
    for (size_t i = 0; i < g->def->n_node; i++) {
        Tfpi__NodeDef *bn = g->def->node[i];
        const batch_norm_layout *layout = layout_of(bn);
        conv_site site;
        if (!layout || !foldable_batch_norm(g, bn, layout) || !find_conv(g, bn->input[0], ctx, &site))
            continue;
        double *scale = xmalloc(2 * (size_t)site.channels * sizeof *scale), *offset = scale + site.channels;
        bool ok = batch_norm_factors(g, bn, layout, site.channels, scale, offset);
        if (ok) {
            char *statistics[4];
            for (int k = 0; k < 4; k++)
                statistics[k] = xstrdup(bn->input[k + 1]);
            scale_weights(g, &site, scale);
            become_bias_add(g, bn, &site, offset);
            rw_refresh(g);
            delete_if_unused(g, statistics, 4, ctx);
        }
        free(scale);
        free(site.owned);
        if (ok)
            return true;
    }
    return false;
}

tfpi_code transform_fold_old_batch_norms(Tfpi__GraphDef *graph, const transform_ctx *ctx)
{
    rw_graph g;
    rw_open(&g, graph);
    while (fold_one_batch_norm(&g, ctx))
        ;
    rw_close(&g);
    return TFPI_OK;
}
