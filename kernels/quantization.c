/* quantization.c - QuantizeV2 (float32 to quint8, qint8, quint16, qint16
 * or qint32 with the range it used) and Dequantize (back to float32), in
 * TF's three modes, with TF 1.15's arithmetic (../shared/docs/quantized.md
 * section 2): MIN_FIRST through the float32 "Eigen" forms of
 * compute/quantize_math.h (what quantize_nodes and quantize_weights
 * graphs use), MIN_COMBINED with its half-code shift for signed types, and
 * SCALED in its symmetric side form. QuantizeV2 first widens the range to
 * hold 0 and to be at least 1% of its largest magnitude wide; to quint8
 * MIN_FIRST it takes over the QuantizedBiasAdd, Requantize and Relu nodes
 * after it (compute/qepilogue.h), a few rows of codes at a time. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/kernel.h"
#include "compute/qepilogue.h"

typedef enum quantize_mode { MIN_COMBINED, MIN_FIRST, SCALED, UNKNOWN_MODE } quantize_mode;

static quantize_mode parse_mode(const tp_op_ctx *ctx)
{
    static const char *const names[] = {"MIN_COMBINED", "MIN_FIRST", "SCALED"};
    char buf[32];
    const char *mode = tp_attr_string(ctx->def, "mode", buf, sizeof buf, "MIN_COMBINED");
    for (int m = 0; m < UNKNOWN_MODE; m++)
        if (strcmp(mode, names[m]) == 0)
            return (quantize_mode)m;
    return UNKNOWN_MODE;
}

/* Attribute checks both ops share. */
static tfpi_code check_common_attrs(tp_op_ctx *ctx)
{
    if (parse_mode(ctx) == UNKNOWN_MODE)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "mode must be MIN_COMBINED, MIN_FIRST or SCALED");
    if (tp_attr_int(ctx->def, "axis", -1) != -1)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "per-channel ranges (axis attr) are not supported");
    if (tp_attr_bool(ctx->def, "narrow_range", false) && parse_mode(ctx) != SCALED)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "narrow_range is supported in mode SCALED only");
    return TFPI_OK;
}

/* The SCALED mode's symmetric scale (side form): the larger of the scales
 * that map min to the lowest code and max to the highest. */
typedef struct scaled_range {
    float scale, min, max;
} scaled_range;

static scaled_range scaled_range_of(float min, float max, const tp_qtype *t, bool narrow_range)
{
    float lowest = (float)(t->lo + (narrow_range && t->lo < 0 ? 1 : 0)), highest = (float)t->hi;
    float scale_min = lowest * min > 0 ? (float)(lowest / min) : FLT_MAX;
    float scale_max = highest * max > 0 ? (float)(highest / max) : FLT_MAX;
    scaled_range r;
    r.scale = fminf(scale_min, scale_max);
    r.min = (float)(lowest / r.scale);
    r.max = (float)(highest / r.scale);
    return r;
}

/* ---- QuantizeV2 ---- */

static void quantize_release(void *state)
{
    if (state)
        tp_qepilogue_free(state);
    free(state);
}

static tfpi_code quantize_absorb(tp_op_ctx *ctx, tp_op_ctx *next)
{
    if (parse_mode(ctx) != MIN_FIRST || ctx->outputs[0].dtype != TFPI_QUINT8)
        return TFPI_UNIMPLEMENTED;
    return tp_qepilogue_absorb(ctx->state, ctx, next);
}

enum { CHUNK_ELEMENTS = 4096 };

/* The codes of x, a chunk of rows at a time, through the nodes taken over. */
static tfpi_code quantize_through(tp_op_ctx *ctx, const tp_qepilogue *e, const tp_q_quantizer *qz, const float *x,
                                  int64_t n)
{
    const int64_t rows = n / e->channels, chunk = e->channels >= CHUNK_ELEMENTS ? 1 : CHUNK_ELEMENTS / e->channels;
    uint8_t *codes = malloc((size_t)(chunk * e->channels));
    void *scratch = malloc((size_t)tp_qepilogue_scratch_bytes(e));
    for (int64_t r = 0; codes && scratch && r < rows; r += chunk) {
        const int64_t count = rows - r < chunk ? rows - r : chunk;
        tp_q_quantize_many_u8(qz, x + r * e->channels, codes, count * e->channels);
        tp_qepilogue_rows(e, codes, r, count, scratch);
    }
    tfpi_code code = codes && scratch ? TFPI_OK : tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    free(codes);
    free(scratch);
    return code;
}

