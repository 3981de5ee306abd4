/* transform_spec.c - parses the --transforms string (see transform_spec.h)
 * with a hand-written scanner that reports the position of any problem. */
#include "transform_spec.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "tfpi.h"
#include "xalloc.h"

typedef struct scanner {
    const char *text, *p;
    tfpi_status *status;
} scanner;

static tfpi_code fail(scanner *s, const char *what)
{
    if (*s->p)
        return tfpi_status_set(s->status, TFPI_INVALID_ARGUMENT, "--transforms: %s at character %d ('%c')", what,
                        (int)(s->p - s->text) + 1, *s->p);
    return tfpi_status_set(s->status, TFPI_INVALID_ARGUMENT, "--transforms: %s at the end", what);
}

static void skip_space(scanner *s)
{
    while (isspace((unsigned char)*s->p) || (*s->p == '\\' && s->p[1] == '\n'))
        s->p++;
}

static bool is_name_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* A name, malloc'd, or NULL if there is none here. */
static char *read_name(scanner *s)
{
    const char *start = s->p;
    while (is_name_char(*s->p))
        s->p++;
    return s->p > start ? xstrndup(start, (size_t)(s->p - start)) : NULL;
}

/* A value: "quoted" or bare up to ',' or ')' (trailing spaces dropped). */
static char *read_value(scanner *s)
{
    if (*s->p == '"') {
        const char *start = ++s->p;
        while (*s->p && *s->p != '"')
            s->p++;
        if (!*s->p)
            return NULL;
        return xstrndup(start, (size_t)(s->p++ - start));
    }
    const char *start = s->p;
    while (*s->p && *s->p != ',' && *s->p != ')')
        s->p++;
    const char *end = s->p;
    while (end > start && isspace((unsigned char)end[-1]))
        end--;
    return end > start ? xstrndup(start, (size_t)(end - start)) : NULL;
}

static void add_value(transform_call *call, char *name, char *value)
{
    transform_param *param = NULL;
    for (int i = 0; i < call->num_params && !param; i++)
        if (strcmp(call->params[i].name, name) == 0)
            param = &call->params[i];
    if (param) {
        free(name);
    } else {
        call->params = xrealloc(call->params, (size_t)(call->num_params + 1) * sizeof *call->params);
        param = &call->params[call->num_params++];
        *param = (transform_param){name, 0, NULL};
    }
    param->values = xrealloc(param->values, (size_t)(param->num_values + 1) * sizeof *param->values);
    param->values[param->num_values++] = value;
}

/* "(a=1, b="x,y")" after a transform's name; the '(' is consumed. */
static tfpi_code read_params(scanner *s, transform_call *call)
{
    skip_space(s);
    if (*s->p == ')') {
        s->p++;
        return TFPI_OK;
    }
    for (;;) {
        skip_space(s);
        char *name = read_name(s);
        if (!name)
            return fail(s, "expected a parameter name");
        skip_space(s);
        if (*s->p != '=') {
            free(name);
            return fail(s, "expected '=' after a parameter name");
        }
        s->p++;
        skip_space(s);
        char *value = read_value(s);
        if (!value) {
            free(name);
            return fail(s, *s->p ? "expected a parameter value" : "unterminated quoted value");
        }
        add_value(call, name, value);
        skip_space(s);
        if (*s->p == ')') {
            s->p++;
            return TFPI_OK;
        }
        if (*s->p != ',')
            return fail(s, "expected ',' or ')' after a parameter");
        s->p++;
    }
}

tfpi_code transform_spec_parse(const char *text, transform_list *out, tfpi_status *status)
{
    scanner s = {text, text, status};
    memset(out, 0, sizeof *out);
    for (;;) {
        skip_space(&s);
        if (!*s.p)
            return TFPI_OK;
        char *name = read_name(&s);
        if (!name) {
            transform_spec_free(out);
            return fail(&s, "expected a transform name");
        }
        out->calls = xrealloc(out->calls, (size_t)(out->count + 1) * sizeof *out->calls);
        transform_call *call = &out->calls[out->count++];
        *call = (transform_call){name, 0, NULL};
        skip_space(&s);
        if (*s.p == '(') {
            s.p++;
            if (read_params(&s, call) != TFPI_OK) {
                transform_spec_free(out);
                return status->code;
            }
        }
    }
}

void transform_spec_free(transform_list *list)
{
    for (int i = 0; i < list->count; i++) {
        transform_call *call = &list->calls[i];
        for (int p = 0; p < call->num_params; p++) {
            for (int v = 0; v < call->params[p].num_values; v++)
                free(call->params[p].values[v]);
            free(call->params[p].values);
            free(call->params[p].name);
        }
        free(call->params);
        free(call->name);
    }
    free(list->calls);
    memset(list, 0, sizeof *list);
}
