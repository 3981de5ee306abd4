/* test_decode_image.c - DecodeJpeg and DecodePng on constant and fed
 * image bytes:
 *  - RGB output identical to tfpi_image_decode (libjpeg-turbo fast IDCT,
 *    libpng), including a PNG read by DecodeJpeg and a JPEG by DecodePng;
 *  - channels 0 (the file's count) and 1 (grey): the grey PNG and JPEG keep
 *    their values; an RGB PNG turns grey as libpng's png_set_rgb_to_gray(
 *    0.299, 0.587) did when a small C program ran it on the same file (the
 *    values are hard-coded below); a colour JPEG is within 1 of the BT.601
 *    luma of its RGB pixels;
 *  - the whole TF image path (decode, Cast, ResizeBilinear, normalise) on a
 *    photo and a PNG of tf_reference against the input tensors TensorFlow
 *    itself computed;
 *  - errors (alpha, bad attrs, not an image, truncated data) name the node.
 * The small images were written by OpenCV (cv2.imencode): a 3x2 grey PNG,
 * a 3x2 RGB PNG, a 2x2 RGBA PNG and a 16x8 grey JPEG of a gradient. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "graph_builder.h"
#include "op_test.h"
#include "test_files.h"
#include "test_util.h"

#define GRACE_HOPPER "images/grace_hopper.jpg"

static const uint8_t grey_png[73] = {
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44,
    0x52, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x02, 0x08, 0x00, 0x00, 0x00, 0x00, 0xb8,
    0x1f, 0x39, 0xc6, 0x00, 0x00, 0x00, 0x10, 0x49, 0x44, 0x41, 0x54, 0x08, 0xd7, 0x63, 0x64,
    0xd0, 0xd0, 0x60, 0xa8, 0x38, 0xf1, 0x1f, 0x00, 0x05, 0xbf, 0x02, 0x91, 0xeb, 0xf0, 0x0c,
    0xf3, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
};
static const uint8_t rgb_png[81] = {
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00,
    0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x02, 0x08, 0x02, 0x00, 0x00, 0x00, 0x12, 0x16, 0xf1, 0x4d, 0x00,
    0x00, 0x00, 0x18, 0x49, 0x44, 0x41, 0x54, 0x08, 0xd7, 0x63, 0xf8, 0xcf, 0xc0, 0xc0, 0x00, 0xc1, 0x5c,
    0x27, 0xa2, 0x1a, 0x1a, 0x1a, 0x7e, 0xfd, 0x66, 0x06, 0x00, 0x42, 0x5e, 0x07, 0xa2, 0x03, 0x69, 0x19,
    0x14, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
};
static const uint8_t rgba_png[80] = {
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x02, 0x08, 0x06, 0x00, 0x00, 0x00, 0x72, 0xb6, 0x0d,
    0x24, 0x00, 0x00, 0x00, 0x17, 0x49, 0x44, 0x41, 0x54, 0x08, 0x1d, 0x63, 0x64, 0x60, 0x60, 0x68,
    0x60, 0x00, 0x02, 0x46, 0x06, 0x06, 0x86, 0x06, 0x06, 0x20, 0x00, 0x00, 0x09, 0xad, 0x01, 0x03,
    0x90, 0xc0, 0x0f, 0x0f, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
};
static const uint8_t grey_jpeg[387] = {
    0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00,
    0x01, 0x00, 0x00, 0xff, 0xdb, 0x00, 0x43, 0x00, 0x03, 0x02, 0x02, 0x03, 0x02, 0x02, 0x03, 0x03, 0x03,
    0x03, 0x04, 0x03, 0x03, 0x04, 0x05, 0x08, 0x05, 0x05, 0x04, 0x04, 0x05, 0x0a, 0x07, 0x07, 0x06, 0x08,
    0x0c, 0x0a, 0x0c, 0x0c, 0x0b, 0x0a, 0x0b, 0x0b, 0x0d, 0x0e, 0x12, 0x10, 0x0d, 0x0e, 0x11, 0x0e, 0x0b,
    0x0b, 0x10, 0x16, 0x10, 0x11, 0x13, 0x14, 0x15, 0x15, 0x15, 0x0c, 0x0f, 0x17, 0x18, 0x16, 0x14, 0x18,
    0x12, 0x14, 0x15, 0x14, 0xff, 0xc0, 0x00, 0x0b, 0x08, 0x00, 0x08, 0x00, 0x10, 0x01, 0x01, 0x11, 0x00,
    0xff, 0xc4, 0x00, 0x1f, 0x00, 0x00, 0x01, 0x05, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0xff,
    0xc4, 0x00, 0xb5, 0x10, 0x00, 0x02, 0x01, 0x03, 0x03, 0x02, 0x04, 0x03, 0x05, 0x05, 0x04, 0x04, 0x00,
    0x00, 0x01, 0x7d, 0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51,
    0x61, 0x07, 0x22, 0x71, 0x14, 0x32, 0x81, 0x91, 0xa1, 0x08, 0x23, 0x42, 0xb1, 0xc1, 0x15, 0x52, 0xd1,
    0xf0, 0x24, 0x33, 0x62, 0x72, 0x82, 0x09, 0x0a, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x25, 0x26, 0x27, 0x28,
    0x29, 0x2a, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a,
    0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x73,
    0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x92, 0x93,
    0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2,
    0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca,
    0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe1, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8,
    0xe9, 0xea, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa, 0xff, 0xda, 0x00, 0x08, 0x01,
    0x01, 0x00, 0x00, 0x3f, 0x00, 0xf0, 0xaf, 0xd9, 0xb7, 0xe1, 0xb7, 0xfc, 0x7a, 0xfe, 0xeb, 0xd3, 0xb5,
    0x7d, 0xab, 0xf1, 0x63, 0xe2, 0x1f, 0xfc, 0x33, 0x17, 0xec, 0xe1, 0xac, 0x78, 0xaa, 0xcc, 0xf9, 0x5e,
    0x24, 0xbc, 0xdb, 0xa4, 0x68, 0x3f, 0x26, 0x71, 0x7f, 0x32, 0xb6, 0xc9, 0x39, 0x8d, 0xd3, 0xf7, 0x48,
    0x92, 0xcf, 0xb6, 0x41, 0xb5, 0xfc, 0x9d, 0x84, 0x82, 0xe2, 0xbf, 0xff, 0xd9,
};

/* The pixels of grey_png and rgb_png (what OpenCV was given). */
static const uint8_t grey_png_pixels[6] = {0, 40, 80, 120, 200, 255};
static const uint8_t rgb_png_pixels[18] = {255, 0,   0,  0,   255, 0,   0,   0,   255,
                                           10,  200, 90, 128, 128, 128, 250, 251, 3};
