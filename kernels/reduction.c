/* reduction.c - reductions over a set of axes (Sum, Prod, Max, Min, Mean on
 * float32/int32/int64, Sum/Prod/Max/Min also on float64; All, Any on bool) and
 * along one axis to an index (ArgMax, ArgMin).
 *
 * The axes input must be known while planning; negative axes count from
 * the end, an axis named twice is an error (as in TF), no axes copies the
 * input; keep_dims keeps reduced dims as 1. Dims of size 1 are dropped and neighbouring dims that
 * are all reduced or all kept are merged, so every reduction becomes one or
 * more passes over an [outer][reduced][inner] view: NHWC Mean over H,W
 * (global pooling) is a single pass that adds rows of C. Integer Sum and
 * Prod wrap around; integer Mean truncates; float Max/Min ignore NaN. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/kernel.h"
#include "core/wrapping_int.h"

/* ---- reducers ---------------------------------------------------------------- */

/* Reduces in[outer][r][inner] to out[outer][inner] for the output elements
 * [begin, end). */
typedef void (*reduce_fn)(const void *in, void *out, int64_t r, int64_t inner, int64_t begin,
                          int64_t end);

/* ACC accumulates along a contiguous row (double for floats: long sums stay
 * accurate); across rows the output itself accumulates. */
#define DEFINE_REDUCER(name, T, ACC, IDENTITY, COMBINE)                                    \
    static void name(const void *pin, void *pout, int64_t r, int64_t inner, int64_t begin, \
                     int64_t end)                                                          \
    {                                                                                      \
        const T *in = pin;                                                                 \
        T *out = pout;                                                                     \
        if (inner == 1) {                                                                  \
            for (int64_t o = begin; o < end; o++) {                                        \
                const T *row = in + o * r;                                                 \
                ACC acc = IDENTITY;                                                        \
                for (int64_t j = 0; j < r; j++) {                                          \
                    ACC x = row[j];                                                        \
                    acc = COMBINE;                                                         \
                }                                                                          \
                out[o] = (T)acc;                                                           \
            }                                                                              \
            return;                                                                        \
        }                                                                                  \
        for (int64_t idx = begin; idx < end;) {                                            \
            const int64_t o = idx / inner, first = idx % inner;                            \
            const int64_t last = inner - first < end - idx ? inner : first + (end - idx);  \
            T *accs = out + o * inner;                                                     \
            for (int64_t i = first; i < last; i++)                                         \
                accs[i] = IDENTITY;                                                        \
            for (int64_t j = 0; j < r; j++) {                                              \
                const T *row = in + (o * r + j) * inner;                                   \
                for (int64_t i = first; i < last; i++) {                                   \
                    T acc = accs[i], x = row[i];                                           \
                    accs[i] = COMBINE;                                                     \
                }                                                                          \
            }                                                                              \
            idx += last - first;                                                           \
        }                                                                                  \
    }

