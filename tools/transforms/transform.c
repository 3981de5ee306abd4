/* transform.c - parameters, --inputs/--outputs look-ups and errors for
 * the transforms (see transform.h). */
#include "transform.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "graphdef_inspect.h"
#include "tfpi.h"

tfpi_code transform_fail(const transform_ctx *ctx, tfpi_code code, const char *fmt, ...)
{
    char detail[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    return tfpi_status_set(ctx->status, code, "transform '%s': %s", ctx->call->name, detail);
}

static const transform_param *find_param(const transform_ctx *ctx, const char *name)
{
    for (int i = 0; i < ctx->call->num_params; i++)
        if (strcmp(ctx->call->params[i].name, name) == 0)
            return &ctx->call->params[i];
    return NULL;
}

int transform_param_count(const transform_ctx *ctx, const char *name)
{
    const transform_param *p = find_param(ctx, name);
    return p ? p->num_values : 0;
}

const char *transform_param_value(const transform_ctx *ctx, const char *name, int i)
{
    const transform_param *p = find_param(ctx, name);
    return p && i >= 0 && i < p->num_values ? p->values[i] : NULL;
}

/* The single value of a parameter; a list where one is expected fails. */
static tfpi_code single_value(const transform_ctx *ctx, const char *name, const char **out)
{
    const transform_param *p = find_param(ctx, name);
    *out = NULL;
    if (p && p->num_values > 1)
        return transform_fail(ctx, TFPI_INVALID_ARGUMENT, "parameter '%s' is given %d times", name,
                              p->num_values);
    if (p)
        *out = p->values[0];
    return TFPI_OK;
}

const char *transform_param_string(const transform_ctx *ctx, const char *name, const char *fallback)
{
    const char *v = transform_param_value(ctx, name, 0);
    return v ? v : fallback;
}

tfpi_code transform_param_required(const transform_ctx *ctx, const char *name, const char **out)
{
    tfpi_code code = single_value(ctx, name, out);
    if (code == TFPI_OK && !*out)
        return transform_fail(ctx, TFPI_INVALID_ARGUMENT, "needs the parameter %s=...", name);
    return code;
}

tfpi_code transform_param_int(const transform_ctx *ctx, const char *name, int64_t fallback, int64_t min,
                              int64_t *out)
{
    const char *v;
    tfpi_code code = single_value(ctx, name, &v);
    *out = fallback;
    if (code != TFPI_OK || !v)
        return code;
    char *end;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    if (errno || end == v || *end || n < min)
        return transform_fail(ctx, TFPI_INVALID_ARGUMENT, "parameter %s=%s is not an integer >= %lld", name,
                              v, (long long)min);
    *out = n;
    return TFPI_OK;
}

tfpi_code transform_param_float(const transform_ctx *ctx, const char *name, float fallback, float *out)
{
    const char *v;
    tfpi_code code = single_value(ctx, name, &v);
    *out = fallback;
    if (code != TFPI_OK || !v)
        return code;
    char *end;
    errno = 0;
    float f = strtof(v, &end);
    if (errno || end == v || *end || !isfinite(f))
        return transform_fail(ctx, TFPI_INVALID_ARGUMENT, "parameter %s=%s is not a finite number", name, v);
    *out = f;
    return TFPI_OK;
}

tfpi_code transform_param_bool(const transform_ctx *ctx, const char *name, bool fallback, bool *out)
{
    const char *v;
    tfpi_code code = single_value(ctx, name, &v);
    *out = fallback;
    if (code != TFPI_OK || !v)
        return code;
    if (!strcasecmp(v, "true") || !strcmp(v, "1"))
        *out = true;
    else if (!strcasecmp(v, "false") || !strcmp(v, "0"))
        *out = false;
    else
        return transform_fail(ctx, TFPI_INVALID_ARGUMENT, "parameter %s=%s is not true or false", name, v);
    return TFPI_OK;
}

tfpi_code transform_parse_type(const transform_ctx *ctx, const char *text, int *out)
{
    for (int t = 1; t < 24; t++) {
        char type[32];
        if (!strcmp(gd_dtype_name(t, type, sizeof type), text)) {
            *out = t;
            return TFPI_OK;
        }
    }
    return transform_fail(ctx, TFPI_INVALID_ARGUMENT, "'%s' is not a type (float, int32, uint8, ...)", text);
}

static bool listed(char **names, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return true;
    return false;
}

bool transform_is_input(const transform_ctx *ctx, const char *node_name)
{
    return listed(ctx->inputs, ctx->num_inputs, node_name);
}

bool transform_is_output(const transform_ctx *ctx, const char *node_name)
{
    return listed(ctx->outputs, ctx->num_outputs, node_name);
}
