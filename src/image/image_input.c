/* image_input.c - tfpi_image_to_input: an image resized with TF1's legacy
 * bilinear sampling and normalised into a float NHWC model input. */
#include "image/image_resize.h"
#include "tfpi.h"

#include <stddef.h>

void tfpi_image_to_input(const tfpi_image *image, int out_w, int out_h,
                         float mean, float std, float *out)
{
    if (!image || !image->pixels || !out || image->width <= 0 ||
        image->height <= 0 || image->channels <= 0 || out_w <= 0 || out_h <= 0)
        return;
    tp_resize_bilinear_u8(image->pixels, 1, image->height, image->width,
                          image->channels, out, out_h, out_w, false, false);
    size_t count = (size_t)out_w * out_h * image->channels;
    /* Multiplying by 1/std, as the reference pipelines do, keeps results
     * bit-identical to them ((x - 127.5) * (1 / 127.5) for MobileNet). */
    float scale = 1.0f / std;
    for (size_t i = 0; i < count; i++) out[i] = (out[i] - mean) * scale;
}
