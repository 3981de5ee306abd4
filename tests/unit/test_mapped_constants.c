/* test_mapped_constants.c - a binary GraphDef's 8-bit constants read in
 * place from the mapped file (src/model/mapped_constants.h): an int8
 * filter shared by two TFLite CONV_2D nodes gives the same codes whether
 * the graph comes from the file (the filter read from the mapping, its
 * pages dropped once packed) or from a buffer (a private copy), in the first
 * plan, after a new input shape re-plans, and in a second session; the
 * constant reads back as written after planning (tfpi_graph_const_value,
 * what summarize_graph and Python read); dropped pages read back from the
 * file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "graph/graph.h"
#include "graph_builder.h"
#include "tfpi.h"

enum { CHANNELS = 64, FILTER_BYTES = CHANNELS * CHANNELS };

static int8_t filter[FILTER_BYTES];

static void attr_scale(Tfpi__NodeDef *n, const char *key, float scale)
{
    Tfpi__AttrValue *v = gd_attr_set(n, key);
    v->value_case = TFPI__ATTR_VALUE__VALUE_LIST;
    v->list = malloc(sizeof *v->list);
    tfpi__attr_value__list_value__init(v->list);
    v->list->f = malloc(sizeof *v->list->f);
    v->list->f[0] = scale;
    v->list->n_f = 1;
}

/* q_<role>0_scale / _zero_point / _dim. */
static void attr_quant(Tfpi__NodeDef *n, const char *role, float scale, int64_t zero)
{
    char key[32];
    snprintf(key, sizeof key, "q_%s_scale", role);
    attr_scale(n, key, scale);
    snprintf(key, sizeof key, "q_%s_zero_point", role);
    gd_attr_set_ints(n, key, &zero, 1);
    snprintf(key, sizeof key, "q_%s_dim", role);
    gd_attr_set_int(n, key, 0);
}

static void conv(gb_graph *g, const char *name, float out_scale)
{
    Tfpi__NodeDef *n = gb_node(g, "CONV_2D", name, "x", "w", NULL);
    gd_attr_set_type(n, "T", TFPI_INT8);
    gd_attr_set_string(n, "fused_activation_function", "NONE");
    gd_attr_set_string(n, "padding", "SAME");
    gd_attr_set_int(n, "stride_h", 1);
    gd_attr_set_int(n, "stride_w", 1);
    gd_attr_set_int(n, "dilation_h_factor", 1);
    gd_attr_set_int(n, "dilation_w_factor", 1);
    attr_quant(n, "in0", 0.05f, 3);
    attr_quant(n, "in1", 0.01f, 0);
    attr_quant(n, "out0", out_scale, -2);
}

/* x [1, ?, ?, 64] int8, w [64][1][1][64] (4096 bytes), a and b: two
 * convolutions of x by w with other output scales. */
static uint8_t *model_bytes(size_t *size)
{
    uint32_t seed = 7;
    for (int i = 0; i < FILTER_BYTES; i++) {
        seed = seed * 1103515245u + 12345u;
        filter[i] = (int8_t)((seed >> 16) % 255 - 127);
    }
    gb_graph *g = gb_new();
    const int64_t x_dims[] = {1, -1, -1, CHANNELS}, w_dims[] = {CHANNELS, 1, 1, CHANNELS};
    gb_placeholder(g, "x", TFPI_INT8, x_dims, 4);
    gb_const(g, "w", TFPI_INT8, w_dims, 4, filter);
    conv(g, "a", 0.5f);
    conv(g, "b", 0.9f);
    uint8_t *bytes = gb_serialize(g, size);
    gb_free(g);
    return bytes;
}

/* Runs a and b on an input of h x w pixels; outputs[0..2) to free. */
static void run(tfpi_session *s, int64_t h, int64_t w, tfpi_tensor **outputs)
{
    const int64_t dims[] = {1, h, w, CHANNELS};
    tfpi_tensor *x = tfpi_tensor_new(TFPI_INT8, dims, 4, NULL);
    int8_t *codes = tfpi_tensor_data(x);
    for (int64_t i = 0; i < h * w * CHANNELS; i++)
        codes[i] = (int8_t)((i * 37 + h) % 251 - 125);
    const char *feed = "x", *fetches[] = {"a", "b"};
    tfpi_status status = {0};
    tfpi_code code = tfpi_session_run(s, &feed, &x, 1, fetches, outputs, 2, &status);
    CHECK_MSG(code == TFPI_OK, "run: %s", status.message);
    if (code != TFPI_OK)
        outputs[0] = outputs[1] = NULL;
    tfpi_tensor_free(x);
}

