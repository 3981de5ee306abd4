/* tflite_schema.c - reads and checks a .tflite file into the structs of
 * tflite_schema.h (field numbers from TFLite's schema.fbs). */
#include "model/tflite_schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/checked_math.h"
#include "core/file_open.h"
#include "model/tflite_options.h"

/* Model fields. */
enum { MODEL_VERSION, MODEL_CODES, MODEL_SUBGRAPHS, MODEL_DESCRIPTION, MODEL_BUFFERS, MODEL_METADATA_BUFFER,
       MODEL_METADATA, MODEL_SIGNATURES };
enum { CODE_DEPRECATED, CODE_CUSTOM, CODE_VERSION, CODE_BUILTIN };
enum { SUB_TENSORS, SUB_INPUTS, SUB_OUTPUTS, SUB_OPERATORS, SUB_NAME };
enum { TENSOR_SHAPE, TENSOR_TYPE, TENSOR_BUFFER, TENSOR_NAME, TENSOR_QUANT, TENSOR_VARIABLE, TENSOR_SPARSITY,
       TENSOR_SIGNATURE };
enum { QUANT_MIN, QUANT_MAX, QUANT_SCALE, QUANT_ZERO, QUANT_DETAILS_TYPE, QUANT_DETAILS, QUANT_DIM };
enum { OP_CODE, OP_INPUTS, OP_OUTPUTS, OP_OPTIONS_TYPE, OP_OPTIONS, OP_CUSTOM, OP_CUSTOM_FORMAT, OP_MUTATING,
       OP_INTERMEDIATES };
enum { BUFFER_DATA, BUFFER_OFFSET, BUFFER_SIZE };
enum { SIG_INPUTS, SIG_OUTPUTS, SIG_KEY, SIG_TAG, SIG_SUBGRAPH };
enum { MAP_NAME, MAP_TENSOR };
enum { META_NAME, META_BUFFER };

bool tp_tfl_detect(const uint8_t *data, size_t size)
{
    return size >= 8 && memcmp(data + 4, "TFL3", 4) == 0;
}

bool tp_tfl_detect_file(const char *path)
{
    uint8_t head[8];
    return tp_tfl_detect(head, tp_read_head(path, head, sizeof head));
}

const char *tp_tfl_type_name(int type)
{
    static const char *const names[] = {"FLOAT32", "FLOAT16", "INT32", "UINT8", "INT64", "STRING", "BOOL", "INT16",
                                        "COMPLEX64", "INT8", "FLOAT64", "COMPLEX128", "UINT64", "RESOURCE",
                                        "VARIANT", "UINT32", "UINT16", "INT4", "BFLOAT16"};
    return type >= 0 && type < (int)(sizeof names / sizeof names[0]) ? names[type] : "?";
}

static tfpi_dtype dtype_of(int type)
{
    switch (type) {
    case TP_TFL_FLOAT32: return TFPI_FLOAT;
    case TP_TFL_FLOAT16: return TFPI_HALF;
    case TP_TFL_INT32: return TFPI_INT32;
    case TP_TFL_UINT8: return TFPI_UINT8;
    case TP_TFL_INT64: return TFPI_INT64;
    case TP_TFL_STRING: return TFPI_STRING;
    case TP_TFL_BOOL: return TFPI_BOOL;
    case TP_TFL_INT16: return TFPI_INT16;
    case TP_TFL_INT8: return TFPI_INT8;
    case TP_TFL_COMPLEX64: return TFPI_COMPLEX64;
    case TP_TFL_FLOAT64: return TFPI_DOUBLE;
    case 16: return TFPI_UINT16;
    default: return 0;
    }
}

size_t tp_tfl_type_size(int type)
{
    tfpi_dtype d = dtype_of(type);
    return d && d != TFPI_STRING ? tfpi_dtype_size(d) : 0;
}

