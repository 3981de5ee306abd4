/* tflite_graph.c - translates a checked .tflite subgraph into NodeDefs
 * (tflite_graph.h): names, inputs, constants, the absent-input node, and
 * the builtin-named node of every operator no TensorFlow op computes. */
#include "model/tflite_graph.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/node_def.h"
#include "model/flexbuffer.h"
#include "model/tflite_functions.h"
#include "model/tflite_hashtable.h"
#include "model/tflite_options.h"
#include "model/tflite_strings.h"

static tfpi_code oom(tp_tfl_translator *x)
{
    return tfpi_status_set(x->status, TFPI_OUT_OF_MEMORY, "%s: out of memory translating the model", x->source);
}

/* Takes `name` (malloc'd) as a node name if it is free; false if taken. */
static bool take_name(tp_tfl_translator *x, char *name, bool *out_of_memory)
{
    *out_of_memory = false;
    if (tp_name_map_find(&x->taken, name, strlen(name)) >= 0)
        return false;
    if (x->num_names == x->cap_names) {
        size_t cap = x->cap_names ? 2 * x->cap_names : 256;
        char **grown = realloc(x->names, cap * sizeof *grown);
        if (!grown) {
            *out_of_memory = true;
            return false;
        }
        x->names = grown;
        x->cap_names = cap;
    }
    x->names[x->num_names++] = name;
    if (!tp_name_map_insert_growing(&x->taken, name, 0, out_of_memory)) {
        x->num_names--;
        return false;
    }
    return true;
}

/* name, or name_2, name_3... whichever is free; NULL if memory runs out. */
static const char *unique(tp_tfl_translator *x, const char *name)
{
    size_t n = strlen(name) + 24;
    for (int k = 1;; k++) {
        char *candidate = malloc(n);
        bool out_of_memory;
        if (!candidate)
            return NULL;
        if (k == 1)
            snprintf(candidate, n, "%s", name);
        else
            snprintf(candidate, n, "%s_%d", name, k);
        if (take_name(x, candidate, &out_of_memory))
            return candidate;
        free(candidate);
        if (out_of_memory)
            return NULL;
    }
}

const char *tp_tfl_fresh_name(tp_tfl_translator *x, const char *base, const char *suffix)
{
    size_t n = strlen(base) + strlen(suffix) + 2;
    char *name = malloc(n);
    if (!name)
        return NULL;
    snprintf(name, n, "%s/%s", base, suffix);
    const char *taken = unique(x, name);
    free(name);
    return taken;
}

/* The node name for tensor t: its name up to the first ';' without a ":k"
 * suffix, every character TensorFlow does not allow made '_'. */
static const char *tensor_node_name(tp_tfl_translator *x, int32_t t)
{
    if (x->reserved[t]) /* a subgraph output's, taken first */
        return x->reserved[t];
    const char *name = x->g->tensors[t].name;
    size_t len = strcspn(name, ";");
    const char *colon = memchr(name, ':', len);
    if (colon && colon + 1 < name + len && strspn(colon + 1, "0123456789") == (size_t)(name + len - colon - 1))
        len = (size_t)(colon - name);
    if (len > 200)
        len = 200;
    char buf[232];
    size_t at = 0;
    if (len == 0 || !(isalnum((unsigned char)name[0]) || name[0] == '.' || name[0] == '_'))
        at = (size_t)snprintf(buf, sizeof buf, "tensor_%d%s", (int)t, len ? "_" : "");
    for (size_t i = 0; i < len; i++)
        buf[at++] = isalnum((unsigned char)name[i]) || strchr("-./_", name[i]) ? name[i] : '_';
    buf[at] = 0;
    while (at > 0 && buf[at - 1] == '/') /* a piece may not be empty */
        buf[--at] = 0;
    return unique(x, at ? buf : "tensor");
}