/* rgb_png decoded by libpng 1.6 with png_set_rgb_to_gray(png, 1, 0.299, 0.587). */
static const uint8_t rgb_png_libpng_grey[6] = {76, 149, 29, 130, 128, 222};

typedef struct decode_case {
    const char *op; /* DecodeJpeg or DecodePng */
    int64_t channels;
    int64_t ratio;          /* 0: attr absent */
    const char *dct_method; /* NULL: attr absent */
    bool feed;              /* feed the bytes instead of a Const */
} decode_case;

/* Decodes bytes through a one-op graph; the output or NULL with status set. */
static tfpi_tensor *decode(const decode_case *c, const uint8_t *bytes, size_t size, tfpi_status *status)
{
    gb_graph *g = gb_new();
    if (c->feed)
        gb_placeholder(g, "contents", TFPI_STRING, NULL, 0);
    else
        gb_const_string(g, "contents", bytes, size);
    Tfpi__NodeDef *n = gb_node(g, c->op, "decoded", "contents", NULL);
    gd_attr_set_int(n, "channels", c->channels);
    if (c->ratio)
        gd_attr_set_int(n, "ratio", c->ratio);
    if (c->dct_method)
        gd_attr_set_string(n, "dct_method", c->dct_method);
    tfpi_tensor *feed = c->feed ? op_string_tensor(bytes, size) : NULL, *out = NULL;
    const char *feed_name = "contents", *fetch = "decoded";
    op_run_graph(g, c->feed ? 1 : 0, &feed_name, &feed, 1, &fetch, &out, 0, status);
    tfpi_tensor_free(feed);
    gb_free(g);
    return out;
}

