/* test_memmapped.c - loading memory-mapped models (TensorFlow's
 * convert_graphdef_memmapped_format layout) through the public API: new
 * (64-byte aligned, lengths set) and old (32-byte, no lengths) files from a
 * file and from a buffer, ImmutableConst outputs pointing into the model,
 * every kind of damaged directory, and encrypted models with a decrypt
 * callback. Files are assembled here byte by byte so that each test can
 * place regions exactly where it wants them. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "graph_builder.h"
#include "memmapped.pb-c.h"
#include "tfpi.h"

#define GRAPH_REGION "memmapped_package://."
#define W_REGION "memmapped_package://w"

static const float weights[6] = {1.5f, -2, 3, 4.25f, 5, -6};

typedef struct region {
    const char *name;
    uint64_t offset;
    const void *data;
    size_t size;
    uint64_t length; /* what the directory says; 0 = unset (old writers) */
    uint64_t listed_offset; /* if not 0, the directory says this instead of offset */
} region;

typedef struct model_file {
    uint8_t *bytes;
    size_t size;
} model_file;

/* Regions at their offsets, then the directory, then its offset. */
static model_file assemble(const region *regions, int n)
{
    size_t end = 0;
    for (int i = 0; i < n; i++)
        if (regions[i].offset + regions[i].size > end)
            end = regions[i].offset + regions[i].size;
    Tfpi__MemmappedFileSystemDirectory dir = TFPI__MEMMAPPED_FILE_SYSTEM_DIRECTORY__INIT;
    Tfpi__MemmappedFileSystemDirectoryElement elements[8], *pointers[8];
    for (int i = 0; i < n; i++) {
        tfpi__memmapped_file_system_directory_element__init(&elements[i]);
        elements[i].name = (char *)regions[i].name;
        elements[i].offset = regions[i].listed_offset ? regions[i].listed_offset : regions[i].offset;
        elements[i].length = regions[i].length;
        pointers[i] = &elements[i];
    }
    dir.n_element = (size_t)n;
    dir.element = pointers;
    size_t dir_size = tfpi__memmapped_file_system_directory__get_packed_size(&dir);
    model_file f = {calloc(1, end + dir_size + 8), end + dir_size + 8};
    for (int i = 0; i < n; i++)
        memcpy(f.bytes + regions[i].offset, regions[i].data, regions[i].size);
    tfpi__memmapped_file_system_directory__pack(&dir, f.bytes + end);
    for (int i = 0; i < 8; i++)
        f.bytes[end + dir_size + (size_t)i] = (uint8_t)((uint64_t)end >> (8 * i));
    return f;
}

/* A graph: w = ImmutableConst(float [rows,3], region) -> out = Identity(w);
 * a NULL region_name leaves the attribute out. */
static uint8_t *mapped_graph(const char *region_name, int64_t rows, size_t *size)
{
    gb_graph *g = gb_new();
    Tfpi__NodeDef *w = gb_node(g, "ImmutableConst", "w", NULL);
    int64_t dims[2] = {rows, 3};
    gd_attr_set_type(w, "dtype", TFPI_FLOAT);
    gd_attr_set_shape(w, "shape", dims, 2);
    if (region_name)
        gd_attr_set_string(w, "memory_region_name", region_name);
    gb_node(g, "Identity", "out", "w", NULL);
    uint8_t *bytes = gb_serialize(g, size);
    gb_free(g);
    return bytes;
}

/* The standard good file: weights at 0, the graph at 64 (or 32 for old
 * writers, which also leave the lengths unset). */
static model_file good_file(bool old_writer)
{
    size_t graph_size;
    uint8_t *graph = mapped_graph(W_REGION, 2, &graph_size);
    uint64_t at = old_writer ? 32 : 64;
    region regions[2] = {
        {W_REGION, 0, weights, sizeof weights, old_writer ? 0 : sizeof weights, 0},
        {GRAPH_REGION, at, graph, graph_size, old_writer ? 0 : graph_size, 0},
    };
    model_file f = assemble(regions, 2);
    free(graph);
    return f;
}

static const char *write_temp(const model_file *f)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/tfpi_test_mmap_XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, f->bytes, f->size) != (ssize_t)f->size)
        check_fail(__FILE__, __LINE__, "cannot write %s", path);
    if (fd >= 0)
        close(fd);
    return path;
}

/* Runs the graph and checks both fetches hold the weights. */
static void check_runs(tfpi_graph *g)
{
    tfpi_status status = {0};
    tfpi_session *s = tfpi_session_new(g, NULL, &status);
    const char *fetches[2] = {"out", "w"};
    tfpi_tensor *outputs[2] = {NULL, NULL};
    CHECK(s != NULL);
    tfpi_code code = s ? tfpi_session_run(s, NULL, NULL, 0, fetches, outputs, 2, &status) : TFPI_INTERNAL;
    CHECK_MSG(code == TFPI_OK, "run failed: %s", status.message);
    for (int k = 0; k < 2 && code == TFPI_OK; k++) {
        CHECK_EQ_INT(tfpi_tensor_num_elements(outputs[k]), 6);
        CHECK_EQ_INT(tfpi_tensor_dim(outputs[k], 0), 2);
        CHECK(memcmp(tfpi_tensor_const_data(outputs[k]), weights, sizeof weights) == 0);
        tfpi_tensor_free(outputs[k]);
    }
    tfpi_session_free(s);
}

