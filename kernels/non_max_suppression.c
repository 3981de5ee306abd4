/* non_max_suppression.c - NonMaxSuppression V1-V5: greedy selection of
 * boxes by score, dropping those that overlap an already selected box by
 * more than iou_threshold (IoU strictly greater), keeping only scores
 * strictly above score_threshold (V3+), ties going to the lower index.
 * Corners may come in either order (each box is normalised first) and a
 * box of zero area overlaps nothing. V4/V5 can pad the indices to
 * max_output_size and report valid_outputs; V5 with soft_nms_sigma > 0
 * decays overlapping scores by exp(-0.5 * IoU^2 / sigma) instead (the
 * newest TF rule: the IoU threshold is then not used) and returns the
 * decayed scores. The number of outputs depends on the values, so graphs
 * with these ops run on the dynamic executor. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compute/box_grid.h"
#include "kernel/kernel.h"

typedef struct candidate {
    float score;
    int index;
    int compared; /* selected boxes already applied to its score (soft NMS) */
} candidate;

typedef struct selection {
    int version;
    int count, padded;
    int *indices;
    float *scores;
} selection;

static void free_selection(void *state)
{
    selection *s = state;
    if (s) {
        free(s->indices);
        free(s->scores);
        free(s);
    }
}

static float iou(const float *a, const float *b)
{
    float ay0 = fminf(a[0], a[2]), ay1 = fmaxf(a[0], a[2]), ax0 = fminf(a[1], a[3]), ax1 = fmaxf(a[1], a[3]);
    float by0 = fminf(b[0], b[2]), by1 = fmaxf(b[0], b[2]), bx0 = fminf(b[1], b[3]), bx1 = fmaxf(b[1], b[3]);
    float area_a = (ay1 - ay0) * (ax1 - ax0), area_b = (by1 - by0) * (bx1 - bx0);
    if (area_a <= 0 || area_b <= 0)
        return 0;
    float ih = fmaxf(fminf(ay1, by1) - fmaxf(ay0, by0), 0), iw = fmaxf(fminf(ax1, bx1) - fmaxf(ax0, bx0), 0);
    float inter = ih * iw;
    return inter / (area_a + area_b - inter);
}

static int by_score(const void *x, const void *y)
{
    const candidate *a = x, *b = y;
    if (a->score != b->score)
        return a->score > b->score ? -1 : 1;
    return a->index - b->index;
}

/* Hard NMS: one pass over the candidates in score order; each is compared
 * with the selected boxes near it (the others have IoU 0 and keep it). */
static bool select_hard(const float *boxes, candidate *c, int n, float iou_threshold, selection *s, int max,
                        tp_box_grid *grid)
{
    qsort(c, (size_t)n, sizeof *c, by_score);
    for (int i = 0; i < n && s->count < max; i++) {
        const int *near;
        int count = tp_box_grid_near(grid, c[i].index, 0, &near);
        if (count < 0)
            return false;
        bool keep = true;
        for (int j = 0; j < count && keep; j++)
            keep = iou(&boxes[4 * c[i].index], &boxes[4 * s->indices[near[j]]]) <= iou_threshold;
        if (keep && !tp_box_grid_add(grid, c[i].index))
            return false;
        if (keep) {
            s->scores[s->count] = c[i].score;
            s->indices[s->count++] = c[i].index;
        }
    }
    return true;
}

/* The candidates as a binary heap, best (by_score) first. */
static void sift_down(candidate *c, int n, int i)
{
    for (;;) {
        int best = i, l = 2 * i + 1, r = l + 1;
        if (l < n && by_score(&c[l], &c[best]) < 0)
            best = l;
        if (r < n && by_score(&c[r], &c[best]) < 0)
            best = r;
        if (best == i)
            return;
        candidate t = c[i];
        c[i] = c[best];
        c[best] = t;
        i = best;
    }
}

static void push(candidate *c, int *n, candidate v)
{
    int i = (*n)++;
    for (; i > 0 && by_score(&v, &c[(i - 1) / 2]) < 0; i = (i - 1) / 2)
        c[i] = c[(i - 1) / 2];
    c[i] = v;
}

