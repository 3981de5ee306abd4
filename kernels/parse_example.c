/* parse_example.c - ParseExample and ParseExampleV2, the input stage of
 * Estimator and TensorFlow Serving exports that take serialized
 * tf.Example protos (the classify and regress signatures): each dense
 * feature (dense_keys, dense_shapes, Tdense: float, int64 or string) is read
 * from every example into a [batch, shape...] output, its default
 * (dense_defaults) filling in where an example lacks it; an empty default
 * makes the feature required. Sparse and ragged features are refused.
 *
 * The wire format, walked here without a generated parser: Example {
 * features 1: Features { feature 1: map<string, Feature> } }, Feature =
 * oneof { bytes_list 1, float_list 2, int64_list 3 } of { value 1 }
 * (floats and int64s packed or not). A batch is a vector of serialized
 * examples; a scalar is one example (ParseExampleV2 then gives no batch
 * dimension; ParseExample gives a batch of one). */
#include <stdlib.h>
#include <string.h>

#include "graph/wire.h"
#include "kernel/kernel.h"

enum { MAX_DENSE = 64 };

/* Where the node's inputs are, for one op or the other. */
typedef struct layout {
    int num_dense;
    int keys_input;     /* ParseExample: first dense key (one scalar each); V2: the dense_keys vector */
    int defaults_input; /* first default */
    bool v2;
} layout;

static tfpi_code get_layout(tp_op_ctx *ctx, layout *l)
{
    l->v2 = strcmp(ctx->def->op, "ParseExampleV2") == 0;
    const Tfpi__AttrValue *tdense = tp_attr(ctx->def, "Tdense");
    l->num_dense = tdense && tdense->value_case == TFPI__ATTR_VALUE__VALUE_LIST ? (int)tdense->list->n_type : 0;
    int64_t sparse = tp_attr_int(ctx->def, l->v2 ? "num_sparse" : "Nsparse", 0);
    const Tfpi__AttrValue *ragged = tp_attr(ctx->def, "ragged_value_types");
    if (sparse != 0 || (ragged && ragged->value_case == TFPI__ATTR_VALUE__VALUE_LIST && ragged->list->n_type))
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "sparse and ragged features are not supported (only dense ones)");
    if (l->num_dense > MAX_DENSE)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "more than %d dense features", MAX_DENSE);
    /* TensorFlow's ParseExampleAttrs: one key, type and shape per dense feature. */
    const Tfpi__AttrValue *ndense = l->v2 ? NULL : tp_attr(ctx->def, "Ndense");
    if (ndense && ndense->i != l->num_dense)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "attribute Ndense = %lld, but Tdense has %d types",
                       (long long)ndense->i, l->num_dense);
    const Tfpi__AttrValue *shapes = tp_attr(ctx->def, "dense_shapes");
    size_t num_shapes = shapes && shapes->value_case == TFPI__ATTR_VALUE__VALUE_LIST ? shapes->list->n_shape : 0;
    if (num_shapes != (size_t)l->num_dense)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "dense_shapes has %zu shapes, but Tdense has %d types",
                       num_shapes, l->num_dense);
    l->keys_input = l->v2 ? 3 : 2;
    l->defaults_input = l->v2 ? 5 : 2 + l->num_dense;
    int want = l->defaults_input + l->num_dense;
    if (ctx->num_inputs != want)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "has %d inputs; %d dense features need %d", ctx->num_inputs,
                       l->num_dense, want);
    return TFPI_OK;
}

/* The key of dense feature j. */
static const tfpi_bytes *dense_key(tp_op_ctx *ctx, const layout *l, int j)
{
    const tfpi_tensor *keys = ctx->inputs[l->keys_input + (l->v2 ? 0 : j)];
    return &((const tfpi_bytes *)keys->data)[l->v2 ? j : 0];
}

/* Shape attr entry j (fully known) into dims; its element count, -1 if
 * it is not fully known, -2 if it is over 2^24 elements. */
static int64_t dense_shape(tp_op_ctx *ctx, int j, int64_t *dims, int *ndims)
{
    const Tfpi__AttrValue *shapes = tp_attr(ctx->def, "dense_shapes");
    if (!shapes || shapes->value_case != TFPI__ATTR_VALUE__VALUE_LIST || (size_t)j >= shapes->list->n_shape)
        return -1;
    const Tfpi__TensorShapeProto *s = shapes->list->shape[j];
    int64_t count = 1;
    if (s->unknown_rank || s->n_dim >= TFPI_MAX_DIMS)
        return -1;
    *ndims = (int)s->n_dim;
    for (size_t d = 0; d < s->n_dim; d++) {
        if (s->dim[d]->size < 0)
            return -1;
        if (s->dim[d]->size > (1 << 24) || (count *= s->dim[d]->size) > (1 << 24))
            return -2;
        dims[d] = s->dim[d]->size;
    }
    return count;
}