static tfpi_code quantize_prepare(tp_op_ctx *ctx)
{
    tfpi_code code;
    if ((code = tp_expect_inputs(ctx, 3, 3)) != TFPI_OK || (code = tp_expect_dtype(ctx, 0, TFPI_FLOAT)) != TFPI_OK ||
        (code = tp_q_expect_scalars(ctx, 1, 2)) != TFPI_OK || (code = check_common_attrs(ctx)) != TFPI_OK)
        return code;
    tfpi_dtype dtype = tp_attr_type(ctx->def, "T", TFPI_QUINT8);
    if (!tp_qtype_of(dtype))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "T is %s; QuantizeV2 makes quint8, qint8, quint16, qint16 or qint32",
                       tfpi_dtype_name(dtype));
    char buf[32];
    const char *round_mode = tp_attr_string(ctx->def, "round_mode", buf, sizeof buf, "HALF_AWAY_FROM_ZERO");
    if (strcmp(round_mode, "HALF_AWAY_FROM_ZERO") != 0 &&
        (strcmp(round_mode, "HALF_TO_EVEN") != 0 || parse_mode(ctx) != SCALED))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "round_mode '%s' is not supported (HALF_AWAY_FROM_ZERO; HALF_TO_EVEN in mode SCALED)",
                       round_mode);
    if (!(ctx->state = calloc(1, sizeof(tp_qepilogue))))
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    const tfpi_tensor *in = ctx->inputs[0];
    return tp_q_prepare_outputs(ctx, dtype, in->ndims, in->dims);
}

static float clampf(float x, float lo, float hi) { return x < lo ? lo : x > hi ? hi : x; }

static tfpi_code quantize_run(tp_op_ctx *ctx)
{
    float in_min, in_max;
    tfpi_code code = tp_q_read_range(ctx, 1, 2, "the input", &in_min, &in_max);
    if (code != TFPI_OK)
        return code;
    const tp_qtype *t = tp_qtype_of(ctx->outputs[0].dtype);
    /* TF 1.15's range adjustment: hold 0, at least 1% of the magnitude wide
     * (TF 2.x graphs carry ensure_minimum_range, a factor instead of / 100) */
    float min = fminf(0.0f, in_min);
    float magnitude = fmaxf(1.0f, fmaxf(fabsf(in_min), fabsf(in_max)));
    const Tfpi__AttrValue *ensure = tp_attr(ctx->def, "ensure_minimum_range");
    float epsilon = ensure ? (float)(magnitude * ensure->f) : magnitude / 100.0f;
    float max = fmaxf(0.0f, fmaxf(in_max, (float)(min + epsilon)));
    const float *x = ctx->inputs[0]->data;
    void *out = ctx->outputs[0].data;
    const int64_t n = tp_num_elements(ctx->inputs[0]);
    switch (parse_mode(ctx)) {
    case MIN_FIRST: {
        const tp_qepilogue *e = ctx->state;
        tp_q_quantizer qz = tp_q_quantizer_make(min, max, t);
        if (e->num_steps) {
            tp_q_write_range(ctx, 1, min, max);
            return (code = tp_qepilogue_begin(ctx->state)) != TFPI_OK ? code : quantize_through(ctx, e, &qz, x, n);
        }
        if (t->dtype == TFPI_QUINT8)
            tp_q_quantize_many_u8(&qz, x, out, n);
        else
            for (int64_t i = 0; i < n; i++)
                tp_qcode_set(t, out, i, tp_q_quantize_e(&qz, x[i]));
        break;
    }
    case MIN_COMBINED: {
        float scale = (float)((double)(t->hi - t->lo) / (double)(float)(max - min));
        float half = t->lo < 0 ? (float)((t->hi - t->lo + 1) / 2) : 0.0f;
        for (int64_t i = 0; i < n; i++) {
            float scaled = (float)((float)(clampf(x[i], min, max) - min) * scale);
            float v = t->lo < 0 ? roundf((float)(scaled - half)) : truncf((float)(scaled + 0.5f));
            tp_qcode_set(t, out, i, (int64_t)clampf(v, fmaxf((float)t->lo, -2147483648.0f),
                                                    fminf((float)t->hi, 2147483520.0f)));
        }
        break;
    }
    case SCALED: {
        scaled_range r = scaled_range_of(min, max, t, tp_attr_bool(ctx->def, "narrow_range", false));
        char buf[32];
        bool to_even = strcmp(tp_attr_string(ctx->def, "round_mode", buf, sizeof buf, ""), "HALF_TO_EVEN") == 0;
        for (int64_t i = 0; i < n; i++) {
            float scaled = (float)(clampf(x[i], r.min, r.max) * r.scale);
            float v = to_even ? nearbyintf(scaled) : roundf(scaled);
            tp_qcode_set(t, out, i, (int64_t)clampf(v, fmaxf((float)t->lo, -2147483648.0f),
                                                    fminf((float)t->hi, 2147483520.0f)));
        }
        min = r.min;
        max = r.max;
        break;
    }
    case UNKNOWN_MODE: /* rejected by prepare */
        break;
    }
    tp_q_write_range(ctx, 1, min, max);
    return TFPI_OK;
}

