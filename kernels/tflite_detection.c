/* tflite_detection.c - TensorFlow Lite's custom TFLite_Detection_PostProcess
 * (the last op of every classic SSD .tflite), as TFLite's kernel defines it
 * (tensorflow/lite/kernels/detection_postprocess.cc). Inputs: box encodings
 * [1, boxes, >= 4] (y, x, h, w), class scores [1, boxes, classes (+1 with a
 * background class first)], anchors [boxes, 4] (y, x, h, w); float32, or
 * uint8 dequantized as (q - zero point) x scale. Options (attributes from
 * the FlexBuffer map): max_detections, max_classes_per_detection,
 * detections_per_class (100), use_regular_nms (false), nms_score_threshold,
 * nms_iou_threshold, num_classes, y_scale, x_scale, h_scale, w_scale.
 *  - Decoding (in double, rounded to float): centre = encoding / scale x
 *    anchor size + anchor centre, half size = exp(encoding / scale) / 2 x
 *    anchor size; a box with ymin > ymax or xmin > xmax is an error.
 *  - One class's NMS: scores >= the threshold, sorted decreasing (stable),
 *    each kept box suppresses later ones whose IoU with it exceeds the IoU
 *    threshold, up to a limit.
 *  - Fast NMS: each box keeps its best min(max_classes_per_detection,
 *    classes) classes; NMS over the boxes' best scores (max_detections);
 *    each kept box fills max_classes_per_detection rows.
 *  - Regular NMS: NMS per class (detections_per_class), merged into the
 *    best max_detections by score.
 * Outputs (float32, shaped while planning as TFLite's Prepare does): boxes
 * [1, N, 4] (ymin, xmin, ymax, xmax), classes [1, N], scores [1, N] and the
 * count [1], N = max_detections x max_classes_per_detection; rows past the
 * count are zero. Where TFLite sorts with std::partial_sort (classes of a
 * box beyond the first, the regular merge), equal scores keep their
 * order here; TFLite's order among equal scores is its library's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compute/tflite_node.h"
#include "core/checked_math.h"

typedef struct detection_options {
    int64_t max_detections, max_classes_per_detection, detections_per_class, num_classes;
    bool regular;
    float score_threshold, iou_threshold;
    float scale[4]; /* y, x, h, w */
} detection_options;

typedef struct detection_state {
    detection_options o;
    int64_t boxes, encoding_length, classes_with_background, label_offset, rows;
    tp_tfl_qparams q[3]; /* uint8 inputs: encodings, scores, anchors */
    bool quantized;
} detection_state;

static void detection_release(void *state) { free(state); }

/* A number attribute written as a float, int or bool. */
static double number_attr(const tp_op_ctx *ctx, const char *name, double fallback, bool *present)
{
    const Tfpi__AttrValue *a = tp_attr(ctx->def, name);
    *present = true;
    if (a && a->value_case == TFPI__ATTR_VALUE__VALUE_F)
        return a->f;
    if (a && a->value_case == TFPI__ATTR_VALUE__VALUE_I)
        return (double)a->i;
    if (a && a->value_case == TFPI__ATTR_VALUE__VALUE_B)
        return a->b;
    *present = false;
    return fallback;
}

