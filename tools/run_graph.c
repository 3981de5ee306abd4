/* run_graph - runs any graph with tensors from and to .npy files:
 *   run_graph --graph=G.pb|saved_model_dir|M.meta --input=NAME=x.npy [--input=NAME=@file.wav]
 *             --output=NAME=y.npy [--output=NAME] [--num_threads=N]
 *             [--max_memory=BYTES] [--max_image_pixels=N]
 *             [--saved_model_tags=T --signature_def=S --checkpoint=P]
 *             [--max_loop_iterations=N] [--runs=N]
 * "@file" feeds the file's bytes as a string scalar, "@a,@b" a vector of
 * them; .npy files may hold numbers or strings ('S', 'U' or object arrays).
 * An output without a file prints its shape and first values. --runs
 * repeats the run in one session (resource variables a run assigns persist
 * into the next); the outputs are the last run's. Without --output, a
 * SavedModel signature that has no outputs runs for what it does (the call
 * of its function), printing nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_util.h"
#include "flags.h"
#include "graph_inputs.h"
#include "graphdef_io.h"
#include "limit_flags.h"
#include "load_flags.h"
#include "npy.h"
#include "tfpi.h"

typedef struct run_args {
    int num_inputs, num_outputs;
    char **input_names, **output_names; /* "NAME" parts (copies) */
    const char **input_files, **output_files;
    tfpi_tensor **feeds, **results;
} run_args;

/* Splits "NAME=VALUE" at the last '=' (names may not contain '='). */
static char *split_assignment(const char *arg, const char **value)
{
    const char *eq = strrchr(arg, '=');
    *value = eq ? eq + 1 : NULL;
    return strndup(arg, eq ? (size_t)(eq - arg) : strlen(arg));
}

/* "@a.jpg,@b.jpg": how many files, or 0 if a piece does not start with '@'. */
static int count_files(const char *list)
{
    int n = 0;
    for (const char *p = list; p; p = strchr(p, ',')) {
        p += *p == ',';
        if (*p != '@')
            return 0;
        n++;
    }
    return n;
}

/* "@file" feeds the file's bytes as a string scalar, "@a,@b" a string
 * vector of the files' bytes; anything else is a .npy file. */
static tfpi_tensor *load_feed(const char *value, tfpi_status *status)
{
    int n = count_files(value);
    if (n == 0)
        return npy_read(value, status);
    int64_t dims[1] = {n};
    tfpi_tensor *t = tfpi_tensor_new(TFPI_STRING, dims, n > 1 ? 1 : 0, status);
    const char *p = value;
    for (int i = 0; t && i < n; i++) {
        size_t len = strcspn(p + 1, ","), size;
        char *path = strndup(p + 1, len);
        uint8_t *bytes = path ? read_file(path, &size, status) : NULL;
        if (!bytes || tfpi_tensor_set_string(t, (size_t)i, bytes, size, status) != TFPI_OK) {
            tfpi_tensor_free(t);
            t = NULL;
        }
        free(bytes);
        free(path);
        p += 1 + len + 1;
    }
    return t;
}

static void print_tensor(const char *name, const tfpi_tensor *t)
{
    printf("%s: %s [", name, tfpi_dtype_name(tfpi_tensor_dtype(t)));
    for (int i = 0; i < tfpi_tensor_ndims(t); i++)
        printf("%s%lld", i ? "," : "", (long long)tfpi_tensor_dim(t, i));
    printf("]");
    int64_t n = tfpi_tensor_num_elements(t);
    const void *data = tfpi_tensor_const_data(t);
    for (int64_t i = 0; i < n && i < 10; i++) {
        switch (tfpi_tensor_dtype(t)) {
        case TFPI_FLOAT: printf(" %g", (double)((const float *)data)[i]); break;
        case TFPI_INT32: printf(" %d", ((const int32_t *)data)[i]); break;
        case TFPI_INT64: printf(" %lld", (long long)((const int64_t *)data)[i]); break;
        case TFPI_UINT8: case TFPI_QUINT8: case TFPI_BOOL: printf(" %u", ((const uint8_t *)data)[i]); break;
        case TFPI_INT8: case TFPI_QINT8: printf(" %d", ((const int8_t *)data)[i]); break;
        case TFPI_QINT32: printf(" %d", ((const int32_t *)data)[i]); break;
        case TFPI_INT16: case TFPI_QINT16: printf(" %d", ((const int16_t *)data)[i]); break;
        case TFPI_UINT16: case TFPI_QUINT16: printf(" %u", ((const uint16_t *)data)[i]); break;
        case TFPI_STRING: {
            const tfpi_bytes *b = &((const tfpi_bytes *)data)[i];
            printf(" \"");
            for (size_t k = 0; k < b->size && k < 60; k++)
                printf(b->data[k] >= 0x20 && b->data[k] < 0x7f && b->data[k] != '"' ? "%c" : "\\x%02x", b->data[k]);
            printf("%s\"", b->size > 60 ? "..." : "");
            break;
        }
        default: break;
        }
    }
    printf("%s\n", n > 10 ? " ..." : "");
}

