/* test_image.c - the image path against TensorFlow's own numbers: decode +
 * tfpi_image_to_input for the 21 photos of tf_reference (bit-exact) and
 * grace_hopper.jpg, plus decode and load errors and the input helper. */
#include "check.h"
#include "test_files.h"
#include "tfpi.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct diff {
    double max, mean;
} diff;

/* Loads `image_rel`, makes a side x side input with mean = std = 127.5 and
 * compares it with the float32 file `ref_rel`; max = INFINITY on failure. */
static diff compare_input(const char *image_rel, const char *ref_rel, int side,
                          int want_h, int want_w)
{
    diff d = {INFINITY, INFINITY};
    size_t count = (size_t)side * side * 3, ref_size = 0;
    float *ref = (float *)read_test_file(testdata_path(ref_rel), &ref_size);
    float *got = malloc(count * sizeof *got);
    tfpi_image image;
    tfpi_status status;
    tfpi_code code = tfpi_image_load(testdata_path(image_rel), &image, &status);
    CHECK_MSG(code == TFPI_OK, "%s", status.message);
    CHECK_MSG(ref && ref_size == count * sizeof(float), "cannot read %s", ref_rel);
    CHECK(got != NULL);
    if (code == TFPI_OK && ref && ref_size == count * sizeof(float) && got) {
        CHECK_EQ_INT(image.height, want_h);
        CHECK_EQ_INT(image.width, want_w);
        CHECK_EQ_INT(image.channels, 3);
        tfpi_image_to_input(&image, side, side, 127.5f, 127.5f, got);
        d.max = d.mean = 0;
        for (size_t i = 0; i < count; i++) {
            double e = fabs((double)got[i] - ref[i]);
            if (e > d.max) d.max = e;
            d.mean += e;
        }
        d.mean /= (double)count;
    }
    tfpi_image_free(&image);
    free(ref);
    free(got);
    return d;
}

/* The 21 photos of tf_reference/mobilenet_v1_0.25_128_plates (manifest.json):
 * stem, file extension, decoded height and width. Indiana_7946b915333bb9 is
 * a palette PNG that TensorFlow decoded through decode_jpeg. */
static const struct plate {
    const char *stem, *ext;
    int height, width;
} plates[] = {
    {"Indiana_ec32b0c327096a", "jpg", 144, 288},
    {"Indiana_6c79cf86441a01", "jpg", 142, 288},
    {"Indiana_096763a3cd0d4d", "jpg", 143, 288},
    {"Indiana_b674a85dadeef1", "jpg", 144, 288},
    {"NewYork_4e7e191c95949f", "jpg", 186, 370},
    {"NewYork_2ad169900a784c", "jpg", 215, 431},
    {"NewYork_7f2929f0d48a53", "jpg", 220, 468},
    {"NewYork_abe8926f447dc8", "jpg", 225, 477},
    {"Oklahoma_716b14d7b05b2f", "jpg", 202, 400},
    {"Oklahoma_c7e67acf521db6", "jpg", 199, 400},
    {"Oklahoma_6246b34ae2388b", "jpg", 240, 456},
    {"Oklahoma_38b7db1f9636a0", "jpg", 268, 522},
    {"Pennsylvania_a47069a7d78b14", "jpg", 88, 172},
    {"Pennsylvania_34f474d668001e", "jpg", 231, 431},
    {"Pennsylvania_0e936cecb57004", "jpg", 200, 400},
    {"Pennsylvania_5013f0ae76f473", "jpg", 175, 350},
    {"Wyoming_0eb65a862a018c", "jpg", 225, 436},
    {"Wyoming_f99ef9fb718218", "jpg", 307, 760},
    {"Wyoming_33e729741fa101", "jpg", 237, 474},
    {"Wyoming_6f9b4676d9a475", "jpg", 182, 466},
    {"Indiana_7946b915333bb9", "png", 687, 1370},
};

/* Measured on x86-64 with libjpeg-turbo 2.1.5: every value identical
 * (max and mean |d| = 0), also with FMA contraction; the bounds leave room
 * only for float rounding (-ffast-math gives max 1.2e-7, mean 1.0e-7). Any
 * decoding difference of one grey level would show as >= 1e-4. */
