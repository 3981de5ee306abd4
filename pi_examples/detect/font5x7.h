/* font5x7.h - a tiny bitmap font (5x7 pixels per character: A-Z, 0-9,
 * '.', '-', ':' and space; lower case is drawn as upper case) for the
 * labels detect writes on its pictures. */
#ifndef TFPI_FONT5X7_H
#define TFPI_FONT5X7_H

#include <stdint.h>

#define FONT_WIDTH 5
#define FONT_HEIGHT 7

/* The 7 rows of character c, bit 4 the leftmost pixel; an unknown
 * character is a hollow box. */
const uint8_t *font5x7_glyph(char c);

#endif