static int prepare_args(run_args *a, const flag_list *inputs, const flag_list *outputs, tfpi_status *status)
{
    a->num_inputs = inputs->count;
    a->num_outputs = outputs->count;
    a->input_names = calloc((size_t)a->num_inputs + 1, sizeof(char *));
    a->output_names = calloc((size_t)a->num_outputs + 1, sizeof(char *));
    a->input_files = calloc((size_t)a->num_inputs + 1, sizeof(char *));
    a->output_files = calloc((size_t)a->num_outputs + 1, sizeof(char *));
    a->feeds = calloc((size_t)a->num_inputs + 1, sizeof(tfpi_tensor *));
    a->results = calloc((size_t)a->num_outputs + 1, sizeof(tfpi_tensor *));
    if (!a->input_names || !a->output_names || !a->input_files || !a->output_files || !a->feeds ||
        !a->results) {
        fprintf(stderr, "error: out of memory\n");
        return 1;
    }
    for (int i = 0; i < a->num_inputs; i++) {
        a->input_names[i] = split_assignment(inputs->values[i], &a->input_files[i]);
        if (!a->input_files[i] || !*a->input_files[i]) {
            fprintf(stderr, "error: --input=%s must be NAME=file.npy or NAME=@file\n", inputs->values[i]);
            return 1;
        }
        if (!(a->feeds[i] = load_feed(a->input_files[i], status))) {
            fprintf(stderr, "error: --input=%s: %s\n", inputs->values[i], status->message);
            return 1;
        }
    }
    for (int i = 0; i < a->num_outputs; i++)
        a->output_names[i] = split_assignment(outputs->values[i], &a->output_files[i]);
    return 0;
}

static void free_args(run_args *a)
{
    for (int i = 0; i < a->num_inputs && a->input_names; i++) {
        free(a->input_names[i]);
        if (a->feeds)
            tfpi_tensor_free(a->feeds[i]);
    }
    for (int i = 0; i < a->num_outputs && a->output_names; i++) {
        free(a->output_names[i]);
        if (a->results)
            tfpi_tensor_free(a->results[i]);
    }
    free(a->input_names);
    free(a->output_names);
    free(a->input_files);
    free(a->output_files);
    free(a->feeds);
    free(a->results);
}

/* How the session runs: its options, loop limit and number of runs. */
typedef struct run_options {
    tfpi_session_options session;
    const limit_flags *limits; /* --precision is checked against what the session got */
    int64_t max_loop_iterations;
    int runs;
} run_options;

/* With no --output, what a run reaches: the served signature's target
 * ("^node") when it has no outputs, or nothing if it has no inputs either
 * (target left empty). False, after the error, when outputs must be named. */
static bool signature_target(const tfpi_graph *graph, char *target, size_t size)
{
    const char *key = tfpi_graph_signature(graph);
    int s = 0;
    while (key && tfpi_graph_signature_key(graph, s) && strcmp(tfpi_graph_signature_key(graph, s), key) != 0)
        s++;
    if (!key || tfpi_graph_signature_count(graph, s, 1) > 0) {
        fprintf(stderr, "error: --output is required: %s\n",
                key ? "the signature has outputs (see summarize_graph)" : "name the tensors to fetch");
        return false;
    }
    const char *node = tfpi_graph_signature_target(graph, s);
    if (node)
        snprintf(target, size, "^%s", node);
    return true;
}

