/* node_def.h - reading a NodeDef: its attributes by name (the value
 * itself, or typed readers that return a fallback when the attribute is
 * absent or holds another kind of value; kernels pass ctx->def), and errors
 * worded "node 'NAME' (OP): message". */
#ifndef TFPI_NODE_DEF_H
#define TFPI_NODE_DEF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "graph.pb-c.h"
#include "tfpi.h"

/* Sets status to "node 'NAME' (OP): <fmt...>" and returns code. */
tfpi_code tp_node_error(const Tfpi__NodeDef *def, tfpi_status *status, tfpi_code code,
                        const char *fmt, ...) __attribute__((format(printf, 4, 5)));
tfpi_code tp_node_verror(const Tfpi__NodeDef *def, tfpi_status *status, tfpi_code code,
                         const char *fmt, va_list ap) __attribute__((format(printf, 4, 0)));

const Tfpi__AttrValue *tp_attr(const Tfpi__NodeDef *def, const char *name);
int64_t tp_attr_int(const Tfpi__NodeDef *def, const char *name, int64_t fallback);
float tp_attr_float(const Tfpi__NodeDef *def, const char *name, float fallback);
bool tp_attr_bool(const Tfpi__NodeDef *def, const char *name, bool fallback);
tfpi_dtype tp_attr_type(const Tfpi__NodeDef *def, const char *name, tfpi_dtype fallback);
/* Copies a string attr, or fallback if it is absent, into buf
 * (NUL-terminated, cut to size) and returns buf; NULL if the attr is absent
 * and fallback is NULL. */
const char *tp_attr_string(const Tfpi__NodeDef *def, const char *name, char *buf, size_t size,
                           const char *fallback);
/* A string attr's bytes as they are (NUL bytes included; borrowed from
 * def), or fallback's if it is absent. */
tfpi_bytes tp_attr_bytes(const Tfpi__NodeDef *def, const char *name, const char *fallback);
/* Integer list attr: number of values (up to max are copied), or -1 if absent. */
int tp_attr_int_list(const Tfpi__NodeDef *def, const char *name, int64_t *out, int max);

#endif
