/* flags.c - parsing --name=value flags into typed variables. */
#include "flags.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tfpi.h"

/* The flag's current value as text: its default when printed by --help. */
static const char *value_text(const tool_flag *f, char *buf, size_t size)
{
    switch (f->type) {
    case FLAG_STRING: {
        const char *v = *(const char *const *)f->value;
        return !v ? "none" : *v ? v : "\"\"";
    }
    case FLAG_INT: snprintf(buf, size, "%d", *(const int *)f->value); return buf;
    case FLAG_INT64:
    case FLAG_COUNT: snprintf(buf, size, "%lld", (long long)*(const int64_t *)f->value); return buf;
    case FLAG_FLOAT: snprintf(buf, size, "%g", (double)*(const float *)f->value); return buf;
    case FLAG_BOOL: return *(const bool *)f->value ? "true" : "false";
    case FLAG_LIST: return "none";
    }
    return "";
}

static void print_usage(const char *program, const tool_flag *flags, int n, const char *usage)
{
    printf("usage: %s %s\nflags:\n", program, usage);
    for (int i = 0; i < n; i++) {
        char value[64];
        if (strstr(flags[i].help, "(default: ")) /* the help says it better than the stored value (--cpu) */
            printf("  --%-28s %s\n", flags[i].name, flags[i].help);
        else
            printf("  --%-28s %s (default: %s)\n", flags[i].name, flags[i].help,
                   value_text(&flags[i], value, sizeof value));
    }
}

bool flags_check_threads(int n)
{
    if (n >= -1 && n <= MAX_THREADS)
        return true;
    fprintf(stderr, "error: --num_threads=%d: give -1 or 0 (one thread per core) or 1 to %d\n", n, MAX_THREADS);
    return false;
}

static int set_value(const tool_flag *f, const char *value)
{
    char *end;
    errno = 0;
    switch (f->type) {
    case FLAG_STRING:
        *(const char **)f->value = value;
        return 0;
    case FLAG_INT: {
        long v = strtol(value, &end, 10);
        if (errno || end == value || *end || v < INT_MIN || v > INT_MAX)
            break;
        *(int *)f->value = (int)v;
        return 0;
    }
    case FLAG_INT64:
    case FLAG_COUNT: {
        long long v = strtoll(value, &end, 10);
        int shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
        end += shift != 0;
        if (errno || end == value || *end || v > (LLONG_MAX >> shift) || v < (LLONG_MIN >> shift))
            break;
        if (f->type == FLAG_COUNT && v < 0) {
            fprintf(stderr, "error: invalid value '%s' for flag --%s: it must be 0 or more (%s)\n", value, f->name,
                    f->help);
            return 1;
        }
        *(int64_t *)f->value = (int64_t)v * ((int64_t)1 << shift);
        return 0;
    }
    case FLAG_FLOAT: {
        float v = strtof(value, &end);
        if (errno || end == value || *end)
            break;
        *(float *)f->value = v;
        return 0;
    }
    case FLAG_BOOL:
        if (!strcmp(value, "true") || !strcmp(value, "1")) {
            *(bool *)f->value = true;
            return 0;
        }
        if (!strcmp(value, "false") || !strcmp(value, "0")) {
            *(bool *)f->value = false;
            return 0;
        }
        break;
    case FLAG_LIST: {
        flag_list *list = f->value;
        const char **grown = realloc(list->values, sizeof *grown * (size_t)(list->count + 1));
        if (!grown)
            break;
        list->values = grown;
        list->values[list->count++] = value;
        return 0;
    }
    }
    fprintf(stderr, "error: invalid value '%s' for flag --%s\n", value, f->name);
    return 1;
}

int flags_parse(int argc, char **argv, const tool_flag *flags, int num_flags, const char *usage)
{
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            print_usage(argv[0], flags, num_flags, usage);
            return 2;
        }
        if (!strcmp(arg, "--version")) {
            const char *slash = strrchr(argv[0], '/');
            printf("%s (tfpi) %s\n", slash ? slash + 1 : argv[0], tfpi_version());
            return 2;
        }
        if (strncmp(arg, "--", 2) != 0) {
            fprintf(stderr, "error: unexpected argument '%s' (flags look like --name=value)\n", arg);
            return 1;
        }
        const char *name = arg + 2, *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        const tool_flag *f = NULL;
        for (int i = 0; i < num_flags && !f; i++)
            if (strlen(flags[i].name) == len && !strncmp(flags[i].name, name, len))
                f = &flags[i];
        if (!f) {
            fprintf(stderr, "error: unknown flag --%.*s (see --help)\n", (int)len, name);
            return 1;
        }
        if (!eq && f->type != FLAG_BOOL) {
            fprintf(stderr, "error: flag --%s needs a value (--%s=...)\n", f->name, f->name);
            return 1;
        }
        if (set_value(f, eq ? eq + 1 : "true"))
            return 1;
    }
    return 0;
}

void flags_free(const tool_flag *flags, int num_flags)
{
    for (int i = 0; i < num_flags; i++) {
        if (flags[i].type == FLAG_LIST) {
            flag_list *list = flags[i].value;
            free(list->values);
            list->values = NULL;
            list->count = 0;
        }
    }
}
