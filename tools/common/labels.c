/* labels.c - reading label files in both the plain and "index:name" forms. */
#include "labels.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_util.h"
#include "tfpi.h"

/* If line starts with "digits:", returns the index and advances *name. */
static int explicit_index(char **name)
{
    char *p = *name;
    if (!isdigit((unsigned char)*p))
        return -1;
    long v = strtol(p, &p, 10);
    if (*p != ':' || v > 10000000)
        return -1;
    *name = p + 1;
    return (int)v;
}

static int set_label(label_list *labels, int index, const char *name)
{
    if (index >= labels->count) {
        char **grown = realloc(labels->names, sizeof(char *) * (size_t)(index + 1));
        if (!grown)
            return -1;
        memset(grown + labels->count, 0, sizeof(char *) * (size_t)(index + 1 - labels->count));
        labels->names = grown;
        labels->count = index + 1;
    }
    free(labels->names[index]);
    return (labels->names[index] = strdup(name)) ? 0 : -1;
}

/* Labels from text[0..size) (NUL-terminated after; freed here). */
static tfpi_code parse(char *text, size_t size, const char *path, label_list *out, tfpi_status *status)
{
    int next = 0, failed = 0;
    for (char *line = text, *end; !failed && line < text + size; line = end + 1) {
        end = strchr(line, '\n');
        if (!end)
            end = text + size;
        *end = '\0';
        if (end > line && end[-1] == '\r')
            end[-1] = '\0';
        if (!*line && end == text + size)
            break;
        char *name = line;
        int index = explicit_index(&name);
        failed = set_label(out, index >= 0 ? index : next, name);
        next = (index >= 0 ? index : next) + 1;
    }
    free(text);
    if (failed) {
        labels_free(out);
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory reading labels", path);
    }
    if (out->count == 0)
        return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: the labels file is empty", path);
    return TFPI_OK;
}

tfpi_code labels_load(const char *path, label_list *out, tfpi_status *status)
{
    size_t size;
    char *text = (char *)read_file(path, &size, status);
    out->count = 0;
    out->names = NULL;
    if (!text)
        return status->code;
    return parse(text, size, path, out, status);
}

tfpi_code labels_from_model(const tfpi_graph *graph, const char *source, label_list *out, tfpi_status *status)
{
    out->count = 0;
    out->names = NULL;
    tfpi_tensor *file = tfpi_tflite_associated_file(graph, NULL, status);
    if (!file)
        return status->code;
    size_t size = tfpi_tensor_byte_size(file);
    char *text = malloc(size + 1);
    if (text) {
        memcpy(text, tfpi_tensor_const_data(file), size);
        text[size] = '\0';
    }
    tfpi_tensor_free(file);
    if (!text)
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory reading its labels", source);
    return parse(text, size, source, out, status);
}

const char *labels_name(const label_list *labels, int index, char *buf, size_t size)
{
    if (labels->count == 0) {
        snprintf(buf, size, "class %d", index);
        return buf;
    }
    return index >= 0 && index < labels->count && labels->names[index] ? labels->names[index] : "unknown";
}

void labels_check_count(const label_list *labels, const char *path, int64_t scores)
{
    if (labels->count > 0 && labels->count != scores)
        fprintf(stderr, "warning: --labels: %s has %d labels, but the model gives %lld scores: its names may not "
                        "match the classes\n", path ? path : "the model's packed labels file", labels->count,
                (long long)scores);
}

const char *labels_first_name(const char *label, char *buf, size_t size)
{
    size_t n = strcspn(label, ",");
    while (n > 0 && label[n - 1] == ' ')
        n--;
    snprintf(buf, size, "%.*s", (int)(n ? n : strlen(label)), label);
    return buf;
}

void labels_free(label_list *labels)
{
    for (int i = 0; i < labels->count; i++)
        free(labels->names[i]);
    free(labels->names);
    labels->names = NULL;
    labels->count = 0;
}