/* Decodes and checks the uint8 [h, w, channels] shape; NULL on failure. */
static tfpi_tensor *decode_ok(const decode_case *c, const uint8_t *bytes, size_t size, int64_t h, int64_t w,
                              int64_t channels)
{
    tfpi_status status;
    tfpi_tensor *out = decode(c, bytes, size, &status);
    CHECK_MSG(out, "%s channels=%lld: %s", c->op, (long long)c->channels, status.message);
    if (!out)
        return NULL;
    bool ok = tfpi_tensor_dtype(out) == TFPI_UINT8 && tfpi_tensor_ndims(out) == 3 &&
              tfpi_tensor_dim(out, 0) == h && tfpi_tensor_dim(out, 1) == w &&
              tfpi_tensor_dim(out, 2) == channels;
    CHECK_MSG(ok, "%s channels=%lld: wrong dtype or shape", c->op, (long long)c->channels);
    if (!ok) {
        tfpi_tensor_free(out);
        return NULL;
    }
    return out;
}

static void expect_pixels(const tfpi_tensor *t, const uint8_t *want, size_t count)
{
    if (t)
        CHECK_MSG(memcmp(tfpi_tensor_const_data(t), want, count) == 0, "pixels differ");
}

static void test_jpeg_matches_image_decode(void)
{
    size_t size;
    uint8_t *bytes = read_test_file(testdata_path(GRACE_HOPPER), &size);
    tfpi_image image;
    tfpi_status status;
    if (!bytes || tfpi_image_decode(bytes, size, "grace_hopper", &image, &status) != TFPI_OK) {
        CHECK_MSG(0, "cannot decode %s", GRACE_HOPPER);
        free(bytes);
        return;
    }
    const size_t count = (size_t)image.width * (size_t)image.height * 3;
    const decode_case cases[] = {
        {"DecodeJpeg", 3, 1, "", false},
        {"DecodeJpeg", 0, 0, "INTEGER_FAST", true},
        {"DecodeJpeg", 3, 0, "INTEGER_ACCURATE", false}, /* also the fast IDCT */
        {"DecodePng", 3, 0, NULL, true},                 /* TF 1.x reads JPEGs here too */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tfpi_tensor *out = decode_ok(&cases[i], bytes, size, image.height, image.width, 3);
        expect_pixels(out, image.pixels, count);
        tfpi_tensor_free(out);
    }
    tfpi_image_free(&image);
    free(bytes);
}

static void test_grey(void)
{
    const decode_case png0 = {"DecodePng", 0, 0, NULL, false}, png1 = {"DecodePng", 1, 0, NULL, true};
    const decode_case png3 = {"DecodePng", 3, 0, NULL, false}, jpeg0 = {"DecodeJpeg", 0, 0, NULL, true};
    tfpi_tensor *t = decode_ok(&png0, grey_png, sizeof grey_png, 2, 3, 1);
    expect_pixels(t, grey_png_pixels, 6);
    tfpi_tensor_free(t);
    uint8_t replicated[18];
    for (int i = 0; i < 18; i++)
        replicated[i] = grey_png_pixels[i / 3];
    t = decode_ok(&png3, grey_png, sizeof grey_png, 2, 3, 3);
    expect_pixels(t, replicated, 18);
    tfpi_tensor_free(t);
    t = decode_ok(&png0, rgb_png, sizeof rgb_png, 2, 3, 3);
    expect_pixels(t, rgb_png_pixels, 18);
    tfpi_tensor_free(t);
    t = decode_ok(&png1, rgb_png, sizeof rgb_png, 2, 3, 1);
    expect_pixels(t, rgb_png_libpng_grey, 6);
    tfpi_tensor_free(t);
    t = decode_ok(&jpeg0, rgb_png, sizeof rgb_png, 2, 3, 3); /* DecodeJpeg reads PNGs too */
    expect_pixels(t, rgb_png_pixels, 18);
    tfpi_tensor_free(t);

    /* A greyscale JPEG: one channel by default, the decoder's grey values. */
    tfpi_image image;
    tfpi_status status;
    CHECK(tfpi_image_decode(grey_jpeg, sizeof grey_jpeg, "grey_jpeg", &image, &status) == TFPI_OK);
    t = decode_ok(&jpeg0, grey_jpeg, sizeof grey_jpeg, 8, 16, 1);
    for (int i = 0; t && i < 8 * 16; i++)
        CHECK_EQ_INT(((const uint8_t *)tfpi_tensor_const_data(t))[i], image.pixels[3 * i]);
    tfpi_tensor_free(t);
    tfpi_image_free(&image);

    /* A colour JPEG in grey: within 1 of the BT.601 luma of its RGB. */
    size_t size;
    uint8_t *bytes = read_test_file(testdata_path(GRACE_HOPPER), &size);
    if (!bytes || tfpi_image_decode(bytes, size, "grace_hopper", &image, &status) != TFPI_OK) {
        free(bytes);
        return;
    }
    const decode_case jpeg1 = {"DecodeJpeg", 1, 0, NULL, false};
    t = decode_ok(&jpeg1, bytes, size, image.height, image.width, 1);
    int off_by_more = 0;
    for (int i = 0; t && i < image.width * image.height; i++) {
        const uint8_t *rgb = image.pixels + 3 * i;
        const double luma = 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2];
        off_by_more += fabs(((const uint8_t *)tfpi_tensor_const_data(t))[i] - luma) > 1.0;
    }
    CHECK_EQ_INT(off_by_more, 0);
    tfpi_tensor_free(t);
    tfpi_image_free(&image);
    free(bytes);
}