const tp_tfl_buffer *tp_tfl_tensor_data(const tp_tfl_model *m, const tp_tfl_tensor *t)
{
    return t->buffer < (uint32_t)m->num_buffers && m->buffers[t->buffer].data ? &m->buffers[t->buffer] : NULL;
}

static tfpi_code out_of_memory(tp_fb *fb)
{
    return tfpi_status_set(fb->status, TFPI_OUT_OF_MEMORY, "%s: out of memory reading the model", fb->source);
}

/* A zeroed array of n items (n is bounded by the file: a vector's count). */
static void *array(size_t n, size_t item)
{
    return calloc(n ? n : 1, item);
}

/* An int32 vector field copied out. */
static tfpi_code int_vector(tp_fb *fb, const tp_fb_table *t, int field, const char *name, int *count, int32_t **out)
{
    tp_fb_vector v;
    tfpi_code code = tp_fb_vector_field(fb, t, field, name, 4, &v);
    if (code != TFPI_OK)
        return code;
    if (!(*out = array(v.count, sizeof **out)))
        return out_of_memory(fb);
    for (uint32_t i = 0; i < v.count; i++)
        (*out)[i] = tp_fb_vector_i32(fb, &v, i);
    *count = (int)v.count;
    return TFPI_OK;
}

static tfpi_code read_codes(tp_fb *fb, const tp_fb_table *model, tp_tfl_model *m)
{
    tp_fb_vector v;
    tfpi_code code = tp_fb_vector_field(fb, model, MODEL_CODES, "operator_codes", 4, &v);
    if (code != TFPI_OK)
        return code;
    if (!(m->codes = array(v.count, sizeof *m->codes)))
        return out_of_memory(fb);
    m->num_codes = (int)v.count;
    for (uint32_t i = 0; i < v.count && code == TFPI_OK; i++) {
        tp_fb_table t;
        int8_t deprecated = 0;
        int32_t builtin = 0;
        tp_tfl_code *c = &m->codes[i];
        snprintf(fb->where, sizeof fb->where, "operator code %u", i);
        code = tp_fb_vector_table(fb, &v, i, model, "operator_codes", "OperatorCode", &t);
        if (code == TFPI_OK)
            code = tp_fb_i8(fb, &t, CODE_DEPRECATED, "deprecated_builtin_code", 0, &deprecated);
        if (code == TFPI_OK)
            code = tp_fb_string(fb, &t, CODE_CUSTOM, "custom_code", &c->custom, NULL);
        if (code == TFPI_OK)
            code = tp_fb_i32(fb, &t, CODE_VERSION, "version", 1, &c->version);
        if (code == TFPI_OK)
            code = tp_fb_i32(fb, &t, CODE_BUILTIN, "builtin_code", 0, &builtin);
        /* TF1/TOCO files fill only the deprecated byte; codes of 127 and up
         * only the new field: the operator is the larger. */
        c->builtin = builtin > deprecated ? builtin : deprecated;
        if (code == TFPI_OK && c->builtin < 0)
            code = tp_fb_fail(fb, &t, "builtin_code", TFPI_INVALID_ARGUMENT, "negative operator code %d", c->builtin);
    }
    return code;
}