static tfpi_code read_options(tp_op_ctx *ctx, detection_options *o)
{
    static const char *const required[] = {"max_detections", "max_classes_per_detection", "num_classes",
                                           "nms_score_threshold", "nms_iou_threshold", "y_scale", "x_scale",
                                           "h_scale", "w_scale"};
    double v[9];
    bool present;
    for (int k = 0; k < 9; k++) {
        v[k] = number_attr(ctx, required[k], 0, &present);
        if (!present)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "option %s is missing", required[k]);
        if (!isfinite(v[k]))
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "option %s is %g", required[k], v[k]);
    }
    const double per_class = number_attr(ctx, "detections_per_class", 100, &present);
    o->regular = number_attr(ctx, "use_regular_nms", 0, &present) != 0;
    for (int k = 0; k < 3; k++)
        if (!(k == 2 ? v[k] >= 1 && v[k] <= 1 << 24 : v[k] >= 0 && v[k] <= 1 << 24) || v[k] != floor(v[k]))
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "option %s = %g is not a count", required[k], v[k]);
    if (!(per_class >= 1 && per_class <= 1 << 24) || per_class != floor(per_class))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "option detections_per_class = %g is not a count", per_class);
    if (v[1] < 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "option max_classes_per_detection must be at least 1");
    o->max_detections = (int64_t)v[0], o->max_classes_per_detection = (int64_t)v[1];
    o->num_classes = (int64_t)v[2], o->detections_per_class = (int64_t)per_class;
    o->score_threshold = (float)v[3], o->iou_threshold = (float)v[4];
    if (!(o->iou_threshold > 0.0f && o->iou_threshold <= 1.0f))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "option nms_iou_threshold = %g must lie in (0, 1]", v[4]);
    for (int k = 0; k < 4; k++)
        o->scale[k] = (float)v[5 + k];
    return TFPI_OK;
}

static tfpi_code detection_prepare(tp_op_ctx *ctx)
{
    tfpi_code code;
    if ((code = tp_expect_inputs(ctx, 3, 3)) != TFPI_OK)
        return code;
    detection_state *s = calloc(1, sizeof *s);
    if (!s)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    ctx->state = s;
    if ((code = read_options(ctx, &s->o)) != TFPI_OK)
        return code;
    const tfpi_tensor *enc = ctx->inputs[0], *scores = ctx->inputs[1], *anchors = ctx->inputs[2];
    char a[96], b[96], c[96];
    if (enc->ndims != 3 || enc->dims[0] != 1 || enc->dims[2] < 4 || scores->ndims != 3 || scores->dims[0] != 1 ||
        scores->dims[1] != enc->dims[1] || anchors->ndims != 2 || anchors->dims[0] != enc->dims[1] ||
        anchors->dims[1] != 4)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "inputs must be box encodings [1, boxes, >=4], scores [1, boxes, classes] and anchors "
                       "[boxes, 4], not %s, %s and %s",
                       tp_shape_string(enc, a, sizeof a), tp_shape_string(scores, b, sizeof b),
                       tp_shape_string(anchors, c, sizeof c));
    s->boxes = enc->dims[1];
    s->encoding_length = enc->dims[2];
    s->classes_with_background = scores->dims[2];
    s->label_offset = s->classes_with_background - s->o.num_classes;
    if (s->label_offset != 0 && s->label_offset != 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "scores have %lld classes for num_classes %lld (at most one more)",
                       (long long)s->classes_with_background, (long long)s->o.num_classes);
    s->quantized = enc->dtype == TFPI_UINT8;
    for (int i = 0; i < 3; i++) {
        const tfpi_dtype want = s->quantized ? TFPI_UINT8 : TFPI_FLOAT;
        if (ctx->inputs[i]->dtype != want && !(i == 1 && ctx->inputs[i]->dtype == TFPI_FLOAT))
            return tp_fail(ctx, TFPI_UNIMPLEMENTED, "input %d is %s; with %s box encodings it must be %s", i,
                           tfpi_dtype_name(ctx->inputs[i]->dtype), tfpi_dtype_name(enc->dtype),
                           tfpi_dtype_name(want));
        if (ctx->inputs[i]->dtype == TFPI_UINT8 && (code = tp_tfl_qparams_of(ctx, "in", i, &s->q[i])) != TFPI_OK)
            return code;
    }
    /* the working buffers: decoded boxes, float scores, the NMS lists */
    int64_t score_count, work;
    if (!tp_checked_mul(s->boxes, s->classes_with_background, &score_count) ||
        !tp_checked_add(score_count, s->boxes * 12 + s->o.max_detections * 2, &work))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "%lld boxes of %lld classes are too many", (long long)s->boxes,
                       (long long)s->classes_with_background);
    if ((code = tp_expect_within_budget(ctx, work, sizeof(float) + sizeof(int64_t), "working values")) != TFPI_OK)
        return code;
    if (!tp_checked_mul(s->o.max_detections, s->o.max_classes_per_detection, &s->rows))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "max_detections x max_classes_per_detection overflows");
    const int64_t box_dims[3] = {1, s->rows, 4}, row_dims[2] = {1, s->rows}, one[1] = {1};
    if ((code = tp_set_output(ctx, 0, TFPI_FLOAT, 3, box_dims)) != TFPI_OK ||
        (ctx->num_outputs > 1 && (code = tp_set_output(ctx, 1, TFPI_FLOAT, 2, row_dims)) != TFPI_OK) ||
        (ctx->num_outputs > 2 && (code = tp_set_output(ctx, 2, TFPI_FLOAT, 2, row_dims)) != TFPI_OK) ||
        (ctx->num_outputs > 3 && (code = tp_set_output(ctx, 3, TFPI_FLOAT, 1, one)) != TFPI_OK))
        return code;
    return TFPI_OK;
}

