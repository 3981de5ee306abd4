/* cwise_unary.c - elementwise ops of one operand: activations (Relu, Relu6,
 * Elu, Selu, LeakyRelu, Sigmoid, Tanh, Softplus, Softsign), float math
 * (Exp, Log, Sqrt, Rsqrt, Square, Reciprocal, Floor, Ceil, Round, ...),
 * the integer forms of Neg/Abs/Square/Sign, the float64 forms of Exp, Log,
 * Sqrt, Square, Neg, Abs, Floor, Ceil and Round, LogicalNot, and Cast.
 *
 * Round is round-half-to-even, as TF's. Cast from a float type to an
 * integer type truncates toward zero like C++ static_cast; where static_cast
 * would be undefined (NaN, out of range) it saturates, NaN giving 0. Cast
 * reads half (IEEE binary16) exactly as a float (TFLite's DEQUANTIZE of
 * float16 weights reaches here). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compute/binary16.h"
#include "kernel/kernel.h"
#include "core/wrapping_int.h"

/* ---- the elementwise math ------------------------------------------------ */

/* alpha is LeakyRelu's attr; the other loops ignore it. */
typedef void (*unary_loop)(const void *in, void *out, int64_t n, float alpha);

#define SELU_SCALE 1.0507009873554804934193349852946f
#define SELU_ALPHA 1.6732632423543772848170429916717f

/* TF's Softplus: x above -threshold, exp(x) below threshold, where
 * threshold = log(float epsilon) + 2. */
static inline float softplus(float x)
{
    const float threshold = -13.942385f;
    if (x > -threshold)
        return x;
    if (x < threshold)
        return expf(x);
    return logf(expf(x) + 1.0f);
}

static inline float float_sign(float x) { return isnan(x) ? x : (float)((x > 0) - (x < 0)); }

#define DEFINE_UNARY_LOOP(name, T, EXPR)                                  \
    static void name(const void *pin, void *pout, int64_t n, float alpha) \
    {                                                                     \
        const T *in = pin;                                                \
        T *out = pout;                                                    \
        (void)alpha;                                                      \
        for (int64_t i = 0; i < n; i++) {                                 \
            T x = in[i];                                                  \
            out[i] = (T)(EXPR);                                           \
        }                                                                 \
    }

/* TF op, loop name, expression of x (and alpha) */
#define FLOAT_UNARY(X)                                                            \
    X("Relu", relu, x < 0 ? 0.0f : x)                                             \
    X("Relu6", relu6, x < 0 ? 0.0f : x > 6 ? 6.0f : x)                            \
    X("Elu", elu, x < 0 ? expm1f(x) : x)                                          \
    X("Selu", selu, x < 0 ? SELU_SCALE * SELU_ALPHA * expm1f(x) : SELU_SCALE * x) \
    X("LeakyRelu", leaky_relu, x > 0 ? x : x * alpha)                             \
    X("Sigmoid", sigmoid, 1.0f / (1.0f + expf(-x)))                               \
    X("Tanh", tanh_float, tanhf(x))                                               \
    X("Softplus", softplus_float, softplus(x))                                    \
    X("Softsign", softsign, x / (1.0f + fabsf(x)))                                \
    X("Exp", exp_float, expf(x))                                                  \
    X("Expm1", expm1_float, expm1f(x))                                            \
    X("Log", log_float, logf(x))                                                  \
    X("Log1p", log1p_float, log1pf(x))                                            \
    X("Sqrt", sqrt_float, sqrtf(x))                                               \
    X("Rsqrt", rsqrt, 1.0f / sqrtf(x))                                            \
    X("Square", square_float, x * x)                                              \
    X("Reciprocal", reciprocal, 1.0f / x)                                         \
    X("Inv", inv, 1.0f / x)                                                       \
    X("Neg", neg_float, -x)                                                       \
    X("Abs", abs_float, fabsf(x))                                                 \
    X("Sign", sign_float, float_sign(x))                                          \
    X("Floor", floor_float, floorf(x))                                            \
    X("Ceil", ceil_float, ceilf(x))                                               \
    X("Round", round_float, nearbyintf(x))                                        \
    X("Sin", sin_float, sinf(x))                                                  \
    X("Cos", cos_float, cosf(x))

