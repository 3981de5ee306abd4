/* pad.c - Pad (zeros), PadV2 (a constant_values scalar) and MirrorPad
 * (REFLECT: mirror without the edge; SYMMETRIC: with it) on any element
 * type, with a paddings input [rank, 2] known while planning; and
 * TensorFlow Lite's PAD and PADV2 (compute/tflite_node.h), the same ops
 * on codes: PAD of a uint8 / int8 tensor pads with the output's zero
 * point (the code of 0.0), PADV2 with its constant_values code.
 *
 * prepare builds, for every output dimension, the input index each output
 * index reads (or OUTSIDE for the constant). run walks the output row by
 * row (a row runs along the last dimension): a row whose outer indices
 * fall outside is all constant; otherwise its padding elements go through
 * the map and its interior is one memcpy. Trailing dims without padding
 * join the row (their maps are the joined dim's). */
#include <stdlib.h>
#include <string.h>

#include "compute/tflite_node.h"
#include "core/checked_math.h"
#include "kernel/array_kernel_util.h"

enum { OUTSIDE = -1 };
enum { JOINED_MAP_MAX = 1 << 16 }; /* entries of a joined dim's map, at most */

typedef struct pad_state {
    int rank; /* at least 1: a scalar is padded as a vector of one */
    int64_t in_dims[TFPI_MAX_DIMS], out_dims[TFPI_MAX_DIMS], before[TFPI_MAX_DIMS];
    int64_t *source[TFPI_MAX_DIMS]; /* per dim: out_dims[d] input indices or OUTSIDE */
    bool pad_zero_point;            /* TFLite PAD of codes: pad with zero_code */
    uint8_t zero_code;
    int64_t indices[];              /* storage of the source maps */
} pad_state;

typedef enum pad_mode { PAD_CONSTANT, PAD_REFLECT, PAD_SYMMETRIC } pad_mode;

static tfpi_code read_mode(tp_op_ctx *ctx, pad_mode *mode)
{
    char name[16];
    if (strcmp(ctx->def->op, "MirrorPad") != 0) {
        *mode = PAD_CONSTANT;
        return TFPI_OK;
    }
    tp_attr_string(ctx->def, "mode", name, sizeof name, "");
    if (strcmp(name, "REFLECT") == 0)
        *mode = PAD_REFLECT;
    else if (strcmp(name, "SYMMETRIC") == 0)
        *mode = PAD_SYMMETRIC;
    else
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "mode must be REFLECT or SYMMETRIC, not '%s'", name);
    return TFPI_OK;
}

/* The input index output index i (before = padding in front) reads. */
static int64_t source_index(int64_t i, int64_t before, int64_t size, pad_mode mode)
{
    int64_t k = i - before;
    if (k >= 0 && k < size)
        return k;
    if (mode == PAD_CONSTANT)
        return OUTSIDE;
    int64_t edge = mode == PAD_REFLECT ? 0 : 1; /* SYMMETRIC repeats the edge element */
    return k < 0 ? -k - edge : 2 * size - 2 + edge - k;
}

static tfpi_code check_paddings(tp_op_ctx *ctx, const int64_t *paddings, int count, pad_mode mode)
{
    const tfpi_tensor *in = ctx->inputs[0], *p = ctx->inputs[1];
    if (p->ndims != 2 || p->dims[0] != in->ndims || p->dims[1] != 2 || count != 2 * in->ndims)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "paddings must have shape [%d, 2]", in->ndims);
    for (int d = 0; d < in->ndims; d++) {
        int64_t most = mode == PAD_REFLECT     ? in->dims[d] - 1
                       : mode == PAD_SYMMETRIC ? in->dims[d]
                                               : INT64_MAX;
        for (int side = 0; side < 2; side++)
            if (paddings[2 * d + side] < 0 || paddings[2 * d + side] > most)
                return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                               "paddings[%d][%d] = %lld is outside [0, %lld] for dimension size %lld", d,
                               side, (long long)paddings[2 * d + side], (long long)most,
                               (long long)in->dims[d]);
    }
    return TFPI_OK;
}

