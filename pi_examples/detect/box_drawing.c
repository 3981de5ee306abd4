/* box_drawing.c - boxes and captions on an RGB image (box_drawing.h). */
#include <stdio.h>

#include "box_drawing.h"
#include "font5x7.h"

#define SCALE 2 /* font pixels per glyph pixel */
#define LINE 2  /* frame thickness */

typedef struct rgb {
    uint8_t r, g, b;
} rgb;

static const rgb palette[] = {{230, 25, 75}, {60, 180, 75}, {0, 130, 200}, {245, 130, 48},
                              {145, 30, 180}, {70, 240, 240}, {240, 50, 230}, {210, 245, 60}};

static int clamp(float v, int hi)
{
    return v < 0 ? 0 : v > (float)hi ? hi : (int)v;
}

static void fill(tfpi_image *im, int x0, int y0, int x1, int y1, rgb c)
{
    for (int y = y0 < 0 ? 0 : y0; y <= y1 && y < im->height; y++)
        for (int x = x0 < 0 ? 0 : x0; x <= x1 && x < im->width; x++) {
            uint8_t *p = &im->pixels[3 * ((size_t)y * (size_t)im->width + (size_t)x)];
            p[0] = c.r;
            p[1] = c.g;
            p[2] = c.b;
        }
}

static void text(tfpi_image *im, int x, int y, const char *s, rgb c)
{
    for (; *s; s++, x += (FONT_WIDTH + 1) * SCALE) {
        const uint8_t *glyph = font5x7_glyph(*s);
        for (int row = 0; row < FONT_HEIGHT; row++)
            for (int col = 0; col < FONT_WIDTH; col++)
                if (glyph[row] & (0x10 >> col))
                    fill(im, x + col * SCALE, y + row * SCALE, x + col * SCALE + SCALE - 1,
                         y + row * SCALE + SCALE - 1, c);
    }
}

void draw_detections(tfpi_image *image, const detection *detections, int count)
{
    const rgb white = {255, 255, 255};
    int w = image->width - 1, h = image->height - 1;
    for (int i = count - 1; i >= 0; i--) { /* the best box drawn last, on top */
        const detection *d = &detections[i];
        rgb c = palette[(unsigned)d->class_id % (sizeof palette / sizeof palette[0])];
        int x0 = clamp(d->xmin, w), y0 = clamp(d->ymin, h), x1 = clamp(d->xmax, w), y1 = clamp(d->ymax, h);
        fill(image, x0, y0, x1, y0 + LINE - 1, c);
        fill(image, x0, y1 - LINE + 1, x1, y1, c);
        fill(image, x0, y0, x0 + LINE - 1, y1, c);
        fill(image, x1 - LINE + 1, y0, x1, y1, c);
        char caption[96];
        snprintf(caption, sizeof caption, "%s %.2f", d->label, (double)d->score);
        int bar = FONT_HEIGHT * SCALE + 4, len = 0;
        while (caption[len])
            len++;
        int top = y0 - bar >= 0 ? y0 - bar : y0; /* above the box, or inside at the top edge */
        fill(image, x0, top, x0 + len * (FONT_WIDTH + 1) * SCALE + 3, top + bar - 1, c);
        text(image, x0 + 2, top + 2, caption, white);
    }
}
