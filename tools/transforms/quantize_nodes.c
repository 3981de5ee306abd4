/* quantize_nodes.c - quantize_nodes(input_min, input_max, fallback_min,
 * fallback_max, ignore_op): TensorFlow's eight-bit rewrite
 * (../shared/docs/quantized.md 4.1), with TF's node names. Each float
 * Conv2D, MatMul, BiasAdd, Add, Mul, Relu, Relu6, MaxPool, AvgPool,
 * Concat, Reshape or ResizeBilinear X becomes
 *   per float input u: Reshape/Min/Max/QuantizeV2 X_eightbit/u/...
 *   X/eightbit: the Quantized op reading the quint8 codes and their ranges
 *   (qint32 results:) X/eightbit/requant_range (RequantizationRange, or
 *     Consts X/eightbit/fallback_min|max) and X/eightbit/requantize
 *   X: a Dequantize (MIN_FIRST) of the 8-bit result, so float readers are
 *     untouched.
 * Then duplicate nodes are merged and every QuantizeV2 of a Dequantize
 * (with its Min and Max) is bypassed: adjacent quantized ops, and weights
 * from quantize_weights, pass their codes straight through. With
 * input_min/input_max each float Placeholder is fed quint8 codes of that
 * range instead. Run quantize_weights first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graphdef_edit.h"
#include "rewrite.h"
#include "transforms.h"
#include "xalloc.h"

typedef struct quantizable {
    const char *op, *quantized_op;
    const char *copied_attrs; /* space-separated */
    const char *quint8_attrs; /* attrs set to quint8 */
    const char *qint32_attr;  /* the output type attr of a qint32 result, or NULL */
    int unquantized_input;    /* stays float (an axis, a shape), or -1 */
} quantizable;

static const quantizable quantizables[] = {
    {"Add", "QuantizedAdd", "", "T1 T2", "Toutput", -1},
    {"AvgPool", "QuantizedAvgPool", "ksize strides padding", "T", NULL, -1},
    {"BiasAdd", "QuantizedBiasAdd", "", "T1 T2", "out_type", -1},
    {"Concat", "QuantizedConcat", "N", "T", NULL, 0},
    {"Conv2D", "QuantizedConv2D", "strides padding", "Tinput Tfilter", "out_type", -1},
    {"MatMul", "QuantizedMatMul", "transpose_a transpose_b", "T1 T2", "Toutput", -1},
    {"MaxPool", "QuantizedMaxPool", "ksize strides padding", "T", NULL, -1},
    {"Mul", "QuantizedMul", "", "T1 T2", "Toutput", -1},
    {"Relu", "QuantizedRelu", "", "Tinput", NULL, -1},
    {"Relu6", "QuantizedRelu6", "", "Tinput", NULL, -1},
    {"Reshape", "QuantizedReshape", "Tshape", "T", NULL, 1},
    {"ResizeBilinear", "QuantizedResizeBilinear", "align_corners", "T", NULL, 1},
};

typedef struct quantize_settings {
    bool fallback;
    float fallback_min, fallback_max;
} quantize_settings;

static const quantizable *find_quantizable(const transform_ctx *ctx, const Tfpi__NodeDef *node)
{
    for (int i = 0; i < transform_param_count(ctx, "ignore_op"); i++)
        if (strcmp(transform_param_value(ctx, "ignore_op", i), node->op) == 0)
            return NULL;
    for (size_t i = 0; i < sizeof quantizables / sizeof *quantizables; i++) {
        const quantizable *q = &quantizables[i];
        if (strcmp(q->op, node->op) != 0)
            continue;
        /* float only, and what the quantized kernels can do (NHWC, no dilation) */
        if (tp_attr_type(node, "T", TFPI_FLOAT) != TFPI_FLOAT || !rw_is_nhwc(node) || !rw_unit_dilations(node))
            return NULL;
        return q;
    }
    return NULL;
}

/* Appends a new node NAME of op (name is copied) and returns it. */
static Tfpi__NodeDef *add_node(rw_graph *g, const char *name, const char *op, const Tfpi__NodeDef *like)
{
    Tfpi__NodeDef *node = gd_node_new(name, op);
    if (like)
        gd_set_string(&node->device, like->device);
    gd_append_node(g->def, node);
    return node;
}