static tfpi_code read_buffers(tp_fb *fb, const tp_fb_table *model, tp_tfl_model *m)
{
    tp_fb_vector v;
    tfpi_code code = tp_fb_vector_field(fb, model, MODEL_BUFFERS, "buffers", 4, &v);
    if (code != TFPI_OK)
        return code;
    if (!(m->buffers = array(v.count, sizeof *m->buffers)))
        return out_of_memory(fb);
    m->num_buffers = (int)v.count;
    for (uint32_t i = 0; i < v.count && code == TFPI_OK; i++) {
        tp_fb_table t;
        tp_fb_vector data;
        uint64_t offset, size;
        snprintf(fb->where, sizeof fb->where, "buffer %u", i);
        code = tp_fb_vector_table(fb, &v, i, model, "buffers", "Buffer", &t);
        if (code == TFPI_OK)
            code = tp_fb_vector_field(fb, &t, BUFFER_DATA, "data", 1, &data);
        if (code == TFPI_OK)
            code = tp_fb_u64(fb, &t, BUFFER_OFFSET, "offset", 0, &offset);
        if (code == TFPI_OK)
            code = tp_fb_u64(fb, &t, BUFFER_SIZE, "size", 0, &size);
        if (code != TFPI_OK)
            break;
        if (data.count) {
            m->buffers[i] = (tp_tfl_buffer){fb->data + data.pos, data.count};
        } else if (offset > 1) { /* data after the FlatBuffer (models over 2 GB) */
            if (offset > fb->size || size > fb->size - offset)
                code = tp_fb_fail(fb, &t, "offset", TFPI_INVALID_ARGUMENT,
                                  "%llu bytes at offset %llu lie past the end of the file (%zu bytes)",
                                  (unsigned long long)size, (unsigned long long)offset, fb->size);
            else if (size)
                m->buffers[i] = (tp_tfl_buffer){fb->data + offset, (size_t)size};
        }
    }
    return code;
}

/* Shape product checks: the bytes of dims x element size fit int64. */
static bool shape_bytes(const int64_t *dims, int n, size_t elem, int64_t *bytes)
{
    int64_t elems;
    return tp_checked_product(dims, n, &elems) && tp_checked_mul(elems, (int64_t)(elem ? elem : 1), bytes);
}

static tfpi_code read_quant(tp_fb *fb, const tp_fb_table *tensor, tp_tfl_tensor *t)
{
    tp_fb_table q, details;
    bool present;
    tfpi_code code = tp_fb_table_field(fb, tensor, TENSOR_QUANT, "quantization", "QuantizationParameters", &q,
                                       &present);
    if (code != TFPI_OK || !present)
        return code;
    tp_fb_vector scale, zero, min, max;
    uint8_t details_type;
    int32_t dim;
    if ((code = tp_fb_vector_field(fb, &q, QUANT_MIN, "min", 4, &min)) != TFPI_OK ||
        (code = tp_fb_vector_field(fb, &q, QUANT_MAX, "max", 4, &max)) != TFPI_OK ||
        (code = tp_fb_vector_field(fb, &q, QUANT_SCALE, "scale", 4, &scale)) != TFPI_OK ||
        (code = tp_fb_vector_field(fb, &q, QUANT_ZERO, "zero_point", 8, &zero)) != TFPI_OK ||
        (code = tp_fb_union(fb, &q, QUANT_DETAILS_TYPE, "details", 3, "QuantizationDetails", &details_type,
                            &details)) != TFPI_OK ||
        (code = tp_fb_i32(fb, &q, QUANT_DIM, "quantized_dimension", 0, &dim)) != TFPI_OK)
        return code;
    if (details_type)
        return tp_fb_fail(fb, &q, "details", TFPI_UNIMPLEMENTED,
                          "custom, blockwise or multi-axis quantization (details type %u), which tfpi does not run",
                          details_type);
    if (scale.count == 0)
        return TFPI_OK; /* min/max only: not a quantized tensor to a runtime */
    if (zero.count != scale.count)
        return tp_fb_fail(fb, &q, "zero_point", TFPI_INVALID_ARGUMENT, "%u zero points for %u scales", zero.count,
                          scale.count);
    /* A vector with one scale per element is quantized along its only
     * dimension whatever the file says: TOCO wrote some biases with their
     * filter's quantized_dimension (3), and TFLite Micro runs such files. */
    if (scale.count > 1 && t->ndims == 1 && t->dims[0] == (int64_t)scale.count)
        dim = 0;
    if (scale.count > 1 && (dim < 0 || dim >= t->ndims || t->dims[dim] != (int64_t)scale.count))
        return tp_fb_fail(fb, &q, "scale", TFPI_INVALID_ARGUMENT,
                          "%u scales along quantized_dimension %d, which the tensor's shape does not have",
                          scale.count, dim);
    t->quant.scale = array(scale.count, sizeof *t->quant.scale);
    t->quant.zero_point = array(scale.count, sizeof *t->quant.zero_point);
    if (!t->quant.scale || !t->quant.zero_point)
        return out_of_memory(fb);
    for (uint32_t i = 0; i < scale.count; i++) {
        t->quant.scale[i] = tp_fb_vector_f32(fb, &scale, i);
        t->quant.zero_point[i] = tp_fb_vector_i64(fb, &zero, i);
    }
    t->quant.count = (int)scale.count;
    t->quant.dim = scale.count > 1 ? dim : 0;
    return TFPI_OK;
}

