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

/* A box with its corners in order and its area, worked out once. */
typedef struct box {
    float corners[4]; /* y0, x0, y1, x1 */
    float area;
} box;

static box box_of(const float *b)
{
    box r = {{fminf(b[0], b[2]), fminf(b[1], b[3]), fmaxf(b[0], b[2]), fmaxf(b[1], b[3])}, 0};
    r.area = (r.corners[2] - r.corners[0]) * (r.corners[3] - r.corners[1]);
    return r;
}

typedef struct candidate {
    float score;
    int index;
    int compared; /* selected boxes already applied to its score (soft NMS) */
    box box;      /* kept here, so walking the candidates reads memory in order */
} candidate;

typedef struct selection {
    int version;
    int count, padded;
    int *indices;
    float *scores;
    box *boxes; /* of the selected ones, while selecting */
} selection;

static void free_selection(void *state)
{
    selection *s = state;
    if (s) {
        free(s->indices);
        free(s->scores);
        free(s->boxes);
        free(s);
    }
}

static float iou(const box *a, const box *b)
{
    if (a->area <= 0 || b->area <= 0)
        return 0;
    const float *p = a->corners, *q = b->corners;
    float ih = fmaxf(fminf(p[2], q[2]) - fmaxf(p[0], q[0]), 0);
    float iw = fmaxf(fminf(p[3], q[3]) - fmaxf(p[1], q[1]), 0);
    float inter = ih * iw;
    return inter / (a->area + b->area - inter);
}

static int by_score(const void *x, const void *y)
{
    const candidate *a = x, *b = y;
    if (a->score != b->score)
        return a->score > b->score ? -1 : 1;
    return a->index - b->index;
}

static bool take(const candidate *chosen, selection *s, tp_box_grid *grid)
{
    if (!tp_box_grid_add(grid, chosen->box.corners))
        return false;
    s->boxes[s->count] = chosen->box;
    s->scores[s->count] = chosen->score;
    s->indices[s->count++] = chosen->index;
    return true;
}

/* Hard NMS: one pass over the candidates in score order; each is compared
 * with the selected boxes near it (the others have IoU 0 and keep it). */
static bool select_hard(candidate *c, int n, float iou_threshold, selection *s, int max, tp_box_grid *grid)
{
    qsort(c, (size_t)n, sizeof *c, by_score);
    for (int i = 0; i < n && s->count < max; i++) {
        const int *near;
        int count = tp_box_grid_near(grid, c[i].box.corners, 0, &near);
        if (count < 0)
            return false;
        bool keep = true;
        for (int j = 0; j < count && keep; j++)
            keep = iou(&c[i].box, &s->boxes[near[j]]) <= iou_threshold;
        if (keep && !take(&c[i], s, grid))
            return false;
    }
    return true;
}

/* Decays a candidate by the selected boxes near it that it has not met yet
 * (newest first, stopping once it is at or under the threshold, as TF does;
 * boxes that do not overlap it decay it by exp(0) = 1 and are skipped).
 * false: out of memory. */
static bool decay(candidate *next, float scale, float score_threshold, const selection *s, tp_box_grid *grid)
{
    const int *near;
    int count = tp_box_grid_near(grid, next->box.corners, next->compared, &near);
    if (count < 0)
        return false;
    for (int j = 0; j < count && next->score > score_threshold; j++) {
        float o = iou(&next->box, &s->boxes[near[j]]);
        next->score *= expf(scale * o * o);
    }
    next->compared = s->count;
    return true;
}

/* The end of the ascending run (by_score) that starts at lo. */
static int run_end(const candidate *c, int lo, int n)
{
    int i = lo + 1;
    while (i < n && by_score(&c[i - 1], &c[i]) < 0)
        i++;
    return i;
}

/* Sorts c[0, n) by_score, merging the runs already in order through tmp
 * (n candidates) pass by pass: the candidates decayed in one round come in
 * a few long runs (those last looked at in the same round decay alike), so
 * a pass or two does; the comparison is inlined, which glibc's qsort of
 * these elements cannot do. */
static void sort_candidates(candidate *c, candidate *tmp, int n)
{
    candidate *from = c, *to = tmp;
    for (int first; n > 1 && (first = run_end(from, 0, n)) < n;) {
        for (int lo = 0; lo < n;) {
            int mid = lo == 0 ? first : run_end(from, lo, n), hi = mid < n ? run_end(from, mid, n) : n;
            int a = lo, b = mid, o = lo;
            while (a < mid && b < hi)
                to[o++] = by_score(&from[b], &from[a]) < 0 ? from[b++] : from[a++];
            while (a < mid)
                to[o++] = from[a++];
            while (b < hi)
                to[o++] = from[b++];
            lo = hi;
        }
        candidate *t = from;
        from = to, to = t;
    }
    if (from != c)
        memcpy(c, from, sizeof *c * (size_t)n);
}

