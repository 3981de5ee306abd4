/* test_models.c - the real models in ../shared/testdata against the outputs
 * TensorFlow (tf_reference/) and OpenCV DNN (opencv_reference/) computed:
 * MobileNet v1 0.25 on 21 real photos from the .f32 inputs (executor) and
 * from the image files (image path too), grace_hopper top-5 for the frozen
 * and quantized graphs, the retrained plates graph, and MNIST. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "test_files.h"
#include "test_util.h"

#define PLATES_DIR "tf_reference/mobilenet_v1_0.25_128_plates"
#define LOGITS "MobilenetV1/Predictions/Reshape"
#define PROBS "MobilenetV1/Predictions/Reshape_1"
#define NUM_CLASSES 1001

/* The bar of the runtime issue for every image. */
#define MAX_ABS_BOUND 5e-4
#define MEAN_ABS_BOUND 5e-5

static int num_threads(void)
{
    const char *env = getenv("TFPI_TEST_THREADS");
    return env ? atoi(env) : 2;
}

static tfpi_session *new_session(tfpi_graph *graph, int threads)
{
    tfpi_status status;
    tfpi_session_options options = {.num_threads = threads};
    tfpi_session *s = graph ? tfpi_session_new(graph, &options, &status) : NULL;
    CHECK_MSG(!graph || s, "session: %s", graph ? status.message : "");
    return s;
}

static void check_logits(const char *what, const float *got, const float *want, diff_stats *worst)
{
    diff_stats d = compare_floats(got, want, NUM_CLASSES);
    CHECK_MSG(d.max_abs <= MAX_ABS_BOUND, "%s: max |d| %.3g > %.1g", what, d.max_abs, MAX_ABS_BOUND);
    CHECK_MSG(d.mean_abs <= MEAN_ABS_BOUND, "%s: mean |d| %.3g > %.1g", what, d.mean_abs, MEAN_ABS_BOUND);
    CHECK_MSG(argmax_f32(got, NUM_CLASSES) == argmax_f32(want, NUM_CLASSES), "%s: top-1 %d, TF says %d",
              what, argmax_f32(got, NUM_CLASSES), argmax_f32(want, NUM_CLASSES));
    if (d.max_abs > worst->max_abs)
        worst->max_abs = d.max_abs;
    if (d.mean_abs > worst->mean_abs)
        worst->mean_abs = d.mean_abs;
}

/* Decodes an image file and preprocesses it like TF: 128x128, (x-127.5)/127.5. */
static float *image_input(const char *path, int size)
{
    tfpi_image image = {0};
    tfpi_status status;
    if (tfpi_image_load(path, &image, &status) != TFPI_OK) {
        CHECK_MSG(0, "%s", status.message);
        return NULL;
    }
    float *input = malloc(sizeof(float) * (size_t)(size * size * 3));
    if (input)
        tfpi_image_to_input(&image, size, size, 127.5f, 127.5f, input);
    tfpi_image_free(&image);
    return input;
}

/* Runs every plates pair, from the .f32 input or from the image file. */
static void run_plates(bool from_image)
{
    static char stems[64][64];
    int n = reference_stems(PLATES_DIR, stems, 64);
    CHECK_EQ_INT(n, 21);
    tfpi_graph *graph = load_graph_or_fail(testdata_path("mobilenet_v1_0.25_128/frozen_graph.pb"));
    tfpi_session *session = new_session(graph, num_threads());
    diff_stats worst = {0, 0};
    const int64_t dims[4] = {1, 128, 128, 3};
    for (int i = 0; session && i < n; i++) {
        char path[8192];
        snprintf(path, sizeof path, "%s/%s.tf_logits.f32", PLATES_DIR, stems[i]);
        float *want = read_f32_file(testdata_path(path), NUM_CLASSES, NULL);
        float *input = NULL;
        if (from_image) {
            snprintf(path, sizeof path, "%s/%s.jpg", PLATES_DIR, stems[i]);
            if (access(testdata_path(path), R_OK) != 0)
                snprintf(path, sizeof path, "%s/%s.png", PLATES_DIR, stems[i]);
            input = image_input(testdata_path(path), 128);
        } else {
            snprintf(path, sizeof path, "%s/%s.input_nhwc_1x128x128x3.f32", PLATES_DIR, stems[i]);
            input = read_f32_file(testdata_path(path), 128 * 128 * 3, NULL);
        }
        tfpi_tensor *out = input ? run_float(session, "input", input, dims, 4, LOGITS) : NULL;
        if (out && want) {
            CHECK_EQ_INT(tfpi_tensor_num_elements(out), NUM_CLASSES);
            check_logits(stems[i], tfpi_tensor_const_data(out), want, &worst);
        }
        tfpi_tensor_free(out);
        free(input);
        free(want);
    }
    printf("  plates %s: worst max |d| %.3g, worst mean |d| %.3g over %d images\n",
           from_image ? "from image files" : "from .f32 inputs", worst.max_abs, worst.mean_abs, n);
    tfpi_session_free(session);
    tfpi_graph_free(graph);
}