/* A dims vector (shape or shape_signature) into dims; -1 allowed. */
static tfpi_code read_dims(tp_fb *fb, const tp_fb_table *tensor, int field, const char *name, int *ndims,
                           int64_t *dims, bool *present)
{
    tp_fb_vector v;
    tfpi_code code = tp_fb_vector_field(fb, tensor, field, name, 4, &v);
    *present = v.pos != 0;
    if (code != TFPI_OK)
        return code;
    if (v.count > TFPI_MAX_DIMS)
        return tp_fb_fail(fb, tensor, name, TFPI_UNIMPLEMENTED, "rank %u; tfpi holds at most %d dimensions", v.count,
                          TFPI_MAX_DIMS);
    for (uint32_t i = 0; i < v.count; i++) {
        dims[i] = tp_fb_vector_i32(fb, &v, i);
        if (dims[i] < -1)
            return tp_fb_fail(fb, tensor, name, TFPI_INVALID_ARGUMENT, "dimension %u is %lld", i, (long long)dims[i]);
    }
    *ndims = (int)v.count;
    return TFPI_OK;
}

static tfpi_code check_constant(tp_fb *fb, const tp_fb_table *table, const tp_tfl_model *m, const tp_tfl_tensor *t)
{
    if (t->buffer >= (uint32_t)m->num_buffers)
        return tp_fb_fail(fb, table, "buffer", TFPI_INVALID_ARGUMENT, "buffer %u is past the model's %d buffers",
                          t->buffer, m->num_buffers);
    const tp_tfl_buffer *b = tp_tfl_tensor_data(m, t);
    if (!b)
        return TFPI_OK;
    int64_t known[TFPI_MAX_DIMS], bytes;
    for (int i = 0; i < t->ndims; i++)
        if ((known[i] = t->dims[i]) < 0)
            return tp_fb_fail(fb, table, "shape", TFPI_INVALID_ARGUMENT, "a constant tensor of unknown size");
    if (t->type == TP_TFL_STRING)
        return TFPI_OK; /* its own layout, checked when it is decoded */
    if (!t->dtype || t->sparse)
        return TFPI_OK; /* refused by name where it is used */
    if (!shape_bytes(known, t->ndims, tp_tfl_type_size(t->type), &bytes))
        return tp_fb_fail(fb, table, "shape", TFPI_INVALID_ARGUMENT, "the shape's size overflows");
    if ((uint64_t)bytes > b->size)
        return tp_fb_fail(fb, table, "buffer", TFPI_INVALID_ARGUMENT,
                          "buffer %u has %zu bytes, fewer than the %lld its %s shape needs", t->buffer, b->size,
                          (long long)bytes, tp_tfl_type_name(t->type));
    return TFPI_OK;
}