/* Decoding must fail with a message naming the node and holding `phrase`. */
static void expect_error(const decode_case *c, const uint8_t *bytes, size_t size, const char *phrase)
{
    tfpi_status status;
    tfpi_tensor *out = decode(c, bytes, size, &status);
    char node[64];
    snprintf(node, sizeof node, "node 'decoded' (%s)", c->op);
    CHECK_MSG(!out && strstr(status.message, node) && strstr(status.message, phrase),
              "%s: expected an error naming the node and saying '%s', got '%s'", c->op, phrase,
              out ? "success" : status.message);
    tfpi_tensor_free(out);
}

static void test_errors(void)
{
    const decode_case png0 = {"DecodePng", 0, 0, NULL, false}, png4 = {"DecodePng", 4, 0, NULL, false};
    const decode_case png7 = {"DecodePng", 7, 0, NULL, false}, jpeg_ratio = {"DecodeJpeg", 3, 2, NULL, false};
    const decode_case jpeg_dct = {"DecodeJpeg", 3, 0, "FLOAT_SLOW", false};
    const decode_case jpeg3 = {"DecodeJpeg", 3, 0, NULL, true};
    expect_error(&png0, rgba_png, sizeof rgba_png, "alpha channel");
    expect_error(&png4, rgb_png, sizeof rgb_png, "is not supported");
    expect_error(&png7, rgb_png, sizeof rgb_png, "channels must be 0, 1 or 3");
    expect_error(&jpeg_ratio, grey_jpeg, sizeof grey_jpeg, "ratio 2");
    expect_error(&jpeg_dct, grey_jpeg, sizeof grey_jpeg, "dct_method");
    const char *text = "GIF89a, or rather not an image at all";
    expect_error(&jpeg3, (const uint8_t *)text, strlen(text), "not a JPEG, PNG or BMP");
    expect_error(&jpeg3, grey_jpeg, sizeof grey_jpeg / 2, "JPEG");
    expect_error(&png0, rgb_png, 40, "PNG");
}

static void test_attr_errors(void)
{
    gb_graph *g = gb_new();
    gb_const_string(g, "contents", rgb_png, sizeof rgb_png);
    Tfpi__NodeDef *png = gb_node(g, "DecodePng", "png16", "contents", NULL);
    gd_attr_set_type(png, "dtype", TFPI_UINT16);
    Tfpi__NodeDef *jpeg = gb_node(g, "DecodeJpeg", "plain", "contents", NULL);
    gd_attr_set_bool(jpeg, "fancy_upscaling", 0);
    tfpi_status status;
    tfpi_graph *graph = gb_load(g, &status);
    gb_free(g);
    tfpi_session *session = graph ? tfpi_session_new(graph, NULL, &status) : NULL;
    CHECK(session);
    const char *fetches[2] = {"png16", "plain"};
    const char *phrases[2] = {"node 'png16' (DecodePng): dtype uint16",
                              "node 'plain' (DecodeJpeg): fancy_upscaling"};
    for (int i = 0; session && i < 2; i++) {
        tfpi_tensor *out = NULL;
        tfpi_code code = tfpi_session_run(session, NULL, NULL, 0, &fetches[i], &out, 1, &status);
        CHECK_MSG(code != TFPI_OK && strstr(status.message, phrases[i]), "expected '%s', got '%s'",
                  phrases[i], code == TFPI_OK ? "success" : status.message);
        tfpi_tensor_free(out);
    }
    tfpi_session_free(session);
    tfpi_graph_free(graph);
}