/* ---- Dequantize ---- */

static tfpi_code dequantize_prepare(tp_op_ctx *ctx)
{
    const tp_qtype *t;
    tfpi_code code;
    if ((code = tp_expect_inputs(ctx, 3, 3)) != TFPI_OK || (code = tp_q_expect_scalars(ctx, 1, 2)) != TFPI_OK ||
        (code = tp_q_expect_quantized(ctx, 0, &t)) != TFPI_OK || (code = check_common_attrs(ctx)) != TFPI_OK)
        return code;
    if (tp_attr_type(ctx->def, "dtype", TFPI_FLOAT) != TFPI_FLOAT)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "only float32 output is supported");
    const tfpi_tensor *in = ctx->inputs[0];
    return tp_set_output(ctx, 0, TFPI_FLOAT, in->ndims, in->dims);
}

static tfpi_code dequantize_run(tp_op_ctx *ctx)
{
    const tfpi_tensor *in = ctx->inputs[0];
    const tp_qtype *t = tp_qtype_of(in->dtype);
    float min, max;
    tfpi_code code = tp_q_read_range(ctx, 1, 2, "the input", &min, &max);
    if (code != TFPI_OK)
        return code;
    float *out = ctx->outputs[0].data;
    const int64_t n = tp_num_elements(in);
    switch (parse_mode(ctx)) {
    case MIN_COMBINED: {
        float scale = (float)((float)(max - min) / (float)(t->hi - t->lo));
        float half = t->lo < 0 ? (float)(t->hi - t->lo + 1) / 2.0f : 0.0f;
        for (int64_t i = 0; i < n; i++)
            out[i] = (float)((float)((float)((float)tp_qcode_get(t, in->data, i) + half) * scale) + min);
        break;
    }
    case MIN_FIRST: {
        tp_q_dequantizer dq = tp_q_dequantizer_make(min, max, t);
        if (t->dtype == TFPI_QUINT8) {
            tp_q_dequantize_many_u8(&dq, in->data, out, n);
        } else {
            for (int64_t i = 0; i < n; i++)
                out[i] = tp_q_dequantize_e(&dq, tp_qcode_get(t, in->data, i));
        }
        break;
    }
    case SCALED: {
        bool narrow_range = tp_attr_bool(ctx->def, "narrow_range", false);
        float lowest = (float)(t->lo + (narrow_range ? 1 : 0)), highest = (float)t->hi;
        float scale = t->lo == 0 ? (float)(max / highest) : fmaxf((float)(min / lowest), (float)(max / highest));
        for (int64_t i = 0; i < n; i++)
            out[i] = (float)((float)tp_qcode_get(t, in->data, i) * scale);
        break;
    }
    case UNKNOWN_MODE: /* rejected by prepare */
        break;
    }
    return TFPI_OK;
}

const tp_kernel tp_kernels_quantization[] = {
    TP_KERNEL_ABSORBING("QuantizeV2", quantize_prepare, quantize_run, quantize_release, TP_OUTPUTS(3), quantize_absorb),
    TP_KERNEL("Dequantize", dequantize_prepare, dequantize_run, NULL, 0),
    TP_KERNELS_END,
};