static void test_plates_executor(void) { run_plates(false); }
static void test_plates_end_to_end(void) { run_plates(true); }

/* grace_hopper.jpg at 224 through a model: top-5 indices equal OpenCV's and
 * every top-5 probability within 1e-3. */
static void check_grace_hopper(const char *model, const char *prob_ref)
{
    tfpi_graph *graph = load_graph_or_fail(testdata_path(model));
    tfpi_session *session = new_session(graph, num_threads());
    float *input = image_input(testdata_path("images/grace_hopper.jpg"), 224);
    float *want = read_f32_file(testdata_path(prob_ref), NUM_CLASSES, NULL);
    const int64_t dims[4] = {1, 224, 224, 3};
    tfpi_tensor *out = session && input ? run_float(session, "input", input, dims, 4, PROBS) : NULL;
    if (out && want) {
        const float *got = tfpi_tensor_const_data(out);
        float got_copy[NUM_CLASSES], want_copy[NUM_CLASSES];
        memcpy(got_copy, got, sizeof got_copy);
        memcpy(want_copy, want, sizeof want_copy);
        for (int k = 0; k < 5; k++) {
            int g = argmax_f32(got_copy, NUM_CLASSES), w = argmax_f32(want_copy, NUM_CLASSES);
            CHECK_MSG(g == w, "%s: top-%d index %d, OpenCV says %d", model, k + 1, g, w);
            CHECK_NEAR(got[g], want[w], 1e-3);
            printf("  %s top-%d: %d %.5f (OpenCV %d %.5f)\n", model, k + 1, g, (double)got[g], w,
                   (double)want[w]);
            got_copy[g] = want_copy[w] = -1.0f;
        }
    }
    tfpi_tensor_free(out);
    free(input);
    free(want);
    tfpi_session_free(session);
    tfpi_graph_free(graph);
}

static void test_grace_hopper_frozen_224(void)
{
    check_grace_hopper("mobilenet_v1_0.25_224/frozen_graph.pb",
                       "opencv_reference/grace_hopper.mobilenet_v1_0.25_224.frozen_graph.opencv_prob.f32");
}

static void test_grace_hopper_quantized_224(void)
{
    check_grace_hopper("mobilenet_v1_0.25_224/quantized_graph.pb",
                       "opencv_reference/grace_hopper.mobilenet_v1_0.25_224.quantized_graph.opencv_prob.f32");
}

/* The OpenCV logits for the reference 128 input, frozen and quantized. */
static void check_logits_128(const char *model, const char *logits_ref)
{
    tfpi_graph *graph = load_graph_or_fail(testdata_path(model));
    tfpi_session *session = new_session(graph, num_threads());
    float *input = read_f32_file(testdata_path("opencv_reference/grace_hopper.input_nhwc_1x128x128x3.f32"),
                                 128 * 128 * 3, NULL);
    float *want = read_f32_file(testdata_path(logits_ref), NUM_CLASSES, NULL);
    const int64_t dims[4] = {1, 128, 128, 3};
    tfpi_tensor *out = session && input ? run_float(session, "input", input, dims, 4, LOGITS) : NULL;
    if (out && want) {
        diff_stats d = compare_floats(tfpi_tensor_const_data(out), want, NUM_CLASSES);
        printf("  %s vs OpenCV logits: max |d| %.3g, mean |d| %.3g\n", model, d.max_abs, d.mean_abs);
        CHECK(d.max_abs <= MAX_ABS_BOUND);
        CHECK(d.mean_abs <= MEAN_ABS_BOUND);
    }
    tfpi_tensor_free(out);
    free(input);
    free(want);
    tfpi_session_free(session);
    tfpi_graph_free(graph);
}

static void test_logits_128_frozen(void)
{
    check_logits_128("mobilenet_v1_0.25_128/frozen_graph.pb",
                     "opencv_reference/grace_hopper.mobilenet_v1_0.25_128.frozen_graph.opencv_logits.f32");
}

static void test_logits_128_quantized(void)
{
    check_logits_128("mobilenet_v1_0.25_128/quantized_graph.pb",
                     "opencv_reference/grace_hopper.mobilenet_v1_0.25_128.quantized_graph.opencv_logits.f32");
}

/* MNIST's batch dimension is unknown in the graph: run 9.raw alone and in a
 * batch of 3 and expect class 9 with OpenCV's probabilities. */