/* True if tensor t's own name is "node:k" (or "node" for k = 0). */
static bool named_as_output(const tp_tfl_translator *x, int32_t t, const char *node, int k)
{
    const char *name = x->g->tensors[t].name;
    size_t n = strlen(node);
    if (strncmp(name, node, n) != 0)
        return false;
    if (name[n] == 0)
        return k == 0;
    char *end;
    return name[n] == ':' && strtol(name + n + 1, &end, 10) == k && *end == 0 && end > name + n + 1;
}

static tfpi_code record_output(tp_tfl_translator *x, int32_t t, const char *node, int k);

tfpi_code tp_tfl_set_output(tp_tfl_translator *x, int32_t t, const char *node, int k)
{
    if (k == 0 || named_as_output(x, t, node, k))
        return record_output(x, t, node, k);
    /* Output k of a node named after output 0: an Identity named after
     * tensor t too, so a feed or fetch by its own name finds it. */
    char input[300];
    snprintf(input, sizeof input, "%s:%d", node, k);
    const char *name = x->tensor_names[t] ? NULL : tensor_node_name(x, t);
    Tfpi__NodeDef *def = name ? tp_tfl_emit(x, name, "Identity", (const char *[]){input}, 1) : NULL;
    if (x->tensor_names[t])
        return record_output(x, t, node, k); /* reports the second writer */
    if (!def || !tp_tfl_attr(x, def, "T", tp_attr_new_type(x->g->tensors[t].dtype ? x->g->tensors[t].dtype
                                                                                   : TFPI_FLOAT)))
        return x->status->code ? x->status->code : oom(x);
    return record_output(x, t, name, 0);
}

static tfpi_code record_output(tp_tfl_translator *x, int32_t t, const char *node, int k)
{
    if (x->tensor_names[t])
        return tfpi_status_set(x->status, TFPI_INVALID_ARGUMENT,
                               "%s: tensor %d ('%s') is written by two operators, or is an input or constant", x->source,
                               t, x->g->tensors[t].name);
    size_t n = strlen(node) + 16;
    if (!(x->tensor_names[t] = malloc(n)))
        return oom(x);
    if (k == 0)
        snprintf(x->tensor_names[t], n, "%s", node);
    else
        snprintf(x->tensor_names[t], n, "%s:%d", node, k);
    return TFPI_OK;
}

Tfpi__NodeDef *tp_tfl_emit(tp_tfl_translator *x, const char *name, const char *op, const char *const *inputs, int n)
{
    for (int i = 0; name && i < n; i++)
        if (!inputs[i]) { /* an absent (-1) or missing input the translation needs */
            tfpi_status_set(x->status, TFPI_INVALID_ARGUMENT,
                            "%s: node '%s' (%s): its input %d is absent (-1 or not given), which it needs", x->source,
                            name, op, i);
            return NULL;
        }
    Tfpi__NodeDef *def = name ? tp_node_new(name, op) : NULL;
    bool ok = def != NULL;
    for (int i = 0; ok && i < n; i++)
        ok = tp_node_add_input(def, inputs[i]);
    if (!ok) {
        if (def)
            tfpi__node_def__free_unpacked(def, NULL);
        oom(x);
        return NULL;
    }
    if (!tp_node_list_push(&x->nodes, def)) {
        oom(x);
        return NULL;
    }
    return def;
}

bool tp_tfl_attr(tp_tfl_translator *x, Tfpi__NodeDef *def, const char *key, Tfpi__AttrValue *value)
{
    if (value && tp_node_set_attr(def, key, value))
        return true;
    oom(x);
    return false;
}

static const char *const_node(tp_tfl_translator *x, const char *name, tfpi_dtype dtype, const int64_t *dims, int n,
                              const void *data, size_t bytes)
{
    Tfpi__NodeDef *def = name ? tp_tfl_emit(x, name, "Const", NULL, 0) : NULL;
    if (!name)
        oom(x);
    if (!def || !tp_tfl_attr(x, def, "dtype", tp_attr_new_type(dtype)) ||
        !tp_tfl_attr(x, def, "value", tp_attr_new_tensor(dtype, dims, n, data, bytes)))
        return NULL;
    return def->name;
}

