/* meta_graph.c - reads MetaGraphDefs (a .meta file, or one of a SavedModel's
 * meta graphs) and SavedModel files (binary, or text packed into binary),
 * walking their fields over the bytes so the GraphDef is never copied, and
 * selects a SavedModel's meta graph by its tag set as TensorFlow's loader
 * does. */
#include "core/file_open.h"
#include "model/meta_graph.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "graph/wire.h"
#include "model/pbtxt_parse.h"

/* The room an array of n items has when it grows by doubling: it is full
 * (and must grow) exactly when n is 0 or a power of two. */
static bool array_full(size_t n) { return (n & (n - 1)) == 0; }

/* Appends an unpacked message to a growing array (doubling, so a file of
 * 50,000 signatures takes no quadratic copying); false when out of memory. */
static bool push(void ***items, size_t *n, void *item)
{
    if (array_full(*n)) {
        if (*n > SIZE_MAX / 2 / sizeof **items)
            return false;
        void **grown = realloc(*items, (*n ? 2 * *n : 1) * sizeof *grown);
        if (!grown)
            return false;
        *items = grown;
    }
    (*items)[(*n)++] = item;
    return true;
}

/* A NUL byte in a tag of a serialized MetaInfoDef: the problem, or NULL. */
static const char *meta_info_nul(const uint8_t *data, size_t size)
{
    static const uint32_t tags[] = {4};
    return tp_wire_nul_at(data, size, tags, 1) ? "a tag holds a NUL byte" : NULL;
}

/* A NUL byte in a serialized SignatureDef map entry's key, its inputs' and
 * outputs' keys and tensor names, or its method name: the problem, or NULL. */
static const char *signature_nul(const uint8_t *data, size_t size)
{
    static const uint32_t paths[][4] = {{1}, {2, 1, 1}, {2, 1, 2, 1}, {2, 2, 1}, {2, 2, 2, 1}, {2, 3}};
    static const int depths[] = {1, 3, 4, 3, 4, 2};
    for (size_t i = 0; i < sizeof depths / sizeof depths[0]; i++)
        if (tp_wire_nul_at(data, size, paths[i], depths[i]))
            return i == 0 ? "a signature key holds a NUL byte"
                   : i == 5 ? "a signature's method name holds a NUL byte"
                            : "a signature's tensor key or name holds a NUL byte";
    return NULL;
}

/* Unpacks one field of a MetaGraphDef; returns the problem or NULL. */
static const char *read_meta_field(const tp_wire_field *f, tp_meta_graph *mg)
{
    const ProtobufCMessageDescriptor *d = NULL;
    void ***list = NULL;
    size_t *count = NULL;
    switch (f->number) {
    case 1:
        d = &tfpi__meta_info_def__descriptor;
        break;
    case 2:
    case 7: {
        tp_bytes_range *range = f->number == 2 ? &mg->graph_def : &mg->object_graph_def;
        if (range->data)
            return f->number == 2 ? "graph_def appears twice" : "object_graph_def appears twice";
        *range = (tp_bytes_range){f->bytes, f->length};
        return NULL;
    }
    case 3: d = &tfpi__saver_def__descriptor; break;
    case 4:
        d = &tfpi__collection_def_entry__descriptor;
        list = (void ***)&mg->collections, count = &mg->num_collections;
        break;
    case 5:
        d = &tfpi__signature_def_entry__descriptor;
        list = (void ***)&mg->signatures, count = &mg->num_signatures;
        break;
    case 6:
        d = &tfpi__asset_file_def__descriptor;
        list = (void ***)&mg->assets, count = &mg->num_assets;
        break;
    default: return NULL; /* fields tfpi does not use */
    }
    if (f->wire_type != TP_WIRE_LEN)
        return "a field has the wrong wire type";
    const char *nul = f->number == 1 ? meta_info_nul(f->bytes, f->length)
                      : f->number == 5 ? signature_nul(f->bytes, f->length)
                                       : NULL;
    if (nul)
        return nul;
    ProtobufCMessage *m = protobuf_c_message_unpack(d, NULL, f->length, f->bytes);
    if (!m)
        return f->number == 1 ? "meta_info_def is not valid"
               : f->number == 3 ? "saver_def is not valid"
               : f->number == 4 ? "a collection_def is not valid"
               : f->number == 5 ? "a signature_def is not valid"
                                : "an asset_file_def is not valid";
    if (list) {
        if (!push(list, count, m)) {
            protobuf_c_message_free_unpacked(m, NULL);
            return "out of memory";
        }
    } else if (f->number == 1) {
        /* TensorFlow writes one; a GraphDef (whose nodes are field 1) is not a MetaGraphDef. */
        if (mg->info) {
            protobuf_c_message_free_unpacked(m, NULL);
            return "meta_info_def appears twice";
        }
        mg->info = (Tfpi__MetaInfoDef *)m;
    } else {
        if (mg->saver_def)
            tfpi__saver_def__free_unpacked(mg->saver_def, NULL);
        mg->saver_def = (Tfpi__SaverDef *)m;
    }
    return NULL;
}