static void test_plates_match_tensorflow(void)
{
    const char *dir = "tf_reference/mobilenet_v1_0.25_128_plates";
    double worst = 0, mean_sum = 0;
    for (size_t i = 0; i < sizeof plates / sizeof plates[0]; i++) {
        char image_rel[256], ref_rel[256];
        snprintf(image_rel, sizeof image_rel, "%s/%s.%s", dir, plates[i].stem,
                 plates[i].ext);
        snprintf(ref_rel, sizeof ref_rel, "%s/%s.input_nhwc_1x128x128x3.f32", dir,
                 plates[i].stem);
        diff d = compare_input(image_rel, ref_rel, 128, plates[i].height,
                               plates[i].width);
        CHECK_MSG(d.max <= 1e-6 && d.mean <= 2e-7, "%s: max %g mean %g",
                  plates[i].stem, d.max, d.mean);
        if (d.max > worst) worst = d.max;
        mean_sum += d.mean;
    }
    printf("  plates: max |d| %g, mean |d| %g\n", worst,
           mean_sum / (double)(sizeof plates / sizeof plates[0]));
}

/* 517 x 606 -> 128: the scales are exact in float, and the reference
 * matches exactly (measured max 0). */
static void test_grace_hopper_128(void)
{
    diff d = compare_input("images/grace_hopper.jpg",
                           "opencv_reference/grace_hopper.input_nhwc_1x128x128x3.f32",
                           128, 606, 517);
    printf("  grace_hopper 128: max |d| %g, mean |d| %g\n", d.max, d.mean);
    CHECK(d.max <= 1e-6 && d.mean <= 2e-7);
}

/* -> 224: this reference was computed with double-precision source
 * coordinates (517/224 is not exact in float), TF with float ones, as here.
 * Measured max |d| 5.05e-5 (0.0064 grey levels), mean 9.1e-7; redoing the
 * sampling in double reproduces it to 1.8e-7. */
static void test_grace_hopper_224(void)
{
    diff d = compare_input("images/grace_hopper.jpg",
                           "opencv_reference/grace_hopper.input_nhwc_1x224x224x3.f32",
                           224, 606, 517);
    printf("  grace_hopper 224: max |d| %g, mean |d| %g\n", d.max, d.mean);
    CHECK(d.max <= 6e-5 && d.mean <= 1e-6);
}

/* Decoding `data` must fail with a message naming `name` and leave the
 * image zeroed. */
static void check_decode_fails(const void *data, size_t size, const char *name)
{
    tfpi_image image = {1, 1, 3, NULL};
    tfpi_status status;
    tfpi_code code = tfpi_image_decode(data, size, name, &image, &status);
    CHECK_MSG(code != TFPI_OK, "%s decoded", name);
    CHECK_EQ_INT(status.code, code);
    CHECK_MSG(strstr(status.message, name) != NULL, "%s: message '%s'", name,
              status.message);
    CHECK(image.pixels == NULL && image.width == 0 && image.height == 0);
    tfpi_image_free(&image);
}

static void test_decode_rejects_non_images(void)
{
    uint8_t noise[4096];
    uint32_t state = 12345;
    for (size_t i = 0; i < sizeof noise; i++) {
        state = state * 1103515245u + 12345u;
        noise[i] = (uint8_t)(state >> 16);
    }
    noise[0] = 0x42; /* neither magic */
    const char text[] = "just some text, not an image\n";
    check_decode_fails(noise, 0, "empty.jpg");
    check_decode_fails(NULL, 0, "null.jpg");
    check_decode_fails(noise, sizeof noise, "noise.bin");
    check_decode_fails(text, sizeof text - 1, "notes.txt");
    tfpi_status status;
    tfpi_image image;
    CHECK(tfpi_image_decode(text, sizeof text - 1, "notes.txt", &image,
                            &status) == TFPI_INVALID_ARGUMENT);
    CHECK(strstr(status.message, "not a JPEG, PNG or BMP image") != NULL);
    CHECK(tfpi_image_decode(text, 4, "x", NULL, &status) == TFPI_INVALID_ARGUMENT);
}

/* Right magic bytes, wrong content. */
static void test_decode_rejects_corrupt_headers(void)
{
    uint8_t jpeg[64] = {0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x02, 0xFF, 0xFF};
    uint8_t png[64] = {0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00};
    check_decode_fails(jpeg, 2, "magic_only.jpg");
    check_decode_fails(jpeg, sizeof jpeg, "garbage.jpg");
    check_decode_fails(png, 4, "magic_only.png");
    check_decode_fails(png, sizeof png, "garbage.png");
}

/* The first half of a baseline JPEG, a progressive JPEG and a PNG. */
static void test_decode_rejects_truncated(void)
{
    const char *files[] = {
        "images/grace_hopper.jpg",
        "tf_reference/mobilenet_v1_0.25_128_plates/NewYork_4e7e191c95949f.jpg",
        "tf_reference/mobilenet_v1_0.25_128_plates/Indiana_7946b915333bb9.png",
    };
    for (int i = 0; i < 3; i++) {
        size_t size = 0;
        uint8_t *data = read_test_file(testdata_path(files[i]), &size);
        if (data) check_decode_fails(data, size / 2, files[i]);
        free(data);
    }
}