static tfpi_code read_tensor(tp_fb *fb, const tp_fb_table *table, const tp_tfl_model *m, tp_tfl_tensor *t)
{
    int8_t type;
    bool present, sig_present;
    int sig_ndims = 0;
    tp_fb_table sparsity;
    tfpi_code code;
    if ((code = read_dims(fb, table, TENSOR_SHAPE, "shape", &t->ndims, t->dims, &present)) != TFPI_OK ||
        (code = tp_fb_i8(fb, table, TENSOR_TYPE, "type", 0, &type)) != TFPI_OK ||
        (code = tp_fb_u32(fb, table, TENSOR_BUFFER, "buffer", 0, &t->buffer)) != TFPI_OK ||
        (code = tp_fb_string(fb, table, TENSOR_NAME, "name", &t->name, NULL)) != TFPI_OK ||
        (code = tp_fb_bool(fb, table, TENSOR_VARIABLE, "is_variable", false, &t->is_variable)) != TFPI_OK ||
        (code = tp_fb_table_field(fb, table, TENSOR_SPARSITY, "sparsity", "SparsityParameters", &sparsity,
                                  &t->sparse)) != TFPI_OK ||
        (code = read_dims(fb, table, TENSOR_SIGNATURE, "shape_signature", &sig_ndims, t->signature, &sig_present)) !=
            TFPI_OK)
        return code;
    t->type = type;
    t->dtype = dtype_of(type);
    if (!sig_present)
        memcpy(t->signature, t->dims, sizeof t->dims);
    else if (sig_ndims != t->ndims)
        return tp_fb_fail(fb, table, "shape_signature", TFPI_INVALID_ARGUMENT, "rank %d, but the shape has rank %d",
                          sig_ndims, t->ndims);
    int64_t bytes, known[TFPI_MAX_DIMS];
    for (int i = 0; i < t->ndims; i++)
        known[i] = t->dims[i] < 0 ? 0 : t->dims[i];
    if (!shape_bytes(known, t->ndims, tp_tfl_type_size(type), &bytes))
        return tp_fb_fail(fb, table, "shape", TFPI_INVALID_ARGUMENT, "the product of its dimensions overflows");
    if ((code = read_quant(fb, table, t)) != TFPI_OK)
        return code;
    return check_constant(fb, table, m, t);
}

/* Every index in list[0..n) names a tensor of the subgraph (or is -1 where allowed). */
static tfpi_code check_indices(tp_fb *fb, const tp_fb_table *t, const char *name, const int32_t *list, int n,
                               int num_tensors, bool optional)
{
    for (int i = 0; i < n; i++)
        if (list[i] >= num_tensors || list[i] < (optional ? -1 : 0))
            return tp_fb_fail(fb, t, name, TFPI_INVALID_ARGUMENT, "entry %d is tensor %d; the subgraph has %d tensors",
                              i, list[i], num_tensors);
    return TFPI_OK;
}

static tfpi_code read_operator(tp_fb *fb, const tp_fb_table *table, const tp_tfl_model *m, const tp_tfl_subgraph *g,
                               tp_tfl_operator *op)
{
    tp_fb_vector custom;
    int8_t format;
    tfpi_code code;
    if ((code = tp_fb_u32(fb, table, OP_CODE, "opcode_index", 0, &op->opcode)) != TFPI_OK ||
        (code = int_vector(fb, table, OP_INPUTS, "inputs", &op->num_inputs, &op->inputs)) != TFPI_OK ||
        (code = int_vector(fb, table, OP_OUTPUTS, "outputs", &op->num_outputs, &op->outputs)) != TFPI_OK ||
        (code = tp_fb_union(fb, table, OP_OPTIONS_TYPE, "builtin_options", TP_TFL_MAX_OPTIONS, "BuiltinOptions",
                            &op->options_type, &op->options)) != TFPI_OK ||
        (code = tp_fb_vector_field(fb, table, OP_CUSTOM, "custom_options", 1, &custom)) != TFPI_OK ||
        (code = tp_fb_i8(fb, table, OP_CUSTOM_FORMAT, "custom_options_format", 0, &format)) != TFPI_OK ||
        (code = int_vector(fb, table, OP_INTERMEDIATES, "intermediates", &op->num_intermediates,
                           &op->intermediates)) != TFPI_OK)
        return code;
    if (op->opcode >= (uint32_t)m->num_codes)
        return tp_fb_fail(fb, table, "opcode_index", TFPI_INVALID_ARGUMENT,
                          "operator code %u is past the model's %d operator codes", op->opcode, m->num_codes);
    if (op->options_type) {
        op->options.type = tp_tfl_options_name(op->options_type);
        if ((code = tp_tfl_options_check(fb, op->options_type, &op->options)) != TFPI_OK)
            return code;
    }
    if (custom.count) {
        op->custom = fb->data + custom.pos;
        op->custom_size = custom.count;
    }
    if (format != 0)
        return tp_fb_fail(fb, table, "custom_options_format", TFPI_UNIMPLEMENTED, "format %d (only 0, FlexBuffers)",
                          format);
    if ((code = check_indices(fb, table, "inputs", op->inputs, op->num_inputs, g->num_tensors, true)) != TFPI_OK ||
        (code = check_indices(fb, table, "intermediates", op->intermediates, op->num_intermediates, g->num_tensors,
                              false)) != TFPI_OK)
        return code;
    return check_indices(fb, table, "outputs", op->outputs, op->num_outputs, g->num_tensors, false);
}