/* Integer forms, computed in int64 and narrowed on store. */
#define INT_UNARY(X)                             \
    X("Neg", neg, tp_wrap_sub(0, x))             \
    X("Abs", abs, x < 0 ? tp_wrap_sub(0, x) : x) \
    X("Square", square, tp_wrap_mul(x, x))       \
    X("Sign", sign, (x > 0) - (x < 0))

#define DEFINE_FLOAT_UNARY(op, name, expr) DEFINE_UNARY_LOOP(name, float, expr)
#define DEFINE_INT_UNARY(op, name, expr)           \
    DEFINE_UNARY_LOOP(name##_int32, int32_t, expr) \
    DEFINE_UNARY_LOOP(name##_int64, int64_t, expr)
FLOAT_UNARY(DEFINE_FLOAT_UNARY)
INT_UNARY(DEFINE_INT_UNARY)
DEFINE_UNARY_LOOP(logical_not, uint8_t, x == 0)
/* float64: what box decoders and coordinate grids use */
#define DOUBLE_UNARY(X)                   \
    X("Exp", exp_double, exp(x))          \
    X("Log", log_double, log(x))          \
    X("Sqrt", sqrt_double, sqrt(x))       \
    X("Square", square_double, x * x)     \
    X("Neg", neg_double, -x)              \
    X("Abs", abs_double, fabs(x))         \
    X("Floor", floor_double, floor(x))    \
    X("Ceil", ceil_double, ceil(x))       \
    X("Round", round_double, nearbyint(x))
#define DEFINE_DOUBLE_UNARY(op, name, expr) DEFINE_UNARY_LOOP(name, double, expr)
DOUBLE_UNARY(DEFINE_DOUBLE_UNARY)

typedef struct unary_kernel {
    const char *op;
    tfpi_dtype dtype;
    unary_loop loop;
} unary_kernel;

#define FLOAT_ROW(op, name, expr) {op, TFPI_FLOAT, name},
#define DOUBLE_ROW(op, name, expr) {op, TFPI_DOUBLE, name},
#define INT_ROWS(op, name, expr) {op, TFPI_INT32, name##_int32}, {op, TFPI_INT64, name##_int64},
static const unary_kernel unary_kernels[] = {
    FLOAT_UNARY(FLOAT_ROW)
    INT_UNARY(INT_ROWS)
    {"LogicalNot", TFPI_BOOL, logical_not},
    DOUBLE_UNARY(DOUBLE_ROW)
};

static const unary_kernel *find_unary_kernel(const char *op, tfpi_dtype dtype)
{
    for (size_t i = 0; i < sizeof unary_kernels / sizeof *unary_kernels; i++)
        if (unary_kernels[i].dtype == dtype && strcmp(unary_kernels[i].op, op) == 0)
            return &unary_kernels[i];
    return NULL;
}

/* ---- Cast ------------------------------------------------------------------ */

/* Truncates toward zero, saturating where a C cast would be undefined. */
static inline int64_t real_to_int(double v, int64_t lowest, int64_t highest)
{
    if (isnan(v))
        return 0;
    if (v <= (double)lowest)
        return lowest;
    if (v >= (double)highest)
        return highest;
    return (int64_t)v;
}

#define IS_REAL(v) _Generic((v), float: 1, double: 1, default: 0)
/* Integers narrow by wrapping, as C++ static_cast does on TF's targets. */
#define TO_INT(T, lowest, highest, v) \
    (IS_REAL(v) ? (T)real_to_int((double)(v), lowest, highest) : (T)(v))

#define to_float(v) ((float)(v))
#define to_double(v) ((double)(v))
#define to_int32(v) TO_INT(int32_t, INT32_MIN, INT32_MAX, v)
#define to_int64(v) TO_INT(int64_t, INT64_MIN, INT64_MAX, v)
#define to_uint8(v) TO_INT(uint8_t, 0, UINT8_MAX, v)
#define to_int8(v) TO_INT(int8_t, INT8_MIN, INT8_MAX, v)
#define to_int16(v) TO_INT(int16_t, INT16_MIN, INT16_MAX, v)
#define to_uint16(v) TO_INT(uint16_t, 0, UINT16_MAX, v)
#define to_bool(v) ((uint8_t)((v) != 0))

#define AS_STORED(v) (v)
#define AS_BOOL(v) ((v) != 0) /* any nonzero byte is true */
#define AS_HALF(v) tp_half_to_float(v)

/* dtype, C type, how a stored element reads (extra args: the destination) */
#define CAST_SOURCES(X, ...)                         \
    X(TFPI_FLOAT, float, AS_STORED, __VA_ARGS__)     \
    X(TFPI_DOUBLE, double, AS_STORED, __VA_ARGS__)   \
    X(TFPI_INT32, int32_t, AS_STORED, __VA_ARGS__)   \
    X(TFPI_INT64, int64_t, AS_STORED, __VA_ARGS__)   \
    X(TFPI_UINT8, uint8_t, AS_STORED, __VA_ARGS__)   \
    X(TFPI_INT8, int8_t, AS_STORED, __VA_ARGS__)     \
    X(TFPI_INT16, int16_t, AS_STORED, __VA_ARGS__)   \
    X(TFPI_UINT16, uint16_t, AS_STORED, __VA_ARGS__) \
    X(TFPI_BOOL, uint8_t, AS_BOOL, __VA_ARGS__)     \
    X(TFPI_HALF, uint16_t, AS_HALF, __VA_ARGS__)

/* dtype, C type, conversion of a read value */
#define CAST_DESTINATIONS(X)            \
    X(TFPI_FLOAT, float, to_float)      \
    X(TFPI_DOUBLE, double, to_double)   \
    X(TFPI_INT32, int32_t, to_int32)    \
    X(TFPI_INT64, int64_t, to_int64)    \
    X(TFPI_UINT8, uint8_t, to_uint8)    \
    X(TFPI_INT8, int8_t, to_int8)       \
    X(TFPI_INT16, int16_t, to_int16)    \
    X(TFPI_UINT16, uint16_t, to_uint16) \
    X(TFPI_BOOL, uint8_t, to_bool)

typedef void (*cast_loop)(tfpi_dtype src_dtype, const void *in, void *out, int64_t n);

#define CAST_CASE(src_dtype, SRC_T, read, DST_T, convert) \
    case src_dtype: {                                     \
        const SRC_T *src = in;                            \
        DST_T *dst = out;                                 \
        for (int64_t i = 0; i < n; i++)                   \
            dst[i] = convert(read(src[i]));               \
        return;                                           \
    }
#define DEFINE_CAST_LOOP(dst_dtype, DST_T, convert)                                        \
    static void cast_##convert(tfpi_dtype src_dtype, const void *in, void *out, int64_t n) \
    {                                                                                      \
        switch (src_dtype) {                                                               \
            CAST_SOURCES(CAST_CASE, DST_T, convert)                                        \
        default: return;                                                                   \
        }                                                                                  \
    }
CAST_DESTINATIONS(DEFINE_CAST_LOOP)

#define CAST_LOOP_CASE(dst_dtype, DST_T, convert) case dst_dtype: return cast_##convert;
static cast_loop find_cast_loop(tfpi_dtype dst)
{
    switch (dst) {
        CAST_DESTINATIONS(CAST_LOOP_CASE)
    default: return NULL;
    }
}

#define CAST_SOURCE_CASE(src_dtype, SRC_T, read, unused) case src_dtype: return true;
static bool cast_source_supported(tfpi_dtype src)
{
    switch (src) {
        CAST_SOURCES(CAST_SOURCE_CASE, 0)
    default: return false;
    }
}

/* ---- prepare / run: one loop per node, in ctx->state --------------------- */

typedef struct unary_state {
    unary_loop loop; /* the math ops */
    cast_loop cast;  /* Cast */
    float alpha;
} unary_state;

static tfpi_code unary_prepare_state(tp_op_ctx *ctx, tfpi_dtype out_dtype, unary_state init)
{
    unary_state *state = malloc(sizeof *state);
    if (!state)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    *state = init;
    ctx->state = state;
    const tfpi_tensor *in = ctx->inputs[0];
    return tp_set_output(ctx, 0, out_dtype, in->ndims, in->dims);
}

static tfpi_code unary_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 1, 1);
    if (code != TFPI_OK)
        return code;
    tfpi_dtype dtype = ctx->inputs[0]->dtype;
    const unary_kernel *kernel = find_unary_kernel(ctx->def->op, dtype);
    if (!kernel)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "no kernel for %s input", tfpi_dtype_name(dtype));
    unary_state init = {.loop = kernel->loop, .alpha = tp_attr_float(ctx->def, "alpha", 0.2f)};
    return unary_prepare_state(ctx, dtype, init);
}

