/* ppm.c - parsing binary PPM headers ("P6 <width> <height> 255" with
 * optional # comments, then one whitespace byte) and whole PPM files. */
#include "ppm.h"

#include <ctype.h>
#include <string.h>

#include "pixel_formats.h"
#include "tfpi.h"

enum { PPM_MAX_SIDE = 16384 };

typedef struct cursor {
    const uint8_t *data;
    size_t size, at;
} cursor;

/* Skips whitespace and # comments; false if the data ends first. */
static bool skip_space(cursor *c)
{
    while (c->at < c->size) {
        if (c->data[c->at] == '#') {
            while (c->at < c->size && c->data[c->at] != '\n')
                c->at++;
        } else if (isspace(c->data[c->at])) {
            c->at++;
        } else {
            return true;
        }
    }
    return false;
}

typedef enum { NUMBER_OK, NUMBER_INCOMPLETE, NUMBER_BAD } number_result;

/* A decimal number up to `max`; its end must be seen (a space after it). */
static number_result read_number(cursor *c, int max, int *out)
{
    if (!skip_space(c))
        return NUMBER_INCOMPLETE;
    long value = 0;
    size_t start = c->at;
    while (c->at < c->size && isdigit(c->data[c->at])) {
        value = value * 10 + (c->data[c->at++] - '0');
        if (value > max)
            return NUMBER_BAD;
    }
    if (c->at == c->size)
        return NUMBER_INCOMPLETE;
    if (c->at == start || !isspace(c->data[c->at]))
        return NUMBER_BAD;
    *out = (int)value;
    return NUMBER_OK;
}

bool ppm_has_magic(const uint8_t *data, size_t size)
{
    return size >= 2 && data[0] == 'P' && data[1] == '6';
}

ppm_header_result ppm_parse_header(const uint8_t *data, size_t size, const char *name,
                                   ppm_header *header, tfpi_status *status)
{
    if (size < 2)
        return PPM_HEADER_INCOMPLETE;
    if (!ppm_has_magic(data, size)) {
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: not a binary PPM frame (no 'P6')", name);
        return PPM_HEADER_INVALID;
    }
    cursor c = {data, size > PPM_MAX_HEADER ? PPM_MAX_HEADER : size, 2};
    int fields[3] = {0}; /* width, height, maxval */
    for (int i = 0; i < 3; i++) {
        number_result r = read_number(&c, i < 2 ? PPM_MAX_SIDE : 65535, &fields[i]);
        if (r == NUMBER_INCOMPLETE && size < PPM_MAX_HEADER)
            return PPM_HEADER_INCOMPLETE;
        if (r != NUMBER_OK || fields[i] == 0) {
            tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                     "%s: bad PPM header (width and height 1..%d, maxval 255)", name,
                     PPM_MAX_SIDE);
            return PPM_HEADER_INVALID;
        }
    }
    if (fields[2] != 255) {
        tfpi_status_set(status, TFPI_UNIMPLEMENTED, "%s: PPM maxval %d: only 8-bit PPM (255) is read",
                 name, fields[2]);
        return PPM_HEADER_INVALID;
    }
    *header = (ppm_header){fields[0], fields[1], c.at + 1};
    return PPM_HEADER_OK;
}

tfpi_code ppm_decode(const uint8_t *data, size_t size, const char *name, tfpi_image *out,
                     tfpi_status *status)
{
    ppm_header header;
    switch (ppm_parse_header(data, size, name, &header, status)) {
    case PPM_HEADER_INVALID:
        return status->code;
    case PPM_HEADER_INCOMPLETE:
        return tfpi_status_set(status, TFPI_IO_ERROR, "%s: truncated PPM header", name);
    case PPM_HEADER_OK:
        break;
    }
    size_t pixel_bytes = (size_t)header.width * (size_t)header.height * 3;
    if (size - header.header_size < pixel_bytes)
        return tfpi_status_set(status, TFPI_IO_ERROR, "%s: truncated PPM: %zu of %zu pixel bytes",
                        name, size - header.header_size, pixel_bytes);
    if (rgb_image_reserve(out, header.width, header.height, name, status) != TFPI_OK)
        return status->code;
    memcpy(out->pixels, data + header.header_size, pixel_bytes);
    return TFPI_OK;
}