tfpi_code tp_meta_graph_read(const uint8_t *data, size_t size, const char *source, tp_meta_graph *out,
                             tfpi_status *status)
{
    memset(out, 0, sizeof *out);
    tp_wire_reader r = {data, size, 0};
    while (r.pos < size) {
        size_t at = r.pos;
        tp_wire_field f;
        const char *problem = tp_wire_next(&r, &f) ? read_meta_field(&f, out) : "malformed or truncated field";
        if (problem) {
            tp_meta_graph_free(out);
            return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: not a valid MetaGraphDef (%s at byte %zu)",
                                   source, problem, at);
        }
    }
    if (!out->graph_def.data) {
        tp_meta_graph_free(out);
        return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: the MetaGraphDef has no graph_def", source);
    }
    return TFPI_OK;
}

void tp_meta_graph_free(tp_meta_graph *mg)
{
    if (mg->info)
        tfpi__meta_info_def__free_unpacked(mg->info, NULL);
    if (mg->saver_def)
        tfpi__saver_def__free_unpacked(mg->saver_def, NULL);
    for (size_t i = 0; i < mg->num_signatures; i++)
        tfpi__signature_def_entry__free_unpacked(mg->signatures[i], NULL);
    for (size_t i = 0; i < mg->num_collections; i++)
        tfpi__collection_def_entry__free_unpacked(mg->collections[i], NULL);
    for (size_t i = 0; i < mg->num_assets; i++)
        tfpi__asset_file_def__free_unpacked(mg->assets[i], NULL);
    free(mg->signatures);
    free(mg->collections);
    free(mg->assets);
    memset(mg, 0, sizeof *mg);
}

const Tfpi__SignatureDef *tp_meta_graph_signature(const tp_meta_graph *mg, const char *key)
{
    /* A map keeps the last entry of a repeated key. */
    const Tfpi__SignatureDef *found = NULL;
    for (size_t i = 0; i < mg->num_signatures; i++)
        if (mg->signatures[i]->value && strcmp(mg->signatures[i]->key, key) == 0)
            found = mg->signatures[i]->value;
    return found;
}

const Tfpi__CollectionDef__NodeList *tp_meta_graph_node_list(const tp_meta_graph *mg, const char *key)
{
    const Tfpi__CollectionDef__NodeList *found = NULL;
    for (size_t i = 0; i < mg->num_collections; i++) {
        const Tfpi__CollectionDef *c = mg->collections[i]->value;
        if (c && strcmp(mg->collections[i]->key, key) == 0)
            found = c->kind_case == TFPI__COLLECTION_DEF__KIND_NODE_LIST ? c->node_list : NULL;
    }
    return found;
}

/* Appends text to buf[0..size) at *len, cut at the end. */
static void append(char *buf, size_t size, size_t *len, const char *text)
{
    int n = snprintf(buf + *len, size - *len, "%s", text);
    if (n > 0)
        *len = *len + (size_t)n < size ? *len + (size_t)n : size - 1;
}

const char *tp_meta_graph_signature_names(const tp_meta_graph *mg, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < mg->num_signatures; i++) {
        const char *key = mg->signatures[i]->key;
        if (strncmp(key, "__", 2) == 0)
            continue;
        if (len)
            append(buf, size, &len, ", ");
        append(buf, size, &len, key);
    }
    if (!len)
        append(buf, size, &len, "(none)");
    return buf;
}

/* ---- SavedModel files ---- */

void tp_saved_model_close(tp_saved_model *sm)
{
    for (size_t i = 0; sm->infos && i < sm->num_meta_graphs; i++)
        if (sm->infos[i])
            tfpi__meta_info_def__free_unpacked(sm->infos[i], NULL);
    free(sm->infos);
    free(sm->meta_graphs);
    if (sm->packed_text)
        free(sm->bytes);
    else if (sm->bytes)
        munmap(sm->bytes, sm->size);
    free(sm->path);
    memset(sm, 0, sizeof *sm);
}

/* The MetaInfoDef of a serialized MetaGraphDef, found without reading the
 * rest; *info stays NULL when there is none. Returns the problem, or NULL. */