/* ---- the run ---- */

typedef struct detection_run {
    const detection_state *s;
    float *boxes;  /* [boxes][4] ymin, xmin, ymax, xmax */
    float *scores; /* [boxes][classes_with_background] */
    int64_t *order, *keep, *selected; /* boxes each */
    float *keep_scores, *column;      /* boxes each */
    bool *active;
} detection_run;

static float dequantize(uint8_t q, const tp_tfl_qparams *p) { return ((float)q - (float)p->zero_point) * p->scale; }

/* The four values of row i of a [n, length] float or uint8 input. */
static void read_four(const tfpi_tensor *t, int64_t i, int64_t length, const tp_tfl_qparams *q, float out[4])
{
    for (int k = 0; k < 4; k++)
        out[k] = t->dtype == TFPI_UINT8 ? dequantize(((const uint8_t *)t->data)[i * length + k], q)
                                        : ((const float *)t->data)[i * length + k];
}

static tfpi_code decode_boxes(tp_op_ctx *ctx, detection_run *r)
{
    const detection_state *s = r->s;
    const float *scale = s->o.scale;
    for (int64_t i = 0; i < s->boxes; i++) {
        float e[4], an[4];
        read_four(ctx->inputs[0], i, s->encoding_length, &s->q[0], e);
        read_four(ctx->inputs[2], i, 4, &s->q[2], an);
        const float yc = (float)((double)e[0] / (double)scale[0] * (double)an[2] + (double)an[0]);
        const float xc = (float)((double)e[1] / (double)scale[1] * (double)an[3] + (double)an[1]);
        const float half_h = (float)(0.5 * exp((double)e[2] / (double)scale[2]) * (double)an[2]);
        const float half_w = (float)(0.5 * exp((double)e[3] / (double)scale[3]) * (double)an[3]);
        float *box = r->boxes + 4 * i;
        box[0] = yc - half_h, box[1] = xc - half_w, box[2] = yc + half_h, box[3] = xc + half_w;
        if (!(box[0] <= box[2]) || !(box[1] <= box[3]))
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                           "box %lld decodes to [%g, %g, %g, %g]: its minimum exceeds its maximum (or is NaN)",
                           (long long)i, (double)box[0], (double)box[1], (double)box[2], (double)box[3]);
    }
    return TFPI_OK;
}

static float iou(const float *a, const float *b)
{
    const float area_a = (a[2] - a[0]) * (a[3] - a[1]), area_b = (b[2] - b[0]) * (b[3] - b[1]);
    if (area_a <= 0 || area_b <= 0)
        return 0.0f;
    const float ih = fminf(a[2], b[2]) - fmaxf(a[0], b[0]), iw = fminf(a[3], b[3]) - fmaxf(a[1], b[1]);
    const float inter = (ih > 0.0f ? ih : 0.0f) * (iw > 0.0f ? iw : 0.0f);
    return inter / (area_a + area_b - inter);
}

