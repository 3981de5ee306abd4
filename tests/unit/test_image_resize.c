/* test_image_resize.c - TF ResizeBilinear / ResizeNearestNeighbor sampling
 * (legacy, align_corners, half_pixel_centers) on small hand-checked cases. */
#include "check.h"
#include "image/image_resize.h"

#include <stddef.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static void check_floats(const float *got, const float *want, size_t n,
                         double tol)
{
    for (size_t i = 0; i < n; i++) CHECK_NEAR(got[i], want[i], tol);
}

/* Width 2 -> 4 on one row; by hand. Legacy: scale 0.5, sources 0, .5, 1,
 * 1.5 (the last clamps to column 1). align_corners: scale 1/3. half-pixel:
 * sources -.25, .25, .75, 1.25: the floor clamps to 0 and the weight stays
 * src - floor(src), so -.25 gives column 0 twice. */
static void test_bilinear_1d_upsample(void)
{
    const float in[2] = {10, 22};
    const float legacy[4] = {10, 16, 22, 22};
    const float corners[4] = {10, 14, 18, 22};
    const float half[4] = {10, 13, 19, 22};
    float out[4];
    tp_resize_bilinear_f32(in, 1, 1, 2, 1, out, 1, 4, false, false);
    check_floats(out, legacy, 4, 1e-6);
    tp_resize_bilinear_f32(in, 1, 1, 2, 1, out, 1, 4, true, false);
    check_floats(out, corners, 4, 1e-5);
    tp_resize_bilinear_f32(in, 1, 1, 2, 1, out, 1, 4, false, true);
    check_floats(out, half, 4, 1e-6);
}

/* Height 5 -> 2 in one column; by hand. Legacy: scale 2.5, rows 0 and 2.5.
 * align_corners: scale 4, rows 0 and 4. half-pixel: rows .75 and 3.25. */
static void test_bilinear_1d_downsample(void)
{
    const float in[5] = {0, 4, 8, 12, 16};
    const float legacy[2] = {0, 10};
    const float corners[2] = {0, 16};
    const float half[2] = {3, 13};
    float out[2];
    tp_resize_bilinear_f32(in, 1, 5, 1, 1, out, 2, 1, false, false);
    check_floats(out, legacy, 2, 1e-6);
    tp_resize_bilinear_f32(in, 1, 5, 1, 1, out, 2, 1, true, false);
    check_floats(out, corners, 2, 1e-6);
    tp_resize_bilinear_f32(in, 1, 5, 1, 1, out, 2, 1, false, true);
    check_floats(out, half, 2, 1e-6);
}

/* Batch 2 of 2x3x2 -> 3x4x2 in every mode. Expected values from numpy in
 * float32 with TF's formulas (scale as above; top = tl + (tr - tl) * xl,
 * bottom likewise, out = top + (bottom - top) * yl), checked by hand at
 * e.g. legacy (y0, x1, c0): x src .75 -> 1 + (2 - 1) * .75 = 1.75. */
static const float batch_in[2 * 2 * 3 * 2] = {
    1, 100, 2, 90, 4, 70, 8, 40, 16, 0, 32, -60,
    -0.5, -50, -1, -45, -2, -35, -4, -20, -8, 0, -16, 30,
};
static const float batch_legacy[48] = {
    1, 100, 1.75, 92.5, 3, 80, 4, 70, 5.66666698, 60, 9.91666698, 37.5, 17,
    6.66666412, 22.6666679, -16.6666718, 8, 40, 14, 10, 24, -30, 32, -60,
    -0.5, -50, -0.875, -46.25, -1.5, -40, -2, -35, -2.83333349, -30,
    -4.95833349, -18.75, -8.5, -3.33333206, -11.333334, 8.33333588, -4, -20,
    -7, -5, -12, 15, -16, 30,
};
static const float batch_corners[48] = {
    1, 100, 1.66666675, 93.3333359, 2.66666675, 83.3333359, 4, 70, 4.5, 70,
    7.5, 53.3333359, 12.000001, 31.6666679, 18, 5, 8, 40, 13.333334,
    13.3333321, 21.333334, -20.0000019, 32, -60, -0.5, -50, -0.833333373,
    -46.6666679, -1.33333337, -41.6666679, -2, -35, -2.25, -35, -3.75,
    -26.6666679, -6.00000048, -15.833334, -9, -2.5, -4, -20, -6.66666698,
    -6.66666603, -10.666667, 10.000001, -16, 30,
};
static const float batch_half[48] = {
    1, 100, 1.625, 93.75, 2.75, 82.5, 4, 70, 4.5, 70, 7.3125, 54.375,
    12.375, 30, 18, 5, 8, 40, 13, 15, 22, -22.5, 32, -60, -0.5, -50,
    -0.8125, -46.875, -1.375, -41.25, -2, -35, -2.25, -35, -3.65625,
    -27.1875, -6.1875, -15, -9, -2.5, -4, -20, -6.5, -7.5, -11, 11.25, -16,
    30,
};