static void add_float_const(rw_graph *g, const char *name, float value, const Tfpi__NodeDef *like)
{
    rw_make_const(add_node(g, name, "Const", like), TFPI_FLOAT, NULL, 0, &value);
}

/* "prefix/u/suffix" where u is the input with ^ -> __hat__ and :k -> __port__k. */
static char *input_path(const char *prefix, const char *input, const char *suffix)
{
    gd_input in = gd_parse_input(input);
    size_t size = strlen(prefix) + in.len + strlen(suffix) + 48;
    char *path = xmalloc(size);
    char port[24] = "";
    if (in.index > 0)
        snprintf(port, sizeof port, "__port__%d", in.index);
    snprintf(path, size, "%s/%s%.*s%s/%s", prefix, in.control ? "__hat__" : "", (int)in.len, in.node, port, suffix);
    return path;
}

/* Reshape -> Min, Max -> QuantizeV2 of one float input; returns the
 * QuantizeV2's name. */
static char *quantize_input(rw_graph *g, const char *prefix, const char *input, const Tfpi__NodeDef *like)
{
    gd_input in = gd_parse_input(input);
    char control[400];
    snprintf(control, sizeof control, "^%.*s", (int)in.len, in.node);
    char *reshape_dims = input_path(prefix, input, "reshape_dims"), *reduction_dims = input_path(prefix, input, "reduction_dims");
    char *reshape = input_path(prefix, input, "reshape"), *min = input_path(prefix, input, "min");
    char *max = input_path(prefix, input, "max"), *quantize = input_path(prefix, input, "quantize");
    const int32_t minus_one = -1, zero = 0;
    const int64_t one = 1;
    Tfpi__NodeDef *n = add_node(g, reshape_dims, "Const", like);
    rw_make_const(n, TFPI_INT32, &one, 1, &minus_one);
    gd_add_input(n, control);
    n = add_node(g, reduction_dims, "Const", like);
    rw_make_const(n, TFPI_INT32, &one, 1, &zero);
    gd_add_input(n, control);
    n = add_node(g, reshape, "Reshape", like);
    gd_add_input(n, input);
    gd_add_input(n, reshape_dims);
    gd_attr_set_type(n, "T", TFPI_FLOAT);
    gd_attr_set_type(n, "Tshape", TFPI_INT32);
    for (int k = 0; k < 2; k++) {
        n = add_node(g, k ? max : min, k ? "Max" : "Min", like);
        gd_add_input(n, reshape);
        gd_add_input(n, reduction_dims);
        gd_attr_set_type(n, "T", TFPI_FLOAT);
        gd_attr_set_type(n, "Tidx", TFPI_INT32);
        gd_attr_set_bool(n, "keep_dims", false);
    }
    n = add_node(g, quantize, "QuantizeV2", like);
    gd_add_input(n, input);
    gd_add_input(n, min);
    gd_add_input(n, max);
    gd_attr_set_type(n, "T", TFPI_QUINT8);
    gd_attr_set_string(n, "mode", "MIN_FIRST");
    free(reshape_dims);
    free(reduction_dims);
    free(reshape);
    free(min);
    free(max);
    return quantize;
}

/* Sets each attr named in the space-separated list to dtype. */
static void set_type_attrs(Tfpi__NodeDef *node, const char *names, int dtype)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", names);
    for (char *save, *name = strtok_r(buf, " ", &save); name; name = strtok_r(NULL, " ", &save))
        gd_attr_set_type(node, name, dtype);
}

static void copy_attrs(Tfpi__NodeDef *to, const Tfpi__NodeDef *from, const char *names)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", names);
    for (char *save, *name = strtok_r(buf, " ", &save); name; name = strtok_r(NULL, " ", &save)) {
        const Tfpi__AttrValue *v = tp_attr(from, name);
        if (v)
            gd_attr_set_copy(to, name, v);
    }
}

/* Rewrites node X as described at the top; X keeps its name as the
 * Dequantize of the result. */