const char *tp_tfl_const_i32(tp_tfl_translator *x, const char *base, const char *suffix, const int32_t *values,
                             int n, bool scalar)
{
    int64_t dims[1] = {n};
    return const_node(x, tp_tfl_fresh_name(x, base, suffix), TFPI_INT32, dims, scalar ? 0 : 1, values,
                      (size_t)n * sizeof *values);
}

const char *tp_tfl_const_f32(tp_tfl_translator *x, const char *base, const char *suffix, float value)
{
    return const_node(x, tp_tfl_fresh_name(x, base, suffix), TFPI_FLOAT, NULL, 0, &value, sizeof value);
}

const char *tp_tfl_op_name(const tp_tfl_op *o)
{
    const tp_tfl_code *c = &o->x->m->codes[o->op->opcode];
    const char *name = o->builtin == TP_TFL_OP_CUSTOM ? c->custom : tp_tfl_builtin_name(o->builtin);
    return name && *name ? name : "?";
}

tfpi_code tp_tfl_op_fail(const tp_tfl_op *o, tfpi_code code, const char *fmt, ...)
{
    char message[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    return tfpi_status_set(o->x->status, code, "%s: operator %d (%s): %s", o->x->source, o->index,
                           tp_tfl_op_name(o), message);
}

/* The one node every absent optional input reads: an empty float [0]. */
static const char *no_value(tp_tfl_translator *x)
{
    if (x->no_value)
        return TP_TFL_NO_VALUE;
    bool out_of_memory;
    char *name = strdup(TP_TFL_NO_VALUE);
    if (!name || !take_name(x, name, &out_of_memory)) {
        free(name);
        tfpi_status_set(x->status, TFPI_INVALID_ARGUMENT, "%s: a tensor is named %s, the absent-input node's name",
                        x->source, TP_TFL_NO_VALUE);
        return NULL;
    }
    Tfpi__NodeDef *def = tp_tfl_emit(x, name, TP_TFL_NO_VALUE, NULL, 0);
    if (!def || !tp_tfl_attr(x, def, "T", tp_attr_new_type(TFPI_FLOAT)))
        return NULL;
    x->no_value = true;
    return TP_TFL_NO_VALUE;
}

/* A constant tensor: ImmutableConst over its buffer's bytes. */
static tfpi_code constant(tp_tfl_translator *x, int32_t t)
{
    const tp_tfl_tensor *tensor = &x->g->tensors[t];
    if (tensor->dtype == TFPI_STRING && !tensor->sparse) {
        const char *name = tensor_node_name(x, t);
        if (!name)
            return oom(x);
        return tp_tfl_string_const(x, t, name) ? tp_tfl_set_output(x, t, name, 0) : x->status->code;
    }
    if (!tensor->dtype)
        return tfpi_status_set(x->status, TFPI_UNIMPLEMENTED, "%s: tensor %d ('%s'): constant %s tensors are not "
                               "supported", x->source, t, tensor->name, tp_tfl_type_name(tensor->type));
    if (tensor->sparse)
        return tfpi_status_set(x->status, TFPI_UNIMPLEMENTED, "%s: tensor %d ('%s') is sparse, which tfpi does not "
                               "run", x->source, t, tensor->name);
    const char *name = tensor_node_name(x, t);
    char region[40];
    snprintf(region, sizeof region, TP_TFL_REGION_PREFIX "%u", tensor->buffer);
    Tfpi__NodeDef *def = name ? tp_tfl_emit(x, name, "ImmutableConst", NULL, 0) : NULL;
    if (!name)
        return oom(x);
    if (!def || !tp_tfl_attr(x, def, "dtype", tp_attr_new_type(tensor->dtype)) ||
        !tp_tfl_attr(x, def, "shape", tp_attr_new_shape(tensor->dims, tensor->ndims)) ||
        !tp_tfl_attr(x, def, "memory_region_name", tp_attr_new_string(region)))
        return x->status ? x->status->code : TFPI_OUT_OF_MEMORY;
    return tp_tfl_set_output(x, t, name, 0);
}

/* A variable tensor without data (an LSTM's state): its shape filled as
 * TFLite resets a variable, with zeros, or an int8 tensor's zero point. */
static tfpi_code zeros(tp_tfl_translator *x, int32_t t)
{
    const tp_tfl_tensor *tensor = &x->g->tensors[t];
    const tfpi_dtype dtype = tensor->dtype;
    if (dtype != TFPI_FLOAT && dtype != TFPI_INT8 && dtype != TFPI_UINT8 && dtype != TFPI_INT16 &&
        dtype != TFPI_INT32)
        return tfpi_status_set(x->status, TFPI_UNIMPLEMENTED, "%s: tensor %d ('%s'): a %s variable (tfpi starts "
                               "float32, int8, uint8, int16 and int32 variables)", x->source, t, tensor->name,
                               tp_tfl_type_name(tensor->type));
    const char *name = tensor_node_name(x, t);
    int32_t dims[TFPI_MAX_DIMS];
    for (int i = 0; i < tensor->ndims; i++)
        dims[i] = (int32_t)(tensor->dims[i] < 0 ? 1 : tensor->dims[i]);
    const char *shape = name ? tp_tfl_const_i32(x, name, "shape", dims, tensor->ndims, false) : NULL;
    /* one element of the tensor's type (int8: its zero point, clamped to the codes) */
    const int64_t zero_point = tensor->quant.count > 0 ? tensor->quant.zero_point[0] : 0;
    const int8_t reset_int8 = (int8_t)(zero_point < INT8_MIN ? INT8_MIN : zero_point > INT8_MAX ? INT8_MAX : zero_point);
    const uint8_t zero_bytes[4] = {(uint8_t)(dtype == TFPI_INT8 ? reset_int8 : 0), 0, 0, 0};
    const char *zero = shape ? const_node(x, tp_tfl_fresh_name(x, name, "zero"), dtype, NULL, 0, zero_bytes,
                                          tfpi_dtype_size(dtype))
                             : NULL;
    if (!name)
        return oom(x);
    if (!zero)
        return x->status->code;
    Tfpi__NodeDef *def = tp_tfl_emit(x, name, "Fill", (const char *[]){shape, zero}, 2);
    if (!def || !tp_tfl_attr(x, def, "T", tp_attr_new_type(dtype)) ||
        !tp_tfl_attr(x, def, "index_type", tp_attr_new_type(TFPI_INT32)))
        return x->status->code;
    return tp_tfl_set_output(x, t, name, 0);
}

const char *tp_tfl_input(tp_tfl_translator *x, int32_t t)
{
    if (t < 0)
        return no_value(x);
    if (x->tensor_names[t])
        return x->tensor_names[t];
    const tp_tfl_tensor *tensor = &x->g->tensors[t];
    tfpi_code code;
    if (tp_tfl_tensor_data(x->m, tensor))
        code = constant(x, t);
    else if (tensor->is_variable)
        code = zeros(x, t);
    else
        code = tfpi_status_set(x->status, TFPI_INVALID_ARGUMENT,
                               "%s: tensor %d ('%s') is read before any operator writes it, and is neither an input "
                               "nor a constant",
                               x->source, t, tensor->name);
    return code == TFPI_OK ? x->tensor_names[t] : NULL;
}

static tfpi_code placeholder(tp_tfl_translator *x, int32_t t)
{
    const tp_tfl_tensor *tensor = &x->g->tensors[t];
    if (x->tensor_names[t])
        return TFPI_OK; /* listed twice */
    if (!tensor->dtype)
        return tfpi_status_set(x->status, TFPI_UNIMPLEMENTED, "%s: input tensor %d ('%s') is %s, which tfpi does not "
                               "hold", x->source, t, tensor->name, tp_tfl_type_name(tensor->type));
    const char *name = tensor_node_name(x, t);
    Tfpi__NodeDef *def = name ? tp_tfl_emit(x, name, "Placeholder", NULL, 0) : NULL;
    if (!name)
        return oom(x);
    if (!def || !tp_tfl_attr(x, def, "dtype", tp_attr_new_type(tensor->dtype)) ||
        !tp_tfl_attr(x, def, "shape", tp_attr_new_shape(tensor->signature, tensor->ndims)))
        return x->status->code;
    return tp_tfl_set_output(x, t, name, 0);
}

bool tp_tfl_quant_attrs(tp_tfl_translator *x, Tfpi__NodeDef *def, const char *role, int i, const tp_tfl_quant_params *q)
{
    if (q->count == 0)
        return true;
    char key[48];
    snprintf(key, sizeof key, "q_%s%d_scale", role, i);
    bool ok = tp_tfl_attr(x, def, key, tp_attr_new_float_list(q->scale, (size_t)q->count));
    snprintf(key, sizeof key, "q_%s%d_zero_point", role, i);
    ok = ok && tp_tfl_attr(x, def, key, tp_attr_new_int_list(q->zero_point, (size_t)q->count));
    snprintf(key, sizeof key, "q_%s%d_dim", role, i);
    return ok && tp_tfl_attr(x, def, key, tp_attr_new_int(q->dim));
}

/* A custom operator's FlexBuffer options as attributes named by their keys. */
static tfpi_code custom_attrs(const tp_tfl_op *o, Tfpi__NodeDef *def)
{
    tp_tfl_translator *x = o->x;
    tp_flex_entry *entries;
    int n;
    char where[300];
    snprintf(where, sizeof where, "%s: operator %d (%s)", x->source, o->index, tp_tfl_op_name(o));
    tfpi_code code = tp_flex_read_map(o->op->custom, o->op->custom_size, where, &entries, &n, x->status);
    for (int i = 0; i < n && code == TFPI_OK; i++) {
        const tp_flex_entry *e = &entries[i];
        Tfpi__AttrValue *value = NULL;
        float floats[64];
        switch (e->kind) {
        case TP_FLEX_INT: value = tp_attr_new_int(e->i); break;
        case TP_FLEX_BOOL: value = tp_attr_new_bool(e->i != 0); break;
        case TP_FLEX_FLOAT: value = tp_attr_new_float((float)e->f); break;
        case TP_FLEX_STRING: value = tp_attr_new_string(e->s); break;
        case TP_FLEX_INTS: value = tp_attr_new_int_list(e->ints, e->count); break;
        case TP_FLEX_FLOATS:
            for (size_t k = 0; k < e->count && k < 64; k++)
                floats[k] = (float)e->floats[k];
            value = tp_attr_new_float_list(floats, e->count < 64 ? e->count : 64);
            break;
        default: continue;
        }
        if (!value) {
            code = oom(x);
            continue;
        }
        bool twice = false;
        for (int k = 0; k < i && !twice; k++)
            twice = strcmp(entries[k].key, e->key) == 0;
        if (!e->key[0] || twice)
            code = tp_tfl_op_fail(o, TFPI_INVALID_ARGUMENT, "custom option '%s' is empty or given twice", e->key);
        else if (tp_attr(def, e->key)) /* a name the translator gives (T, q_in0_scale...): its value stays */
            tfpi__attr_value__free_unpacked(value, NULL);
        else if (!tp_tfl_attr(x, def, e->key, value))
            code = x->status->code;
        if (code != TFPI_OK)
            tfpi__attr_value__free_unpacked(value, NULL);
    }
    tp_flex_free(entries, n);
    return code;
}

/* The operator as one node named by its builtin or custom name. */
static tfpi_code builtin_node(tp_tfl_op *o)
{
    tp_tfl_translator *x = o->x;
    const tp_tfl_operator *op = o->op;
    const char **inputs = calloc((size_t)op->num_inputs + 1, sizeof *inputs);
    if (!inputs)
        return oom(x);
    tfpi_code code = TFPI_OK;
    for (int i = 0; i < op->num_inputs && code == TFPI_OK; i++)
        if (!(inputs[i] = tp_tfl_input(x, op->inputs[i])))
            code = x->status->code;
    Tfpi__NodeDef *def = code == TFPI_OK ? tp_tfl_emit(x, o->name, tp_tfl_op_name(o), inputs, op->num_inputs) : NULL;
    free(inputs);
    if (!def)
        return code == TFPI_OK ? x->status->code : code;
    const tp_tfl_tensor *out0 = &x->g->tensors[op->outputs[0]];
    bool ok = tp_tfl_attr(x, def, "T", tp_attr_new_type(out0->dtype ? out0->dtype : TFPI_FLOAT)) &&
              tp_tfl_attr(x, def, "builtin_code", tp_attr_new_int(o->builtin)) &&
              tp_tfl_options_to_attrs(&x->m->fb, op->options_type, &op->options, def);
    for (int i = 0; ok && i < op->num_inputs; i++)
        ok = op->inputs[i] < 0 || tp_tfl_quant_attrs(x, def, "in", i, &x->g->tensors[op->inputs[i]].quant);
    for (int j = 0; ok && j < op->num_outputs; j++)
        ok = tp_tfl_quant_attrs(x, def, "out", j, &x->g->tensors[op->outputs[j]].quant);
    if (ok && op->num_intermediates > 0)
        ok = tp_tfl_attr(x, def, "num_intermediates", tp_attr_new_int(op->num_intermediates));
    for (int k = 0; ok && k < op->num_intermediates; k++)
        ok = tp_tfl_quant_attrs(x, def, "im", k, &x->g->tensors[op->intermediates[k]].quant);
    if (!ok)
        return x->status->code ? x->status->code : oom(x);
    if (op->custom && o->builtin == TP_TFL_OP_CUSTOM && (code = custom_attrs(o, def)) != TFPI_OK)
        return code;
    for (int j = 0; j < op->num_outputs; j++)
        if ((code = tp_tfl_set_output(x, op->outputs[j], o->name, j)) != TFPI_OK)
            return code;
    return TFPI_OK;
}

bool tp_tfl_add_effect(tp_tfl_translator *x, const char *name)
{
    if (x->num_effects == x->cap_effects) {
        size_t cap = x->cap_effects ? 2 * x->cap_effects : 8;
        const char **grown = realloc(x->effects, cap * sizeof *grown);
        if (!grown) {
            oom(x);
            return false;
        }
        x->effects = grown;
        x->cap_effects = cap;
    }
    x->effects[x->num_effects++] = name;
    return true;
}

bool tp_tfl_after_effects(tp_tfl_translator *x, Tfpi__NodeDef *def)
{
    for (size_t i = 0; i < x->num_effects; i++)
        if (!tp_node_add_control(def, x->effects[i])) {
            oom(x);
            return false;
        }
    return true;
}

/* The node name of output 0's tensor, and the others' names "node:k"; an
 * operator without outputs (CALL_ONCE, HASHTABLE_IMPORT) is named after
 * its builtin, in lower case. */
static tfpi_code translate_operator(tp_tfl_translator *x, int index)
{
    const tp_tfl_operator *op = &x->g->operators[index];
    tp_tfl_op o = {x, op, index, x->m->codes[op->opcode].builtin, NULL};
    bool effect = o.builtin == TP_TFL_OP_CALL_ONCE || o.builtin == TP_TFL_OP_HASHTABLE_IMPORT;
    if (op->num_outputs == 0 && !effect)
        return tp_tfl_op_fail(&o, TFPI_INVALID_ARGUMENT, "the operator has no outputs");
    if (o.builtin == TP_TFL_OP_CUSTOM && strcmp(x->m->codes[op->opcode].custom, "edgetpu-custom-op") == 0)
        return tfpi_status_set(x->status, TFPI_UNIMPLEMENTED,
                               "%s: compiled for the Coral Edge TPU (edgetpu-custom-op), which only the Edge TPU runs: "
                               "use the CPU .tflite it was compiled from (the file given to edgetpu_compiler)",
                               x->source);
    o.name = op->num_outputs ? tensor_node_name(x, op->outputs[0])
                             : unique(x, o.builtin == TP_TFL_OP_CALL_ONCE ? "call_once" : "hashtable_import");
    if (!o.name)
        return oom(x);
    if (tp_tfl_is_table_op(o.builtin))
        return tp_tfl_table_op(&o);
    if (o.builtin == TP_TFL_OP_CALL_ONCE) {
        tfpi_code code = tp_tfl_call_node(&o);
        return code != TFPI_OK || tp_tfl_add_effect(x, o.name) ? code : x->status->code;
    }
    if (o.builtin == TP_TFL_OP_WHILE || o.builtin == TP_TFL_OP_IF || o.builtin == TP_TFL_OP_CALL)
        return tp_tfl_call_node(&o);
    bool handled = false;
    tfpi_code code = tp_tfl_float_op(&o, &handled);
    return code != TFPI_OK || handled ? code : builtin_node(&o);
}

/* A function body's input i: the argument "arg<i>". */
static tfpi_code argument(tp_tfl_translator *x, int i)
{
    char name[24];
    bool out_of_memory;
    snprintf(name, sizeof name, "arg%d", i);
    char *taken = strdup(name);
    int32_t t = x->g->inputs[i];
    if (!taken || !take_name(x, taken, &out_of_memory)) {
        free(taken);
        return oom(x);
    }
    if (x->tensor_names[t])
        return tfpi_status_set(x->status, TFPI_INVALID_ARGUMENT, "%s: tensor %d is input to the subgraph twice",
                               x->source, t);
    return (x->tensor_names[t] = strdup(name)) ? TFPI_OK : oom(x);
}

static tfpi_code translate(tp_tfl_translator *x, const tp_tfl_model *m, int subgraph, bool body, const char *source,
                           tfpi_status *status)
{
    *x = (tp_tfl_translator){.m = m, .g = &m->subgraphs[subgraph], .source = source, .status = status};
    const tp_tfl_subgraph *g = x->g;
    if (!(x->tensor_names = calloc((size_t)g->num_tensors + 1, sizeof *x->tensor_names)) ||
        !(x->reserved = calloc((size_t)g->num_tensors + 1, sizeof *x->reserved)) ||
        !tp_name_map_init(&x->taken, (size_t)g->num_tensors * 2 + 16))
        return oom(x);
    tfpi_code code = TFPI_OK;
    /* The subgraph's inputs and outputs get their tensors' own names first. */
    for (int i = 0; i < g->num_inputs && code == TFPI_OK; i++)
        code = body ? argument(x, i) : placeholder(x, g->inputs[i]);
    for (int i = 0; i < g->num_outputs && code == TFPI_OK; i++) {
        int32_t t = g->outputs[i];
        if (!x->tensor_names[t] && !x->reserved[t] && !(x->reserved[t] = tensor_node_name(x, t)))
            code = oom(x);
    }
    for (int i = 0; i < g->num_operators && code == TFPI_OK; i++)
        code = translate_operator(x, i);
    for (int i = 0; i < g->num_outputs && code == TFPI_OK; i++)
        if (!tp_tfl_input(x, g->outputs[i]))
            code = x->status->code;
    if (code == TFPI_OK && x->nodes.n == 0)
        code = tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: subgraph %d is empty", source, subgraph);
    return code;
}

tfpi_code tp_tfl_translate(tp_tfl_translator *x, const tp_tfl_model *m, int subgraph, const char *source,
                           tfpi_status *status)
{
    return translate(x, m, subgraph, false, source, status);
}

tfpi_code tp_tfl_translate_body(tp_tfl_translator *x, const tp_tfl_model *m, int subgraph, const char *source,
                                tfpi_status *status)
{
    return translate(x, m, subgraph, true, source, status);
}

void tp_tfl_translator_free(tp_tfl_translator *x)
{
    tp_node_list_free(&x->nodes);
    for (int i = 0; x->tensor_names && x->g && i < x->g->num_tensors; i++)
        free(x->tensor_names[i]);
    free(x->tensor_names);
    free(x->reserved);
    free(x->effects);
    for (size_t i = 0; i < x->num_names; i++)
        free(x->names[i]);
    free(x->names);
    tp_name_map_free(&x->taken);
    *x = (tp_tfl_translator){0};
}