/* Even a JPEG that lacks only its end marker is truncated: libjpeg reads
 * ahead for it inside the last scan. TF fails such files too. */
static void test_jpeg_missing_end_marker(void)
{
    size_t size = 0;
    uint8_t *data = read_test_file(testdata_path("images/grace_hopper.jpg"), &size);
    CHECK(data != NULL && size > 2 && data[size - 2] == 0xFF &&
          data[size - 1] == 0xD9);
    if (data) check_decode_fails(data, size - 2, "no_eoi.jpg");
    free(data);
}

/* A JPEG whose frame header claims 60000 x 60000 is refused before any
 * pixel memory is taken. */
static void test_jpeg_too_large(void)
{
    size_t size = 0;
    uint8_t *data = read_test_file(testdata_path("images/grace_hopper.jpg"), &size);
    if (!data) return;
    size_t sof = 2;
    while (sof + 9 < size && !(data[sof] == 0xFF && data[sof + 1] == 0xC0)) sof++;
    CHECK(sof + 9 < size);
    if (sof + 9 < size) {
        data[sof + 5] = data[sof + 7] = 0xEA; /* 0xEA60 = 60000 */
        data[sof + 6] = data[sof + 8] = 0x60;
        tfpi_image image;
        tfpi_status status;
        CHECK(tfpi_image_decode(data, size, "huge.jpg", &image, &status) ==
              TFPI_INVALID_ARGUMENT);
        CHECK_MSG(strstr(status.message, "huge.jpg") &&
                      strstr(status.message, "60000x60000"),
                  "message: %s", status.message);
        CHECK(image.pixels == NULL);
    }
    free(data);
}

static void test_load_errors(void)
{
    tfpi_image image;
    tfpi_status status;
    CHECK(tfpi_image_load("/nonexistent/x.jpg", &image, &status) == TFPI_NOT_FOUND);
    CHECK_MSG(strstr(status.message, "/nonexistent/x.jpg: cannot open: ") != NULL,
              "message: %s", status.message);
    CHECK(image.pixels == NULL);
    CHECK(tfpi_image_load("/", &image, &status) != TFPI_OK);
    CHECK(strstr(status.message, "/: ") != NULL);

    char path[] = "/tmp/tfpi_test_image_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0) return;
    CHECK(tfpi_image_load(path, &image, &status) == TFPI_INVALID_ARGUMENT);
    CHECK(strstr(status.message, path) && strstr(status.message, "empty file"));
    const char text[] = "hello\n";
    CHECK(write(fd, text, sizeof text - 1) == (ssize_t)(sizeof text - 1));
    CHECK(tfpi_image_load(path, &image, &status) == TFPI_INVALID_ARGUMENT);
    CHECK(strstr(status.message, path) &&
          strstr(status.message, "not a JPEG, PNG or BMP image"));
    CHECK(image.pixels == NULL);
    close(fd);
    unlink(path);
}

static void test_free_is_safe(void)
{
    tfpi_image image = {0, 0, 0, NULL};
    tfpi_image_free(&image);
    tfpi_image_free(NULL);
    CHECK(image.pixels == NULL);
}

/* A 2x1 image to 4x2: legacy columns 0, .5, 1, 1 (by hand), both rows
 * from row 0; then (x - mean) * (1 / std). */
static void test_to_input_small(void)
{
    uint8_t pixels[6] = {0, 100, 255, 200, 50, 1};
    tfpi_image image = {2, 1, 3, pixels};
    float out[2 * 4 * 3];
    const float row[12] = {0, 100, 255, 100, 75, 128, 200, 50, 1, 200, 50, 1};
    tfpi_image_to_input(&image, 4, 2, 0.0f, 1.0f, out);
    for (int i = 0; i < 24; i++) CHECK_NEAR(out[i], row[i % 12], 0);
    tfpi_image_to_input(&image, 4, 2, 127.5f, 127.5f, out);
    for (int i = 0; i < 24; i++)
        CHECK_NEAR(out[i], (row[i % 12] - 127.5f) / 127.5f, 1e-6);
}

/* A BMP of width x height at `bits` per pixel (8, 24, 32): the headers, then
 * rows padded to 4 bytes, bottom-up for a positive height. Returns its size. */
