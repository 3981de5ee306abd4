/* image_resize.h - TensorFlow's ResizeBilinear and ResizeNearestNeighbor
 * sampling on NHWC float tensors, shared by the op kernels and the image
 * helpers. The caller validates shapes (all sizes > 0) and TF's rule that
 * half_pixel_centers excludes align_corners. */
#ifndef TFPI_IMAGE_RESIZE_H
#define TFPI_IMAGE_RESIZE_H

#include <stdbool.h>
#include <stdint.h>

/* out[batch][out_h][out_w][channels] from in[batch][in_h][in_w][channels],
 * computed in float exactly as TF's CPU ResizeBilinear kernel. */
void tp_resize_bilinear_f32(const float *in, int batch, int in_h, int in_w,
                            int channels, float *out, int out_h, int out_w,
                            bool align_corners, bool half_pixel_centers);

/* The same from uint8 input (each sample converted to float as TF does). */
void tp_resize_bilinear_u8(const uint8_t *in, int batch, int in_h, int in_w,
                           int channels, float *out, int out_h, int out_w,
                           bool align_corners, bool half_pixel_centers);

/* TF's ResizeNearestNeighbor on float data. */
void tp_resize_nearest_f32(const float *in, int batch, int in_h, int in_w,
                           int channels, float *out, int out_h, int out_w,
                           bool align_corners, bool half_pixel_centers);

#endif
