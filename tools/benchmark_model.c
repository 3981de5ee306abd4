/* benchmark_model - times a frozen graph like TensorFlow's tool of the same
 * name, with its flags and their meanings: settings, then `count= first=
 * curr= min= max= avg= std=` in microseconds, optional per-node tables
 * (--time_limit and --memory_limit are their row counts), output sizes,
 * FLOPs and achieved GFLOP/s (8-bit ops counted apart, as integer
 * operations), the memory of the activation arena and of the process, each
 * thread's share of the work (with more than one thread, or
 * --show_thread_work), and with --benchmark_name and --output_prefix TensorFlow's benchmark records.
 * A graph fed a string (an encoded picture or WAV) is planned again for
 * every run, as a run on a new input is: planning computes what depends
 * only on the string. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "benchmark_record.h"
#include "flags.h"
#include "graph_inputs.h"
#include "graphdef_io.h"
#include "input_spec.h"
#include "limit_flags.h"
#include "load_flags.h"
#include "model_io.h"
#include "node_stats.h"
#include "proc_memory.h"
#include "tfpi.h"

/* TensorFlow's benchmark_model's defaults */
#define DEFAULT_INPUT "input"
#define DEFAULT_SHAPE "1,224,224,3"
#define DEFAULT_TYPE "float"
#define DEFAULT_OUTPUT "output"

typedef struct settings {
    const char *graph, *input_layer, *input_layer_shape, *input_layer_type, *input_layer_values;
    const char *output_layer, *benchmark_name, *output_prefix;
    int num_runs, warmup_runs, num_threads, run_order_limit, time_limit, memory_limit;
    limit_flags limits;
    load_flags load;
    float run_delay, inter_benchmark_delay, max_time;
    bool show_run_order, show_time, show_memory, show_type, show_summary, show_flops, show_sizes;
    bool show_thread_work; /* also on whenever the session has more than one thread */
    bool string_input; /* set once the inputs are built */
} settings;

typedef struct timing {
    int count;
    double first, curr, min, max, sum, sum_sq;
} timing;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void timing_add(timing *t, double us)
{
    if (t->count == 0)
        t->first = t->min = t->max = us;
    t->curr = us;
    t->min = us < t->min ? us : t->min;
    t->max = us > t->max ? us : t->max;
    t->sum += us;
    t->sum_sq += us * us;
    t->count++;
}

static void timing_print(const char *prefix, const timing *t)
{
    double avg = t->count ? t->sum / t->count : 0;
    double var = t->count ? t->sum_sq / t->count - avg * avg : 0;
    printf("%scount=%d first=%.0f curr=%.0f min=%.0f max=%.0f avg=%.0f std=%.0f\n", prefix, t->count, t->first,
           t->curr, t->min, t->max, avg, var > 0 ? sqrt(var) : 0);
}

static void print_settings(const settings *s)
{
    printf("Graph: [%s]\nInput layers: [%s]\nInput shapes: [%s]\nInput types: [%s]\nOutput layers: [%s]\n",
           s->graph, s->input_layer, s->input_layer_shape, s->input_layer_type, s->output_layer);
    printf("Num runs: [%d]\nInter-run delay (seconds): [%g]\nInter-benchmark delay (seconds): [%g]\n"
           "Num threads: [%d]\n", s->num_runs, (double)s->run_delay, (double)s->inter_benchmark_delay,
           s->num_threads);
    printf("Benchmark name: [%s]\nOutput prefix: [%s]\nShow sizes: [%d]\nWarmup runs: [%d]\n"
           "Max time (seconds): [%g]\n", s->benchmark_name, s->output_prefix, s->show_sizes, s->warmup_runs,
           (double)s->max_time);
}

static void sleep_seconds(float seconds)
{
    if (seconds <= 0)
        return;
    struct timespec d = {(time_t)seconds, (long)((seconds - (float)(time_t)seconds) * 1e9f)};
    nanosleep(&d, NULL);
}

/* Splits the comma-separated output layers into a NULL-padded array. */
static int split_outputs(const char *list, char ***out)
{
    int n = 1;
    for (const char *p = list; *p; p++)
        n += *p == ',';
    *out = calloc((size_t)n + 1, sizeof **out);
    char *copy = strdup(list);
    if (!*out || !copy) {
        free(copy);
        return -1;
    }
    int i = 0;
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
        (*out)[i++] = strdup(tok);
    free(copy);
    return i;
}