static tfpi_code pad_prepare(tp_op_ctx *ctx)
{
    bool v2 = strcmp(ctx->def->op, "PadV2") == 0 || strcmp(ctx->def->op, "PADV2") == 0;
    tfpi_code code = tp_expect_inputs(ctx, v2 ? 3 : 2, v2 ? 3 : 2);
    pad_mode mode = PAD_CONSTANT;
    int64_t paddings[2 * TFPI_MAX_DIMS];
    int count = 0;
    if (code == TFPI_OK)
        code = read_mode(ctx, &mode);
    if (code == TFPI_OK)
        code = tp_read_index_values(ctx, 1, "paddings", paddings, 2 * TFPI_MAX_DIMS, &count);
    if (code == TFPI_OK)
        code = check_paddings(ctx, paddings, count, mode);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *in = ctx->inputs[0];
    if (v2 && (ctx->inputs[2]->dtype != in->dtype || tp_num_elements(ctx->inputs[2]) != 1))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "constant_values must be one %s value",
                       tfpi_dtype_name(in->dtype));
    int64_t out_dims[TFPI_MAX_DIMS], total = 1;
    for (int d = 0; d < in->ndims; d++)
        out_dims[d] = tp_sat_add(tp_sat_add(in->dims[d], paddings[2 * d]), paddings[2 * d + 1]);
    if ((code = tp_set_output(ctx, 0, in->dtype, in->ndims, out_dims)) != TFPI_OK)
        return code;
    tp_tfl_qparams q = {0};
    const bool codes = strcmp(ctx->def->op, "PAD") == 0 && (in->dtype == TFPI_UINT8 || in->dtype == TFPI_INT8);
    if (codes && (code = tp_tfl_qparams_of(ctx, "out", 0, &q)) != TFPI_OK)
        return code;
    if (tp_num_elements(&ctx->outputs[0]) == 0) /* not run (tp_kernel_run): no maps, however long the dims */
        return TFPI_OK;
    /* trailing dims without padding join the dim before them while its map
     * stays short (an NHWC picture padded in H and W: rows of W x C, not of C) */
    int rank = in->ndims > 0 ? in->ndims : 1;
    int64_t inner = 1;
    while (rank > 1 && paddings[2 * (rank - 1)] == 0 && paddings[2 * (rank - 1) + 1] == 0 &&
           tp_sat_mul(tp_sat_mul(inner, in->dims[rank - 1]), out_dims[rank - 2]) <= JOINED_MAP_MAX)
        inner *= in->dims[--rank];
    for (int d = 0; d < rank; d++)
        total += in->ndims > 0 ? out_dims[d] * (d == rank - 1 ? inner : 1) : 1;
    pad_state *s = calloc(1, sizeof *s + (size_t)total * sizeof s->indices[0]);
    if (!(ctx->state = s))
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    s->rank = rank;
    s->pad_zero_point = codes;
    s->zero_code = (uint8_t)q.zero_point; /* an int8 code's byte is its low byte */
    int64_t *next = s->indices;
    for (int d = 0; d < s->rank; d++) {
        const int64_t joined = d == rank - 1 ? inner : 1;
        s->in_dims[d] = (in->ndims > 0 ? in->dims[d] : 1) * joined;
        s->out_dims[d] = (in->ndims > 0 ? out_dims[d] : 1) * joined;
        s->before[d] = (in->ndims > 0 ? paddings[2 * d] : 0) * joined;
        s->source[d] = next;
        for (int64_t i = 0; i < s->out_dims[d]; i++) {
            const int64_t k = source_index(i / joined, s->before[d] / joined, s->in_dims[d] / joined, mode);
            *next++ = k == OUTSIDE ? OUTSIDE : k * joined + i % joined;
        }
    }
    return TFPI_OK;
}

/* Copies output elements [begin, end) of a row through the last dim's map;
 * src_row is NULL for a row outside the input. */
static void copy_mapped(char *dst, const char *src_row, const int64_t *source, int64_t begin,
                        int64_t end, const void *constant, size_t size)
{
    for (int64_t i = begin; i < end; i++) {
        const char *from = src_row && source[i] != OUTSIDE ? src_row + source[i] * (int64_t)size : constant;
        if (size == 1)
            dst[i] = *from;
        else
            memcpy(dst + i * (int64_t)size, from, size);
    }
}

static tfpi_code pad_run(tp_op_ctx *ctx)
{
    const pad_state *s = ctx->state;
    const tfpi_tensor *in = ctx->inputs[0];
    size_t size = tfpi_dtype_size(in->dtype);
    static const union {
        tfpi_bytes string;
        double number;
    } zero; /* all-zero bytes: the zero of every element type */
    const void *constant = ctx->num_inputs == 3 ? ctx->inputs[2]->data
                           : s->pad_zero_point  ? (const void *)&s->zero_code
                                                : (const void *)&zero;
    int last = s->rank - 1;
    int64_t out_row = s->out_dims[last], in_row = s->in_dims[last], rows = 1;
    for (int d = 0; d < last; d++)
        rows *= s->out_dims[d];
    int64_t index[TFPI_MAX_DIMS] = {0};
    char *dst = ctx->outputs[0].data;
    for (int64_t r = 0; r < rows && out_row > 0; r++, dst += out_row * (int64_t)size) {
        int64_t src = 0; /* input row number, or OUTSIDE */
        for (int d = 0; d < last && src != OUTSIDE; d++) {
            int64_t k = s->source[d][index[d]];
            src = k == OUTSIDE ? OUTSIDE : src * s->in_dims[d] + k;
        }
        const char *src_row =
            src == OUTSIDE ? NULL : (const char *)in->data + src * in_row * (int64_t)size;
        int64_t lo = s->before[last], hi = lo + in_row;
        copy_mapped(dst, src_row, s->source[last], 0, src_row ? lo : out_row, constant, size);
        if (src_row) {
            memcpy(dst + lo * (int64_t)size, src_row, (size_t)in_row * size);
            copy_mapped(dst, src_row, s->source[last], hi, out_row, constant, size);
        }
        for (int d = last - 1; d >= 0 && ++index[d] == s->out_dims[d]; d--)
            index[d] = 0;
    }
    return TFPI_OK;
}

const tp_kernel tp_kernels_pad[] = {
    TP_KERNEL("Pad", pad_prepare, pad_run, free, 0),
    TP_KERNEL("PadV2", pad_prepare, pad_run, free, 0),
    TP_KERNEL("MirrorPad", pad_prepare, pad_run, free, 0),
    TP_KERNEL("PAD", pad_prepare, pad_run, free, TP_TFLITE_OP),
    TP_KERNEL("PADV2", pad_prepare, pad_run, free, TP_TFLITE_OP),
    TP_KERNELS_END,
};