static tfpi_code parse_prepare(tp_op_ctx *ctx)
{
    layout l;
    tfpi_code code = get_layout(ctx, &l);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *serialized = ctx->inputs[0];
    if (serialized->dtype != TFPI_STRING || serialized->ndims > 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "serialized must be a string vector or scalar");
    if (l.v2 && (ctx->inputs[l.keys_input]->dtype != TFPI_STRING ||
                 tp_num_elements(ctx->inputs[l.keys_input]) != l.num_dense))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "dense_keys must hold one string per dense feature");
    if (ctx->num_outputs > l.num_dense)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "has only %d outputs (its dense features)", l.num_dense);
    const Tfpi__AttrValue *tdense = tp_attr(ctx->def, "Tdense");
    for (int j = 0; j < l.num_dense; j++) {
        const tfpi_tensor *key = ctx->inputs[l.keys_input + (l.v2 ? 0 : j)], *fallback = ctx->inputs[l.defaults_input + j];
        if ((code = tp_expect_known(ctx, l.keys_input + (l.v2 ? 0 : j))) != TFPI_OK)
            return code;
        if (!l.v2 && (key->dtype != TFPI_STRING || tp_num_elements(key) != 1))
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "dense key %d must be a string scalar", j);
        int64_t dims[TFPI_MAX_DIMS + 1];
        int ndims = 0, batch = serialized->ndims == 1 || !l.v2;
        int64_t count = dense_shape(ctx, j, dims + batch, &ndims);
        tfpi_dtype type = (tfpi_dtype)tdense->list->type[j];
        if (count < 0)
            return tp_fail(ctx, count == -1 ? TFPI_UNIMPLEMENTED : TFPI_INVALID_ARGUMENT,
                           count == -1 ? "dense feature %d needs a fully known shape"
                                       : "dense feature %d has more than 2^24 elements per example", j);
        if (type != TFPI_FLOAT && type != TFPI_INT64 && type != TFPI_STRING)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "dense feature %d is %s (float, int64 or string only)", j,
                           tfpi_dtype_name(type));
        if (fallback->dtype != type || (tp_num_elements(fallback) != 0 && tp_num_elements(fallback) != count))
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the default of dense feature %d is %s of %lld elements, "
                           "expected %s of 0 or %lld", j, tfpi_dtype_name(fallback->dtype),
                           (long long)tp_num_elements(fallback), tfpi_dtype_name(type), (long long)count);
        dims[0] = serialized->ndims == 1 ? serialized->dims[0] : 1;
        if (j < ctx->num_outputs && (code = tp_set_output(ctx, j, type, ndims + batch, dims)) != TFPI_OK)
            return code;
    }
    return TFPI_OK;
}

/* The Feature message stored under `key` in a serialized Example; false if
 * absent (the last of repeated entries wins, as in protobuf maps). */
static bool find_feature(const tfpi_bytes *example, const tfpi_bytes *key, tp_wire_field *feature, bool *bad)
{
    tp_wire_reader e = {example->data, example->size, 0};
    tp_wire_field f, g, h;
    bool found = false;
    while (e.pos < e.size) {
        if (!tp_wire_next(&e, &f))
            return !(*bad = true);
        if (f.number != 1 || f.wire_type != TP_WIRE_LEN)
            continue;
        tp_wire_reader features = {f.bytes, f.length, 0};
        while (features.pos < features.size) {
            if (!tp_wire_next(&features, &g))
                return !(*bad = true);
            if (g.number != 1 || g.wire_type != TP_WIRE_LEN)
                continue;
            tp_wire_reader entry = {g.bytes, g.length, 0};
            bool key_matches = false, has_value = false;
            tp_wire_field value = {0};
            while (entry.pos < entry.size) {
                if (!tp_wire_next(&entry, &h))
                    return !(*bad = true);
                if (h.number == 1 && h.wire_type == TP_WIRE_LEN)
                    key_matches = h.length == key->size && (!key->size || memcmp(h.bytes, key->data, key->size) == 0);
                else if (h.number == 2 && h.wire_type == TP_WIRE_LEN) {
                    value = h;
                    has_value = true;
                }
            }
            if (key_matches) {
                *feature = has_value ? value : (tp_wire_field){.length = 0};
                found = true;
            }
        }
    }
    return found;
}