/* TF's retrain preprocessing as a graph: decode_jpeg(channels=3), cast to
 * float, expand_dims, resize_bilinear to 128x128, (x - 127.5) * (1 / 127.5). */
static tfpi_tensor *preprocess(const uint8_t *bytes, size_t size, tfpi_status *status)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "contents", TFPI_STRING, NULL, 0);
    gd_attr_set_int(gb_node(g, "DecodeJpeg", "decoded", "contents", NULL), "channels", 3);
    Tfpi__NodeDef *cast = gb_node(g, "Cast", "cast", "decoded", NULL);
    gd_attr_set_type(cast, "SrcT", TFPI_UINT8);
    gd_attr_set_type(cast, "DstT", TFPI_FLOAT);
    const int32_t zero = 0, size_hw[2] = {128, 128};
    const float mean = 127.5f, scale = 1.0f / 127.5f;
    gb_const(g, "axis", TFPI_INT32, NULL, 0, &zero);
    gb_node(g, "ExpandDims", "batch", "cast", "axis", NULL);
    gb_const(g, "size", TFPI_INT32, (const int64_t[]){2}, 1, size_hw);
    gb_node(g, "ResizeBilinear", "resized", "batch", "size", NULL);
    gb_const(g, "mean", TFPI_FLOAT, NULL, 0, &mean);
    gb_const(g, "scale", TFPI_FLOAT, NULL, 0, &scale);
    gb_node(g, "Sub", "centred", "resized", "mean", NULL);
    gb_node(g, "Mul", "input", "centred", "scale", NULL);
    tfpi_tensor *feed = op_string_tensor(bytes, size), *out = NULL;
    const char *feed_name = "contents", *fetch = "input";
    op_run_graph(g, 1, &feed_name, &feed, 1, &fetch, &out, 0, status);
    tfpi_tensor_free(feed);
    gb_free(g);
    return out;
}

static void test_plates_match_tensorflow(void)
{
    const char *stems[2] = {"Indiana_ec32b0c327096a.jpg", "Indiana_7946b915333bb9.png"};
    for (int i = 0; i < 2; i++) {
        char image_rel[256], ref_rel[256];
        snprintf(image_rel, sizeof image_rel, "tf_reference/mobilenet_v1_0.25_128_plates/%s", stems[i]);
        snprintf(ref_rel, sizeof ref_rel,
                 "tf_reference/mobilenet_v1_0.25_128_plates/%.*s.input_nhwc_1x128x128x3.f32",
                 (int)(strlen(stems[i]) - 4), stems[i]);
        size_t size;
        uint8_t *bytes = read_test_file(testdata_path(image_rel), &size);
        float *want = read_f32_file(testdata_path(ref_rel), 128 * 128 * 3, NULL);
        tfpi_status status;
        tfpi_tensor *got = bytes && want ? preprocess(bytes, size, &status) : NULL;
        CHECK_MSG(got, "%s: %s", stems[i], bytes && want ? status.message : "no data");
        if (got && tfpi_tensor_num_elements(got) == 128 * 128 * 3) {
            diff_stats d = compare_floats(tfpi_tensor_const_data(got), want, 128 * 128 * 3);
            CHECK_MSG(d.max_abs <= 1e-5, "%s: max |d| %g, mean %g", stems[i], d.max_abs, d.mean_abs);
        }
        tfpi_tensor_free(got);
        free(want);
        free(bytes);
    }
}

int main(void)
{
    RUN(test_jpeg_matches_image_decode);
    RUN(test_grey);
    RUN(test_errors);
    RUN(test_attr_errors);
    RUN(test_plates_match_tensorflow);
    return check_summary();
}