#define DEFINE_REDUCERS(T, ACC, suffix, SUM, PROD, LOWEST, HIGHEST) \
    DEFINE_REDUCER(sum_##suffix, T, ACC, 0, SUM)                    \
    DEFINE_REDUCER(prod_##suffix, T, ACC, 1, PROD)                  \
    DEFINE_REDUCER(max_##suffix, T, ACC, LOWEST, x > acc ? x : acc) \
    DEFINE_REDUCER(min_##suffix, T, ACC, HIGHEST, x < acc ? x : acc)
DEFINE_REDUCERS(float, double, float, acc + x, acc * x, -INFINITY, INFINITY)
DEFINE_REDUCERS(double, double, double, acc + x, acc * x, -INFINITY, INFINITY)
DEFINE_REDUCERS(int32_t, int32_t, int32, (int32_t)tp_wrap_add(acc, x), (int32_t)tp_wrap_mul(acc, x),
                INT32_MIN, INT32_MAX)
DEFINE_REDUCERS(int64_t, int64_t, int64, tp_wrap_add(acc, x), tp_wrap_mul(acc, x), INT64_MIN,
                INT64_MAX)
DEFINE_REDUCER(all_bool_rows, uint8_t, uint8_t, 1, (uint8_t)(acc && x))
DEFINE_REDUCER(any_bool, uint8_t, uint8_t, 0, (uint8_t)(acc || x))

/* All along contiguous rows is "no zero byte": memchr, libc's vector
 * search, instead of a byte at a time (2^30 bools: 0.15 s became 0.03 s). */
static void all_bool(const void *pin, void *pout, int64_t r, int64_t inner, int64_t begin, int64_t end)
{
    if (inner != 1) {
        all_bool_rows(pin, pout, r, inner, begin, end);
        return;
    }
    for (int64_t o = begin; o < end; o++)
        ((uint8_t *)pout)[o] = memchr((const uint8_t *)pin + o * r, 0, (size_t)r) == NULL;
}

/* Float Max and Min: a contiguous row (inner == 1, the whole tensor for
 * quantize_nodes' Min/Max) in per-lane extremes -O2 vectorizes; the result
 * is the same value whatever the order (NaN ignored; only which of -0 and
 * +0 wins a tie can differ). */
enum { LANES = 32 };
#define DEFINE_FLOAT_EXTREME(name, IDENTITY, BETTER)                                              \
    static void name##_lanes(const void *pin, void *pout, int64_t r, int64_t inner, int64_t begin, \
                             int64_t end)                                                        \
    {                                                                                            \
        if (inner != 1) {                                                                        \
            name(pin, pout, r, inner, begin, end);                                               \
            return;                                                                              \
        }                                                                                        \
        for (int64_t o = begin; o < end; o++) {                                                  \
            const float *row = (const float *)pin + o * r;                                       \
            float lane[LANES];                                                                   \
            for (int l = 0; l < LANES; l++)                                                      \
                lane[l] = IDENTITY;                                                              \
            int64_t j = 0;                                                                       \
            for (; j + LANES <= r; j += LANES)                                                   \
                for (int l = 0; l < LANES; l++)                                                  \
                    lane[l] = row[j + l] BETTER lane[l] ? row[j + l] : lane[l];                  \
            for (int l = 1; l < LANES; l++)                                                      \
                lane[0] = lane[l] BETTER lane[0] ? lane[l] : lane[0];                            \
            for (; j < r; j++)                                                                   \
                lane[0] = row[j] BETTER lane[0] ? row[j] : lane[0];                              \
            ((float *)pout)[o] = lane[0];                                                        \
        }                                                                                        \
    }
DEFINE_FLOAT_EXTREME(max_float, -INFINITY, >)
DEFINE_FLOAT_EXTREME(min_float, INFINITY, <)

typedef struct reducer {
    const char *op;
    tfpi_dtype dtype;
    reduce_fn fn;
} reducer;

#define REDUCER_ROWS(op, name, float_fn) \
    {op, TFPI_FLOAT, float_fn}, {op, TFPI_INT32, name##_int32}, {op, TFPI_INT64, name##_int64}
static const reducer reducers[] = {
    REDUCER_ROWS("Sum", sum, sum_float),
    REDUCER_ROWS("Mean", sum, sum_float), /* divided by the count afterwards */
    REDUCER_ROWS("Prod", prod, prod_float),
    REDUCER_ROWS("Max", max, max_float_lanes),
    REDUCER_ROWS("Min", min, min_float_lanes),
    {"Sum", TFPI_DOUBLE, sum_double},
    {"Prod", TFPI_DOUBLE, prod_double},
    {"Max", TFPI_DOUBLE, max_double},
    {"Min", TFPI_DOUBLE, min_double},
    {"All", TFPI_BOOL, all_bool},
    {"Any", TFPI_BOOL, any_bool},
};

static const reducer *find_reducer(const char *op, tfpi_dtype dtype)
{
    for (size_t i = 0; i < sizeof reducers / sizeof *reducers; i++)
        if (reducers[i].dtype == dtype && strcmp(reducers[i].op, op) == 0)
            return &reducers[i];
    return NULL;
}

/* ---- planning the passes --------------------------------------------------- */

typedef struct reduce_state {
    const reducer *reducer;
    bool mean;
    int num_groups; /* merged dims, outermost first */
    int64_t group_size[TFPI_MAX_DIMS];
    bool group_reduced[TFPI_MAX_DIMS];
    int64_t reduced_count; /* elements reduced into each output element */
} reduce_state;

/* Reads the axes (input 1) into reduced[]. */
static tfpi_code read_axes(tp_op_ctx *ctx, bool *reduced)
{
    const tfpi_tensor *in = ctx->inputs[0], *axes = ctx->inputs[1];
    tfpi_code code = tp_expect_known(ctx, 1);
    if (code != TFPI_OK)
        return code;
    if (axes->dtype != TFPI_INT32 && axes->dtype != TFPI_INT64)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "reduction axes must be int32 or int64, not %s",
                       tfpi_dtype_name(axes->dtype));
    if (axes->ndims > 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "reduction axes must be a scalar or a vector");
    for (int d = 0; d < in->ndims; d++)
        reduced[d] = false;
    for (int64_t i = 0; i < tp_num_elements(axes); i++) {
        int64_t axis = tp_get_int(axes, i);
        if (axis < -in->ndims || axis >= in->ndims) {
            char shape[128];
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "reduction axis %lld is out of range for input %s",
                           (long long)axis, tp_shape_string(in, shape, sizeof shape));
        }
        int index = (int)(axis < 0 ? axis + in->ndims : axis);
        if (reduced[index])
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                           "Invalid reduction arguments: Axes contains duplicate dimension: %d", index);
        reduced[index] = true;
    }
    return TFPI_OK;
}

/* Drops dims of size 1 and merges neighbours that are reduced alike. */
static void merge_groups(reduce_state *state, const tfpi_tensor *in, const bool *reduced)
{
    state->num_groups = 0;
    state->reduced_count = 1;
    for (int d = 0; d < in->ndims; d++) {
        if (reduced[d])
            state->reduced_count *= in->dims[d];
        if (in->dims[d] == 1)
            continue;
        int g = state->num_groups;
        if (g > 0 && state->group_reduced[g - 1] == reduced[d]) {
            state->group_size[g - 1] *= in->dims[d];
        } else {
            state->group_size[g] = in->dims[d];
            state->group_reduced[g] = reduced[d];
            state->num_groups++;
        }
    }
}

static tfpi_code reduce_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 2, 2);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *in = ctx->inputs[0];
    const reducer *reducer = find_reducer(ctx->def->op, in->dtype);
    if (!reducer)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "no kernel for %s input", tfpi_dtype_name(in->dtype));
    bool reduced[TFPI_MAX_DIMS];
    if ((code = read_axes(ctx, reduced)) != TFPI_OK)
        return code;
    reduce_state *state = calloc(1, sizeof *state);
    if (!state)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    ctx->state = state;
    state->reducer = reducer;
    state->mean = strcmp(ctx->def->op, "Mean") == 0;
    merge_groups(state, in, reduced);

    bool keep_dims = tp_attr_bool(ctx->def, "keep_dims", false);
    int ndims = 0;
    int64_t dims[TFPI_MAX_DIMS];
    for (int d = 0; d < in->ndims; d++)
        if (!reduced[d] || keep_dims)
            dims[ndims++] = reduced[d] ? 1 : in->dims[d];
    return tp_set_output(ctx, 0, in->dtype, ndims, dims);
}