static tfpi_code cast_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 1, 1);
    if (code != TFPI_OK)
        return code;
    tfpi_dtype src = ctx->inputs[0]->dtype;
    tfpi_dtype dst = tp_attr_type(ctx->def, "DstT", 0);
    cast_loop loop = find_cast_loop(dst);
    if (!cast_source_supported(src) || !loop)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "cannot cast %s to %s", tfpi_dtype_name(src),
                       tfpi_dtype_name(dst));
    unary_state init = {.cast = loop};
    return unary_prepare_state(ctx, dst, init);
}

typedef struct unary_job {
    const unary_state *state;
    tfpi_dtype in_dtype;
    const char *in;
    char *out;
    size_t in_size, out_size;
} unary_job;

static void unary_run_range(void *arg, int64_t begin, int64_t end)
{
    const unary_job *job = arg;
    const void *in = job->in + (size_t)begin * job->in_size;
    void *out = job->out + (size_t)begin * job->out_size;
    if (job->state->cast)
        job->state->cast(job->in_dtype, in, out, end - begin);
    else
        job->state->loop(in, out, end - begin, job->state->alpha);
}

static tfpi_code unary_run(tp_op_ctx *ctx)
{
    const tfpi_tensor *in = ctx->inputs[0];
    tfpi_tensor *out = &ctx->outputs[0];
    unary_job job = {
        .state = ctx->state,
        .in_dtype = in->dtype,
        .in = in->data,
        .out = out->data,
        .in_size = tfpi_dtype_size(in->dtype),
        .out_size = tfpi_dtype_size(out->dtype),
    };
    tp_parallel_for(ctx->pool, tp_num_elements(in), 16384, unary_run_range, &job);
    return TFPI_OK;
}

