/* node_def.c - reading a NodeDef: its attributes by name, with fallbacks
 * for absent or differently typed values, and errors that name the node. */
#include "graph/node_def.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tfpi.h"

tfpi_code tp_node_verror(const Tfpi__NodeDef *def, tfpi_status *status, tfpi_code code,
                         const char *fmt, va_list ap)
{
    char detail[400];
    vsnprintf(detail, sizeof detail, fmt, ap);
    return tfpi_status_set(status, code, "node '%s' (%s): %s", def->name, def->op, detail);
}

tfpi_code tp_node_error(const Tfpi__NodeDef *def, tfpi_status *status, tfpi_code code,
                        const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tfpi_code result = tp_node_verror(def, status, code, fmt, ap);
    va_end(ap);
    return result;
}

const Tfpi__AttrValue *tp_attr(const Tfpi__NodeDef *def, const char *name)
{
    for (size_t i = 0; i < def->n_attr; i++)
        if (def->attr[i]->key && strcmp(def->attr[i]->key, name) == 0)
            return def->attr[i]->value;
    return NULL;
}

int64_t tp_attr_int(const Tfpi__NodeDef *def, const char *name, int64_t fallback)
{
    const Tfpi__AttrValue *a = tp_attr(def, name);
    return a && a->value_case == TFPI__ATTR_VALUE__VALUE_I ? a->i : fallback;
}

float tp_attr_float(const Tfpi__NodeDef *def, const char *name, float fallback)
{
    const Tfpi__AttrValue *a = tp_attr(def, name);
    return a && a->value_case == TFPI__ATTR_VALUE__VALUE_F ? a->f : fallback;
}

bool tp_attr_bool(const Tfpi__NodeDef *def, const char *name, bool fallback)
{
    const Tfpi__AttrValue *a = tp_attr(def, name);
    return a && a->value_case == TFPI__ATTR_VALUE__VALUE_B ? a->b : fallback;
}

tfpi_dtype tp_attr_type(const Tfpi__NodeDef *def, const char *name, tfpi_dtype fallback)
{
    const Tfpi__AttrValue *a = tp_attr(def, name);
    return a && a->value_case == TFPI__ATTR_VALUE__VALUE_TYPE ? (tfpi_dtype)a->type : fallback;
}

const char *tp_attr_string(const Tfpi__NodeDef *def, const char *name, char *buf, size_t size,
                           const char *fallback)
{
    const Tfpi__AttrValue *a = tp_attr(def, name);
    bool present = a && a->value_case == TFPI__ATTR_VALUE__VALUE_S;
    buf[0] = '\0';
    if (!present && !fallback)
        return NULL;
    const void *text = present ? (const void *)a->s.data : fallback;
    size_t len = present ? a->s.len : strlen(fallback);
    size_t n = len < size - 1 ? len : size - 1;
    if (n)
        memcpy(buf, text, n);
    buf[n] = '\0';
    return buf;
}

tfpi_bytes tp_attr_bytes(const Tfpi__NodeDef *def, const char *name, const char *fallback)
{
    const Tfpi__AttrValue *a = tp_attr(def, name);
    if (a && a->value_case == TFPI__ATTR_VALUE__VALUE_S)
        return (tfpi_bytes){a->s.len, a->s.len ? a->s.data : (const uint8_t *)""};
    return (tfpi_bytes){strlen(fallback), (const uint8_t *)fallback};
}

int tp_attr_int_list(const Tfpi__NodeDef *def, const char *name, int64_t *out, int max)
{
    const Tfpi__AttrValue *a = tp_attr(def, name);
    if (!a || a->value_case != TFPI__ATTR_VALUE__VALUE_LIST)
        return -1;
    int n = (int)a->list->n_i;
    for (int i = 0; i < n && i < max; i++)
        out[i] = a->list->i[i];
    return n;
}