/* Runs the session `runs` times (bounded by max_time), recording timings
 * and, when stats is non-NULL, per-node profiles. */
static int run_many(tfpi_session *session, const input_spec *in, char **outputs, int num_outputs, int runs,
                    const settings *s, timing *t, node_stats *stats)
{
    tfpi_tensor **results = calloc((size_t)num_outputs + 1, sizeof *results);
    tfpi_status status = {0};
    double start_all = now_us();
    int rc = results ? 0 : 1;
    tfpi_session_set_profiling(session, stats != NULL);
    for (int r = 0; rc == 0 && r < runs; r++) {
        if (r > 0)
            sleep_seconds(s->run_delay);
        if (s->string_input) /* a new string is planned with */
            tfpi_session_reset(session);
        double start = now_us();
        if (tfpi_session_run(session, (const char *const *)in->names, in->tensors, in->count,
                             (const char *const *)outputs, results, num_outputs, &status) != TFPI_OK) {
            fprintf(stderr, "error: --graph: %s: %s\n", s->graph, status.message);
            rc = 1;
            break;
        }
        timing_add(t, now_us() - start);
        for (int i = 0; i < num_outputs; i++)
            tfpi_tensor_free(results[i]);
        if (stats) {
            const tfpi_node_profile *profile;
            int n = tfpi_session_profile(session, &profile);
            rc = node_stats_add_run(stats, profile, n) ? 1 : 0;
        }
        if (s->max_time > 0 && now_us() - start_all > s->max_time * 1e6)
            break;
    }
    free(results);
    return rc;
}

/* "============ Node output tensor sizes in run order ========" as
 * TensorFlow's --show_sizes: name, output count, then dtype, rank and
 * sizes of each output, tab-separated. */
static void print_sizes(const tfpi_session *session)
{
    const tfpi_node_profile *profile;
    int n = tfpi_session_profile(session, &profile);
    printf("============ Node output tensor sizes in run order ========\n");
    for (int i = 0; i < n; i++) {
        int outputs = tfpi_session_profile_num_outputs(session, i);
        printf("%s\t%d", profile[i].name, outputs);
        for (int k = 0; k < outputs; k++) {
            int64_t dims[TFPI_MAX_DIMS];
            tfpi_dtype dtype;
            int rank = tfpi_session_profile_output(session, i, k, &dtype, dims, TFPI_MAX_DIMS);
            printf("\t%s\t%d", tfpi_dtype_name(dtype), rank);
            for (int d = 0; d < rank; d++)
                printf("\t%lld", (long long)dims[d]);
        }
        printf("\n");
    }
    printf("\n");
}

/* FLOPs of the float ops; the 8-bit ops' multiply-adds apart, as integer
 * operations (they are not comparable with the CPU's float peak). */
static void print_flops(const node_stats *stats, const timing *plain)
{
    double flops = (double)node_stats_flops(stats, false), ops = (double)node_stats_flops(stats, true);
    double avg_s = plain->sum / plain->count / 1e6;
    printf("FLOPs estimate: %.2fM\nFLOPs/second: %.2fB\nAchieved: %.2f GFLOP/s\n", flops / 1e6, flops / avg_s / 1e9,
           flops / avg_s / 1e9);
    if (ops > 0)
        printf("Integer ops estimate (8-bit multiply-adds x 2): %.2fM\nInteger ops/second: %.2fB\n", ops / 1e6,
               ops / avg_s / 1e9);
}

/* TensorFlow's records: NAME (the plain runs: seconds per run, MB/s of
 * the first input) and NAME_<op type> (seconds per run of that type). */
static int write_records(const settings *s, const input_spec *in, const timing *plain, const node_stats *stats)
{
    tfpi_status status = {0};
    double wall = plain->sum / 1e6, bytes = (double)tfpi_tensor_byte_size(in->tensors[0]);
    benchmark_entry entry = {s->benchmark_name, plain->count, -1.0 / plain->count, wall / plain->count,
                             bytes * plain->count / wall / (1024 * 1024)};
    int rc = benchmark_record_write(s->output_prefix, &entry, &status) != TFPI_OK;
    int types = 0;
    node_type_total *by_type = rc ? NULL : node_stats_by_type(stats, &types);
    for (int t = 0; by_type && rc == 0 && t < types; t++) {
        char name[512];
        snprintf(name, sizeof name, "%s_%s", s->benchmark_name, by_type[t].op);
        benchmark_entry per_type = {name, plain->count, -1.0 / plain->count, by_type[t].ms / 1000.0, -1.0};
        rc = benchmark_record_write(s->output_prefix, &per_type, &status) != TFPI_OK;
    }
    free(by_type);
    if (rc)
        fprintf(stderr, "error: %s\n", status.message);
    else
        printf("Benchmark records: %s%s and %d per op type\n", s->output_prefix, s->benchmark_name, types);
    return rc;
}