/* Copies the values of a Feature of `type` into out (count elements);
 * a message naming what is wrong, or NULL. */
static const char *read_values(const tp_wire_field *feature, tfpi_dtype type, int64_t count, void *out)
{
    uint32_t list = type == TFPI_STRING ? 1 : type == TFPI_FLOAT ? 2 : 3;
    tp_wire_reader r = {feature->bytes, feature->length, 0};
    tp_wire_field f, v;
    int64_t n = 0;
    while (r.pos < r.size) {
        if (!tp_wire_next(&r, &f))
            return "is not a valid Feature";
        if (f.wire_type != TP_WIRE_LEN)
            continue;
        if (f.number != list)
            return type == TFPI_STRING ? "is not a bytes_list" : type == TFPI_FLOAT ? "is not a float_list"
                                                                                    : "is not an int64_list";
        tp_wire_reader values = {f.bytes, f.length, 0};
        while (values.pos < values.size) {
            if (!tp_wire_next(&values, &v) || v.number != 1)
                return "holds a malformed value list";
            if (type == TFPI_STRING && v.wire_type == TP_WIRE_LEN) {
                if (n < count)
                    ((tfpi_bytes *)out)[n] = (tfpi_bytes){v.length, v.bytes};
                n++;
            } else if (type == TFPI_FLOAT && v.wire_type == TP_WIRE_FIXED32) {
                if (n < count)
                    memcpy((float *)out + n, &(uint32_t){(uint32_t)v.value}, 4);
                n++;
            } else if (type == TFPI_INT64 && v.wire_type == TP_WIRE_VARINT) {
                if (n < count)
                    ((int64_t *)out)[n] = (int64_t)v.value;
                n++;
            } else if (v.wire_type == TP_WIRE_LEN && type != TFPI_STRING) { /* packed */
                tp_wire_reader packed = {v.bytes, v.length, 0};
                while (packed.pos < packed.size) {
                    uint64_t x = 0;
                    if (type == TFPI_FLOAT) {
                        if (packed.size - packed.pos < 4)
                            return "holds a truncated float list";
                        memcpy(&x, packed.data + packed.pos, 4);
                        packed.pos += 4;
                    } else if (!tp_wire_varint(&packed, &x)) {
                        return "holds a truncated int64 list";
                    }
                    if (n < count && type == TFPI_FLOAT)
                        memcpy((float *)out + n, &(uint32_t){(uint32_t)x}, 4);
                    else if (n < count)
                        ((int64_t *)out)[n] = (int64_t)x;
                    n++;
                }
            } else {
                return "holds values of the wrong wire type";
            }
        }
    }
    return n == count ? NULL : "has another number of values than its shape";
}

static tfpi_code parse_run(tp_op_ctx *ctx)
{
    layout l;
    get_layout(ctx, &l);
    const tfpi_tensor *serialized = ctx->inputs[0];
    int64_t examples = tp_num_elements(serialized);
    for (int j = 0; j < ctx->num_outputs; j++) {
        tfpi_tensor *out = &ctx->outputs[j];
        const tfpi_tensor *fallback = ctx->inputs[l.defaults_input + j];
        const tfpi_bytes *key = dense_key(ctx, &l, j);
        size_t size = tfpi_dtype_size(out->dtype);
        int64_t count = examples ? tp_num_elements(out) / examples : 0;
        for (int64_t b = 0; b < examples; b++) {
            char *dst = (char *)out->data + (size_t)(b * count) * size;
            tp_wire_field feature;
            bool bad = false;
            const char *problem = NULL;
            if (find_feature(&((const tfpi_bytes *)serialized->data)[b], key, &feature, &bad))
                problem = read_values(&feature, out->dtype, count, dst);
            else if (bad)
                problem = "the example is not a valid tf.Example";
            else if (tp_num_elements(fallback) == 0)
                problem = "is required, and the example lacks it";
            else
                memcpy(dst, fallback->data, (size_t)count * size);
            if (problem)
                return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "example %lld: feature '%.*s' %s", (long long)b,
                               (int)(key->size > 100 ? 100 : key->size), (const char *)key->data, problem);
        }
    }
    return TFPI_OK;
}

const tp_kernel tp_kernels_parse_example[] = {
    TP_KERNEL("ParseExample", parse_prepare, parse_run, NULL, 0),
    TP_KERNEL("ParseExampleV2", parse_prepare, parse_run, NULL, 0),
    TP_KERNELS_END,
};