/* ---- running the passes ------------------------------------------------------ */

typedef struct reduce_job {
    reduce_fn fn;
    const void *in;
    void *out;
    int64_t r, inner;
} reduce_job;

static void reduce_range(void *arg, int64_t begin, int64_t end)
{
    const reduce_job *job = arg;
    job->fn(job->in, job->out, job->r, job->inner, begin, end);
}

static void divide_by_count(tfpi_tensor *t, int64_t count)
{
    int64_t n = tp_num_elements(t);
    if (t->dtype == TFPI_FLOAT) {
        float *v = t->data;
        for (int64_t i = 0; i < n; i++)
            v[i] /= (float)count;
    } else if (count > 0 && t->dtype == TFPI_INT32) {
        int32_t *v = t->data;
        for (int64_t i = 0; i < n; i++)
            v[i] = (int32_t)(v[i] / count);
    } else if (count > 0 && t->dtype == TFPI_INT64) {
        int64_t *v = t->data;
        for (int64_t i = 0; i < n; i++)
            v[i] /= count;
    }
}

/* Reduces the innermost reduced group per pass, writing to scratch until the
 * last pass, which writes the output. */
static tfpi_code reduce_run(tp_op_ctx *ctx)
{
    const reduce_state *state = ctx->state;
    const tfpi_tensor *in = ctx->inputs[0];
    tfpi_tensor *out = &ctx->outputs[0];
    int num_groups = state->num_groups;
    int64_t size[TFPI_MAX_DIMS];
    bool reduced[TFPI_MAX_DIMS];
    int passes = 0;
    for (int g = 0; g < num_groups; g++) {
        size[g] = state->group_size[g];
        reduced[g] = state->group_reduced[g];
        passes += reduced[g];
    }
    if (passes == 0) {
        memcpy(out->data, in->data, tp_byte_size(in));
        return TFPI_OK;
    }
    if (tp_num_elements(in) == 0) {
        /* A reduced axis is empty: every output is the reducer's identity,
         * with no pass (an intermediate could be far larger than the input:
         * [2^20, 2^20, 0] over axes 0 and 2). r = 0: `in` is never read. */
        reduce_job job = {.fn = state->reducer->fn, .in = out->data, .out = out->data, .r = 0, .inner = 1};
        reduce_range(&job, 0, tp_num_elements(out));
        if (state->mean)
            divide_by_count(out, state->reduced_count);
        return TFPI_OK;
    }
    void *scratch[2] = {NULL, NULL};
    if (passes > 1) { /* the first pass makes the largest intermediate */
        size_t bytes = tp_byte_size(in);
        for (int g = num_groups - 1; g >= 0; g--)
            if (reduced[g]) {
                bytes = size[g] ? bytes / (size_t)size[g] : 0;
                break;
            }
        scratch[0] = malloc(bytes ? bytes : 1);
        scratch[1] = malloc(bytes ? bytes : 1);
        if (!scratch[0] || !scratch[1]) {
            free(scratch[0]);
            free(scratch[1]);
            return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory for %zu bytes of scratch", bytes);
        }
    }
    const void *src = in->data;
    for (int pass = 0; pass < passes; pass++) {
        int g = num_groups - 1;
        while (!reduced[g])
            g--;
        reduce_job job = {.fn = state->reducer->fn, .in = src, .r = size[g], .inner = 1};
        int64_t outer = 1;
        for (int i = 0; i < g; i++)
            outer *= size[i];
        for (int i = g + 1; i < num_groups; i++)
            job.inner *= size[i];
        job.out = pass == passes - 1 ? out->data : scratch[pass % 2];
        tp_parallel_for(ctx->pool, outer * job.inner, 32768 / (job.r + 1) + 1, reduce_range, &job);
        src = job.out;
        for (int i = g; i + 1 < num_groups; i++) { /* the group is gone */
            size[i] = size[i + 1];
            reduced[i] = reduced[i + 1];
        }
        num_groups--;
    }
    free(scratch[0]);
    free(scratch[1]);
    if (state->mean)
        divide_by_count(out, state->reduced_count);
    return TFPI_OK;
}

