/* model_info.c - a loaded model's signatures, variables and loader
 * protocol names (model_info.h): making and freeing them, and answering
 * signature-key look-ups. Reading them from a meta graph is
 * model/meta_graph_info.c; binding variables to a checkpoint is
 * model/variable_binding.c. */
#include "graph/model_info.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tp_model_info *tp_model_info_new(const char *source, tfpi_status *status)
{
    tp_model_info *info = calloc(1, sizeof *info);
    if (!info || !(info->source = strdup(source)) || !(info->filename_tensor = strdup("")) ||
        !(info->restore_op = strdup("")) || !(info->init_op = strdup(""))) {
        if (info) {
            free(info->source);
            free(info->filename_tensor);
            free(info->restore_op);
        }
        free(info);
        tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", source);
        return NULL;
    }
    pthread_mutex_init(&info->lock, NULL);
    return info;
}

static void free_tensors(tp_signature_tensor *t, int n)
{
    for (int i = 0; i < n; i++) {
        free(t[i].key);
        free(t[i].name);
    }
    free(t);
}

void tp_signature_free(tp_signature *s)
{
    free_tensors(s->inputs, s->num_inputs);
    free_tensors(s->outputs, s->num_outputs);
    free(s->key);
    free(s->method_name);
}

void tp_model_info_free(tp_model_info *info)
{
    if (!info)
        return;
    free_tensors(info->inputs, info->num_inputs);
    free_tensors(info->outputs, info->num_outputs);
    for (int i = 0; i < info->num_signatures; i++)
        tp_signature_free(&info->signatures[i]);
    free(info->signatures);
    for (int i = 0; i < info->num_variables; i++) {
        tp_variable *v = &info->variables[i];
        free(v->node);
        free(v->key);
        free(v->slice);
        tp_tensor_release(&v->value);
    }
    free(info->variables);
    if (info->checkpoint)
        info->close_checkpoint(info->checkpoint);
    pthread_mutex_destroy(&info->lock);
    free(info->source);
    free(info->signature_key);
    free(info->method_name);
    free(info->filename_tensor);
    free(info->restore_op);
    free(info->init_op);
    free(info);
}

int tp_signature_tensor_by_key(const void *a, const void *b)
{
    return strcmp(((const tp_signature_tensor *)a)->key, ((const tp_signature_tensor *)b)->key);
}

const char *tp_model_info_signature_tensor(const tp_model_info *info, const char *key, bool input)
{
    if (!info)
        return NULL;
    const tp_signature_tensor *t = input ? info->inputs : info->outputs;
    const int n = input ? info->num_inputs : info->num_outputs;
    const tp_signature_tensor want = {.key = (char *)key};
    const tp_signature_tensor *found = n ? bsearch(&want, t, (size_t)n, sizeof want, tp_signature_tensor_by_key) : NULL; /* sorted */
    return found ? found->name : NULL;
}

/* Appends "label: k1, k2" for n tensors to buf at *len. */
static void list_keys(const char *label, const tp_signature_tensor *t, int n, char *buf, size_t size, size_t *len)
{
    for (int i = 0; i <= n && *len + 1 < size; i++) {
        int wrote = snprintf(buf + *len, size - *len, "%s%s", i == 0 ? (*len ? "; " : "") : i == 1 ? "" : ", ",
                             i == 0 ? label : t[i - 1].key);
        if (wrote > 0)
            *len = *len + (size_t)wrote < size ? *len + (size_t)wrote : size - 1;
    }
}

const char *tp_model_info_signature_keys(const tp_model_info *info, const char *what, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    if (strcmp(what, "fetch") != 0)
        list_keys("inputs: ", info->inputs, info->num_inputs, buf, size, &len);
    if (strcmp(what, "feed") != 0)
        list_keys("outputs: ", info->outputs, info->num_outputs, buf, size, &len);
    return buf;
}
