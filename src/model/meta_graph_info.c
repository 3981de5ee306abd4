/* meta_graph_info.c - a loaded model's signatures and loader protocol read
 * from its MetaGraphDef (meta_graph_info.h): choosing the signature,
 * copying every signature's inputs and outputs sorted by key, and the
 * saver's and init op's names. */
#include "model/meta_graph_info.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Copies one of a signature's inputs or outputs into s (zeroed), which
 * counts in *count from then on. */
static tfpi_code copy_tensor(const tp_model_info *info, const char *signature, const char *what, const char *key,
                             const Tfpi__TensorInfo *t, tp_signature_tensor *s, int *count, tfpi_status *status)
{
    if (!t || t->encoding_case != TFPI__TENSOR_INFO__ENCODING_NAME || !t->name[0])
        return tfpi_status_set(status, TFPI_UNIMPLEMENTED,
                               "%s: signature '%s': %s '%s' is a sparse or composite tensor (tfpi takes dense "
                               "tensors named in the signature)",
                               info->source, signature, what, key);
    ++*count;
    if (!(s->key = strdup(key)) || !(s->name = strdup(t->name)))
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", info->source);
    s->dtype = (int)t->dtype > 100 ? (int)t->dtype - 100 : (int)t->dtype;
    const Tfpi__TensorShapeProto *shape = t->tensor_shape;
    s->ndims = !shape || shape->unknown_rank || shape->n_dim > TFPI_MAX_DIMS ? -1 : (int)shape->n_dim;
    for (int d = 0; d < s->ndims; d++)
        s->dims[d] = shape->dim[d]->size < 0 ? -1 : shape->dim[d]->size;
    return TFPI_OK;
}

/* Sorts a signature's inputs or outputs by key; a key may appear once. */
static tfpi_code sort_tensors(const tp_model_info *info, const char *signature, const char *what,
                              tp_signature_tensor *t, int n, tfpi_status *status)
{
    qsort(t, (size_t)n, sizeof *t, tp_signature_tensor_by_key);
    for (int i = 1; i < n; i++)
        if (strcmp(t[i - 1].key, t[i].key) == 0)
            return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: signature '%s' names %s '%s' twice",
                                   info->source, signature, what, t[i].key);
    return TFPI_OK;
}

/* Reads signature `name` of the meta graph into out (zeroed). */
static tfpi_code copy_signature(const tp_model_info *info, const char *name, const Tfpi__SignatureDef *sig,
                                tp_signature *out, tfpi_status *status)
{
    out->inputs = calloc(sig->n_inputs + 1, sizeof *out->inputs);
    out->outputs = calloc(sig->n_outputs + 1, sizeof *out->outputs);
    out->key = strdup(name);
    out->method_name = strdup(sig->method_name);
    if (!out->inputs || !out->outputs || !out->key || !out->method_name)
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", info->source);
    tfpi_code code = TFPI_OK;
    for (size_t i = 0; i < sig->n_inputs && code == TFPI_OK; i++)
        code = copy_tensor(info, name, "input", sig->inputs[i]->key, sig->inputs[i]->value,
                           &out->inputs[out->num_inputs], &out->num_inputs, status);
    for (size_t i = 0; i < sig->n_outputs && code == TFPI_OK; i++)
        code = copy_tensor(info, name, "output", sig->outputs[i]->key, sig->outputs[i]->value,
                           &out->outputs[out->num_outputs], &out->num_outputs, status);
    if (code == TFPI_OK)
        code = sort_tensors(info, name, "input", out->inputs, out->num_inputs, status);
    if (code == TFPI_OK)
        code = sort_tensors(info, name, "output", out->outputs, out->num_outputs, status);
    return code;
}

/* The one signature that is not internal ("__..."), or NULL. */
static const Tfpi__SignatureDefEntry *only_signature(const tp_meta_graph *mg)
{
    const Tfpi__SignatureDefEntry *found = NULL;
    for (size_t i = 0; i < mg->num_signatures; i++) {
        if (strncmp(mg->signatures[i]->key, "__", 2) == 0 || !mg->signatures[i]->value)
            continue;
        if (found && strcmp(found->key, mg->signatures[i]->key) != 0)
            return NULL;
        found = mg->signatures[i];
    }
    return found;
}

tfpi_code tp_model_info_set_signature(tp_model_info *info, const tp_meta_graph *mg, const char *key,
                                      tfpi_status *status)
{
    bool explicit = key && *key;
    const char *name = explicit ? key : "serving_default";
    const Tfpi__SignatureDef *sig = tp_meta_graph_signature(mg, name);
    if (!sig && !explicit) {
        const Tfpi__SignatureDefEntry *only = only_signature(mg);
        if (!only)
            return TFPI_OK; /* no signature: inputs and outputs go by tensor name */
        name = only->key;
        sig = only->value;
    }
    if (!sig) {
        char names[400];
        return tfpi_status_set(status, TFPI_NOT_FOUND, "%s: signature '%s' not found; available: %s", info->source,
                               name, tp_meta_graph_signature_names(mg, names, sizeof names));
    }
    tp_signature chosen = {0};
    tfpi_code code = copy_signature(info, name, sig, &chosen, status);
    info->signature_key = chosen.key;
    info->method_name = chosen.method_name;
    info->inputs = chosen.inputs;
    info->outputs = chosen.outputs;
    info->num_inputs = chosen.num_inputs;
    info->num_outputs = chosen.num_outputs;
    return code;
}

