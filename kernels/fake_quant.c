/* fake_quant.c - FakeQuantWithMinMaxArgs (range in attrs) and
 * FakeQuantWithMinMaxVars (range in scalar inputs): float32 in and out,
 * values snapped to the 8-bit (num_bits) grid TF's quantization training
 * uses, with TF's nudging of the range so that zero is exact. */
#include <math.h>

#include "kernel/kernel.h"

typedef struct nudged_range {
    float min, max, scale;
} nudged_range;

static nudged_range nudge(float min, float max, int num_bits, bool narrow_range)
{
    float quant_min = narrow_range ? 1.0f : 0.0f, quant_max = (float)((1 << num_bits) - 1);
    float scale = (max - min) / (quant_max - quant_min);
    float zero_from_min = quant_min - min / scale;
    float zero = zero_from_min < quant_min ? quant_min
                 : zero_from_min > quant_max ? quant_max
                                             : roundf(zero_from_min);
    return (nudged_range){(quant_min - zero) * scale, (quant_max - zero) * scale, scale};
}

static tfpi_code fake_quant_prepare(tp_op_ctx *ctx)
{
    bool vars = ctx->num_inputs == 3;
    tfpi_code code = tp_expect_inputs(ctx, 1, 3);
    if (code == TFPI_OK)
        code = tp_expect_dtype(ctx, 0, TFPI_FLOAT);
    for (int i = 1; code == TFPI_OK && i < ctx->num_inputs; i++)
        if (ctx->inputs[i]->dtype != TFPI_FLOAT || tp_num_elements(ctx->inputs[i]) != 1)
            code = tp_fail(ctx, TFPI_INVALID_ARGUMENT, "min and max must be float scalars");
    int64_t bits = tp_attr_int(ctx->def, "num_bits", 8);
    if (code == TFPI_OK && (bits < 2 || bits > 16))
        code = tp_fail(ctx, TFPI_INVALID_ARGUMENT, "num_bits %lld is outside 2..16", (long long)bits);
    if (code == TFPI_OK && !vars && ctx->num_inputs != 1)
        code = tp_fail(ctx, TFPI_INVALID_ARGUMENT, "expects 1 input (Args) or 3 (Vars)");
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *in = ctx->inputs[0];
    return tp_set_output(ctx, 0, TFPI_FLOAT, in->ndims, in->dims);
}

static tfpi_code fake_quant_run(tp_op_ctx *ctx)
{
    bool vars = ctx->num_inputs == 3;
    float min = vars ? *(const float *)ctx->inputs[1]->data : tp_attr_float(ctx->def, "min", -6.0f);
    float max = vars ? *(const float *)ctx->inputs[2]->data : tp_attr_float(ctx->def, "max", 6.0f);
    if (!(min <= 0.0f && max >= 0.0f && min < max))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "range [%g, %g] must contain 0 and be non-empty", (double)min,
                       (double)max);
    nudged_range r = nudge(min, max, (int)tp_attr_int(ctx->def, "num_bits", 8), tp_attr_bool(ctx->def, "narrow_range", false));
    float inverse_scale = 1.0f / r.scale;
    const float *x = ctx->inputs[0]->data;
    float *y = ctx->outputs[0].data;
    for (int64_t i = 0, n = tp_num_elements(ctx->inputs[0]); i < n; i++) {
        float clamped = x[i] < r.min ? r.min : x[i] > r.max ? r.max : x[i];
        y[i] = floorf((clamped - r.min) * inverse_scale + 0.5f) * r.scale + r.min;
    }
    return TFPI_OK;
}

const tp_kernel tp_kernels_fake_quant[] = {
    TP_KERNEL("FakeQuantWithMinMaxArgs", fake_quant_prepare, fake_quant_run, NULL, 0),
    TP_KERNEL("FakeQuantWithMinMaxVars", fake_quant_prepare, fake_quant_run, NULL, 0),
    TP_KERNELS_END,
};
