/* image_resize.c - bilinear and nearest-neighbour resizing with TensorFlow's
 * coordinate rules (legacy, align_corners, half_pixel_centers), in float and
 * in the same operation order as TF's CPU kernels so results match. */
#include "image/image_resize.h"

#include <math.h>
#include <stddef.h>

/* Where output index i samples along one axis: two source indices and the
 * weight of the second, as TF's compute_interpolation_weights. */
typedef struct axis_sample {
    int lo, hi;
    float lerp;
} axis_sample;

/* TF's CalculateResizeScale. */
static float resize_scale(int in_size, int out_size, bool align_corners)
{
    if (align_corners && out_size > 1)
        return (float)(in_size - 1) / (float)(out_size - 1);
    return (float)in_size / (float)out_size;
}

static int clamp_index(float v, int size)
{
    if (v <= 0.0f) return 0;
    if (v >= (float)(size - 1)) return size - 1;
    return (int)v;
}

static axis_sample bilinear_sample(int i, float scale, int in_size,
                                   bool half_pixel_centers)
{
    float src = half_pixel_centers ? ((float)i + 0.5f) * scale - 0.5f
                                   : (float)i * scale;
    float lower = floorf(src);
    axis_sample s;
    s.lo = clamp_index(lower, in_size);
    s.hi = clamp_index(ceilf(src), in_size);
    s.lerp = src - lower;
    return s;
}

static float lerp2d(float tl, float tr, float bl, float br, float x_lerp,
                    float y_lerp)
{
    float top = tl + (tr - tl) * x_lerp;
    float bottom = bl + (br - bl) * x_lerp;
    return top + (bottom - top) * y_lerp;
}

/* One body for every input type: the pixel type is the only difference, and
 * the arithmetic is float either way (uint8 values convert exactly). */
#define DEFINE_RESIZE_BILINEAR(name, pixel_t)                                  \
    void name(const pixel_t *in, int batch, int in_h, int in_w, int channels,  \
              float *out, int out_h, int out_w, bool align_corners,            \
              bool half_pixel_centers)                                         \
    {                                                                          \
        float scale_y = resize_scale(in_h, out_h, align_corners);              \
        float scale_x = resize_scale(in_w, out_w, align_corners);              \
        size_t c_count = (size_t)channels;                                     \
        for (int b = 0; b < batch; b++) {                                      \
            const pixel_t *image = in + (size_t)b * in_h * in_w * c_count;     \
            for (int y = 0; y < out_h; y++) {                                  \
                axis_sample sy =                                               \
                    bilinear_sample(y, scale_y, in_h, half_pixel_centers);     \
                const pixel_t *top = image + (size_t)sy.lo * in_w * c_count;   \
                const pixel_t *bottom = image + (size_t)sy.hi * in_w * c_count; \
                for (int x = 0; x < out_w; x++) {                              \
                    axis_sample sx =                                           \
                        bilinear_sample(x, scale_x, in_w, half_pixel_centers); \
                    size_t l = (size_t)sx.lo * c_count;                        \
                    size_t r = (size_t)sx.hi * c_count;                        \
                    for (size_t c = 0; c < c_count; c++)                       \
                        *out++ = lerp2d(top[l + c], top[r + c], bottom[l + c], \
                                        bottom[r + c], sx.lerp, sy.lerp);      \
                }                                                              \
            }                                                                  \
        }                                                                      \
    }

DEFINE_RESIZE_BILINEAR(tp_resize_bilinear_f32, float)
DEFINE_RESIZE_BILINEAR(tp_resize_bilinear_u8, uint8_t)

/* TF's nearest-neighbour source index: half-pixel centres use
 * (i + 0.5) * scale without the -0.5, align_corners rounds, else floor. */
static int nearest_index(int i, float scale, int in_size, bool align_corners,
                         bool half_pixel_centers)
{
    float src = half_pixel_centers ? ((float)i + 0.5f) * scale : (float)i * scale;
    return clamp_index(align_corners ? roundf(src) : floorf(src), in_size);
}

void tp_resize_nearest_f32(const float *in, int batch, int in_h, int in_w,
                           int channels, float *out, int out_h, int out_w,
                           bool align_corners, bool half_pixel_centers)
{
    float scale_y = resize_scale(in_h, out_h, align_corners);
    float scale_x = resize_scale(in_w, out_w, align_corners);
    size_t c_count = (size_t)channels;
    for (int b = 0; b < batch; b++) {
        const float *image = in + (size_t)b * in_h * in_w * c_count;
        for (int y = 0; y < out_h; y++) {
            int iy = nearest_index(y, scale_y, in_h, align_corners,
                                   half_pixel_centers);
            const float *row = image + (size_t)iy * in_w * c_count;
            for (int x = 0; x < out_w; x++) {
                int ix = nearest_index(x, scale_x, in_w, align_corners,
                                       half_pixel_centers);
                for (size_t c = 0; c < c_count; c++)
                    *out++ = row[(size_t)ix * c_count + c];
            }
        }
    }
}