static size_t make_bmp(uint8_t *out, int32_t width, int32_t height, uint16_t bits, const uint8_t *rows_data,
                       size_t row_bytes, int rows)
{
    memset(out, 0, 54);
    out[0] = 'B', out[1] = 'M';
    const uint32_t fields[][2] = {{10, 54}, {14, 40}, {18, (uint32_t)width}, {22, (uint32_t)height}};
    for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++)
        for (int b = 0; b < 4; b++)
            out[fields[f][0] + b] = (uint8_t)(fields[f][1] >> (8 * b));
    out[26] = 1, out[28] = (uint8_t)bits;
    memcpy(out + 54, rows_data, row_bytes * (size_t)rows);
    return 54 + row_bytes * (size_t)rows;
}

/* TFLite label_image's BMPs: 24-bit bottom-up with row padding, 32-bit
 * top-down, 8-bit grey; and broken ones refused with one message. */
static void test_bmp(void)
{
    uint8_t file[256];
    tfpi_status status;
    tfpi_image image;
    /* 2x2, 24 bits: rows of 6 bytes padded to 8, stored bottom row first, BGR. */
    const uint8_t rows24[16] = {1, 2, 3, 4, 5, 6, 0, 0, /* bottom: (3,2,1) (6,5,4) */
                                7, 8, 9, 10, 11, 12, 0, 0};
    size_t n = make_bmp(file, 2, 2, 24, rows24, 8, 2);
    CHECK(tfpi_image_decode(file, n, "a.bmp", &image, &status) == TFPI_OK);
    const uint8_t want24[12] = {9, 8, 7, 12, 11, 10, 3, 2, 1, 6, 5, 4};
    CHECK(image.width == 2 && image.height == 2 && memcmp(image.pixels, want24, 12) == 0);
    tfpi_image_free(&image);
    /* 2x1, 32 bits, top-down (height -1): BGRA. */
    const uint8_t rows32[8] = {10, 20, 30, 255, 40, 50, 60, 255};
    n = make_bmp(file, 2, -1, 32, rows32, 8, 1);
    CHECK(tfpi_image_decode(file, n, "b.bmp", &image, &status) == TFPI_OK);
    const uint8_t want32[6] = {30, 20, 10, 60, 50, 40};
    CHECK(image.height == 1 && memcmp(image.pixels, want32, 6) == 0);
    tfpi_image_free(&image);
    /* 3x1, 8 bits: grey repeated into R, G and B. */
    const uint8_t rows8[4] = {0, 128, 255, 0};
    n = make_bmp(file, 3, 1, 8, rows8, 4, 1);
    CHECK(tfpi_image_decode(file, n, "c.bmp", &image, &status) == TFPI_OK);
    const uint8_t want8[9] = {0, 0, 0, 128, 128, 128, 255, 255, 255};
    CHECK(image.width == 3 && memcmp(image.pixels, want8, 9) == 0);
    tfpi_image_free(&image);
    /* Broken: truncated rows, a huge size, compression, no room for the headers. */
    n = make_bmp(file, 2, 2, 24, rows24, 8, 2);
    CHECK(tfpi_image_decode(file, n - 1, "d.bmp", &image, &status) == TFPI_INVALID_ARGUMENT &&
          strstr(status.message, "do not fit the file") && image.pixels == NULL);
    n = make_bmp(file, 0x7fffffff, 0x7fffffff, 24, rows24, 8, 2);
    CHECK(tfpi_image_decode(file, n, "e.bmp", &image, &status) == TFPI_INVALID_ARGUMENT);
    n = make_bmp(file, 2, 2, 24, rows24, 8, 2);
    file[30] = 1; /* BI_RLE8 */
    CHECK(tfpi_image_decode(file, n, "f.bmp", &image, &status) == TFPI_UNIMPLEMENTED &&
          strstr(status.message, "uncompressed 8-, 24- and 32-bit"));
    CHECK(tfpi_image_decode(file, 20, "g.bmp", &image, &status) == TFPI_INVALID_ARGUMENT &&
          strstr(status.message, "too short for its headers"));
}

int main(void)
{
    RUN(test_plates_match_tensorflow);
    RUN(test_grace_hopper_128);
    RUN(test_grace_hopper_224);
    RUN(test_decode_rejects_non_images);
    RUN(test_decode_rejects_corrupt_headers);
    RUN(test_decode_rejects_truncated);
    RUN(test_jpeg_missing_end_marker);
    RUN(test_jpeg_too_large);
    RUN(test_load_errors);
    RUN(test_free_is_safe);
    RUN(test_to_input_small);
    RUN(test_bmp);
    return check_summary();
}