/* The feeds checked against the graph: a wrong name lists its inputs, a
 * wrong size blames --input_layer_shape. */
static int check_inputs(const tfpi_graph *graph, const input_spec *in)
{
    for (int i = 0; i < in->count; i++)
        if (graph_inputs_check_feed(graph, in->names[i], in->tensors[i], "--input_layer", "--input_layer_shape"))
            return 1;
    return 0;
}

/* Flags left at TensorFlow's defaults ("input", "output") become the
 * model's own inputs and outputs, as TensorFlow Lite's benchmark_model
 * takes them: always for a .tflite, and for a SavedModel's signature when
 * the default names nothing in its graph; a shape or type flag given still
 * wins. */
static void take_model_io(settings *s, const tfpi_graph *graph, model_io *io)
{
    if (!model_io_read(graph, io))
        return;
    const bool tflite = tfpi_tflite_num_inputs(graph) > 0; /* its inputs' types and shapes are known */
    if (!strcmp(s->input_layer, DEFAULT_INPUT) && (tflite || !graph_inputs_has_node(graph, DEFAULT_INPUT))) {
        s->input_layer = io->inputs;
        if (!strcmp(s->input_layer_shape, DEFAULT_SHAPE))
            s->input_layer_shape = io->shapes;
        if (!strcmp(s->input_layer_type, DEFAULT_TYPE))
            s->input_layer_type = io->types;
    }
    if (!strcmp(s->output_layer, DEFAULT_OUTPUT) && (tflite || !graph_inputs_has_node(graph, DEFAULT_OUTPUT)))
        s->output_layer = io->outputs;
}

/* Each thread's share of the plain runs' work (tfpi_session_thread_work,
 * reset before them): multiply-adds and tasks per run, and the share of
 * the time it waited on the busiest thread of each parallel step. */
static void print_thread_work(tfpi_session *session, int runs)
{
    tfpi_thread_work work[256];
    const int threads = tfpi_session_thread_work(session, work, 256, 0);
    long long all = 0;
    printf("Work per run by thread (multiply-adds of convolutions and matrix products, as the layers define them; "
           "idle: waiting on the busiest thread of each parallel step), as run | on equal free cores:\n");
    for (int t = 0; t < threads && t < 256; t++) {
        const double busy = (double)work[t].multiply_adds + (double)work[t].idle;
        const double equal_busy = (double)work[t].equal_multiply_adds + (double)work[t].equal_idle;
        printf("  thread %d: %.6f M multiply-adds in %.1f tasks, idle %.1f%% | %.6f M in %.1f tasks, idle %.1f%%\n",
               t, (double)work[t].multiply_adds / runs / 1e6, (double)work[t].tasks / runs,
               busy > 0 ? 100.0 * (double)work[t].idle / busy : 0.0,
               (double)work[t].equal_multiply_adds / runs / 1e6, (double)work[t].equal_tasks / runs,
               equal_busy > 0 ? 100.0 * (double)work[t].equal_idle / equal_busy : 0.0);
        all += work[t].multiply_adds;
    }
    printf("  all threads: %.6f M multiply-adds\n", (double)all / runs / 1e6);
}