static void quantize_node(rw_graph *g, Tfpi__NodeDef *x, const quantizable *q, const quantize_settings *s)
{
    size_t size = strlen(x->name) + 40;
    char *prefix = xmalloc(size), *main_name = xmalloc(size), *result = xmalloc(size);
    snprintf(prefix, size, "%s_eightbit", x->name);
    snprintf(main_name, size, "%s/eightbit", x->name);
    int inputs = rw_num_data_inputs(x), quantized = 0;
    char **q_names = xcalloc((size_t)inputs + 1, sizeof *q_names);
    for (int k = 0; k < inputs; k++)
        if (k != q->unquantized_input) {
            q_names[k] = quantize_input(g, prefix, x->input[k], x);
            quantized++;
        }
    Tfpi__NodeDef *main = add_node(g, main_name, q->quantized_op, x);
    char port[512];
    for (int k = 0; k < inputs; k++) {
        if (k == q->unquantized_input)
            gd_add_input(main, x->input[k]);
        else
            gd_add_input(main, q_names[k]);
    }
    bool concat = strcmp(x->op, "Concat") == 0;
    for (int pass = 0; pass < (concat ? 2 : 1); pass++) /* Concat: all mins, then all maxes */
        for (int k = 0; k < inputs; k++) {
            if (k == q->unquantized_input)
                continue;
            for (int m = 1; m <= 2; m++) {
                if (concat && m != pass + 1)
                    continue;
                snprintf(port, sizeof port, "%s:%d", q_names[k], m);
                gd_add_input(main, port);
            }
        }
    for (size_t k = (size_t)inputs; k < x->n_input; k++) /* control inputs */
        gd_add_input(main, x->input[k]);
    copy_attrs(main, x, q->copied_attrs);
    set_type_attrs(main, q->quint8_attrs, TFPI_QUINT8);
    snprintf(result, size, "%s", main_name);
    if (q->qint32_attr) {
        gd_attr_set_type(main, q->qint32_attr, TFPI_QINT32);
        char *range_min = xmalloc(size + 40), *range_max = xmalloc(size + 40);
        if (s->fallback) {
            snprintf(range_min, size + 40, "%s/fallback_min", main_name);
            snprintf(range_max, size + 40, "%s/fallback_max", main_name);
            add_float_const(g, range_min, s->fallback_min, x);
            add_float_const(g, range_max, s->fallback_max, x);
        } else {
            char range_name[600];
            snprintf(range_name, sizeof range_name, "%s/requant_range", main_name);
            Tfpi__NodeDef *range = add_node(g, range_name, "RequantizationRange", x);
            for (int m = 0; m < 3; m++) {
                snprintf(port, sizeof port, "%s:%d", main_name, m);
                gd_add_input(range, port);
            }
            gd_attr_set_type(range, "Tinput", TFPI_QINT32);
            snprintf(range_min, size + 40, "%s:0", range_name);
            snprintf(range_max, size + 40, "%s:1", range_name);
        }
        snprintf(result, size, "%s/requantize", main_name);
        Tfpi__NodeDef *requantize = add_node(g, result, "Requantize", x);
        for (int m = 0; m < 3; m++) {
            snprintf(port, sizeof port, "%s:%d", main_name, m);
            gd_add_input(requantize, port);
        }
        gd_add_input(requantize, range_min);
        gd_add_input(requantize, range_max);
        gd_attr_set_type(requantize, "Tinput", TFPI_QINT32);
        gd_attr_set_type(requantize, "out_type", TFPI_QUINT8);
        free(range_min);
        free(range_max);
    }
    /* X becomes the Dequantize of the 8-bit result, keeping its name. */
    char *deq_inputs[3];
    for (int m = 0; m < 3; m++) {
        deq_inputs[m] = xmalloc(size + 4);
        snprintf(deq_inputs[m], size + 4, "%s:%d", result, m);
    }
    rw_make_dequantize(x, (const char *const *)deq_inputs);
    /* its control inputs went to the quantized op */
    for (size_t k = 3; k < x->n_input; k++)
        free(x->input[k]);
    x->n_input = 3;
    for (int m = 0; m < 3; m++)
        free(deq_inputs[m]);
    for (int k = 0; k < inputs; k++)
        free(q_names[k]);
    free(q_names);
    free(prefix);
    free(main_name);
    free(result);
    rw_refresh(g);
}