static bool same_tensor(tfpi_tensor *a, tfpi_tensor *b)
{
    return a && b && tfpi_tensor_byte_size(a) == tfpi_tensor_byte_size(b) &&
           memcmp(tfpi_tensor_data(a), tfpi_tensor_data(b), tfpi_tensor_byte_size(a)) == 0;
}

/* The constant w of g reads back as written. */
static void check_filter(const tfpi_graph *g)
{
    tfpi_tensor *w = tfpi_graph_const_value(g, "w", NULL);
    CHECK(w && tfpi_tensor_byte_size(w) == FILTER_BYTES && memcmp(tfpi_tensor_data(w), filter, FILTER_BYTES) == 0);
    tfpi_tensor_free(w);
}

static const Tfpi__TensorProto *filter_proto(const tfpi_graph *g)
{
    for (int i = 0; i < g->num_nodes; i++)
        if (strcmp(g->nodes[i].def->name, "w") == 0)
            for (size_t a = 0; a < g->nodes[i].def->n_attr; a++)
                if (strcmp(g->nodes[i].def->attr[a]->key, "value") == 0)
                    return g->nodes[i].def->attr[a]->value->tensor;
    return NULL;
}

static void test_mapped_filter_gives_the_copys_codes(void)
{
    size_t size;
    uint8_t *bytes = model_bytes(&size);
    char path[] = "/tmp/tfpi_test_mapped_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0 && write(fd, bytes, size) == (ssize_t)size);
    close(fd);
    tfpi_graph *copied = tfpi_graph_load_buffer(bytes, size, NULL);
    tfpi_graph *mapped = tfpi_graph_load_file(path, NULL);
    free(bytes);
    CHECK(copied && mapped);
    if (!copied || !mapped) {
        tfpi_graph_free(copied), tfpi_graph_free(mapped);
        return;
    }
    /* The file's graph reads w from its mapping, the buffer's from a copy. */
    const Tfpi__TensorProto *w = filter_proto(mapped);
    CHECK(w && mapped->file_map && w->tensor_content.data >= mapped->file_map &&
          w->tensor_content.data + FILTER_BYTES <= mapped->file_map + mapped->file_map_size);
    CHECK(!copied->file_map);

    tfpi_session_options one = {.num_threads = 1};
    tfpi_session *reference = tfpi_session_new(copied, &one, NULL), *first = tfpi_session_new(mapped, &one, NULL),
                 *second = tfpi_session_new(mapped, NULL, NULL);
    const int64_t shapes[][2] = {{5, 6}, {9, 3}, {5, 6}};
    for (int i = 0; i < 3; i++) { /* the second shape plans again, the third again */
        tfpi_tensor *want[2], *got[2], *again[2];
        run(reference, shapes[i][0], shapes[i][1], want);
        run(first, shapes[i][0], shapes[i][1], got);
        run(second, shapes[i][1], shapes[i][0], again);
        CHECK_MSG(same_tensor(want[0], got[0]) && same_tensor(want[1], got[1]), "shape %d", i);
        CHECK(!same_tensor(got[0], got[1])); /* two nodes, two results */
        tfpi_tensor_free(want[0]), tfpi_tensor_free(want[1]);
        run(reference, shapes[i][1], shapes[i][0], want);
        CHECK_MSG(same_tensor(want[0], again[0]) && same_tensor(want[1], again[1]), "second session, shape %d", i);
        for (int k = 0; k < 2; k++)
            tfpi_tensor_free(want[k]), tfpi_tensor_free(got[k]), tfpi_tensor_free(again[k]);
        check_filter(mapped);
    }
    /* Dropped pages come back from the file. */
    tp_graph_drop_constant_pages(mapped, w->tensor_content.data, FILTER_BYTES);
    CHECK(memcmp(w->tensor_content.data, filter, FILTER_BYTES) == 0);
    tfpi_session_free(reference), tfpi_session_free(first), tfpi_session_free(second);
    tfpi_graph_free(copied);
    tfpi_graph_free(mapped);
    unlink(path);
}

int main(void)
{
    RUN(test_mapped_filter_gives_the_copys_codes);
    return check_summary();
}
