/* benchmark_model - times a frozen graph like TensorFlow's tool of the same
 * name: settings, then `count= first= curr= min= max= avg= std=` in
 * microseconds, optional per-node tables, FLOPs and achieved GFLOP/s, and the
 * memory of the activation arena and of the process. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "flags.h"
#include "input_spec.h"
#include "limit_flags.h"
#include "load_flags.h"
#include "node_stats.h"
#include "proc_memory.h"
#include "tfpi.h"

typedef struct settings {
    const char *graph, *input_layer, *input_layer_shape, *input_layer_type, *input_layer_values;
    const char *output_layer;
    int num_runs, warmup_runs, num_threads, run_order_limit;
    limit_flags limits;
    load_flags load;
    float run_delay, max_time;
    bool show_run_order, show_time, show_memory, show_type, show_summary, show_flops, show_sizes;
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
    printf("Num runs: [%d]\nInter-run delay (seconds): [%g]\nNum threads: [%d]\nWarmup runs: [%d]\n", s->num_runs,
           (double)s->run_delay, s->num_threads, s->warmup_runs);
    printf("Benchmark name: []\nOutput prefix: []\nShow sizes: [%d]\nMax time (seconds): [%g]\n", s->show_sizes,
           (double)s->max_time);
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
        if (r > 0 && s->run_delay > 0) {
            struct timespec d = {(time_t)s->run_delay, (long)((s->run_delay - (float)(time_t)s->run_delay) * 1e9f)};
            nanosleep(&d, NULL);
        }
        double start = now_us();
        if (tfpi_session_run(session, (const char *const *)in->names, in->tensors, in->count,
                             (const char *const *)outputs, results, num_outputs, &status) != TFPI_OK) {
            fprintf(stderr, "error: %s: %s\n", s->graph, status.message);
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

static int benchmark(const settings *s)
{
    input_spec in = {0};
    char **outputs = NULL;
    int num_outputs = split_outputs(s->output_layer, &outputs);
    tfpi_status status = {0};
    tfpi_graph *graph = NULL;
    tfpi_session *session = NULL;
    int rc = num_outputs > 0 ? input_spec_parse(&in, s->input_layer, s->input_layer_shape, s->input_layer_type,
                                                s->input_layer_values)
                             : 1;
    if (rc == 0) {
        double t0 = now_us();
        graph = load_flags_graph(&s->load, s->graph, &status);
        tfpi_session_options options = limit_flags_apply(&s->limits, s->num_threads > 0 ? s->num_threads : 0);
        session = graph ? tfpi_session_new(graph, &options, &status) : NULL;
        if (!session) {
            fprintf(stderr, "error: --graph: %s\n", status.message);
            rc = 1;
        } else {
            printf("Loaded model in %.3f ms\n", (now_us() - t0) / 1000.0);
        }
    }
    timing warmup = {0}, plain = {0}, detailed = {0};
    node_stats stats = {0};
    bool tables = s->show_run_order || s->show_time || s->show_memory || s->show_type || s->show_summary;
    if (rc == 0)
        rc = run_many(session, &in, outputs, num_outputs, s->warmup_runs, s, &warmup, NULL);
    if (rc == 0) {
        timing_print("Warmup: ", &warmup);
        printf("Running benchmark for max %d iterations, max %g seconds without detailed stat logging, with %gs "
               "sleep between inferences\n", s->num_runs, (double)s->max_time, (double)s->run_delay);
        rc = run_many(session, &in, outputs, num_outputs, s->num_runs, s, &plain, NULL);
    }
    if (rc == 0)
        timing_print("", &plain);
    if (rc == 0 && (tables || s->show_flops)) {
        printf("\nRunning benchmark for max %d iterations, max %g seconds with detailed stat logging\n",
               s->num_runs, (double)s->max_time);
        rc = run_many(session, &in, outputs, num_outputs, s->num_runs, s, &detailed, &stats);
        if (rc == 0) {
            timing_print("", &detailed);
            printf("\n");
            table_options to = {s->show_run_order, s->show_time, s->show_memory, s->show_type, s->show_summary,
                                s->run_order_limit};
            node_stats_print(&stats, &to);
            timing_print("Timings (microseconds): ", &detailed);
            printf("%d nodes observed\n", stats.count);
        }
    }
    if (rc == 0) {
        printf("Memory (bytes): arena=%zu peak_rss=%lld\n", tfpi_session_arena_bytes(session), proc_status_bytes("VmHWM"));
        if (s->show_flops && plain.count) {
            double flops = (double)node_stats_flops(&stats), avg_s = plain.sum / plain.count / 1e6;
            printf("FLOPs estimate: %.2fM\nFLOPs/second: %.2fB\nAchieved: %.2f GFLOP/s\n", flops / 1e6,
                   flops / avg_s / 1e9, flops / avg_s / 1e9);
        }
    }
    node_stats_free(&stats);
    tfpi_session_free(session);
    tfpi_graph_free(graph);
    input_spec_free(&in);
    for (int i = 0; outputs && outputs[i]; i++)
        free(outputs[i]);
    free(outputs);
    return rc;
}

int main(int argc, char **argv)
{
    settings s = {.input_layer = "input", .input_layer_shape = "1,224,224,3", .input_layer_type = "float",
                  .input_layer_values = "", .output_layer = "output", .num_runs = 50, .warmup_runs = 2,
                  .num_threads = -1, .run_delay = -1.0f, .max_time = 10.0f, .show_time = true,
                  .show_memory = true, .show_summary = true, .show_flops = false};
    const tool_flag flags[] = {
        {"graph", FLAG_STRING, &s.graph, "frozen GraphDef to benchmark"},
        {"input_layer", FLAG_STRING, &s.input_layer, "input node names, comma-separated"},
        {"input_layer_shape", FLAG_STRING, &s.input_layer_shape, "shapes, e.g. 1,224,224,3 (':' between inputs)"},
        {"input_layer_type", FLAG_STRING, &s.input_layer_type, "float, int32, int64, uint8, quint8, bool, string"},
        {"input_layer_values", FLAG_STRING, &s.input_layer_values, "values to fill ('@file' for strings)"},
        {"output_layer", FLAG_STRING, &s.output_layer, "output node names, comma-separated"},
        {"num_runs", FLAG_INT, &s.num_runs, "number of timed runs"},
        {"warmup_runs", FLAG_INT, &s.warmup_runs, "untimed runs first"},
        {"run_delay", FLAG_FLOAT, &s.run_delay, "seconds between runs (-1 = none)"},
        {"num_threads", FLAG_INT, &s.num_threads, "threads (-1 = one per core)"},
        LIMIT_FLAGS(s.limits),
        LOAD_FLAGS(s.load),
        {"max_time", FLAG_FLOAT, &s.max_time, "stop a timing loop after this many seconds"},
        {"time_limit", FLAG_FLOAT, &s.max_time, "same as --max_time"},
        {"show_run_order", FLAG_BOOL, &s.show_run_order, "print the Run Order table"},
        {"run_order_limit", FLAG_INT, &s.run_order_limit, "rows of the Run Order table (0 = all)"},
        {"show_time", FLAG_BOOL, &s.show_time, "print Top by Computation Time"},
        {"show_memory", FLAG_BOOL, &s.show_memory, "print Top by Memory Use"},
        {"show_type", FLAG_BOOL, &s.show_type, "print Summary by node type"},
        {"show_summary", FLAG_BOOL, &s.show_summary, "print Summary by node type"},
        {"show_flops", FLAG_BOOL, &s.show_flops, "print the FLOPs estimate and GFLOP/s"},
        {"show_sizes", FLAG_BOOL, &s.show_sizes, "accepted for compatibility"},
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
    if (rc == 0) {
        print_settings(&s);
        rc = benchmark(&s);
    }
    flags_free(flags, num_flags);
    return rc == 2 ? 0 : rc;
}