static const char *read_meta_info(tp_bytes_range meta, Tfpi__MetaInfoDef **info)
{
    tp_wire_reader r = {meta.data, meta.size, 0};
    tp_wire_field f;
    *info = NULL;
    while (r.pos < r.size) {
        if (!tp_wire_next(&r, &f))
            return "a malformed field";
        if (f.number != 1)
            continue;
        if (f.wire_type != TP_WIRE_LEN)
            return "meta_info_def has the wrong wire type";
        if (*info)
            tfpi__meta_info_def__free_unpacked(*info, NULL);
        *info = NULL;
        const char *nul = meta_info_nul(f.bytes, f.length);
        if (nul)
            return nul;
        if (!(*info = tfpi__meta_info_def__unpack(NULL, f.length, f.bytes)))
            return "meta_info_def is not valid";
    }
    return NULL;
}

static tfpi_code list_meta_graphs(tp_saved_model *sm, tfpi_status *status)
{
    tp_wire_reader r = {sm->bytes, sm->size, 0};
    while (r.pos < r.size) {
        size_t at = r.pos;
        tp_wire_field f;
        bool ok = tp_wire_next(&r, &f) && (f.number != 1 || f.wire_type == TP_WIRE_VARINT) &&
                  (f.number != 2 || f.wire_type == TP_WIRE_LEN);
        if (ok && f.number == 2) {
            size_t n = sm->num_meta_graphs;
            if (array_full(n)) {
                const size_t cap = n ? 2 * n : 1; /* n is below the file's size */
                tp_bytes_range *ranges = realloc(sm->meta_graphs, cap * sizeof *ranges);
                Tfpi__MetaInfoDef **infos = ranges ? realloc(sm->infos, cap * sizeof *infos) : NULL;
                if (ranges)
                    sm->meta_graphs = ranges;
                if (!infos)
                    return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", sm->path);
                sm->infos = infos;
            }
            sm->meta_graphs[n] = (tp_bytes_range){f.bytes, f.length};
            sm->infos[n] = NULL;
            sm->num_meta_graphs = n + 1;
            const char *problem = read_meta_info(sm->meta_graphs[n], &sm->infos[n]);
            if (problem)
                return tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                                       "%s: not a valid SavedModel (meta graph %zu: %s)", sm->path, n + 1, problem);
        }
        if (!ok)
            return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: not a valid SavedModel (bad field at byte %zu)",
                                   sm->path, at);
    }
    if (sm->num_meta_graphs == 0)
        return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: a SavedModel with no meta graphs", sm->path);
    return TFPI_OK;
}

/* Maps the file at out->path into out->bytes. */
static tfpi_code map_file(tp_saved_model *out, tfpi_status *status)
{
    int fd;
    struct stat st;
    tfpi_code code = TFPI_OK;
    const tp_open_result opened = tp_open_regular(out->path, &fd, &st);
    if (opened == TP_OPEN_FAILED)
        code = tfpi_status_set(status, TFPI_NOT_FOUND, "%s: cannot open: %s", out->path, strerror(errno));
    else if (opened != TP_OPEN_OK || st.st_size == 0 || (uint64_t)st.st_size > SIZE_MAX / 2)
        code = tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: not a SavedModel (empty or not a regular file)",
                               out->path);
    if (code == TFPI_OK) {
        void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED)
            code = tfpi_status_set(status, TFPI_IO_ERROR, "%s: cannot map: %s", out->path, strerror(errno));
        else {
            out->bytes = map;
            out->size = (size_t)st.st_size;
        }
    }
    if (fd >= 0)
        close(fd);
    return code;
}

/* Fields that are bytes in tfpi's messages but messages in text; skipped. */
static const char *const text_fields_skipped[] = {"stripped_op_list", "any_info", "function_aliases",
                                                  "object_graph_def", "library", "any_list", "coo_sparse",
                                                  "composite_tensor", "experimental_debug_info",
                                                  "experimental_type", NULL};

/* Reads the text SavedModel at out->path and packs it into out->bytes. */
static tfpi_code pack_text(tp_saved_model *out, tfpi_status *status)
{
    tfpi_code code = map_file(out, status);
    if (code != TFPI_OK)
        return code;
    ProtobufCMessage *m = pbtxt_parse(&tfpi__saved_model_text__descriptor, (const char *)out->bytes, out->size,
                                      out->path, text_fields_skipped, status);
    munmap(out->bytes, out->size);
    out->bytes = NULL;
    if (!m)
        return status ? status->code : TFPI_INVALID_ARGUMENT;
    size_t size = protobuf_c_message_get_packed_size(m);
    out->bytes = malloc(size ? size : 1);
    if (out->bytes) {
        out->size = protobuf_c_message_pack(m, out->bytes);
        out->packed_text = true;
    }
    protobuf_c_message_free_unpacked(m, NULL);
    return out->bytes ? TFPI_OK : tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", out->path);
}