static int run(const char *graph_path, const load_flags *load, run_args *a, const run_options *options,
               tfpi_status *status)
{
    tfpi_graph *graph = load_flags_graph(load, graph_path, status);
    if (!graph) {
        fprintf(stderr, "error: %s\n", status->message);
        return 1;
    }
    for (int i = 0; i < a->num_inputs; i++)
        if (graph_inputs_check_feed(graph, a->input_names[i], a->feeds[i], "--input", "--input")) {
            tfpi_graph_free(graph);
            return 1;
        }
    char target[4200] = "";
    if (a->num_outputs == 0 && !signature_target(graph, target, sizeof target)) {
        tfpi_graph_free(graph);
        return 1;
    }
    /* no --output: the signature's target, run for what it does */
    const char *target_name = target;
    tfpi_tensor *target_result = NULL;
    const char *const *fetches = a->num_outputs ? (const char *const *)a->output_names : &target_name;
    tfpi_tensor **results = a->num_outputs ? a->results : &target_result;
    int num_fetches = a->num_outputs ? a->num_outputs : target[0] != '\0';
    tfpi_session *session = tfpi_session_new(graph, &options->session, status);
    int rc = session ? 0 : 1;
    limit_flags_check_session(options->limits, session);
    if (session)
        tfpi_session_set_max_loop_iterations(session, options->max_loop_iterations);
    for (int r = 0; r < options->runs && rc == 0 && num_fetches > 0; r++) {
        for (int i = 0; i < num_fetches; i++) {
            tfpi_tensor_free(results[i]);
            results[i] = NULL;
        }
        if (tfpi_session_run(session, (const char *const *)a->input_names, a->feeds, a->num_inputs, fetches, results,
                             num_fetches, status) != TFPI_OK)
            rc = 1;
    }
    if (rc == 0) {
        for (int i = 0; i < a->num_outputs && rc == 0; i++) {
            if (!a->output_files[i])
                print_tensor(a->output_names[i], a->results[i]);
            else if (npy_write(a->output_files[i], a->results[i], status) != TFPI_OK)
                rc = 1;
        }
    }
    if (rc)
        fprintf(stderr, "error: %s: %s\n", graph_path, status->message);
    tfpi_tensor_free(target_result);
    tfpi_session_free(session);
    tfpi_graph_free(graph);
    return rc;
}

int main(int argc, char **argv)
{
    const char *graph = NULL;
    flag_list inputs = {0}, outputs = {0};
    int num_threads = 0, runs = 1;
    int64_t max_loop_iterations = 0;
    limit_flags limits = {0};
    load_flags load = {0};
    const tool_flag flags[] = {
        LIMIT_FLAGS(limits),
        {"graph", FLAG_STRING, &graph, "frozen GraphDef (.pb), SavedModel directory or .meta to run"},
        LOAD_FLAGS(load),
        {"input", FLAG_LIST, &inputs, "NAME=file.npy, NAME=@file or NAME=@a,@b (string feeds); repeatable"},
        {"output", FLAG_LIST, &outputs, "NAME=file.npy, or NAME to print; repeatable"},
        NUM_THREADS_FLAG(num_threads),
        {"max_loop_iterations", FLAG_INT64, &max_loop_iterations,
         "a while loop that runs longer fails the run (0 = 1000000)"},
        {"runs", FLAG_INT, &runs, "run this many times in one session; the outputs are the last run's"},
    };
    const int num_flags = sizeof flags / sizeof flags[0];
    int rc = flags_parse(argc, argv, flags, num_flags, "--graph=G.pb --input=NAME=x.npy --output=NAME=y.npy");
    if (rc == 0 && !graph) {
        fprintf(stderr, "error: --graph is required (see --help)\n");
        rc = 1;
    }
    if (rc == 0 && (!flags_check_threads(num_threads) || !limit_flags_valid(&limits)))
        rc = 1;
    if (rc == 0 && (runs < 1 || max_loop_iterations < 0)) {
        fprintf(stderr, "error: invalid value for flag --%s: must be %s\n", runs < 1 ? "runs" : "max_loop_iterations",
                runs < 1 ? "at least 1" : "0 or more");
        rc = 1;
    }
    run_args args = {0};
    tfpi_status status = {0};
    if (rc == 0)
        rc = prepare_args(&args, &inputs, &outputs, &status);
    run_options options = {limit_flags_apply(&limits, num_threads), &limits, max_loop_iterations, runs};
    if (rc == 0)
        rc = run(graph, &load, &args, &options, &status);
    free_args(&args);
    flags_free(flags, num_flags);
    return rc == 2 ? 0 : rc;
}