static tfpi_code read_subgraph(tp_fb *fb, const tp_fb_table *table, uint32_t index, const tp_tfl_model *m,
                               tp_tfl_subgraph *g)
{
    tp_fb_vector tensors, operators;
    tfpi_code code;
    snprintf(fb->where, sizeof fb->where, "subgraph %u", index);
    if ((code = tp_fb_string(fb, table, SUB_NAME, "name", &g->name, NULL)) != TFPI_OK ||
        (code = tp_fb_vector_field(fb, table, SUB_TENSORS, "tensors", 4, &tensors)) != TFPI_OK ||
        (code = int_vector(fb, table, SUB_INPUTS, "inputs", &g->num_inputs, &g->inputs)) != TFPI_OK ||
        (code = int_vector(fb, table, SUB_OUTPUTS, "outputs", &g->num_outputs, &g->outputs)) != TFPI_OK ||
        (code = tp_fb_vector_field(fb, table, SUB_OPERATORS, "operators", 4, &operators)) != TFPI_OK)
        return code;
    if (!(g->tensors = array(tensors.count, sizeof *g->tensors)) ||
        !(g->operators = array(operators.count, sizeof *g->operators)))
        return out_of_memory(fb);
    g->num_tensors = (int)tensors.count;
    if ((code = check_indices(fb, table, "inputs", g->inputs, g->num_inputs, g->num_tensors, false)) != TFPI_OK ||
        (code = check_indices(fb, table, "outputs", g->outputs, g->num_outputs, g->num_tensors, false)) != TFPI_OK)
        return code;
    for (uint32_t i = 0; i < tensors.count && code == TFPI_OK; i++) {
        tp_fb_table t;
        snprintf(fb->where, sizeof fb->where, "subgraph %u, tensor %u", index, i);
        code = tp_fb_vector_table(fb, &tensors, i, table, "tensors", "Tensor", &t);
        if (code == TFPI_OK)
            code = read_tensor(fb, &t, m, &g->tensors[i]);
    }
    for (uint32_t i = 0; i < operators.count && code == TFPI_OK; i++) {
        tp_fb_table t;
        snprintf(fb->where, sizeof fb->where, "subgraph %u, operator %u", index, i);
        code = tp_fb_vector_table(fb, &operators, i, table, "operators", "Operator", &t);
        g->num_operators = (int)i + 1; /* so the lists read so far are freed */
        if (code == TFPI_OK)
            code = read_operator(fb, &t, m, g, &g->operators[i]);
    }
    return code;
}

