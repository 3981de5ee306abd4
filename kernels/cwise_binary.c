/* cwise_binary.c - elementwise ops of two operands with TF/numpy
 * broadcasting: arithmetic (Add, Sub, Mul, Div, FloorDiv, FloorMod, Pow,
 * Maximum, ...) on float32/int32/int64 (the four basic ones, Maximum, Minimum
 * and the comparisons also on float64), comparisons giving bool, and the
 * logical ops on bool.
 *
 * Integer semantics follow TF's CPU kernels: Add/Sub/Mul wrap around; Div
 * (and TruncateDiv) truncates toward zero like C++ '/'; FloorDiv rounds
 * toward minus infinity; FloorMod takes the sign of the divisor; a zero
 * divisor or a negative integer exponent is an error. Float Maximum and
 * Minimum propagate NaN. Bool tensors hold one byte, 0 or 1. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compute/broadcast.h"
#include "kernel/kernel.h"
#include "core/wrapping_int.h"

/* a and b point at the first element of each operand's run. */
typedef void (*binary_loop)(const void *a, const void *b, void *out, int64_t n);

enum operand_check {
    CHECK_NONE,
    CHECK_NONZERO_DIVISOR,     /* integer division */
    CHECK_NONNEGATIVE_EXPONENT /* integer Pow */
};

typedef struct binary_kernel {
    const char *op;
    tfpi_dtype in_dtype, out_dtype;
    binary_loop both_runs, b_repeats, a_repeats; /* which operand repeats one value */
    enum operand_check check;
} binary_kernel;

/* ---- scalar semantics ---------------------------------------------------- */

static inline float float_floor_mod(float x, float y)
{
    float r = fmodf(x, y);
    return r != 0 && ((r < 0) != (y < 0)) ? r + y : r;
}

static inline float float_max(float x, float y) { return isnan(x) || x > y ? x : y; }
static inline float float_min(float x, float y) { return isnan(x) || x < y ? x : y; }

/* The integer helpers take and return int64; int32 results are narrowed on
 * store (see wrapping_int.h). A divisor y is never 0 (checked before the
 * loops run); y == -1 is handled apart because INT64_MIN / -1 overflows. */
static inline int64_t trunc_div(int64_t x, int64_t y) { return y == -1 ? tp_wrap_sub(0, x) : x / y; }

static inline int64_t floor_div(int64_t x, int64_t y)
{
    if (y == -1)
        return tp_wrap_sub(0, x);
    int64_t q = x / y;
    return x % y != 0 && ((x < 0) != (y < 0)) ? q - 1 : q;
}

static inline int64_t floor_mod(int64_t x, int64_t y)
{
    if (y == -1)
        return 0;
    int64_t r = x % y;
    return r != 0 && ((r < 0) != (y < 0)) ? r + y : r;
}

static inline int64_t squared_difference(int64_t x, int64_t y)
{
    int64_t d = tp_wrap_sub(x, y);
    return tp_wrap_mul(d, d);
}

/* y >= 0 (checked before the loops run). */
static inline int64_t int_pow(int64_t x, int64_t y)
{
    uint64_t result = 1, base = (uint64_t)x;
    for (; y > 0; y >>= 1) {
        if (y & 1)
            result *= base;
        base *= base;
    }
    return (int64_t)result;
}

/* ---- loops ------------------------------------------------------------------ */

/* Three loops per (op, type): both operands run along the output, b repeats
 * one value (scalar or per-row), a repeats one value. EXPR uses x and y. */
#define DEFINE_LOOPS(name, T, OUT, EXPR)                                         \
    static void name##_both(const void *pa, const void *pb, void *po, int64_t n) \
    {                                                                            \
        const T *a = pa, *b = pb;                                                \
        OUT *o = po;                                                             \
        for (int64_t i = 0; i < n; i++) {                                        \
            T x = a[i], y = b[i];                                                \
            o[i] = (OUT)(EXPR);                                                  \
        }                                                                        \
    }                                                                            \
    static void name##_brep(const void *pa, const void *pb, void *po, int64_t n) \
    {                                                                            \
        const T *a = pa, y = *(const T *)pb;                                     \
        OUT *o = po;                                                             \
        for (int64_t i = 0; i < n; i++) {                                        \
            T x = a[i];                                                          \
            o[i] = (OUT)(EXPR);                                                  \
        }                                                                        \
    }                                                                            \
    static void name##_arep(const void *pa, const void *pb, void *po, int64_t n) \
    {                                                                            \
        const T x = *(const T *)pa, *b = pb;                                     \
        OUT *o = po;                                                             \
        for (int64_t i = 0; i < n; i++) {                                        \
            T y = b[i];                                                          \
            o[i] = (OUT)(EXPR);                                                  \
        }                                                                        \
    }
