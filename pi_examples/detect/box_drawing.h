/* box_drawing.h - draws detection boxes with their label and score on an
 * RGB image (in place): a 2-pixel frame per box and a filled caption bar
 * above it (inside the picture) in the box's colour, text in white. */
#ifndef TFPI_BOX_DRAWING_H
#define TFPI_BOX_DRAWING_H

#include "object_detector.h"

void draw_detections(tfpi_image *image, const detection *detections, int count);

#endif