/* Sorts idx[0..n) by values[idx] decreasing, equal values in their order
 * (a merge sort through tmp). */
static void sort_decreasing(int64_t *idx, int64_t *tmp, int64_t n, const float *values)
{
    for (int64_t width = 1; width < n; width *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * width) {
            const int64_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            int64_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = values[idx[j]] > values[idx[i]] ? idx[j++] : idx[i++];
            while (i < mid)
                tmp[k++] = idx[i++];
            while (j < hi)
                tmp[k++] = idx[j++];
        }
        memcpy(idx, tmp, sizeof *idx * (size_t)n);
    }
}

/* One class's NMS over scores[0..boxes): the kept box indices into
 * r->selected (count returned), at most limit. */
static int64_t single_class_nms(detection_run *r, const float *scores, int64_t limit)
{
    const detection_state *s = r->s;
    int64_t kept = 0;
    for (int64_t i = 0; i < s->boxes; i++)
        if (scores[i] >= s->o.score_threshold) {
            r->keep[kept] = i;
            r->keep_scores[kept] = scores[i];
            kept++;
        }
    for (int64_t i = 0; i < kept; i++)
        r->order[i] = i;
    sort_decreasing(r->order, r->selected, kept, r->keep_scores);
    int64_t count = 0, active = kept;
    for (int64_t i = 0; i < kept; i++)
        r->active[i] = true;
    int64_t *chosen = r->selected; /* reused: order is read from r->order */
    for (int64_t i = 0; i < kept && active > 0 && count < limit; i++) {
        if (!r->active[i])
            continue;
        const int64_t box = r->keep[r->order[i]];
        chosen[count++] = box;
        r->active[i] = false;
        active--;
        for (int64_t j = i + 1; j < kept; j++)
            if (r->active[j] && iou(r->boxes + 4 * box, r->boxes + 4 * r->keep[r->order[j]]) > s->o.iou_threshold) {
                r->active[j] = false;
                active--;
            }
    }
    return count;
}

/* Writes output row `row`: box `box`, class and score. */
static void write_row(tp_op_ctx *ctx, const detection_run *r, int64_t row, int64_t box, int64_t cls, float score)
{
    memcpy((float *)ctx->outputs[0].data + 4 * row, r->boxes + 4 * box, 4 * sizeof(float));
    if (ctx->num_outputs > 1)
        ((float *)ctx->outputs[1].data)[row] = (float)cls;
    if (ctx->num_outputs > 2)
        ((float *)ctx->outputs[2].data)[row] = score;
}

static int64_t fast_nms(tp_op_ctx *ctx, detection_run *r)
{
    const detection_state *s = r->s;
    const int64_t per_box = s->o.max_classes_per_detection < s->o.num_classes ? s->o.max_classes_per_detection
                                                                                : s->o.num_classes;
    for (int64_t b = 0; b < s->boxes; b++) { /* each box's best class score (the first of equals) */
        const float *row = r->scores + b * s->classes_with_background + s->label_offset;
        float best = row[0];
        for (int64_t c = 1; c < s->o.num_classes; c++)
            best = row[c] > best ? row[c] : best;
        r->column[b] = best;
    }
    const int64_t count = single_class_nms(r, r->column, s->o.max_detections);
    int64_t *classes = malloc(sizeof *classes * (size_t)(2 * (s->o.num_classes + 1)));
    if (!classes)
        return -1;
    for (int64_t k = 0; k < count; k++) {
        const int64_t box = r->selected[k];
        const float *row = r->scores + box * s->classes_with_background + s->label_offset;
        for (int64_t c = 0; c < s->o.num_classes; c++)
            classes[c] = c;
        sort_decreasing(classes, classes + s->o.num_classes, s->o.num_classes, row);
        for (int64_t c = 0; c < per_box; c++)
            write_row(ctx, r, s->o.max_classes_per_detection * k + c, box, classes[c], row[classes[c]]);
    }
    free(classes);
    return count;
}