static void test_loads_file_new_and_old_layout(void)
{
    for (int old = 0; old < 2; old++) {
        model_file f = good_file(old);
        const char *path = write_temp(&f);
        tfpi_status status = {0};
        tfpi_graph *g = tfpi_graph_load_file(path, &status);
        CHECK_MSG(g != NULL, "%s layout: %s", old ? "old" : "new", status.message);
        if (g) {
            CHECK_EQ_INT(tfpi_graph_num_nodes(g), 2);
            CHECK(strcmp(tfpi_graph_node_op(g, 0), "ImmutableConst") == 0);
            check_runs(g);
        }
        tfpi_graph_free(g);
        unlink(path);
        free(f.bytes);
    }
}

/* The caller may free its buffer right after loading. */
static void test_loads_buffer_and_keeps_own_copy(void)
{
    model_file f = good_file(false);
    tfpi_status status = {0};
    tfpi_graph *g = tfpi_graph_load_buffer(f.bytes, f.size, &status);
    memset(f.bytes, 0xff, f.size);
    free(f.bytes);
    CHECK_MSG(g != NULL, "%s", status.message);
    if (g)
        check_runs(g);
    tfpi_graph_free(g);
}

/* Loads f from a buffer, expecting an error whose message contains want. */
static void check_rejected(model_file f, const char *want)
{
    tfpi_status status = {0};
    tfpi_graph *g = tfpi_graph_load_buffer(f.bytes, f.size, &status);
    CHECK_MSG(g == NULL, "loaded, expected an error containing '%s'", want);
    CHECK_MSG(strstr(status.message, want) != NULL, "message '%s' lacks '%s'", status.message, want);
    CHECK(status.code != TFPI_OK);
    tfpi_graph_free(g);
    free(f.bytes);
}

static void test_truncated_directory(void)
{
    model_file f = good_file(false);
    f.size -= 5; /* the offset's bytes are cut */
    check_rejected(f, "memmapped model whose directory is truncated or damaged");
    f = good_file(false);
    memmove(f.bytes + f.size - 12, f.bytes + f.size - 8, 8); /* the directory loses 4 bytes */
    f.size -= 4;
    check_rejected(f, "memmapped model whose directory is truncated or damaged");
}

static void test_region_offset_past_end(void)
{
    size_t graph_size;
    uint8_t *graph = mapped_graph(W_REGION, 2, &graph_size);
    region regions[2] = {
        {W_REGION, 0, weights, sizeof weights, sizeof weights, 0},
        {GRAPH_REGION, 64, graph, graph_size, graph_size, 1u << 30},
    };
    check_rejected(assemble(regions, 2), "starts at offset 1073741824, past the end");
    free(graph);
}

static void test_overlapping_regions(void)
{
    size_t graph_size;
    uint8_t *graph = mapped_graph(W_REGION, 2, &graph_size);
    region overlap[2] = {
        {W_REGION, 0, weights, sizeof weights, 100, 0}, /* says 100 bytes, the next starts at 64 */
        {GRAPH_REGION, 64, graph, graph_size, graph_size, 0},
    };
    check_rejected(assemble(overlap, 2), "overlaps region 'memmapped_package://.'");
    region unordered[2] = {
        {GRAPH_REGION, 64, graph, graph_size, graph_size, 0},
        {W_REGION, 0, weights, sizeof weights, sizeof weights, 0},
    };
    check_rejected(assemble(unordered, 2), "offsets must increase");
    region into_directory[2] = {
        {W_REGION, 0, weights, sizeof weights, sizeof weights, 0},
        {GRAPH_REGION, 64, graph, graph_size, graph_size + 4096, 0},
    };
    check_rejected(assemble(into_directory, 2), "runs into the directory");
    free(graph);
}

static void test_bad_directory_contents(void)
{
    size_t graph_size;
    uint8_t *graph = mapped_graph(W_REGION, 2, &graph_size);
    region duplicate[3] = {
        {W_REGION, 0, weights, sizeof weights, sizeof weights, 0},
        {W_REGION, 64, weights, sizeof weights, sizeof weights, 0},
        {GRAPH_REGION, 128, graph, graph_size, graph_size, 0},
    };
    check_rejected(assemble(duplicate, 3), "two memmapped regions are named 'memmapped_package://w'");
    region no_graph[1] = {{W_REGION, 0, weights, sizeof weights, sizeof weights, 0}};
    check_rejected(assemble(no_graph, 1), "no GraphDef region");
    region bad_graph[2] = {
        {W_REGION, 0, weights, sizeof weights, sizeof weights, 0},
        {GRAPH_REGION, 64, "\xff\xff\xff", 3, 3, 0},
    };
    check_rejected(assemble(bad_graph, 2), "not a TensorFlow GraphDef");
    free(graph);
}

