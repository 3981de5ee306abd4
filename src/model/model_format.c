/* model_format.c - recognises the model files tfpi does not load as a
 * graph, by their magic numbers and structure, and says what to do. */
#include "model/model_format.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "graph/wire.h"
#include "model/meta_graph.h"
#include "model/sstable.h"

/* What to do with checkpoint prefix P, at buf[at..). */
static void checkpoint_advice(char *buf, size_t size, int at, int prefix_len, const char *prefix)
{
    if (at < 0 || (size_t)at >= size)
        return;
    snprintf(buf + at, size - (size_t)at,
             "load its graph with it (--graph=%.*s.meta, or a .pb with --checkpoint=%.*s) or freeze them into one "
             "with freeze_graph",
             prefix_len, prefix, prefix_len, prefix);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static bool is_hdf5(const uint8_t *data, size_t size)
{
    static const uint8_t magic[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    /* The superblock is at 0 or after a user block of 512 * 2^k bytes. */
    for (size_t at = 0; at + 8 <= size && at <= 1u << 20; at = at ? 2 * at : 512)
        if (memcmp(data + at, magic, 8) == 0)
            return true;
    return false;
}

static bool contains(const uint8_t *data, size_t size, const char *text)
{
    size_t n = strlen(text);
    for (size_t i = 0; i + n <= size && i < (1u << 20); i++)
        if (memcmp(data + i, text, n) == 0)
            return true;
    return false;
}

/* ONNX ModelProto: ir_version (1, varint) and graph (7, message) at the top
 * level, every field well formed. A GraphDef's field 1 is a message. */
static bool is_onnx(const uint8_t *data, size_t size)
{
    tp_wire_reader r = {data, size, 0};
    tp_wire_field f;
    bool version = false, graph = false;
    while (r.pos < size) {
        if (!tp_wire_next(&r, &f))
            return false;
        version = version || (f.number == 1 && f.wire_type == TP_WIRE_VARINT);
        graph = graph || (f.number == 7 && f.wire_type == TP_WIRE_LEN);
    }
    return version && graph;
}

/* A SavedModel file: schema version (1, varint) and meta graphs (2). */
static bool is_saved_model(const uint8_t *data, size_t size)
{
    tp_wire_reader r = {data, size, 0};
    tp_wire_field f;
    bool meta_graph = false;
    while (r.pos < size) {
        if (!tp_wire_next(&r, &f) || (f.number == 1 && f.wire_type != TP_WIRE_VARINT) ||
            (f.number == 2 && f.wire_type != TP_WIRE_LEN))
            return false;
        if (f.number == 2 && !meta_graph) {
            tp_meta_graph mg;
            if (tp_meta_graph_read(f.bytes, f.length, "", &mg, NULL) != TFPI_OK)
                return false;
            tp_meta_graph_free(&mg);
            meta_graph = true;
        }
    }
    return meta_graph;
}

static bool is_checkpoint_index(const uint8_t *data, size_t size)
{
    if (size < TP_SSTABLE_FOOTER_SIZE)
        return false;
    uint64_t magic = 0;
    for (int i = 7; i >= 0; i--)
        magic = magic << 8 | data[size - 8 + (size_t)i];
    return magic == TP_SSTABLE_MAGIC;
}

const char *tp_model_format_hint(const uint8_t *data, size_t size, const char *path, char *buf, size_t bufsize)
{
    const char *base = base_name(path);
    int dir_len = (int)(base - path > 1 ? base - path - 1 : base - path);
    if (is_hdf5(data, size))
        snprintf(buf, bufsize, "%s: a Keras HDF5 model (.h5): save it as a SavedModel (in Python with TensorFlow 2: "
                 "tf.keras.models.load_model('%s').save('model_dir')) and give tfpi the directory", path, base);
    else if (size >= 4 && memcmp(data, "PK\3\4", 4) == 0)
        snprintf(buf, bufsize, "%s: %s: export a SavedModel (in Python: model.export('model_dir')) and give tfpi the "
                 "directory", path, contains(data, size, "config.json") ? "a Keras 3 model (.keras)" : "a zip archive");
    else if (is_checkpoint_index(data, size) || (strstr(base, ".data-") && strstr(base, "-of-"))) {
        const char *end = strstr(base, ".data-") ? strstr(base, ".data-") : strrchr(base, '.');
        int at = snprintf(buf, bufsize, "%s: a checkpoint's %s file (the variables' values, not a graph): ", path,
                          is_checkpoint_index(data, size) ? "index" : "data");
        checkpoint_advice(buf, bufsize, at, (int)((end ? end : base + strlen(base)) - path), path);
    }
    else if (strcmp(base, "saved_model.pb") == 0 || is_saved_model(data, size))
        snprintf(buf, bufsize, "%s: the saved_model.pb of a SavedModel: open its directory (%.*s), not the file",
                 path, dir_len, base == path ? "." : path);
    else if (is_onnx(data, size))
        snprintf(buf, bufsize, "%s: an ONNX model, not a TensorFlow graph (OpenCV's DNN module or ONNX Runtime run "
                 "ONNX)", path);
    else
        return NULL;
    return buf;
}

const char *tp_model_missing_hint(const char *path, char *buf, size_t bufsize)
{
    char index[4200];
    struct stat st;
    if (snprintf(index, sizeof index, "%s.index", path) >= (int)sizeof index || stat(index, &st) != 0)
        return NULL;
    int at = snprintf(buf, bufsize, "%s: a checkpoint prefix (the variables' values in %s.index and %s.data-*, not "
                      "a graph): ", path, path, path);
    checkpoint_advice(buf, bufsize, at, (int)strlen(path), path);
    return buf;
}