static int benchmark(settings *s)
{
    input_spec in = {0};
    char **outputs = NULL;
    int num_outputs = 0;
    tfpi_status status = {0};
    tfpi_session *session = NULL;
    model_io io = {0};
    double t0 = now_us();
    tfpi_graph *graph = load_flags_graph(&s->load, s->graph, &status);
    tfpi_session_options options = limit_flags_apply(&s->limits, s->num_threads > 0 ? s->num_threads : 0);
    session = graph ? tfpi_session_new(graph, &options, &status) : NULL;
    limit_flags_check_session(&s->limits, session);
    int rc = 0;
    if (!session) {
        fprintf(stderr, "error: --graph: %s\n", status.message);
        rc = 1;
    } else {
        take_model_io(s, graph, &io);
        print_settings(s);
        printf("Loaded model in %.3f ms\n", (now_us() - t0) / 1000.0);
        num_outputs = split_outputs(s->output_layer, &outputs);
        rc = num_outputs > 0 ? input_spec_parse(&in, s->input_layer, s->input_layer_shape, s->input_layer_type,
                                                s->input_layer_values)
                             : 1;
    }
    for (int i = 0; rc == 0 && i < in.count; i++)
        s->string_input = s->string_input || tfpi_tensor_dtype(in.tensors[i]) == TFPI_STRING;
    if (rc == 0)
        rc = check_inputs(graph, &in);
    timing warmup = {0}, plain = {0}, detailed = {0};
    node_stats stats = {0};
    bool tables = s->show_run_order || s->show_time || s->show_memory || s->show_type || s->show_summary;
    bool records = *s->benchmark_name && *s->output_prefix;
    if (rc == 0)
        rc = run_many(session, &in, outputs, num_outputs, s->warmup_runs, s, &warmup, NULL);
    if (rc == 0) {
        timing_print("Warmup: ", &warmup);
        sleep_seconds(s->inter_benchmark_delay);
        printf("Running benchmark for max %d iterations, max %g seconds without detailed stat logging, with %gs "
               "sleep between inferences%s\n", s->num_runs, (double)s->max_time, (double)s->run_delay,
               s->string_input ? "; a string input: each run plans again, as for a new input" : "");
        tfpi_session_thread_work(session, NULL, 0, 1);
        rc = run_many(session, &in, outputs, num_outputs, s->num_runs, s, &plain, NULL);
    }
    if (rc == 0)
        timing_print("", &plain);
    if (rc == 0 && plain.count && (s->show_thread_work || tfpi_session_thread_work(session, NULL, 0, 0) > 1))
        print_thread_work(session, plain.count);
    if (rc == 0 && (tables || s->show_flops || s->show_sizes || records)) {
        sleep_seconds(s->inter_benchmark_delay);
        printf("\nRunning benchmark for max %d iterations, max %g seconds with detailed stat logging\n",
               s->num_runs, (double)s->max_time);
        rc = run_many(session, &in, outputs, num_outputs, s->num_runs, s, &detailed, &stats);
        if (rc == 0) {
            timing_print("", &detailed);
            printf("\n");
            table_options to = {s->show_run_order, s->show_time, s->show_memory, s->show_type, s->show_summary,
                                s->run_order_limit, s->time_limit, s->memory_limit};
            node_stats_print(&stats, &to);
            if (s->show_sizes)
                print_sizes(session);
            timing_print("Timings (microseconds): ", &detailed);
            printf("%d nodes observed%s\n", stats.count,
                   s->string_input ? " (what depends only on the string input runs while planning, untimed per "
                                     "node)" : "");
        }
    }
    if (rc == 0) {
        printf("Memory (bytes): arena=%zu peak_rss=%lld\n", tfpi_session_arena_bytes(session), proc_status_bytes("VmHWM"));
        printf("Threads in the process: %lld\n", proc_status_value("Threads")); /* --num_threads=1: no pool */
        if (s->show_flops && plain.count)
            print_flops(&stats, &plain);
        if (records && plain.count)
            rc = write_records(s, &in, &plain, &stats);
    }
    node_stats_free(&stats);
    tfpi_session_free(session);
    tfpi_graph_free(graph);
    input_spec_free(&in);
    model_io_free(&io);
    for (int i = 0; outputs && outputs[i]; i++)
        free(outputs[i]);
    free(outputs);
    return rc;
}

