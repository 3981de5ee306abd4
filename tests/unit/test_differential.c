/* test_differential.c - the differential test tier: every op case of
 * tests/diff/op_cases.txt, run by tfpi and compared with the outputs an
 * independent reference computed for the same one-op graph and inputs:
 * OpenCV DNN where it reads the op, else numpy (tests/diff/make_cases.py
 * writes the graphs, inputs and expected outputs; it runs on the host, also
 * when this program runs under qemu). Each op is one test; a failed case
 * names its line, the output and the difference. Chains of ops (the
 * patterns tfpi fuses, "Conv2D+BiasAdd+Relu") are tested like ops. Ends
 * with the op and case counts per reference and the usual "N passed, N
 * failed".
 *
 *   test_differential [--cases=FILE] [--only=OP] [--keep=DIR]
 * Each case runs with 1 and with 3 threads (TFPI_TEST_THREADS=N: N only).
 * TFPI_PYTHON overrides /usr/bin/python3.
 * Run from the repository root (make test does). */
#include <dirent.h>
#include <ftw.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "tfpi.h"

#define MAX_TENSORS 8
#define MAX_CASES 1024
#define DIR_SIZE 1024  /* a case directory */
#define PATH_SIZE 1400 /* a file in it */

typedef struct tensor_file {
    char name[64], file[64];
    tfpi_dtype dtype;
    int ndims;
    int64_t dims[TFPI_MAX_DIMS];
} tensor_file;

typedef struct op_case {
    char dir[DIR_SIZE];
    char op[64], text[512], reference[16], error[512];
    double max_abs, mean_abs;
    int num_feeds, num_fetches;
    tensor_file feeds[MAX_TENSORS], fetches[MAX_TENSORS];
} op_case;

/* What one op's cases gave, for its report line. */
typedef struct op_tally {
    int cases, passed, vs_opencv, vs_numpy;
    double worst_max;
} op_tally;

/* Every case runs single-threaded and with 3 threads (an odd split), or
 * with TFPI_TEST_THREADS threads if that is set. */
static int thread_counts[2] = {1, 3}, num_thread_counts = 2;
static op_case cases[MAX_CASES];
static int num_cases;
static const char *current_op; /* the op check_run is testing */
static int opencv_passed, numpy_passed, ops_listed, ops_covered, chains_listed, chains_covered;

static const struct {
    const char *name;
    tfpi_dtype dtype;
} type_names[] = {
    {"float", TFPI_FLOAT}, {"double", TFPI_DOUBLE}, {"int32", TFPI_INT32},  {"uint8", TFPI_UINT8},
    {"int16", TFPI_INT16}, {"int8", TFPI_INT8},     {"int64", TFPI_INT64},  {"bool", TFPI_BOOL},
    {"qint8", TFPI_QINT8}, {"quint8", TFPI_QUINT8}, {"qint32", TFPI_QINT32}, {"string", TFPI_STRING},
};

static bool parse_type(const char *name, tfpi_dtype *dtype)
{
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
        if (strcmp(type_names[i].name, name) == 0) {
            *dtype = type_names[i].dtype;
            return true;
        }
    return false;
}

/* "NAME TYPE RANK DIMS... FILE" (the rest of a feed or fetch line). */
static bool parse_tensor_line(const char *line, tensor_file *t)
{
    char type[32];
    int used = 0;
    if (sscanf(line, "%63s %31s %d%n", t->name, type, &t->ndims, &used) != 3 || !parse_type(type, &t->dtype) ||
        t->ndims < 0 || t->ndims > TFPI_MAX_DIMS)
        return false;
    line += used;
    for (int i = 0; i < t->ndims; i++) {
        long long d;
        if (sscanf(line, "%lld%n", &d, &used) != 1)
            return false;
        t->dims[i] = d;
        line += used;
    }
    return sscanf(line, "%63s", t->file) == 1;
}

