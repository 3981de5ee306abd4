/* random.c - RandomUniform: float or double values in [0, 1) of a shape
 * known while planning. TP_STATEFUL: never folded, and every run draws new
 * numbers from where the last run stopped (a new plan, made when the
 * feed shapes change, starts the stream again).
 *
 * TensorFlow's exact Philox stream is not reproduced. The generator is
 * SplitMix64 (Steele, Lea and Flood, 2014: a 64-bit counter stepped by the
 * golden ratio and passed through a mixing function; it passes BigCrush).
 * Its start comes from the seed and seed2 attrs, so a seeded op gives the
 * same numbers on every run of a fresh session. TF draws an unpredictable
 * stream when both seeds are 0; tfpi instead seeds from the node's name, so
 * results stay reproducible and unseeded ops still differ from each other.
 * A float takes the top 24 bits of a draw, a double the top 53. */
#include <stdlib.h>

#include "kernel/array_kernel_util.h"

static uint64_t splitmix64_next(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* FNV-1a of the node name: the seed of unseeded ops. */
static uint64_t name_hash(const char *name)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (; *name; name++)
        h = (h ^ (unsigned char)*name) * UINT64_C(0x100000001b3);
    return h;
}

static tfpi_code random_uniform_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 1, 1);
    int64_t dims[TFPI_MAX_DIMS];
    int ndims = 0;
    if (code == TFPI_OK)
        code = tp_read_index_values(ctx, 0, "shape", dims, TFPI_MAX_DIMS, &ndims);
    if (code != TFPI_OK)
        return code;
    tfpi_dtype type = tp_attr_type(ctx->def, "dtype", TFPI_FLOAT);
    if (type != TFPI_FLOAT && type != TFPI_DOUBLE)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "dtype must be float or double, not %s",
                       tfpi_dtype_name(type));
    for (int d = 0; d < ndims; d++)
        if (dims[d] < 0)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "shape[%d] = %lld is negative", d, (long long)dims[d]);
    uint64_t *state = malloc(sizeof *state);
    if (!(ctx->state = state))
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    uint64_t seed = (uint64_t)tp_attr_int(ctx->def, "seed", 0), seed2 = (uint64_t)tp_attr_int(ctx->def, "seed2", 0);
    if (seed == 0 && seed2 == 0) {
        *state = name_hash(ctx->def->name);
    } else {
        uint64_t mixed = seed;
        *state = splitmix64_next(&mixed) ^ seed2;
    }
    return tp_set_output(ctx, 0, type, ndims, dims);
}

static tfpi_code random_uniform_run(tp_op_ctx *ctx)
{
    uint64_t *state = ctx->state;
    tfpi_tensor *out = &ctx->outputs[0];
    int64_t n = tp_num_elements(out);
    if (out->dtype == TFPI_FLOAT) {
        float *values = out->data;
        for (int64_t i = 0; i < n; i++)
            values[i] = (float)(splitmix64_next(state) >> 40) * 0x1p-24f;
    } else {
        double *values = out->data;
        for (int64_t i = 0; i < n; i++)
            values[i] = (double)(splitmix64_next(state) >> 11) * 0x1p-53;
    }
    return TFPI_OK;
}

const tp_kernel tp_kernels_random[] = {
    TP_KERNEL("RandomUniform", random_uniform_prepare, random_uniform_run, free, TP_STATEFUL),
    TP_KERNELS_END,
};