int main(int argc, char **argv)
{
    settings s = {.input_layer = DEFAULT_INPUT, .input_layer_shape = DEFAULT_SHAPE, .input_layer_type = DEFAULT_TYPE,
                  .input_layer_values = "", .output_layer = DEFAULT_OUTPUT, .benchmark_name = "", .output_prefix = "",
                  .num_runs = 50, .warmup_runs = 2, .num_threads = -1, .time_limit = 10, .memory_limit = 10,
                  .run_delay = -1.0f, .inter_benchmark_delay = -1.0f, .max_time = 10.0f, .show_time = true,
                  .show_memory = true, .show_summary = true, .show_flops = false};
    const tool_flag flags[] = {
        {"graph", FLAG_STRING, &s.graph, "frozen GraphDef to benchmark"},
        {"input_layer", FLAG_STRING, &s.input_layer, "input node names, comma-separated"},
        {"input_layer_shape", FLAG_STRING, &s.input_layer_shape, "shapes, e.g. 1,224,224,3 (':' between inputs)"},
        {"input_layer_type", FLAG_STRING, &s.input_layer_type, "float, int32, int64, uint8, quint8, bool, string"},
        {"input_layer_values", FLAG_STRING, &s.input_layer_values, "values to fill ('@file' for strings)"},
        {"output_layer", FLAG_STRING, &s.output_layer, "output node names, comma-separated"},
        {"num_runs", FLAG_INT, &s.num_runs, "number of timed runs"},
        {"max_num_runs", FLAG_INT, &s.num_runs, "same as --num_runs (TensorFlow's newer name)"},
        {"warmup_runs", FLAG_INT, &s.warmup_runs, "untimed runs first"},
        {"run_delay", FLAG_FLOAT, &s.run_delay, "seconds between runs (-1 = none)"},
        {"inference_delay", FLAG_FLOAT, &s.run_delay, "same as --run_delay (TensorFlow's newer name)"},
        {"inter_benchmark_delay", FLAG_FLOAT, &s.inter_benchmark_delay,
         "seconds between the warm-up, plain and detailed benchmarks (-1 = none)"},
        NUM_THREADS_FLAG(s.num_threads),
        LIMIT_FLAGS(s.limits),
        LOAD_FLAGS(s.load),
        {"max_time", FLAG_FLOAT, &s.max_time, "stop a timing loop after this many seconds"},
        {"benchmark_name", FLAG_STRING, &s.benchmark_name,
         "with --output_prefix: write TensorFlow's benchmark records under this name"},
        {"output_prefix", FLAG_STRING, &s.output_prefix, "where the benchmark records go (a folder ends in /)"},
        {"show_run_order", FLAG_BOOL, &s.show_run_order, "print the Run Order table"},
        {"run_order_limit", FLAG_INT, &s.run_order_limit, "rows of the Run Order table (0 = all)"},
        {"show_time", FLAG_BOOL, &s.show_time, "print Top by Computation Time"},
        {"time_limit", FLAG_INT, &s.time_limit, "rows of Top by Computation Time (0 = all)"},
        {"show_memory", FLAG_BOOL, &s.show_memory, "print Top by Memory Use"},
        {"memory_limit", FLAG_INT, &s.memory_limit, "rows of Top by Memory Use (0 = all)"},
        {"show_type", FLAG_BOOL, &s.show_type, "print Summary by node type"},
        {"show_summary", FLAG_BOOL, &s.show_summary, "print Summary by node type"},
        {"show_flops", FLAG_BOOL, &s.show_flops, "print the FLOPs estimate and GFLOP/s (8-bit ops apart)"},
        {"show_sizes", FLAG_BOOL, &s.show_sizes, "print each node's output dtypes and shapes, in run order"},
        {"show_thread_work", FLAG_BOOL, &s.show_thread_work,
         "print each thread's multiply-adds, tasks and idle share per run (always with more than one thread)"},
    };
    const int num_flags = sizeof flags / sizeof flags[0];
    int rc = flags_parse(argc, argv, flags, num_flags, "--graph=G.pb [--input_layer=... --output_layer=...]");
    if (rc == 0 && !s.graph) {
        fprintf(stderr, "error: --graph is required (see --help)\n");
        rc = 1;
    }
    if (rc == 0 && (s.num_runs < 0 || s.warmup_runs < 0)) {
        fprintf(stderr, "error: --num_runs and --warmup_runs must not be negative\n");
        rc = 1;
    }
    if (rc == 0 && (!flags_check_threads(s.num_threads) || !limit_flags_valid(&s.limits)))
        rc = 1;
    if (rc == 0 && (*s.benchmark_name != 0) != (*s.output_prefix != 0)) {
        fprintf(stderr, "error: --benchmark_name and --output_prefix go together: the records are written "
                        "as PREFIX+NAME\n");
        rc = 1;
    }
    if (rc == 0)
        rc = benchmark(&s);
    flags_free(flags, num_flags);
    return rc == 2 ? 0 : rc;
}