#define LOOPS(name) name##_both, name##_brep, name##_arep

/* name, float expression, integer expression */
#define ARITHMETIC(X)                                                  \
    X(add, x + y, tp_wrap_add(x, y))                                   \
    X(sub, x - y, tp_wrap_sub(x, y))                                   \
    X(mul, x * y, tp_wrap_mul(x, y))                                   \
    X(div, x / y, trunc_div(x, y))                                     \
    X(floor_div, floorf(x / y), floor_div(x, y))                       \
    X(floor_mod, float_floor_mod(x, y), floor_mod(x, y))               \
    X(maximum, float_max(x, y), x > y ? x : y)                         \
    X(minimum, float_min(x, y), x < y ? x : y)                         \
    X(squared_difference, (x - y) * (x - y), squared_difference(x, y)) \
    X(pow, powf(x, y), int_pow(x, y))

#define DEFINE_ARITHMETIC(name, float_expr, int_expr)      \
    DEFINE_LOOPS(name##_float, float, float, float_expr)   \
    DEFINE_LOOPS(name##_int32, int32_t, int32_t, int_expr) \
    DEFINE_LOOPS(name##_int64, int64_t, int64_t, int_expr)
ARITHMETIC(DEFINE_ARITHMETIC)

/* float64: the arithmetic graphs use to build coordinate grids */
DEFINE_LOOPS(add_double, double, double, x + y)
DEFINE_LOOPS(sub_double, double, double, x - y)
DEFINE_LOOPS(mul_double, double, double, x * y)
DEFINE_LOOPS(div_double, double, double, x / y)
DEFINE_LOOPS(maximum_double, double, double, x > y || y != y ? x : y)
DEFINE_LOOPS(minimum_double, double, double, x < y || y != y ? x : y)

#define COMPARISONS(X)    \
    X(equal, x == y)      \
    X(not_equal, x != y)  \
    X(less, x < y)        \
    X(less_equal, x <= y) \
    X(greater, x > y)     \
    X(greater_equal, x >= y)

#define DEFINE_COMPARISON(name, expr)                  \
    DEFINE_LOOPS(name##_float, float, uint8_t, expr)   \
    DEFINE_LOOPS(name##_double, double, uint8_t, expr) \
    DEFINE_LOOPS(name##_int32, int32_t, uint8_t, expr) \
    DEFINE_LOOPS(name##_int64, int64_t, uint8_t, expr) \
    DEFINE_LOOPS(name##_uint8, uint8_t, uint8_t, expr) \
    DEFINE_LOOPS(name##_int8, int8_t, uint8_t, expr)
COMPARISONS(DEFINE_COMPARISON)

/* Bool bytes other than 0 and 1 (from a feed) count as true. */
DEFINE_LOOPS(equal_bool, uint8_t, uint8_t, (x != 0) == (y != 0))
DEFINE_LOOPS(not_equal_bool, uint8_t, uint8_t, (x != 0) != (y != 0))
DEFINE_LOOPS(logical_and, uint8_t, uint8_t, x && y)
DEFINE_LOOPS(logical_or, uint8_t, uint8_t, x || y)

/* ---- the table ------------------------------------------------------------ */

#define ARITHMETIC_ROWS(op, name, int_check)                       \
    {op, TFPI_FLOAT, TFPI_FLOAT, LOOPS(name##_float), CHECK_NONE}, \
    {op, TFPI_INT32, TFPI_INT32, LOOPS(name##_int32), int_check},  \
    {op, TFPI_INT64, TFPI_INT64, LOOPS(name##_int64), int_check}
#define COMPARISON_ROWS(op, name)                                 \
    {op, TFPI_FLOAT, TFPI_BOOL, LOOPS(name##_float), CHECK_NONE}, \
    {op, TFPI_DOUBLE, TFPI_BOOL, LOOPS(name##_double), CHECK_NONE}, \
    {op, TFPI_INT32, TFPI_BOOL, LOOPS(name##_int32), CHECK_NONE}, \
    {op, TFPI_INT64, TFPI_BOOL, LOOPS(name##_int64), CHECK_NONE}, \
    {op, TFPI_UINT8, TFPI_BOOL, LOOPS(name##_uint8), CHECK_NONE}, \
    {op, TFPI_INT8, TFPI_BOOL, LOOPS(name##_int8), CHECK_NONE}

static const binary_kernel binary_kernels[] = {
    ARITHMETIC_ROWS("Add", add, CHECK_NONE),
    ARITHMETIC_ROWS("AddV2", add, CHECK_NONE),
    ARITHMETIC_ROWS("Sub", sub, CHECK_NONE),
    ARITHMETIC_ROWS("Mul", mul, CHECK_NONE),
    ARITHMETIC_ROWS("Div", div, CHECK_NONZERO_DIVISOR),
    ARITHMETIC_ROWS("FloorDiv", floor_div, CHECK_NONZERO_DIVISOR),
    ARITHMETIC_ROWS("FloorMod", floor_mod, CHECK_NONZERO_DIVISOR),
    ARITHMETIC_ROWS("Maximum", maximum, CHECK_NONE),
    ARITHMETIC_ROWS("Minimum", minimum, CHECK_NONE),
    ARITHMETIC_ROWS("SquaredDifference", squared_difference, CHECK_NONE),
    ARITHMETIC_ROWS("Pow", pow, CHECK_NONNEGATIVE_EXPONENT),
    {"RealDiv", TFPI_FLOAT, TFPI_FLOAT, LOOPS(div_float), CHECK_NONE},
    {"Add", TFPI_DOUBLE, TFPI_DOUBLE, LOOPS(add_double), CHECK_NONE},
    {"AddV2", TFPI_DOUBLE, TFPI_DOUBLE, LOOPS(add_double), CHECK_NONE},
    {"Sub", TFPI_DOUBLE, TFPI_DOUBLE, LOOPS(sub_double), CHECK_NONE},
    {"Mul", TFPI_DOUBLE, TFPI_DOUBLE, LOOPS(mul_double), CHECK_NONE},
    {"Div", TFPI_DOUBLE, TFPI_DOUBLE, LOOPS(div_double), CHECK_NONE},
    {"RealDiv", TFPI_DOUBLE, TFPI_DOUBLE, LOOPS(div_double), CHECK_NONE},
    {"Maximum", TFPI_DOUBLE, TFPI_DOUBLE, LOOPS(maximum_double), CHECK_NONE},
    {"Minimum", TFPI_DOUBLE, TFPI_DOUBLE, LOOPS(minimum_double), CHECK_NONE},
    {"TruncateDiv", TFPI_INT32, TFPI_INT32, LOOPS(div_int32), CHECK_NONZERO_DIVISOR},
    {"TruncateDiv", TFPI_INT64, TFPI_INT64, LOOPS(div_int64), CHECK_NONZERO_DIVISOR},
    COMPARISON_ROWS("Equal", equal),
    COMPARISON_ROWS("NotEqual", not_equal),
    COMPARISON_ROWS("Less", less),
    COMPARISON_ROWS("LessEqual", less_equal),
    COMPARISON_ROWS("Greater", greater),
    COMPARISON_ROWS("GreaterEqual", greater_equal),
    {"Equal", TFPI_BOOL, TFPI_BOOL, LOOPS(equal_bool), CHECK_NONE},
    {"NotEqual", TFPI_BOOL, TFPI_BOOL, LOOPS(not_equal_bool), CHECK_NONE},
    {"LogicalAnd", TFPI_BOOL, TFPI_BOOL, LOOPS(logical_and), CHECK_NONE},
    {"LogicalOr", TFPI_BOOL, TFPI_BOOL, LOOPS(logical_or), CHECK_NONE},
};

static const binary_kernel *find_binary_kernel(const char *op, tfpi_dtype dtype)
{
    for (size_t i = 0; i < sizeof binary_kernels / sizeof *binary_kernels; i++)
        if (binary_kernels[i].in_dtype == dtype && strcmp(binary_kernels[i].op, op) == 0)
            return &binary_kernels[i];
    return NULL;
}

/* ---- prepare / run ------------------------------------------------------- */

typedef struct binary_state {
    const binary_kernel *kernel;
    tp_broadcast bc;
} binary_state;

static tfpi_code binary_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 2, 2);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *a = ctx->inputs[0], *b = ctx->inputs[1];
    if (a->dtype != b->dtype)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "operands have different types: %s and %s",
                       tfpi_dtype_name(a->dtype), tfpi_dtype_name(b->dtype));
    const binary_kernel *kernel = find_binary_kernel(ctx->def->op, a->dtype);
    if (!kernel)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "no kernel for %s operands", tfpi_dtype_name(a->dtype));
    binary_state *state = calloc(1, sizeof *state);
    if (!state)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    ctx->state = state;
    state->kernel = kernel;
    int ndims;
    int64_t dims[TFPI_MAX_DIMS];
    if (!tp_broadcast_init(&state->bc, 2, ctx->inputs, &ndims, dims)) {
        char sa[128], sb[128];
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "incompatible shapes for broadcasting: %s and %s",
                       tp_shape_string(a, sa, sizeof sa), tp_shape_string(b, sb, sizeof sb));
    }
    return tp_set_output(ctx, 0, kernel->out_dtype, ndims, dims);
}

/* TF rejects these integer operands at run time; so do we, before any loop
 * could divide by zero. */
static tfpi_code check_operand_b(tp_op_ctx *ctx, enum operand_check check)
{
    const tfpi_tensor *b = ctx->inputs[1];
    int64_t n = tp_num_elements(b);
    for (int64_t i = 0; i < n; i++) {
        int64_t v = tp_get_int(b, i);
        if (check == CHECK_NONZERO_DIVISOR && v == 0)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "integer division by zero");
        if (check == CHECK_NONNEGATIVE_EXPONENT && v < 0)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                           "integers to negative integer powers are not allowed");
    }
    return TFPI_OK;
}

typedef struct binary_job {
    const tp_broadcast *bc;
    binary_loop loop;
    const char *a, *b;
    char *out;
    size_t in_size, out_size;
} binary_job;

static void binary_run_segment(void *arg, int64_t out_offset, const int64_t *in_offsets, int64_t length)
{
    const binary_job *job = arg;
    job->loop(job->a + (size_t)in_offsets[0] * job->in_size, job->b + (size_t)in_offsets[1] * job->in_size,
              job->out + (size_t)out_offset * job->out_size, length);
}

static void binary_run_range(void *arg, int64_t begin, int64_t end)
{
    const binary_job *job = arg;
    tp_broadcast_walk(job->bc, begin, end, binary_run_segment, arg);
}

static tfpi_code binary_run(tp_op_ctx *ctx)
{
    const binary_state *state = ctx->state;
    const binary_kernel *kernel = state->kernel;
    if (kernel->check != CHECK_NONE) {
        tfpi_code code = check_operand_b(ctx, kernel->check);
        if (code != TFPI_OK)
            return code;
    }
    binary_job job = {
        .bc = &state->bc,
        .loop = tp_broadcast_inner_is_scalar(&state->bc, 1)   ? kernel->b_repeats
                : tp_broadcast_inner_is_scalar(&state->bc, 0) ? kernel->a_repeats
                                                              : kernel->both_runs,
        .a = ctx->inputs[0]->data,
        .b = ctx->inputs[1]->data,
        .out = ctx->outputs[0].data,
        .in_size = tfpi_dtype_size(kernel->in_dtype),
        .out_size = tfpi_dtype_size(kernel->out_dtype),
    };
    tp_parallel_for(ctx->pool, state->bc.num_elements, 16384, binary_run_range, &job);
    return TFPI_OK;
}

static void binary_release(void *state) { free(state); }

const tp_kernel tp_kernels_cwise_binary[] = {
    TP_KERNEL("Add", binary_prepare, binary_run, binary_release, 0),
    TP_KERNEL("AddV2", binary_prepare, binary_run, binary_release, 0),
    TP_KERNEL("Sub", binary_prepare, binary_run, binary_release, 0),
    TP_KERNEL("Mul", binary_prepare, binary_run, binary_release, 0),
    TP_KERNEL("RealDiv", binary_prepare, binary_run, binary_release, 0),
    TP_KERNEL("Div", binary_prepare, binary_run, binary_release, 0),
    TP_KERNEL("TruncateDiv", binary_prepare, binary_run, binary_release, 0),
    TP_KERNEL("FloorDiv", binary_prepare, binary_run, binary_release, 0),
    TP_KERNEL("FloorMod", binary_prepare, binary_run, binary_release, 0),
    TP_KERNEL("Maximum", binary_prepare, binary_run, binary_release, 0),
    TP_KERNEL("Minimum", binary_prepare, binary_run, binary_release, 0),
    TP_KERNEL("SquaredDifference", binary_prepare, binary_run, binary_release, 0),
    TP_KERNEL("Pow", binary_prepare, binary_run, binary_release, 0),
    TP_KERNEL("Equal", binary_prepare, binary_run, binary_release, 0),
    TP_KERNEL("NotEqual", binary_prepare, binary_run, binary_release, 0),
    TP_KERNEL("Less", binary_prepare, binary_run, binary_release, 0),
    TP_KERNEL("LessEqual", binary_prepare, binary_run, binary_release, 0),
    TP_KERNEL("Greater", binary_prepare, binary_run, binary_release, 0),
    TP_KERNEL("GreaterEqual", binary_prepare, binary_run, binary_release, 0),
    TP_KERNEL("LogicalAnd", binary_prepare, binary_run, binary_release, 0),
    TP_KERNEL("LogicalOr", binary_prepare, binary_run, binary_release, 0),
    TP_KERNELS_END,
};