/* Each float Placeholder is fed quint8 codes of [min, max] instead. */
static void quantize_placeholders(rw_graph *g, float min, float max)
{
    size_t n = g->def->n_node;
    for (size_t i = 0; i < n; i++) {
        Tfpi__NodeDef *p = g->def->node[i];
        if (strcmp(p->op, "Placeholder") != 0 || tp_attr_type(p, "dtype", TFPI_FLOAT) != TFPI_FLOAT)
            continue;
        size_t size = strlen(p->name) + 40;
        char *min_name = xmalloc(size), *max_name = xmalloc(size), *deq = xmalloc(size);
        snprintf(min_name, size, "%s_eightbit/min", p->name);
        snprintf(max_name, size, "%s_eightbit/max", p->name);
        snprintf(deq, size, "%s_eightbit/dequantize", p->name);
        rw_replace_input(g->def, p->name, deq);
        add_float_const(g, min_name, min, p);
        add_float_const(g, max_name, max, p);
        const char *codes[3] = {p->name, min_name, max_name};
        rw_make_dequantize(add_node(g, deq, "Dequantize", p), codes);
        gd_attr_set_type(p, "dtype", TFPI_QUINT8);
        free(min_name);
        free(max_name);
        free(deq);
    }
    rw_refresh(g);
}

static bool input_is_op(const rw_graph *g, const Tfpi__NodeDef *node, int k, const char *op)
{
    int i = rw_node_index(g, node->input[k]);
    return i >= 0 && strcmp(g->def->node[i]->op, op) == 0;
}

/* QuantizeV2(Dequantize d, Min, Max) -> d's own inputs, as TF does. */
static void remove_redundant_quantizations(rw_graph *g, const transform_ctx *ctx)
{
    size_t n = g->def->n_node;
    bool *candidates = xcalloc(n + 1, sizeof *candidates);
    for (size_t i = 0; i < n; i++) {
        Tfpi__NodeDef *q = g->def->node[i];
        if (strcmp(q->op, "QuantizeV2") != 0 || rw_num_data_inputs(q) != 3 || !input_is_op(g, q, 0, "Dequantize") ||
            !input_is_op(g, q, 1, "Min") || !input_is_op(g, q, 2, "Max"))
            continue;
        const Tfpi__NodeDef *d = g->def->node[rw_node_index(g, q->input[0])];
        if (rw_num_data_inputs(d) != 3)
            continue;
        char port[600];
        for (int m = 2; m >= 0; m--) {
            snprintf(port, sizeof port, "%s:%d", q->name, m);
            rw_replace_input(g->def, port, d->input[m]);
        }
        candidates[i] = true;
        candidates[rw_node_index(g, q->input[0])] = true;
    }
    rw_refresh(g);
    rw_delete_unused(g, candidates, ctx);
    free(candidates);
}

/* A float scalar Const NAME/suffix; returns its name. */
static char *named_float_const(rw_graph *g, const char *name, const char *suffix, float value,
                               const Tfpi__NodeDef *like)
{
    size_t size = strlen(name) + strlen(suffix) + 2;
    char *full = xmalloc(size);
    snprintf(full, size, "%s/%s", name, suffix);
    add_float_const(g, full, value, like);
    return full;
}

/* NAME/suffix = op(a, b) on float scalars; returns its name. */
static char *scalar_op(rw_graph *g, const char *name, const char *suffix, const char *op, const char *a,
                       const char *b, const Tfpi__NodeDef *like)
{
    size_t size = strlen(name) + strlen(suffix) + 2;
    char *full = xmalloc(size);
    snprintf(full, size, "%s/%s", name, suffix);
    Tfpi__NodeDef *n = add_node(g, full, op, like);
    gd_add_input(n, a);
    gd_add_input(n, b);
    gd_attr_set_type(n, "T", TFPI_FLOAT);
    return full;
}

/* tfpi's addition to TF's rewrite: a Requantize read only by a QuantizedRelu
 * or QuantizedRelu6 asks for [0, max] (max at most 6) instead of the whole
 * range of the sum, so the activation's 256 codes cover what it can output
 * (TF's QuantizedRelu6 keeps its input range: after a bias of range
 * [-2, 27] only 55 codes would fall in [0, 6]). Every node is a standard
 * TF op, so TensorFlow runs the result too and computes the same bytes. */