static candidate pop(candidate *c, int *n)
{
    candidate top = c[0];
    c[0] = c[--*n];
    sift_down(c, *n, 0);
    return top;
}

/* Soft NMS: the best remaining candidate is decayed by the boxes selected
 * since it was last looked at (newest first; boxes that do not overlap it
 * decay it by exp(0) = 1 and are skipped); unchanged means selected, still
 * above the threshold means back in the queue. */
static bool select_soft(const float *boxes, candidate *c, int n, float sigma, float score_threshold,
                        selection *s, int max, tp_box_grid *grid)
{
    float scale = -0.5f / sigma;
    for (int i = n / 2 - 1; i >= 0; i--)
        sift_down(c, n, i);
    while (n > 0 && s->count < max) {
        candidate next = pop(c, &n);
        float original = next.score;
        const int *near;
        int count = tp_box_grid_near(grid, next.index, next.compared, &near);
        if (count < 0)
            return false;
        for (int j = 0; j < count && next.score > score_threshold; j++) {
            float o = iou(&boxes[4 * next.index], &boxes[4 * s->indices[near[j]]]);
            next.score *= expf(scale * o * o);
        }
        next.compared = s->count;
        if (next.score == original) {
            if (!tp_box_grid_add(grid, next.index))
                return false;
            s->scores[s->count] = next.score;
            s->indices[s->count++] = next.index;
        } else if (next.score > score_threshold) {
            push(c, &n, next);
        }
    }
    return true;
}

static float scalar_input(tp_op_ctx *ctx, int input, float fallback)
{
    if (input >= ctx->num_inputs)
        return fallback;
    const tfpi_tensor *t = ctx->inputs[input];
    return t->dtype == TFPI_FLOAT ? *(const float *)t->data : (float)tp_get_int(t, 0);
}

static tfpi_code check_inputs(tp_op_ctx *ctx, int version)
{
    static const int num_inputs[] = {0, 3, 4, 5, 5, 6}; /* by version */
    tfpi_code code = tp_expect_inputs(ctx, num_inputs[version], num_inputs[version]);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *boxes = ctx->inputs[0], *scores = ctx->inputs[1];
    if (boxes->dtype != TFPI_FLOAT || scores->dtype != TFPI_FLOAT)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "boxes and scores must be float");
    if (boxes->ndims != 2 || boxes->dims[1] != 4)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "boxes must be a [n,4] matrix, not rank %d with %lld columns",
                       boxes->ndims, boxes->ndims == 2 ? (long long)boxes->dims[1] : -1LL);
    if (scores->ndims != 1 || scores->dims[0] != boxes->dims[0])
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "scores must be a vector of %lld values, one per box",
                       (long long)boxes->dims[0]);
    for (int i = 2; i < ctx->num_inputs; i++)
        if (tp_num_elements(ctx->inputs[i]) != 1)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input %d must be a scalar", i);
    return TFPI_OK;
}