static void test_bilinear_batch_channels(void)
{
    float out[48];
    tp_resize_bilinear_f32(batch_in, 2, 2, 3, 2, out, 3, 4, false, false);
    check_floats(out, batch_legacy, 48, 2e-6);
    tp_resize_bilinear_f32(batch_in, 2, 2, 3, 2, out, 3, 4, true, false);
    check_floats(out, batch_corners, 48, 2e-6);
    tp_resize_bilinear_f32(batch_in, 2, 2, 3, 2, out, 3, 4, false, true);
    check_floats(out, batch_half, 48, 2e-6);
}

/* The uint8 entry point must equal converting to float first. */
static void test_bilinear_u8_matches_f32(void)
{
    uint8_t in_u8[4 * 5 * 3];
    float in_f32[4 * 5 * 3], from_u8[7 * 3 * 3], from_f32[7 * 3 * 3];
    for (size_t i = 0; i < COUNT(in_u8); i++) {
        in_u8[i] = (uint8_t)(i * 37 % 256);
        in_f32[i] = in_u8[i];
    }
    for (int mode = 0; mode < 3; mode++) {
        tp_resize_bilinear_u8(in_u8, 1, 4, 5, 3, from_u8, 7, 3, mode == 1,
                              mode == 2);
        tp_resize_bilinear_f32(in_f32, 1, 4, 5, 3, from_f32, 7, 3, mode == 1,
                               mode == 2);
        check_floats(from_u8, from_f32, COUNT(from_u8), 0);
    }
}

/* Width 3 -> 5 and 5 -> 2; by hand. Legacy: floor(i * .6) = 0 0 1 1 2.
 * align_corners: round(i * .5) = 0 1 1 2 2 (0.5 rounds away from zero).
 * half-pixel: floor((i + .5) * .6) = 0 0 1 2 2. Down 5 -> 2: legacy
 * floor(i * 2.5) = 0 2, align_corners round(i * 4) = 0 4, half-pixel
 * floor((i + .5) * 2.5) = 1 3. */
static void test_nearest(void)
{
    const float in3[3] = {10, 20, 30};
    const float in5[5] = {1, 2, 3, 4, 5};
    const float up_legacy[5] = {10, 10, 20, 20, 30};
    const float up_corners[5] = {10, 20, 20, 30, 30};
    const float up_half[5] = {10, 10, 20, 30, 30};
    const float down_legacy[2] = {1, 3}, down_corners[2] = {1, 5},
                down_half[2] = {2, 4};
    float out[5];
    tp_resize_nearest_f32(in3, 1, 1, 3, 1, out, 1, 5, false, false);
    check_floats(out, up_legacy, 5, 0);
    tp_resize_nearest_f32(in3, 1, 1, 3, 1, out, 1, 5, true, false);
    check_floats(out, up_corners, 5, 0);
    tp_resize_nearest_f32(in3, 1, 1, 3, 1, out, 1, 5, false, true);
    check_floats(out, up_half, 5, 0);
    tp_resize_nearest_f32(in5, 1, 5, 1, 1, out, 2, 1, false, false);
    check_floats(out, down_legacy, 2, 0);
    tp_resize_nearest_f32(in5, 1, 5, 1, 1, out, 2, 1, true, false);
    check_floats(out, down_corners, 2, 0);
    tp_resize_nearest_f32(in5, 1, 5, 1, 1, out, 2, 1, false, true);
    check_floats(out, down_half, 2, 0);
}

/* Nearest on 2 channels, batch 2, 2x2 -> 3x3 legacy: rows and columns
 * floor(i * 2/3) = 0 0 1, so each batch gives a a b / a a b / c c d. */
static void test_nearest_batch_channels(void)
{
    const float in[2 * 2 * 2 * 2] = {1, -1, 2, -2, 3, -3, 4, -4,
                                     5, -5, 6, -6, 7, -7, 8, -8};
    const float want[2 * 3 * 3 * 2] = {
        1, -1, 1, -1, 2, -2, 1, -1, 1, -1, 2, -2, 3, -3, 3, -3, 4, -4,
        5, -5, 5, -5, 6, -6, 5, -5, 5, -5, 6, -6, 7, -7, 7, -7, 8, -8,
    };
    float out[COUNT(want)];
    tp_resize_nearest_f32(in, 2, 2, 2, 2, out, 3, 3, false, false);
    check_floats(out, want, COUNT(want), 0);
}

/* Same size in every mode is the identity. */
static void test_same_size_is_identity(void)
{
    const float in[2 * 3] = {1.5f, -2, 3, 7, 11, -13};
    float out[6];
    for (int mode = 0; mode < 3; mode++) {
        tp_resize_bilinear_f32(in, 1, 2, 3, 1, out, 2, 3, mode == 1, mode == 2);
        check_floats(out, in, 6, 0);
        tp_resize_nearest_f32(in, 1, 2, 3, 1, out, 2, 3, mode == 1, mode == 2);
        check_floats(out, in, 6, 0);
    }
}

int main(void)
{
    RUN(test_bilinear_1d_upsample);
    RUN(test_bilinear_1d_downsample);
    RUN(test_bilinear_batch_channels);
    RUN(test_bilinear_u8_matches_f32);
    RUN(test_nearest);
    RUN(test_nearest_batch_channels);
    RUN(test_same_size_is_identity);
    return check_summary();
}