static void narrow_activation_ranges(rw_graph *g, const transform_ctx *ctx)
{
    size_t n = g->def->n_node;
    for (size_t i = 0; i < n; i++) {
        Tfpi__NodeDef *relu = g->def->node[i];
        bool six = strcmp(relu->op, "QuantizedRelu6") == 0;
        if ((!six && strcmp(relu->op, "QuantizedRelu") != 0) || rw_num_data_inputs(relu) != 3)
            continue;
        int r = rw_node_index(g, relu->input[0]);
        if (r < 0 || strcmp(g->def->node[r]->op, "Requantize") != 0 || g->uses[r] != 3 ||
            rw_num_data_inputs(g->def->node[r]) != 5 || transform_is_output(ctx, g->def->node[r]->name))
            continue;
        Tfpi__NodeDef *requantize = g->def->node[r];
        char *zero = named_float_const(g, requantize->name, "activation_zero", 0.0f, requantize);
        /* [max(min, 0), max(max, 0)]: the min is always 0 (RequantizationRange's is <= 0), but
         * reading it keeps the range node's outputs in use (insert_logging prints output 0) */
        char *min = scalar_op(g, requantize->name, "activation_min", "Maximum", requantize->input[3], zero,
                              requantize);
        char *max = scalar_op(g, requantize->name, "activation_max_positive", "Maximum", requantize->input[4], zero,
                              requantize);
        if (six) {
            char *limit = named_float_const(g, requantize->name, "activation_limit", 6.0f, requantize);
            char *limited = scalar_op(g, requantize->name, "activation_max", "Minimum", max, limit, requantize);
            free(max);
            free(limit);
            max = limited;
        }
        gd_set_string(&requantize->input[3], min);
        gd_set_string(&requantize->input[4], max);
        free(zero);
        free(min);
        free(max);
        rw_refresh(g);
    }
}

tfpi_code transform_quantize_nodes(Tfpi__GraphDef *graph, const transform_ctx *ctx)
{
    quantize_settings s = {0};
    float input_min, input_max;
    int given = transform_param_count(ctx, "input_min") + transform_param_count(ctx, "input_max");
    int fallbacks = transform_param_count(ctx, "fallback_min") + transform_param_count(ctx, "fallback_max");
    tfpi_code code;
    if ((code = transform_param_float(ctx, "input_min", 0, &input_min)) != TFPI_OK ||
        (code = transform_param_float(ctx, "input_max", 0, &input_max)) != TFPI_OK ||
        (code = transform_param_float(ctx, "fallback_min", 0, &s.fallback_min)) != TFPI_OK ||
        (code = transform_param_float(ctx, "fallback_max", 0, &s.fallback_max)) != TFPI_OK)
        return code;
    if (given == 1 || fallbacks == 1)
        return transform_fail(ctx, TFPI_INVALID_ARGUMENT,
                              "give both or neither of input_min/input_max and of fallback_min/fallback_max");
    if ((given && !(input_min < input_max)) || (fallbacks && !(s.fallback_min < s.fallback_max)))
        return transform_fail(ctx, TFPI_INVALID_ARGUMENT, "a range's min must be below its max");
    if (fallbacks && s.fallback_min > 0)
        return transform_fail(ctx, TFPI_INVALID_ARGUMENT, "fallback_min must be <= 0 (Requantize needs it)");
    s.fallback = fallbacks == 2;
    rw_graph g;
    rw_open(&g, graph);
    if (given)
        quantize_placeholders(&g, input_min, input_max);
    size_t n = graph->n_node; /* not the nodes this adds */
    for (size_t i = 0; i < n; i++) {
        const quantizable *q = find_quantizable(ctx, graph->node[i]);
        if (q)
            quantize_node(&g, graph->node[i], q, &s);
    }
    rw_close(&g);
    if ((code = transform_merge_duplicate_nodes(graph, ctx)) != TFPI_OK)
        return code;
    rw_open(&g, graph);
    remove_redundant_quantizations(&g, ctx);
    narrow_activation_ranges(&g, ctx);
    rw_close(&g);
    return TFPI_OK;
}