/* Soft NMS, as TF's lazy rule defines it: the best remaining candidate
 * (by its score when last looked at) is decayed by the boxes selected
 * since; unchanged means selected, still above the threshold means back
 * among the candidates. Here the candidates are an array in that order, and
 * each selection walks it from the best: every candidate TF would take out
 * and put back is decayed in turn, until one is unchanged or the best one
 * decayed this round beats the next in line (TF would take it out next,
 * unchanged); then the decayed ones are merged back. A round costs what it
 * decays, not a heap operation each: 60,000 boxes on one spot, each
 * selection decaying all of them, took 7 s on a heap. */
static bool select_soft(candidate *c, int n, float sigma, float score_threshold,
                        selection *s, int max, tp_box_grid *grid)
{
    const float scale = -0.5f / sigma;
    candidate *decayed = malloc(sizeof *decayed * ((size_t)n + 1)), *spare = malloc(sizeof *spare * ((size_t)n + 1));
    if (!decayed || !spare) {
        free(decayed);
        free(spare);
        return false;
    }
    qsort(c, (size_t)n, sizeof *c, by_score);
    bool ok = true;
    int head = 0; /* c[head, n): the candidates left, best first */
    while (ok && head < n && s->count < max) {
        int m = 0, best = -1, i = head;
        bool chosen = false;
        for (; i < n && (best < 0 || by_score(&c[i], &decayed[best]) < 0); i++) {
            candidate next = c[i];
            const float original = next.score;
            if (!(ok = decay(&next, scale, score_threshold, s, grid)))
                break;
            if (next.score == original) {
                ok = take(&next, s, grid);
                chosen = true;
                i++;
                break;
            }
            if (next.score > score_threshold) {
                if (best < 0 || by_score(&next, &decayed[best]) < 0)
                    best = m;
                decayed[m++] = next;
            }
        }
        if (ok && !chosen && best >= 0) {
            ok = take(&decayed[best], s, grid);
            decayed[best] = decayed[--m];
        }
        /* c[i, n) is as it was; the m decayed ones go back among them. */
        sort_candidates(decayed, spare, m);
        int out = i - m, r = 0, k = i;
        while (r < m)
            c[out++] = k < n && by_score(&c[k], &decayed[r]) < 0 ? c[k++] : decayed[r++];
        head = i - m;
    }
    free(decayed);
    free(spare);
    return ok;
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
    if (tp_expect_within_budget(ctx, slots + 1, sizeof(int) + sizeof(float), "selected boxes") != TFPI_OK ||
        tp_expect_within_budget(ctx, (int64_t)n + 1, 3 * sizeof(candidate), "candidate boxes") != TFPI_OK)
        return TFPI_OUT_OF_MEMORY;
    selection *s = calloc(1, sizeof *s);
    candidate *c = malloc(sizeof *c * ((size_t)n + 1));
    if (s && c) {
        s->indices = calloc((size_t)slots + 1, sizeof *s->indices);
        s->scores = calloc((size_t)slots + 1, sizeof *s->scores);
        s->boxes = malloc(sizeof *s->boxes * ((size_t)limit + 1));
    }
    ctx->state = s;
    if (!s || !c || !s->indices || !s->scores || !s->boxes) {
        free(c);
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory for %d boxes", n);
    }
    const float *corners = ctx->inputs[0]->data;
    int m = 0;
    for (int i = 0; i < n; i++)
        if (scores[i] > score_threshold)
            c[m++] = (candidate){scores[i], i, 0, box_of(&corners[4 * i])};
    tp_box_grid grid;
    int *which = malloc(sizeof *which * ((size_t)m + 1));
    for (int i = 0; which && i < m; i++)
        which[i] = c[i].index;
    bool ok = which && tp_box_grid_init(&grid, corners, which, m) &&
              (sigma > 0 ? select_soft(c, m, sigma, score_threshold, s, limit, &grid)
                         : select_hard(c, m, iou_threshold, s, limit, &grid));
    if (which)
        tp_box_grid_free(&grid);
    free(which);
    free(c);
    free(s->boxes);
    s->boxes = NULL;
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