static tfpi_code read_subgraphs(tp_fb *fb, const tp_fb_table *model, tp_tfl_model *m)
{
    tp_fb_vector v;
    tfpi_code code = tp_fb_vector_field(fb, model, MODEL_SUBGRAPHS, "subgraphs", 4, &v);
    if (code != TFPI_OK)
        return code;
    if (v.count == 0)
        return tp_fb_fail(fb, model, "subgraphs", TFPI_INVALID_ARGUMENT, "the model has no subgraph");
    if (!(m->subgraphs = array(v.count, sizeof *m->subgraphs)))
        return out_of_memory(fb);
    for (uint32_t i = 0; i < v.count && code == TFPI_OK; i++) {
        tp_fb_table t;
        m->num_subgraphs = (int)i + 1;
        code = tp_fb_vector_table(fb, &v, i, model, "subgraphs", "SubGraph", &t);
        if (code == TFPI_OK)
            code = read_subgraph(fb, &t, i, m, &m->subgraphs[i]);
    }
    return code;
}

/* The TensorMaps of a signature's inputs or outputs. */
static tfpi_code read_tensor_maps(tp_fb *fb, const tp_fb_table *sig, int field, const char *name,
                                  const tp_tfl_subgraph *g, int *count, tp_tfl_tensor_map **out)
{
    tp_fb_vector v;
    tfpi_code code = tp_fb_vector_field(fb, sig, field, name, 4, &v);
    if (code != TFPI_OK)
        return code;
    if (!(*out = array(v.count, sizeof **out)))
        return out_of_memory(fb);
    *count = (int)v.count;
    for (uint32_t i = 0; i < v.count && code == TFPI_OK; i++) {
        tp_fb_table t;
        code = tp_fb_vector_table(fb, &v, i, sig, name, "TensorMap", &t);
        if (code == TFPI_OK)
            code = tp_fb_string(fb, &t, MAP_NAME, "name", &(*out)[i].name, NULL);
        if (code == TFPI_OK)
            code = tp_fb_u32(fb, &t, MAP_TENSOR, "tensor_index", 0, &(*out)[i].tensor);
        if (code == TFPI_OK && (*out)[i].tensor >= (uint32_t)g->num_tensors)
            code = tp_fb_fail(fb, &t, "tensor_index", TFPI_INVALID_ARGUMENT, "tensor %u; its subgraph has %d",
                              (*out)[i].tensor, g->num_tensors);
    }
    return code;
}

static tfpi_code read_signatures(tp_fb *fb, const tp_fb_table *model, tp_tfl_model *m)
{
    tp_fb_vector v;
    tfpi_code code = tp_fb_vector_field(fb, model, MODEL_SIGNATURES, "signature_defs", 4, &v);
    if (code != TFPI_OK)
        return code;
    if (!(m->signatures = array(v.count, sizeof *m->signatures)))
        return out_of_memory(fb);
    for (uint32_t i = 0; i < v.count && code == TFPI_OK; i++) {
        tp_fb_table t;
        tp_tfl_signature *s = &m->signatures[i];
        m->num_signatures = (int)i + 1;
        snprintf(fb->where, sizeof fb->where, "signature %u", i);
        code = tp_fb_vector_table(fb, &v, i, model, "signature_defs", "SignatureDef", &t);
        if (code == TFPI_OK)
            code = tp_fb_string(fb, &t, SIG_KEY, "signature_key", &s->key, NULL);
        if (code == TFPI_OK)
            code = tp_fb_u32(fb, &t, SIG_SUBGRAPH, "subgraph_index", 0, &s->subgraph);
        if (code == TFPI_OK && s->subgraph >= (uint32_t)m->num_subgraphs)
            code = tp_fb_fail(fb, &t, "subgraph_index", TFPI_INVALID_ARGUMENT, "subgraph %u; the model has %d",
                              s->subgraph, m->num_subgraphs);
        if (code == TFPI_OK)
            code = read_tensor_maps(fb, &t, SIG_INPUTS, "inputs", &m->subgraphs[s->subgraph], &s->num_inputs,
                                    &s->inputs);
        if (code == TFPI_OK)
            code = read_tensor_maps(fb, &t, SIG_OUTPUTS, "outputs", &m->subgraphs[s->subgraph], &s->num_outputs,
                                    &s->outputs);
    }
    return code;
}

