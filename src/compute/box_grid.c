/* box_grid.c - the uniform grid of box_grid.h: a side x side grid (side
 * about sqrt(n)) over the candidates' extent, each added box listed in
 * every cell it touches (at most MAX_CELLS, else it is "wide"), each
 * cell's list newest first. */
#include "compute/box_grid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CELLS 16

typedef struct span {
    float y0, y1, x0, x1;
} span;

/* The box's normalised extent; false if it is not tame. */
static bool box_span(const float *b, span *s)
{
    *s = (span){fminf(b[0], b[2]), fmaxf(b[0], b[2]), fminf(b[1], b[3]), fmaxf(b[1], b[3])};
    return isfinite(b[0]) && isfinite(b[1]) && isfinite(b[2]) && isfinite(b[3]) &&
           isfinite((s->y1 - s->y0) * (s->x1 - s->x0));
}

static int cell_of(float v, float origin, float size, int side)
{
    float c = (v - origin) / size;
    return !(c > 0) ? 0 : c >= (float)(side - 1) ? side - 1 : (int)c;
}

bool tp_box_grid_init(tp_box_grid *g, const float *boxes, const int *indices, int n)
{
    memset(g, 0, sizeof *g);
    float y0 = INFINITY, y1 = -INFINITY, x0 = INFINITY, x1 = -INFINITY;
    for (int i = 0; i < n; i++) {
        span s;
        if (box_span(&boxes[4 * (size_t)indices[i]], &s)) {
            y0 = fminf(y0, s.y0), y1 = fmaxf(y1, s.y1), x0 = fminf(x0, s.x0), x1 = fmaxf(x1, s.x1);
        }
    }
    g->side = 1;
    while (g->side < 1024 && (long)g->side * g->side < n)
        g->side *= 2;
    g->y0 = y0, g->x0 = x0;
    g->cell_h = (y1 - y0) / (float)g->side, g->cell_w = (x1 - x0) / (float)g->side;
    if (!(g->cell_h > 0 && g->cell_w > 0 && isfinite(g->cell_h) && isfinite(g->cell_w))) {
        g->side = 1, g->y0 = g->x0 = 0, g->cell_h = g->cell_w = 1;
    }
    size_t cells = (size_t)g->side * (size_t)g->side;
    g->cap_added = n;
    g->cell_head = malloc(sizeof *g->cell_head * cells);
    g->wide = malloc(sizeof *g->wide * ((size_t)n + 1));
    g->seen = calloc((size_t)n + 1, sizeof *g->seen);
    g->found = malloc(sizeof *g->found * ((size_t)n + 1));
    if (!g->cell_head || !g->wide || !g->seen || !g->found)
        return false;
    memset(g->cell_head, 0xff, sizeof *g->cell_head * cells);
    return true;
}

static bool add_entry(tp_box_grid *g, int cell, int order)
{
    if (g->num_entries == g->cap_entries) {
        int cap = g->cap_entries ? 2 * g->cap_entries : 64;
        int *next = realloc(g->entry_next, sizeof *next * (size_t)cap);
        if (next)
            g->entry_next = next;
        int *orders = next ? realloc(g->entry_order, sizeof *orders * (size_t)cap) : NULL;
        if (!orders)
            return false;
        g->entry_order = orders;
        g->cap_entries = cap;
    }
    g->entry_next[g->num_entries] = g->cell_head[cell];
    g->entry_order[g->num_entries] = order;
    g->cell_head[cell] = g->num_entries++;
    return true;
}

/* The cell rows and columns a tame span touches. */
static void cell_range(const tp_box_grid *g, const span *s, int *r0, int *r1, int *c0, int *c1)
{
    *r0 = cell_of(s->y0, g->y0, g->cell_h, g->side), *r1 = cell_of(s->y1, g->y0, g->cell_h, g->side);
    *c0 = cell_of(s->x0, g->x0, g->cell_w, g->side), *c1 = cell_of(s->x1, g->x0, g->cell_w, g->side);
}

bool tp_box_grid_add(tp_box_grid *g, const float *box)
{
    if (g->num_added == g->cap_added)
        return false;
    int order = g->num_added++, r0, r1, c0, c1;
    span s;
    if (!box_span(box, &s)) {
        g->wide[g->num_wide++] = order;
        return true;
    }
    cell_range(g, &s, &r0, &r1, &c0, &c1);
    if ((long)(r1 - r0 + 1) * (c1 - c0 + 1) > MAX_CELLS) {
        g->wide[g->num_wide++] = order;
        return true;
    }
    for (int r = r0; r <= r1; r++)
        for (int c = c0; c <= c1; c++)
            if (!add_entry(g, r * g->side + c, order))
                return false;
    return true;
}

static int descending(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (y > x) - (y < x);
}

static void note(tp_box_grid *g, int order, int min_order, int *count)
{
    if (order >= min_order && g->seen[order] != g->query) {
        g->seen[order] = g->query;
        g->found[(*count)++] = order;
    }
}

int tp_box_grid_near(tp_box_grid *g, const float *box, int min_order, const int **orders)
{
    int count = 0, r0, r1, c0, c1;
    span s;
    *orders = g->found;
    if (!box_span(box, &s)) { /* compared with every added box */
        for (int o = g->num_added - 1; o >= min_order; o--)
            g->found[count++] = o;
        return count;
    }
    g->query++;
    /* Both lists run newest first from where they are read, so each stops at
     * the first box added before min_order: a candidate looked at again pays
     * for the boxes added since, not for all of them (60,000 boxes on one
     * spot were quadratic in soft NMS). */
    for (int w = g->num_wide - 1; w >= 0 && g->wide[w] >= min_order; w--)
        note(g, g->wide[w], min_order, &count);
    cell_range(g, &s, &r0, &r1, &c0, &c1);
    if ((long)(r1 - r0 + 1) * (c1 - c0 + 1) > (long)g->num_added) { /* a huge box: every added one */
        count = 0;
        for (int o = g->num_added - 1; o >= min_order; o--)
            g->found[count++] = o;
        return count;
    }
    for (int r = r0; r <= r1; r++)
        for (int c = c0; c <= c1; c++)
            for (int e = g->cell_head[r * g->side + c]; e >= 0 && g->entry_order[e] >= min_order;
                 e = g->entry_next[e])
                note(g, g->entry_order[e], min_order, &count);
    qsort(g->found, (size_t)count, sizeof *g->found, descending);
    return count;
}

void tp_box_grid_free(tp_box_grid *g)
{
    free(g->cell_head);
    free(g->entry_next);
    free(g->entry_order);
    free(g->wide);
    free(g->seen);
    free(g->found);
    memset(g, 0, sizeof *g);
}