static void release_state(void *state) { free(state); }

/* ---- ArgMax / ArgMin -------------------------------------------------------- */

/* Index of the first best value along r for output elements [begin, end)
 * of in[outer][r][inner]; the index is stored as int64 or int32. */
typedef void (*arg_fn)(const void *in, void *out, bool out_int64, int64_t r, int64_t inner,
                       int64_t begin, int64_t end);

#define DEFINE_ARG(name, T, BETTER)                                                        \
    static void name(const void *pin, void *out, bool out_int64, int64_t r, int64_t inner, \
                     int64_t begin, int64_t end)                                           \
    {                                                                                      \
        const T *in = pin;                                                                 \
        for (int64_t idx = begin; idx < end; idx++) {                                      \
            const T *column = in + (idx / inner) * r * inner + idx % inner;                \
            T best = column[0];                                                            \
            int64_t best_index = 0;                                                        \
            for (int64_t j = 1; j < r; j++) {                                              \
                T x = column[j * inner];                                                   \
                if (BETTER) {                                                              \
                    best = x;                                                              \
                    best_index = j;                                                        \
                }                                                                          \
            }                                                                              \
            if (out_int64)                                                                 \
                ((int64_t *)out)[idx] = best_index;                                        \
            else                                                                           \
                ((int32_t *)out)[idx] = (int32_t)best_index;                               \
        }                                                                                  \
    }