static void test_immutable_const_checked_at_load(void)
{
    size_t graph_size;
    uint8_t *graph = mapped_graph(W_REGION, 100, &graph_size); /* needs 1200 bytes */
    region too_small[2] = {
        {W_REGION, 0, weights, sizeof weights, sizeof weights, 0},
        {GRAPH_REGION, 64, graph, graph_size, graph_size, 0},
    };
    check_rejected(assemble(too_small, 2), "node 'w' (ImmutableConst): memory region");
    free(graph);
    graph = mapped_graph("memmapped_package://nosuch", 2, &graph_size);
    region missing[2] = {
        {W_REGION, 0, weights, sizeof weights, sizeof weights, 0},
        {GRAPH_REGION, 64, graph, graph_size, graph_size, 0},
    };
    check_rejected(assemble(missing, 2), "memory region 'memmapped_package://nosuch' is not in the model");
    free(graph);
    graph = mapped_graph(NULL, 2, &graph_size);
    region unnamed[2] = {
        {W_REGION, 0, weights, sizeof weights, sizeof weights, 0},
        {GRAPH_REGION, 64, graph, graph_size, graph_size, 0},
    };
    check_rejected(assemble(unnamed, 2), "node 'w' (ImmutableConst): has no memory_region_name attribute");
    free(graph);
}

/* A plain .pb with an ImmutableConst loads but cannot run it. */
static void test_immutable_const_in_plain_graph(void)
{
    size_t size;
    uint8_t *graph = mapped_graph(W_REGION, 2, &size);
    tfpi_status status = {0};
    tfpi_graph *g = tfpi_graph_load_buffer(graph, size, &status);
    CHECK(g != NULL);
    tfpi_session *s = g ? tfpi_session_new(g, NULL, &status) : NULL;
    const char *fetch = "out";
    tfpi_tensor *out = NULL;
    CHECK(s && tfpi_session_run(s, NULL, NULL, 0, &fetch, &out, 1, &status) != TFPI_OK);
    CHECK_MSG(strstr(status.message, "needs a memmapped model"), "%s", status.message);
    tfpi_session_free(s);
    tfpi_graph_free(g);
    free(graph);
}

/* ---- decrypt callback ---- */

typedef struct xor_key {
    const char *key;
    int calls;
} xor_key;

static int xor_decrypt(void *user, uint8_t *data, size_t size)
{
    xor_key *k = user;
    size_t n = strlen(k->key);
    for (size_t i = 0; i < size; i++)
        data[i] ^= (uint8_t)k->key[i % n];
    k->calls++;
    return 0;
}

static int failing_decrypt(void *user, uint8_t *data, size_t size)
{
    (void)user, (void)data, (void)size;
    return 7;
}

static void test_decrypt_callback(void)
{
    model_file files[2] = {good_file(false), {0}};
    size_t size;
    files[1].bytes = mapped_graph(W_REGION, 2, &size); /* a plain GraphDef */
    files[1].size = size;
    for (int k = 0; k < 2; k++) {
        xor_key key = {"secret", 0};
        xor_decrypt(&key, files[k].bytes, files[k].size); /* encrypt */
        tfpi_status status = {0};
        tfpi_graph *g = tfpi_graph_load_buffer_decrypted(files[k].bytes, files[k].size, xor_decrypt, &key,
                                                         &status);
        CHECK_MSG(g != NULL, "%s", status.message);
        CHECK_EQ_INT(key.calls, 2);
        if (g && k == 0)
            check_runs(g);
        tfpi_graph_free(g);
        xor_key wrong = {"wrong!", 0};
        g = tfpi_graph_load_buffer_decrypted(files[k].bytes, files[k].size, xor_decrypt, &wrong, &status);
        CHECK(g == NULL);
        CHECK_MSG(strstr(status.message, "decrypted model buffer"), "%s", status.message);
        g = tfpi_graph_load_buffer_decrypted(files[k].bytes, files[k].size, failing_decrypt, NULL, &status);
        CHECK(g == NULL);
        CHECK_MSG(strstr(status.message, "decrypt callback failed (returned 7)"), "%s", status.message);
        free(files[k].bytes);
    }
}

int main(void)
{
    RUN(test_loads_file_new_and_old_layout);
    RUN(test_loads_buffer_and_keeps_own_copy);
    RUN(test_truncated_directory);
    RUN(test_region_offset_past_end);
    RUN(test_overlapping_regions);
    RUN(test_bad_directory_contents);
    RUN(test_immutable_const_checked_at_load);
    RUN(test_immutable_const_in_plain_graph);
    RUN(test_decrypt_callback);
    return check_summary();
}