/* Orders a meta graph's signature entries (indices) by key, the last one
 * in the file first among equal keys: a map keeps the last entry. */
static int by_key_then_last(const void *a, const void *b, void *entries)
{
    const Tfpi__SignatureDefEntry *const *e = entries;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    int c = strcmp(e[i]->key, e[j]->key);
    return c ? c : (i < j) - (i > j);
}

/* Every signature of the meta graph, sorted by key; a signature tfpi cannot
 * serve (a sparse or composite input) is left out. */
tfpi_code tp_model_info_set_signatures(tp_model_info *info, const tp_meta_graph *mg, tfpi_status *status)
{
    info->signatures = calloc(mg->num_signatures + 1, sizeof *info->signatures);
    size_t *order = malloc((mg->num_signatures + 1) * sizeof *order);
    if (!info->signatures || !order) {
        free(order);
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", info->source);
    }
    for (size_t i = 0; i < mg->num_signatures; i++)
        order[i] = i;
    /* sorted by key, so each key's entry is found without comparing it with every other (50,000 signatures) */
    qsort_r(order, mg->num_signatures, sizeof *order, by_key_then_last, mg->signatures);
    tfpi_code code = TFPI_OK;
    for (size_t n = 0; n < mg->num_signatures && code != TFPI_OUT_OF_MEMORY; n++) {
        const Tfpi__SignatureDefEntry *e = mg->signatures[order[n]];
        if ((n > 0 && strcmp(mg->signatures[order[n - 1]]->key, e->key) == 0) || strncmp(e->key, "__", 2) == 0 ||
            !e->value)
            continue;
        tp_signature *s = &info->signatures[info->num_signatures];
        tfpi_status ignored = {0};
        code = copy_signature(info, e->key, e->value, s, &ignored);
        if (code == TFPI_OUT_OF_MEMORY)
            tfpi_status_set(status, code, "%s", ignored.message);
        else if (code == TFPI_OK)
            info->num_signatures++;
        else /* one tfpi cannot serve (sparse inputs): not listed */
            tp_signature_free(s), memset(s, 0, sizeof *s);
    }
    free(order);
    return code == TFPI_OUT_OF_MEMORY ? code : TFPI_OK;
}

static tfpi_code set_name(const tp_model_info *info, char **field, const char *value, tfpi_status *status)
{
    char *copy = strdup(value);
    if (!copy)
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", info->source);
    free(*field);
    *field = copy;
    return TFPI_OK;
}

/* The init op as TensorFlow's loader finds it: the __saved_model_init_op
 * signature, else collection saved_model_main_op, else legacy_init_op
 * (each holding exactly one op). */
static tfpi_code find_init_op(tp_model_info *info, const tp_meta_graph *mg, tfpi_status *status)
{
    const Tfpi__SignatureDef *sig = tp_meta_graph_signature(mg, "__saved_model_init_op");
    for (size_t i = 0; sig && i < sig->n_outputs; i++) {
        const Tfpi__TensorInfo *t = sig->outputs[i]->value;
        if (strcmp(sig->outputs[i]->key, "__saved_model_init_op") == 0 && t &&
            t->encoding_case == TFPI__TENSOR_INFO__ENCODING_NAME)
            return set_name(info, &info->init_op, t->name, status);
    }
    static const char *const collections[] = {"saved_model_main_op", "legacy_init_op"};
    for (int c = 0; c < 2; c++) {
        const Tfpi__CollectionDef__NodeList *ops = tp_meta_graph_node_list(mg, collections[c]);
        if (!ops)
            continue;
        if (ops->n_value != 1)
            return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: expected exactly one op in collection %s",
                                   info->source, collections[c]);
        return set_name(info, &info->init_op, ops->value[0], status);
    }
    return TFPI_OK;
}

tfpi_code tp_model_info_set_protocol(tp_model_info *info, const tp_meta_graph *mg, tfpi_status *status)
{
    tfpi_code code = TFPI_OK;
    if (mg->saver_def) {
        code = set_name(info, &info->filename_tensor, mg->saver_def->filename_tensor_name, status);
        if (code == TFPI_OK)
            code = set_name(info, &info->restore_op, mg->saver_def->restore_op_name, status);
    }
    return code == TFPI_OK ? find_init_op(info, mg, status) : code;
}