static int64_t regular_nms(tp_op_ctx *ctx, detection_run *r)
{
    const detection_state *s = r->s;
    /* the best so far (at most max_detections) and one class's winners */
    const size_t cap = (size_t)(s->boxes + s->o.max_detections) + 1;
    int64_t *ids = malloc(sizeof *ids * 3 * cap); /* box x classes + class; then an order and a buffer */
    float *values = malloc(sizeof *values * 2 * cap);
    if (!ids || !values) {
        free(ids), free(values);
        return -1;
    }
    int64_t *order = ids + cap, *tmp = order + cap, size = 0;
    float *sorted = values + cap;
    for (int64_t c = 0; c < s->o.num_classes; c++) {
        for (int64_t b = 0; b < s->boxes; b++)
            r->column[b] = r->scores[b * s->classes_with_background + c + s->label_offset];
        const int64_t count = single_class_nms(r, r->column, s->o.detections_per_class);
        for (int64_t k = 0; k < count; k++) {
            ids[size + k] = r->selected[k] * s->o.num_classes + c;
            values[size + k] = r->column[r->selected[k]];
        }
        const int64_t total = size + count;
        for (int64_t k = 0; k < total; k++)
            order[k] = k;
        sort_decreasing(order, tmp, total, values);
        size = total < s->o.max_detections ? total : s->o.max_detections;
        for (int64_t k = 0; k < size; k++)
            tmp[k] = ids[order[k]], sorted[k] = values[order[k]];
        memcpy(ids, tmp, sizeof *ids * (size_t)size);
        memcpy(values, sorted, sizeof *values * (size_t)size);
    }
    for (int64_t k = 0; k < size; k++)
        write_row(ctx, r, k, ids[k] / s->o.num_classes, ids[k] % s->o.num_classes, values[k]);
    free(ids), free(values);
    return size;
}

static tfpi_code detection_run_fn(tp_op_ctx *ctx)
{
    const detection_state *s = ctx->state;
    for (int o = 0; o < ctx->num_outputs && o < 4; o++)
        memset(ctx->outputs[o].data, 0, tp_byte_size(&ctx->outputs[o]));
    const size_t n = (size_t)s->boxes;
    detection_run r = {.s = s};
    r.boxes = malloc(sizeof *r.boxes * 4 * n + 1);
    r.scores = malloc(sizeof *r.scores * n * (size_t)s->classes_with_background + 1);
    r.order = malloc(sizeof *r.order * 3 * n + 1);
    r.keep_scores = malloc(sizeof *r.keep_scores * 2 * n + 1);
    r.active = malloc(n + 1);
    tfpi_code code = TFPI_OK;
    if (!r.boxes || !r.scores || !r.order || !r.keep_scores || !r.active) {
        code = tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
        goto done;
    }
    r.keep = r.order + n, r.selected = r.keep + n, r.column = r.keep_scores + n;
    if ((code = decode_boxes(ctx, &r)) != TFPI_OK)
        goto done;
    const tfpi_tensor *scores = ctx->inputs[1];
    const int64_t score_count = s->boxes * s->classes_with_background;
    for (int64_t i = 0; i < score_count; i++)
        r.scores[i] = scores->dtype == TFPI_UINT8 ? dequantize(((const uint8_t *)scores->data)[i], &s->q[1])
                                                  : ((const float *)scores->data)[i];
    const int64_t count = s->o.regular ? regular_nms(ctx, &r) : fast_nms(ctx, &r);
    if (count < 0) {
        code = tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
        goto done;
    }
    if (ctx->num_outputs > 3)
        ((float *)ctx->outputs[3].data)[0] = (float)count;
done:
    free(r.boxes), free(r.scores), free(r.order), free(r.keep_scores), free(r.active);
    return code;
}

const tp_kernel tp_kernels_tflite_detection[] = {
    TP_KERNEL("TFLite_Detection_PostProcess", detection_prepare, detection_run_fn, detection_release,
              TP_TFLITE_OP | TP_OUTPUTS(4)),
    TP_KERNELS_END,
};
