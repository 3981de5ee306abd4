/* box_grid.h - a uniform grid over boxes ([y0, x0, y1, x1], corners in
 * either order) that answers "which of the boxes added so far may overlap
 * this one": non-max suppression compares each candidate only with the
 * selected boxes near it, so 60,000 scattered boxes cost about their
 * number, not its square. Boxes that are not tame (a corner or the area
 * not finite) or that span many cells are near every box; a query with
 * such a box returns every added box. Finite boxes whose intervals
 * overlap always share a cell, so nothing that overlaps is missed. */
#ifndef TFPI_BOX_GRID_H
#define TFPI_BOX_GRID_H

#include <stdbool.h>

typedef struct tp_box_grid {
    float y0, x0, cell_h, cell_w; /* the grid's origin and cell size */
    int side;                     /* side x side cells */
    int *cell_head;               /* each cell's first entry, -1 if none */
    int *entry_next, *entry_order, num_entries, cap_entries;
    int *wide, num_wide;          /* orders of boxes near every box */
    int num_added, cap_added;
    int *seen, query;             /* per order: the last query that found it */
    int *found;                   /* the last query's answer */
} tp_box_grid;

/* A grid over the extent of boxes[4 * indices[i]], i < n, for up to n
 * added boxes. false: out of memory. */
bool tp_box_grid_init(tp_box_grid *g, const float *boxes, const int *indices, int n);
/* Adds box (its four corners) as the next order: 0, 1, 2, ... */
bool tp_box_grid_add(tp_box_grid *g, const float *box);
/* The orders >= min_order of added boxes that may overlap box (its four
 * corners), highest first, in *orders (valid until the next call); returns
 * their count, -1 if out of memory. */
int tp_box_grid_near(tp_box_grid *g, const float *box, int min_order, const int **orders);
void tp_box_grid_free(tp_box_grid *g);

#endif