tfpi_code tp_saved_model_open(const char *dir, tp_saved_model *out, tfpi_status *status)
{
    memset(out, 0, sizeof *out);
    size_t n = strlen(dir) + sizeof "/saved_model.pbtxt";
    if (!(out->path = malloc(n)))
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", dir);
    snprintf(out->path, n, "%s/saved_model.pb", dir);
    struct stat st;
    bool text = stat(out->path, &st) != 0;
    if (text)
        snprintf(out->path, n, "%s/saved_model.pbtxt", dir);
    tfpi_code code = text ? pack_text(out, status) : map_file(out, status);
    if (code == TFPI_OK)
        code = list_meta_graphs(out, status);
    if (code != TFPI_OK)
        tp_saved_model_close(out);
    return code;
}

/* A tag asked for: text[0..len) of the tags option. */
typedef struct tag_span {
    const char *text;
    size_t len;
} tag_span;

static bool span_is(tag_span t, const char *tag) { return strlen(tag) == t.len && memcmp(tag, t.text, t.len) == 0; }

/* Splits "a, b,a" into distinct trimmed tags, any number of any length,
 * into *tags (malloc'd; free it); -1 when out of memory. */
static int parse_tags(const char *text, tag_span **tags)
{
    const char *p = text && *text ? text : "serve";
    *tags = malloc((strlen(p) / 2 + 1) * sizeof **tags); /* tags and commas alternate */
    if (!*tags)
        return -1;
    int n = 0;
    while (*p) {
        p += strspn(p, " ,");
        size_t len = strcspn(p, ",");
        tag_span tag = {p, len};
        while (tag.len > 0 && p[tag.len - 1] == ' ')
            tag.len--;
        bool seen = tag.len == 0;
        for (int i = 0; i < n && !seen; i++)
            seen = tag.len == (*tags)[i].len && memcmp(tag.text, (*tags)[i].text, tag.len) == 0;
        if (!seen)
            (*tags)[n++] = tag;
        p += len;
    }
    return n;
}

/* Whether the meta graph's tag set is exactly the tags asked for. */
static bool same_tag_set(const Tfpi__MetaInfoDef *info, const tag_span *want, int n)
{
    size_t have = info ? info->n_tags : 0;
    for (int i = 0; i < n; i++) {
        bool found = false;
        for (size_t k = 0; k < have && !found; k++)
            found = span_is(want[i], info->tags[k]);
        if (!found)
            return false;
    }
    for (size_t k = 0; k < have; k++) {
        bool found = false;
        for (int i = 0; i < n && !found; i++)
            found = span_is(want[i], info->tags[k]);
        if (!found)
            return false;
    }
    return true;
}

const char *tp_saved_model_tag_sets(const tp_saved_model *sm, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sm->num_meta_graphs; i++) {
        append(buf, size, &len, i ? " {" : "{");
        const Tfpi__MetaInfoDef *info = sm->infos[i];
        for (size_t k = 0; info && k < info->n_tags; k++) {
            append(buf, size, &len, k ? ", " : " ");
            append(buf, size, &len, info->tags[k]);
        }
        append(buf, size, &len, " }");
    }
    return buf;
}

tfpi_code tp_saved_model_select(const tp_saved_model *sm, const char *dir, const char *tags, tp_meta_graph *out,
                                tfpi_status *status)
{
    memset(out, 0, sizeof *out);
    tag_span *want;
    const int n = parse_tags(tags, &want);
    if (n < 0)
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "SavedModel %s: out of memory", dir);
    for (size_t i = 0; i < sm->num_meta_graphs; i++)
        if (same_tag_set(sm->infos[i], want, n)) {
            free(want);
            return tp_meta_graph_read(sm->meta_graphs[i].data, sm->meta_graphs[i].size, sm->path, out, status);
        }
    char asked[600] = "", available[600], quoted[80];
    size_t len = 0;
    for (int i = 0; i < n; i++) {
        snprintf(quoted, sizeof quoted, "%s%.*s%s", i ? ", " : "", want[i].len > 64 ? 64 : (int)want[i].len,
                 want[i].text, want[i].len > 64 ? "..." : "");
        append(asked, sizeof asked, &len, quoted);
    }
    free(want);
    return tfpi_status_set(status, TFPI_NOT_FOUND, "SavedModel %s: no MetaGraph with tags { %s }; available: %s", dir,
                           asked, tp_saved_model_tag_sets(sm, available, sizeof available));
}
