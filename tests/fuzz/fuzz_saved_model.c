/* fuzz_saved_model.c - libFuzzer target for the SavedModel and MetaGraphDef
 * readers (src/model/meta_graph.c, meta_graph_info.c, variable_binding.c,
 * model_load.c): the input is written, by its length modulo 4, as a
 * SavedModel's saved_model.pb loaded with the default tags and signature
 * (0) or with others (1), as a .meta file (2), each beside a valid
 * checkpoint (xor_tf1's variables when ../shared is there), or as a text
 * SavedModel (saved_model.pbtxt, 3); a graph that loads is planned and run
 * once with no feeds. (All four ways for every input took four times as
 * long: each load opens, stats and maps its files.)
 * Seeds: the saved_model.pb and .meta files of ../shared/testdata/savedmodel.
 *
 * Built and run by `make fuzz FUZZ_SECONDS=N` (tests/fuzz/run_fuzzers.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tfpi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[256], text_dir[300];

/* Writes data to name in directory d. */
static void write_file(const char *d, const char *name, const uint8_t *data, size_t size)
{
    char path[400];
    snprintf(path, sizeof path, "%s/%s", d, name);
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size))
        abort();
    fclose(f);
}

/* Copies xor_tf1's checkpoint as the SavedModel's variables/ and as model.* . */
static void copy_checkpoint(void)
{
    static const char *const files[][2] = {
        {"variables/variables.index", "variables/variables.index"},
        {"variables/variables.data-00000-of-00001", "variables/variables.data-00000-of-00001"},
        {"variables/variables.index", "model.index"},
        {"variables/variables.data-00000-of-00001", "model.data-00000-of-00001"},
    };
    char path[400];
    snprintf(path, sizeof path, "%s/variables", dir);
    mkdir(path, 0755);
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "../shared/testdata/savedmodel/xor_tf1/1/%s", files[i][0]);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;
        static uint8_t buf[1 << 16];
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        write_file(dir, files[i][1], buf, n);
    }
}

static void load_and_run(const char *path, const tfpi_load_options *options)
{
    tfpi_status status;
    tfpi_graph *g = tfpi_graph_load(path, options, &status);
    if (!g)
        return;
    tfpi_session_options so = {.num_threads = 1, .max_memory_bytes = 1 << 24};
    tfpi_session *s = tfpi_session_new(g, &so, &status);
    if (s) /* endless and nested Whiles stop quickly; the default limit is tested by the suite */
        tfpi_session_set_max_loop_iterations(s, 100);
    int n = tfpi_graph_signature_num_outputs(g);
    for (int i = 0; s && i < n && i < 4; i++) {
        const char *key = tfpi_graph_signature_output(g, i, NULL);
        tfpi_tensor *out = NULL;
        if (tfpi_session_run(s, NULL, NULL, 0, &key, &out, 1, &status) == TFPI_OK)
            tfpi_tensor_free(out);
    }
    tfpi_session_free(s);
    tfpi_graph_free(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "%s/tfpi-fuzz-saved-model-%d", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
                 (int)getpid());
        mkdir(dir, 0755);
        copy_checkpoint();
        snprintf(text_dir, sizeof text_dir, "%s/text", dir);
        mkdir(text_dir, 0755);
    }
    /* One load per execution, chosen by the input's length, so that each
     * costs one reader's work: a SavedModel directory with the default
     * tags and signature or with others, a .meta beside its checkpoint, a
     * text SavedModel. */
    static const tfpi_load_options other = {"serve, train", "predict", NULL};
    char path[300];
    switch (size % 4) {
    case 0:
    case 1:
        write_file(dir, "saved_model.pb", data, size);
        load_and_run(dir, size % 4 ? &other : NULL);
        break;
    case 2:
        write_file(dir, "model.meta", data, size);
        snprintf(path, sizeof path, "%s/model.meta", dir);
        load_and_run(path, NULL);
        break;
    default:
        write_file(text_dir, "saved_model.pbtxt", data, size);
        load_and_run(text_dir, NULL);
        break;
    }
    return 0;
}