#define DEFINE_ARGS(T, suffix)                \
    DEFINE_ARG(arg_max_##suffix, T, x > best) \
    DEFINE_ARG(arg_min_##suffix, T, x < best)
DEFINE_ARGS(float, float)
DEFINE_ARGS(int32_t, int32)
DEFINE_ARGS(int64_t, int64)
DEFINE_ARGS(uint8_t, uint8)

typedef struct arg_kernel {
    const char *op;
    tfpi_dtype dtype;
    arg_fn fn;
} arg_kernel;

#define ARG_ROWS(op, name)                                          \
    {op, TFPI_FLOAT, name##_float}, {op, TFPI_INT32, name##_int32}, \
    {op, TFPI_INT64, name##_int64}, {op, TFPI_UINT8, name##_uint8}
static const arg_kernel arg_kernels[] = {
    ARG_ROWS("ArgMax", arg_max),
    ARG_ROWS("ArgMin", arg_min),
};

typedef struct arg_state {
    arg_fn fn;
    int64_t r, inner;
} arg_state;

static tfpi_code arg_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 2, 2);
    if (code == TFPI_OK)
        code = tp_expect_known(ctx, 1);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *in = ctx->inputs[0], *dim = ctx->inputs[1];
    const arg_kernel *kernel = NULL;
    for (size_t i = 0; i < sizeof arg_kernels / sizeof *arg_kernels; i++)
        if (arg_kernels[i].dtype == in->dtype && strcmp(arg_kernels[i].op, ctx->def->op) == 0)
            kernel = &arg_kernels[i];
    if (!kernel)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "no kernel for %s input", tfpi_dtype_name(in->dtype));
    tfpi_dtype out_dtype = tp_attr_type(ctx->def, "output_type", TFPI_INT64);
    if (out_dtype != TFPI_INT64 && out_dtype != TFPI_INT32)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "output_type must be int32 or int64, not %s",
                       tfpi_dtype_name(out_dtype));
    if ((dim->dtype != TFPI_INT32 && dim->dtype != TFPI_INT64) || tp_num_elements(dim) != 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "dimension must be one int32 or int64 value");
    char shape[128];
    int64_t axis = tp_get_int(dim, 0);
    if (axis < -in->ndims || axis >= in->ndims)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "dimension %lld is out of range for input %s",
                       (long long)axis, tp_shape_string(in, shape, sizeof shape));
    int a = (int)(axis < 0 ? axis + in->ndims : axis);
    if (in->dims[a] == 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "dimension %d of input %s is empty", a,
                       tp_shape_string(in, shape, sizeof shape));
    arg_state *state = calloc(1, sizeof *state);
    if (!state)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    ctx->state = state;
    state->fn = kernel->fn;
    state->r = in->dims[a];
    state->inner = 1;
    int ndims = 0;
    int64_t dims[TFPI_MAX_DIMS];
    for (int d = 0; d < in->ndims; d++) {
        if (d > a)
            state->inner *= in->dims[d];
        if (d != a)
            dims[ndims++] = in->dims[d];
    }
    return tp_set_output(ctx, 0, out_dtype, ndims, dims);
}

static tfpi_code arg_run(tp_op_ctx *ctx)
{
    const arg_state *state = ctx->state;
    tfpi_tensor *out = &ctx->outputs[0];
    state->fn(ctx->inputs[0]->data, out->data, out->dtype == TFPI_INT64, state->r, state->inner, 0,
              tp_num_elements(out));
    return TFPI_OK;
}

const tp_kernel tp_kernels_reduction[] = {
    TP_KERNEL("Sum", reduce_prepare, reduce_run, release_state, 0),
    TP_KERNEL("Mean", reduce_prepare, reduce_run, release_state, 0),
    TP_KERNEL("Prod", reduce_prepare, reduce_run, release_state, 0),
    TP_KERNEL("Max", reduce_prepare, reduce_run, release_state, 0),
    TP_KERNEL("Min", reduce_prepare, reduce_run, release_state, 0),
    TP_KERNEL("All", reduce_prepare, reduce_run, release_state, 0),
    TP_KERNEL("Any", reduce_prepare, reduce_run, release_state, 0),
    TP_KERNEL("ArgMax", arg_prepare, arg_run, release_state, 0),
    TP_KERNEL("ArgMin", arg_prepare, arg_run, release_state, 0),
    TP_KERNELS_END,
};