/* Reads DIR/case.txt (the manifest make_cases.py writes). */
static bool read_case(const char *dir, op_case *c)
{
    char path[PATH_SIZE], line[1024];
    snprintf(path, sizeof path, "%s/case.txt", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    memset(c, 0, sizeof *c);
    snprintf(c->dir, sizeof c->dir, "%s", dir);
    bool ok = true;
    while (ok && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *value = strchr(line, ' ');
        if (!value)
            continue;
        *value++ = '\0';
        if (strcmp(line, "op") == 0)
            snprintf(c->op, sizeof c->op, "%s", value);
        else if (strcmp(line, "text") == 0)
            snprintf(c->text, sizeof c->text, "%s", value);
        else if (strcmp(line, "reference") == 0)
            snprintf(c->reference, sizeof c->reference, "%s", value);
        else if (strcmp(line, "error") == 0)
            snprintf(c->error, sizeof c->error, "%s", value);
        else if (strcmp(line, "max") == 0)
            c->max_abs = atof(value);
        else if (strcmp(line, "mean") == 0)
            c->mean_abs = atof(value);
        else if (strcmp(line, "feed") == 0)
            ok = c->num_feeds < MAX_TENSORS && parse_tensor_line(value, &c->feeds[c->num_feeds++]);
        else if (strcmp(line, "fetch") == 0)
            ok = c->num_fetches < MAX_TENSORS && parse_tensor_line(value, &c->fetches[c->num_fetches++]);
    }
    fclose(f);
    return ok && c->op[0];
}

/* The bytes of a case's file (malloc'd), NULL if it cannot be read. */
static uint8_t *read_case_file(const op_case *c, const char *file, size_t *size)
{
    char path[PATH_SIZE];
    snprintf(path, sizeof path, "%s/%s", c->dir, file);
    FILE *f = fopen(path, "rb");
    long length = f && fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    uint8_t *data = length >= 0 && fseek(f, 0, SEEK_SET) == 0 ? malloc((size_t)length + 1) : NULL;
    if (data && fread(data, 1, (size_t)length, f) != (size_t)length) {
        free(data);
        data = NULL;
    }
    if (f)
        fclose(f);
    *size = data ? (size_t)length : 0;
    return data;
}

/* A tensor of t's type and shape holding the case file's bytes (a string
 * tensor: one element, the whole file). */
static tfpi_tensor *load_tensor(const op_case *c, const tensor_file *t, tfpi_status *status)
{
    size_t size;
    uint8_t *data = read_case_file(c, t->file, &size);
    tfpi_tensor *tensor = data ? tfpi_tensor_new(t->dtype, t->dims, t->ndims, status) : NULL;
    bool ok = false;
    if (tensor && t->dtype == TFPI_STRING)
        ok = tfpi_tensor_num_elements(tensor) == 1 && tfpi_tensor_set_string(tensor, 0, data, size, status) == TFPI_OK;
    else if (tensor && size == tfpi_tensor_byte_size(tensor))
        ok = (memcpy(tfpi_tensor_data(tensor), data, size), true);
    if (!ok && status->code == TFPI_OK)
        snprintf(status->message, sizeof status->message, "%.300s/%.60s: cannot read it or wrong size", c->dir, t->file);
    free(data);
    if (!ok) {
        tfpi_tensor_free(tensor);
        return NULL;
    }
    return tensor;
}

static double element_as_double(const tfpi_tensor *t, int64_t i)
{
    const void *d = tfpi_tensor_const_data(t);
    switch (tfpi_tensor_dtype(t)) {
    case TFPI_FLOAT: return ((const float *)d)[i];
    case TFPI_DOUBLE: return ((const double *)d)[i];
    case TFPI_INT32: case TFPI_QINT32: return ((const int32_t *)d)[i];
    case TFPI_INT64: return (double)((const int64_t *)d)[i];
    case TFPI_INT16: return ((const int16_t *)d)[i];
    case TFPI_INT8: case TFPI_QINT8: return ((const int8_t *)d)[i];
    case TFPI_UINT8: case TFPI_QUINT8: case TFPI_BOOL: return ((const uint8_t *)d)[i];
    default: return NAN;
    }
}

static void shape_text(const tfpi_tensor *t, char *out, size_t size)
{
    int n = snprintf(out, size, "[");
    for (int i = 0; i < tfpi_tensor_ndims(t) && n < (int)size; i++)
        n += snprintf(out + n, size - (size_t)n, "%s%lld", i ? "," : "", (long long)tfpi_tensor_dim(t, i));
    if (n < (int)size)
        snprintf(out + n, size - (size_t)n, "]");
}

/* Compares one output with its expected tensor; false with `why` set if it
 * differs. Floats within the case's tolerances, everything else exactly. */
static bool compare_output(const op_case *c, const tfpi_tensor *got, const tfpi_tensor *want, double *max_abs,
                           char *why, size_t why_size)
{
    char got_shape[128], want_shape[128];
    shape_text(got, got_shape, sizeof got_shape);
    shape_text(want, want_shape, sizeof want_shape);
    if (tfpi_tensor_dtype(got) != tfpi_tensor_dtype(want) || strcmp(got_shape, want_shape) != 0) {
        snprintf(why, why_size, "got %s %s, expected %s %s", tfpi_dtype_name(tfpi_tensor_dtype(got)), got_shape,
                 tfpi_dtype_name(tfpi_tensor_dtype(want)), want_shape);
        return false;
    }
    bool is_float = tfpi_tensor_dtype(want) == TFPI_FLOAT || tfpi_tensor_dtype(want) == TFPI_DOUBLE;
    int64_t n = tfpi_tensor_num_elements(want), worst = 0;
    double sum = 0, worst_d = 0;
    for (int64_t i = 0; i < n; i++) {
        double a = element_as_double(got, i), b = element_as_double(want, i);
        double d = (isnan(a) && isnan(b)) || a == b ? 0 : fabs(a - b);
        if (isnan(d))
            d = INFINITY;
        sum += d;
        if (d > worst_d) {
            worst_d = d;
            worst = i;
        }
    }
    double mean = n ? sum / (double)n : 0;
    *max_abs = worst_d;
    bool ok = is_float ? worst_d <= c->max_abs && mean <= c->mean_abs : worst_d == 0;
    if (!ok)
        snprintf(why, why_size, "max |d| %.3g at element %lld (got %.9g, expected %.9g), mean |d| %.3g; tolerance %g / %g",
                 worst_d, (long long)worst, element_as_double(got, worst), element_as_double(want, worst), mean,
                 is_float ? c->max_abs : 0.0, is_float ? c->mean_abs : 0.0);
    return ok;
}

/* Runs one case in tfpi with `threads` threads; true if every output matches. */
static bool run_case(const op_case *c, int threads, double *max_abs)
{
    tfpi_status status = {0};
    tfpi_tensor *feeds[MAX_TENSORS] = {0}, *outputs[MAX_TENSORS] = {0}, *want = NULL;
    const char *feed_names[MAX_TENSORS], *fetch_names[MAX_TENSORS];
    char path[PATH_SIZE], why[512] = "";
    bool ok = false;
    snprintf(path, sizeof path, "%s/graph.pb", c->dir);
    tfpi_graph *graph = tfpi_graph_load_file(path, &status);
    tfpi_session_options options = {.num_threads = threads};
    tfpi_session *session = graph ? tfpi_session_new(graph, &options, &status) : NULL;
    int fed = 0;
    for (; session && fed < c->num_feeds; fed++) {
        feed_names[fed] = c->feeds[fed].name;
        if (!(feeds[fed] = load_tensor(c, &c->feeds[fed], &status)))
            break;
    }
    for (int i = 0; i < c->num_fetches; i++)
        fetch_names[i] = c->fetches[i].name;
    if (session && fed == c->num_feeds &&
        tfpi_session_run(session, feed_names, feeds, fed, fetch_names, outputs, c->num_fetches, &status) == TFPI_OK) {
        ok = true;
        for (int i = 0; ok && i < c->num_fetches; i++) {
            double d = 0;
            want = load_tensor(c, &c->fetches[i], &status);
            ok = want && compare_output(c, outputs[i], want, &d, why, sizeof why);
            if (d > *max_abs)
                *max_abs = d;
            if (!ok && want)
                CHECK_MSG(0, "%s (%d threads): output %s: %s", c->text, threads, c->fetches[i].name, why);
            tfpi_tensor_free(want);
        }
    }
    if (!ok && !why[0])
        CHECK_MSG(0, "%s (%d threads): %s", c->text, threads, status.message);
    for (int i = 0; i < MAX_TENSORS; i++) {
        tfpi_tensor_free(feeds[i]);
        tfpi_tensor_free(outputs[i]);
    }
    tfpi_session_free(session);
    tfpi_graph_free(graph);
    return ok;
}

/* The test of one op: all its cases. */
static void test_current_op(void)
{
    op_tally t = {0};
    for (int i = 0; i < num_cases; i++) {
        const op_case *c = &cases[i];
        if (strcmp(c->op, current_op) != 0)
            continue;
        t.cases++;
        bool by_opencv = strcmp(c->reference, "opencv") == 0;
        if (c->error[0]) {
            CHECK_MSG(0, "%s: %s", c->text, c->error);
            continue;
        }
        bool ok = true;
        for (int k = 0; k < num_thread_counts && ok; k++)
            ok = run_case(c, thread_counts[k], &t.worst_max);
        if (!ok)
            continue;
        t.passed++;
        t.vs_opencv += by_opencv;
        t.vs_numpy += !by_opencv;
    }
    opencv_passed += t.vs_opencv;
    numpy_passed += t.vs_numpy;
    if (strchr(current_op, '+'))
        chains_covered += t.passed == t.cases;
    else
        ops_covered += t.passed == t.cases;
    printf("     %-34s %d/%d cases pass (%d vs OpenCV, %d vs numpy), max |d| %.2g\n", current_op, t.passed, t.cases,
           t.vs_opencv, t.vs_numpy, t.worst_max);
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

/* Runs make_cases.py into dir; false (with a failed check) if it fails. */
static bool make_cases(const char *cases_file, const char *dir, const char *only)
{
    const char *python = getenv("TFPI_PYTHON");
    char command[8192];
    /* LD_LIBRARY_PATH may name the target's libraries (qemu runs): not for the host's python. */
    snprintf(command, sizeof command, "env -u LD_LIBRARY_PATH %s tests/diff/make_cases.py '%s' '%s'%s%s",
             python && *python ? python : "/usr/bin/python3", cases_file, dir, only ? " --only=" : "",
             only ? only : "");
    int rc = system(command);
    CHECK_MSG(rc == 0, "'%s' failed (status %d; its message is above). It needs /usr/bin/python3 with numpy "
                       "and OpenCV (Debian python3-numpy python3-opencv; ./download_dependencies.sh installs them)",
              command, rc);
    return rc == 0;
}

static int by_name(const struct dirent **a, const struct dirent **b) { return strcmp((*a)->d_name, (*b)->d_name); }

static void read_cases(const char *dir)
{
    struct dirent **entries;
    int n = scandir(dir, &entries, NULL, by_name);
    for (int i = 0; i < n; i++) {
        char path[DIR_SIZE];
        snprintf(path, sizeof path, "%.900s/%.100s", dir, entries[i]->d_name);
        if (entries[i]->d_name[0] != '.' && num_cases < MAX_CASES) {
            if (read_case(path, &cases[num_cases]))
                num_cases++;
            else
                CHECK_MSG(0, "%s: unreadable case.txt", path);
        }
        free(entries[i]);
    }
    if (n >= 0)
        free(entries);
}

static const char *cases_file = "tests/diff/op_cases.txt", *only_op, *keep_dir;
static char case_dir[DIR_SIZE];

/* The first test: the references are written and read. */
static void test_make_cases(void)
{
    char tmp[] = "/tmp/tfpi_diff.XXXXXX";
    if (keep_dir) {
        mkdir(keep_dir, 0777);
        snprintf(case_dir, sizeof case_dir, "%s", keep_dir);
    } else if (mkdtemp(tmp)) {
        snprintf(case_dir, sizeof case_dir, "%s", tmp);
    }
    CHECK_MSG(case_dir[0], "cannot create a directory for the cases");
    if (case_dir[0] && make_cases(cases_file, case_dir, only_op))
        read_cases(case_dir);
    CHECK_MSG(num_cases > 0, "no cases in %s", case_dir);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--cases=", 8) == 0)
            cases_file = argv[i] + 8;
        else if (strncmp(argv[i], "--only=", 7) == 0)
            only_op = argv[i] + 7;
        else if (strncmp(argv[i], "--keep=", 7) == 0)
            keep_dir = argv[i] + 7;
        else {
            fprintf(stderr, "usage: %s [--cases=FILE] [--only=OP] [--keep=DIR]\n", argv[0]);
            return 2;
        }
    }
    const char *threads = getenv("TFPI_TEST_THREADS");
    if (threads && atoi(threads) > 0) {
        thread_counts[0] = atoi(threads);
        num_thread_counts = 1;
    }
    RUN(test_make_cases);
    for (int i = 0; i < num_cases; i++) {
        bool first = true;
        for (int j = 0; j < i && first; j++)
            first = strcmp(cases[j].op, cases[i].op) != 0;
        if (!first)
            continue;
        current_op = cases[i].op;
        if (strchr(current_op, '+'))
            chains_listed++;
        else
            ops_listed++;
        check_run(current_op, test_current_op);
    }
    printf("ops covered: %d of %d listed; op cases: %d passed vs OpenCV, %d vs numpy (of %d); "
           "fused chains covered: %d of %d\n",
           ops_covered, ops_listed, opencv_passed, numpy_passed, num_cases, chains_covered, chains_listed);
    if (!keep_dir && case_dir[0])
        nftw(case_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    return check_summary();
}