static void test_mnist(void)
{
    tfpi_graph *graph = load_graph_or_fail(testdata_path("mnist/mnist.pb"));
    tfpi_session *session = new_session(graph, 1);
    FILE *f = fopen(testdata_path("mnist/9.raw"), "rb");
    unsigned char pixels[784];
    CHECK(f && fread(pixels, 1, 784, f) == 784);
    if (f)
        fclose(f);
    float input[3 * 784];
    for (int b = 0; b < 3; b++)
        for (int i = 0; i < 784; i++)
            input[b * 784 + i] = ((float)pixels[i] - 127.5f) / 127.5f;
    float *want = read_f32_file(testdata_path("opencv_reference/mnist_9raw.opencv_softmax.f32"), 10, NULL);
    for (int batch = 1; session && want && batch <= 3; batch += 2) {
        const int64_t dims[2] = {batch, 784};
        tfpi_tensor *out = run_float(session, "input", input, dims, 2, "softmax");
        if (!out)
            continue;
        CHECK_EQ_INT(tfpi_tensor_dim(out, 0), batch);
        for (int b = 0; b < batch; b++) {
            const float *p = (const float *)tfpi_tensor_const_data(out) + b * 10;
            CHECK_EQ_INT(argmax_f32(p, 10), 9);
            CHECK(compare_floats(p, want, 10).max_abs <= 1e-4);
        }
        tfpi_tensor_free(out);
    }
    free(want);
    tfpi_session_free(session);
    tfpi_graph_free(graph);
}

/* The retrained plates graph: MatMul head on the MobileNet bottleneck, fed
 * from the image or straight into the PlaceholderWithDefault. */
static void test_plates_retrained(void)
{
    tfpi_graph *graph = load_graph_or_fail(testdata_path("plates_retrained_0.25_128/retrained_graph.pb"));
    tfpi_session *session = new_session(graph, num_threads());
    float *input = read_f32_file(testdata_path(PLATES_DIR "/Indiana_ec32b0c327096a.input_nhwc_1x128x128x3.f32"),
                                 128 * 128 * 3, NULL);
    const int64_t dims[4] = {1, 128, 128, 3};
    tfpi_tensor *probs = session && input ? run_float(session, "input", input, dims, 4, "final_result") : NULL;
    tfpi_tensor *bottleneck = session && input ? run_float(session, "input", input, dims, 4,
                                                           "input_1/BottleneckInputPlaceholder")
                                               : NULL;
    if (probs && bottleneck) {
        CHECK_EQ_INT(tfpi_tensor_num_elements(probs), 5);
        const float *p = tfpi_tensor_const_data(probs);
        double sum = 0;
        for (int i = 0; i < 5; i++)
            sum += p[i];
        CHECK_NEAR(sum, 1.0, 1e-5);
        /* Feeding the bottleneck directly gives the same answer. */
        const int64_t bdims[2] = {1, tfpi_tensor_num_elements(bottleneck)};
        tfpi_tensor *again = run_float(session, "input_1/BottleneckInputPlaceholder",
                                       tfpi_tensor_const_data(bottleneck), bdims, 2, "final_result");
        if (again)
            CHECK(compare_floats(tfpi_tensor_const_data(again), p, 5).max_abs <= 1e-6);
        tfpi_tensor_free(again);
    }
    tfpi_tensor_free(probs);
    tfpi_tensor_free(bottleneck);
    free(input);
    tfpi_session_free(session);
    tfpi_graph_free(graph);
}

/* One thread and two threads give the same logits. */
static void test_threads_agree(void)
{
    tfpi_graph *graph = load_graph_or_fail(testdata_path("mobilenet_v1_0.25_128/frozen_graph.pb"));
    tfpi_session *one = new_session(graph, 1), *two = new_session(graph, 2);
    float *input = read_f32_file(testdata_path("opencv_reference/grace_hopper.input_nhwc_1x128x128x3.f32"),
                                 128 * 128 * 3, NULL);
    const int64_t dims[4] = {1, 128, 128, 3};
    tfpi_tensor *a = one && input ? run_float(one, "input", input, dims, 4, LOGITS) : NULL;
    tfpi_tensor *b = two && input ? run_float(two, "input", input, dims, 4, LOGITS) : NULL;
    if (a && b)
        CHECK(compare_floats(tfpi_tensor_const_data(a), tfpi_tensor_const_data(b), NUM_CLASSES).max_abs <= 1e-5);
    tfpi_tensor_free(a);
    tfpi_tensor_free(b);
    free(input);
    tfpi_session_free(one);
    tfpi_session_free(two);
    tfpi_graph_free(graph);
}

int main(void)
{
    RUN(test_plates_executor);
    RUN(test_plates_end_to_end);
    RUN(test_grace_hopper_frozen_224);
    RUN(test_grace_hopper_quantized_224);
    RUN(test_logits_128_frozen);
    RUN(test_logits_128_quantized);
    RUN(test_mnist);
    RUN(test_plates_retrained);
    RUN(test_threads_agree);
    return check_summary();
}