static void unary_release(void *state) { free(state); }

const tp_kernel tp_kernels_cwise_unary[] = {
    TP_KERNEL("Relu", unary_prepare, unary_run, unary_release, 0),
    TP_KERNEL("Relu6", unary_prepare, unary_run, unary_release, 0),
    TP_KERNEL("Elu", unary_prepare, unary_run, unary_release, 0),
    TP_KERNEL("Selu", unary_prepare, unary_run, unary_release, 0),
    TP_KERNEL("LeakyRelu", unary_prepare, unary_run, unary_release, 0),
    TP_KERNEL("Sigmoid", unary_prepare, unary_run, unary_release, 0),
    TP_KERNEL("Tanh", unary_prepare, unary_run, unary_release, 0),
    TP_KERNEL("Softplus", unary_prepare, unary_run, unary_release, 0),
    TP_KERNEL("Softsign", unary_prepare, unary_run, unary_release, 0),
    TP_KERNEL("Exp", unary_prepare, unary_run, unary_release, 0),
    TP_KERNEL("Expm1", unary_prepare, unary_run, unary_release, 0),
    TP_KERNEL("Log", unary_prepare, unary_run, unary_release, 0),
    TP_KERNEL("Log1p", unary_prepare, unary_run, unary_release, 0),
    TP_KERNEL("Sqrt", unary_prepare, unary_run, unary_release, 0),
    TP_KERNEL("Rsqrt", unary_prepare, unary_run, unary_release, 0),
    TP_KERNEL("Square", unary_prepare, unary_run, unary_release, 0),
    TP_KERNEL("Reciprocal", unary_prepare, unary_run, unary_release, 0),
    TP_KERNEL("Inv", unary_prepare, unary_run, unary_release, 0),
    TP_KERNEL("Neg", unary_prepare, unary_run, unary_release, 0),
    TP_KERNEL("Abs", unary_prepare, unary_run, unary_release, 0),
    TP_KERNEL("Sign", unary_prepare, unary_run, unary_release, 0),
    TP_KERNEL("Floor", unary_prepare, unary_run, unary_release, 0),
    TP_KERNEL("Ceil", unary_prepare, unary_run, unary_release, 0),
    TP_KERNEL("Round", unary_prepare, unary_run, unary_release, 0),
    TP_KERNEL("Sin", unary_prepare, unary_run, unary_release, 0),
    TP_KERNEL("Cos", unary_prepare, unary_run, unary_release, 0),
    TP_KERNEL("LogicalNot", unary_prepare, unary_run, unary_release, 0),
    TP_KERNEL("Cast", cast_prepare, unary_run, unary_release, 0),
    TP_KERNELS_END,
};