static tfpi_code nms_prepare(tp_op_ctx *ctx, int version)
{
    tfpi_code code = check_inputs(ctx, version);
    if (code != TFPI_OK)
        return code;
    int64_t max = tp_get_int(ctx->inputs[2], 0);
    float iou_threshold = version == 1 ? tp_attr_float(ctx->def, "iou_threshold", 0.5f) : scalar_input(ctx, 3, 0);
    float score_threshold = version >= 3 ? scalar_input(ctx, 4, 0) : -INFINITY;
    float sigma = version == 5 ? scalar_input(ctx, 5, 0) : 0;
    if (max < 0 || max > INT32_MAX)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "max_output_size must be in [0, 2^31), is %lld", (long long)max);
    if (!(iou_threshold >= 0 && iou_threshold <= 1))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "iou_threshold must be in [0, 1]");
    if (!(sigma >= 0))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "soft_nms_sigma must be >= 0");
    int n = (int)ctx->inputs[0]->dims[0];
    const float *scores = ctx->inputs[1]->data;
    int limit = max < n ? (int)max : n;
    bool pad = version >= 4 && tp_attr_bool(ctx->def, "pad_to_max_output_size", false);
    int64_t slots = pad ? max : limit;
    if (tp_expect_within_budget(ctx, slots + 1, sizeof(int) + sizeof(float), "selected boxes") != TFPI_OK)
        return TFPI_OUT_OF_MEMORY;
    selection *s = calloc(1, sizeof *s);
    candidate *c = malloc(sizeof *c * ((size_t)n + 1));
    if (s && c) {
        s->indices = calloc((size_t)slots + 1, sizeof *s->indices);
        s->scores = calloc((size_t)slots + 1, sizeof *s->scores);
    }
    ctx->state = s;
    if (!s || !c || !s->indices || !s->scores) {
        free(c);
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory for %d boxes", n);
    }
    int m = 0;
    for (int i = 0; i < n; i++)
        if (scores[i] > score_threshold)
            c[m++] = (candidate){scores[i], i, 0};
    const float *boxes = ctx->inputs[0]->data;
    tp_box_grid grid;
    int *which = malloc(sizeof *which * ((size_t)m + 1));
    for (int i = 0; which && i < m; i++)
        which[i] = c[i].index;
    bool ok = which && tp_box_grid_init(&grid, boxes, which, m) &&
              (sigma > 0 ? select_soft(boxes, c, m, sigma, score_threshold, s, limit, &grid)
                         : select_hard(boxes, c, m, iou_threshold, s, limit, &grid));
    if (which)
        tp_box_grid_free(&grid);
    free(which);
    free(c);
    if (!ok)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory for %d boxes", n);
    s->version = version;
    s->padded = pad ? (int)max : s->count;
    tp_tensor_set_shape(&ctx->outputs[0], TFPI_INT32, 1, (int64_t[]){s->padded});
    if (version == 4 && ctx->num_outputs > 1)
        tp_tensor_set_shape(&ctx->outputs[1], TFPI_INT32, 0, NULL);
    if (version == 5 && ctx->num_outputs > 1)
        tp_tensor_set_shape(&ctx->outputs[1], TFPI_FLOAT, 1, (int64_t[]){s->padded});
    if (version == 5 && ctx->num_outputs > 2)
        tp_tensor_set_shape(&ctx->outputs[2], TFPI_INT32, 0, NULL);
    return TFPI_OK;
}

static tfpi_code nms_run(tp_op_ctx *ctx)
{
    const selection *s = ctx->state;
    int version = s->version;
    memcpy(ctx->outputs[0].data, s->indices, sizeof(int32_t) * (size_t)s->padded);
    if (version == 4 && ctx->num_outputs > 1)
        *(int32_t *)ctx->outputs[1].data = s->count;
    if (version == 5 && ctx->num_outputs > 1)
        memcpy(ctx->outputs[1].data, s->scores, sizeof(float) * (size_t)s->padded);
    if (version == 5 && ctx->num_outputs > 2)
        *(int32_t *)ctx->outputs[2].data = s->count;
    return TFPI_OK;
}

static tfpi_code nms_v1_prepare(tp_op_ctx *ctx) { return nms_prepare(ctx, 1); }
static tfpi_code nms_v2_prepare(tp_op_ctx *ctx) { return nms_prepare(ctx, 2); }
static tfpi_code nms_v3_prepare(tp_op_ctx *ctx) { return nms_prepare(ctx, 3); }
static tfpi_code nms_v4_prepare(tp_op_ctx *ctx) { return nms_prepare(ctx, 4); }
static tfpi_code nms_v5_prepare(tp_op_ctx *ctx) { return nms_prepare(ctx, 5); }

const tp_kernel tp_kernels_non_max_suppression[] = {
    TP_KERNEL("NonMaxSuppression", nms_v1_prepare, nms_run, free_selection, TP_DYNAMIC),
    TP_KERNEL("NonMaxSuppressionV2", nms_v2_prepare, nms_run, free_selection, TP_DYNAMIC),
    TP_KERNEL("NonMaxSuppressionV3", nms_v3_prepare, nms_run, free_selection, TP_DYNAMIC),
    TP_KERNEL("NonMaxSuppressionV4", nms_v4_prepare, nms_run, free_selection, TP_DYNAMIC | TP_OUTPUTS(2)),
    TP_KERNEL("NonMaxSuppressionV5", nms_v5_prepare, nms_run, free_selection, TP_DYNAMIC | TP_OUTPUTS(3)),
    TP_KERNELS_END,
};