static tfpi_code read_metadata(tp_fb *fb, const tp_fb_table *model, tp_tfl_model *m)
{
    tp_fb_vector v;
    tfpi_code code = tp_fb_vector_field(fb, model, MODEL_METADATA, "metadata", 4, &v);
    if (code != TFPI_OK)
        return code;
    if (!(m->metadata = array(v.count, sizeof *m->metadata)))
        return out_of_memory(fb);
    m->num_metadata = (int)v.count;
    for (uint32_t i = 0; i < v.count && code == TFPI_OK; i++) {
        tp_fb_table t;
        snprintf(fb->where, sizeof fb->where, "metadata %u", i);
        code = tp_fb_vector_table(fb, &v, i, model, "metadata", "Metadata", &t);
        if (code == TFPI_OK)
            code = tp_fb_string(fb, &t, META_NAME, "name", &m->metadata[i].name, NULL);
        if (code == TFPI_OK)
            code = tp_fb_u32(fb, &t, META_BUFFER, "buffer", 0, &m->metadata[i].buffer);
        if (code == TFPI_OK && m->metadata[i].buffer >= (uint32_t)m->num_buffers)
            code = tp_fb_fail(fb, &t, "buffer", TFPI_INVALID_ARGUMENT, "buffer %u; the model has %d",
                              m->metadata[i].buffer, m->num_buffers);
    }
    return code;
}

tfpi_code tp_tfl_model_read(const uint8_t *data, size_t size, const char *source, tp_tfl_model *m,
                            tfpi_status *status)
{
    *m = (tp_tfl_model){0};
    tp_fb *fb = &m->fb;
    tp_fb_init(fb, data, size, source, status);
    tp_fb_table model;
    tfpi_code code = tp_fb_root(fb, "TFL3", "Model", &model);
    if (code == TFPI_OK)
        code = tp_fb_u32(fb, &model, MODEL_VERSION, "version", 0, &m->version);
    if (code == TFPI_OK && m->version != 3)
        code = tp_fb_fail(fb, &model, "version", TFPI_UNIMPLEMENTED, "schema version %u (tfpi reads version 3)",
                          m->version);
    if (code == TFPI_OK)
        code = tp_fb_string(fb, &model, MODEL_DESCRIPTION, "description", &m->description, NULL);
    if (code == TFPI_OK)
        code = read_codes(fb, &model, m);
    if (code == TFPI_OK)
        code = read_buffers(fb, &model, m);
    if (code == TFPI_OK)
        code = read_subgraphs(fb, &model, m);
    if (code == TFPI_OK)
        code = read_signatures(fb, &model, m);
    if (code == TFPI_OK)
        code = read_metadata(fb, &model, m);
    fb->where[0] = 0;
    if (code != TFPI_OK)
        tp_tfl_model_free(m);
    return code;
}

void tp_tfl_model_free(tp_tfl_model *m)
{
    for (int s = 0; m->subgraphs && s < m->num_subgraphs; s++) {
        tp_tfl_subgraph *g = &m->subgraphs[s];
        for (int i = 0; g->tensors && i < g->num_tensors; i++) {
            free(g->tensors[i].quant.scale);
            free(g->tensors[i].quant.zero_point);
        }
        for (int i = 0; g->operators && i < g->num_operators; i++) {
            free(g->operators[i].inputs);
            free(g->operators[i].outputs);
            free(g->operators[i].intermediates);
        }
        free(g->tensors);
        free(g->operators);
        free(g->inputs);
        free(g->outputs);
    }
    for (int i = 0; m->signatures && i < m->num_signatures; i++) {
        free(m->signatures[i].inputs);
        free(m->signatures[i].outputs);
    }
    free(m->subgraphs);
    free(m->codes);
    free(m->buffers);
    free(m->signatures);
    free(m->metadata);
    tp_fb fb = m->fb;
    *m = (tp_tfl_model){0};
    m->fb = fb;
}
