/* test_models_fp16.c - the error of precision fp16 (src/compute/gemm_fp16.c)
 * on the real models of ../shared/testdata, against the same graphs run in
 * fp32 and against TensorFlow's own logits:
 *   - MobileNet v1 0.25 128 on the 21 photos of tf_reference/ (the .f32
 *     inputs): top-1 equal to fp32's and TensorFlow's on every photo, logits
 *     and probabilities within the bounds below;
 *   - grace_hopper.jpg at 224 (MobileNet v1 0.25 224): top-1 equal to
 *     fp32's, logits and probabilities within the bounds (at 128 its top
 *     two are tied to 3e-4, less than fp16's error: not a test of top-1);
 *   - the retrained plates graph (its MatMul head too): the same class.
 * The figures printed are the README's. Runs the fp16 kernels where the
 * session gets them (an aarch64 build on a CPU with fp16 arithmetic: under
 * qemu's -cpu max it must); elsewhere fp16 is emulated by the portable
 * kernels (binary16.h: the same values), on fewer photos (every third of
 * the retrained graph's), and where that runs under an emulator itself
 * (qemu-arm, valgrind) on a sample only: the first photo of each graph,
 * without grace_hopper. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/cpu.h"
#include "test_files.h"
#include "test_util.h"

#define PLATES_DIR "tf_reference/mobilenet_v1_0.25_128_plates"
#define LOGITS "MobilenetV1/Predictions/Reshape"
#define PROBS "MobilenetV1/Predictions/Reshape_1"
#define NUM_CLASSES 1001

/* Bounds of fp16 against fp32 (about 1.5x the worst seen; README). */
#define MAX_LOGIT_DIFF 0.3
#define MAX_PROB_DIFF 0.02

static tfpi_session *new_session(tfpi_graph *graph, const char *precision)
{
    tfpi_status status;
    tfpi_session_options options = {.num_threads = 2, .precision = precision};
    tfpi_session *s = graph ? tfpi_session_new(graph, &options, &status) : NULL;
    CHECK_MSG(!graph || s, "session: %s", graph ? status.message : "");
    return s;
}

static bool fp16_available(void)
{
    tfpi_graph *graph = load_graph_or_fail(testdata_path("mnist/mnist.pb"));
    tfpi_session *s = new_session(graph, "fp16");
    const bool fp16 = s && strcmp(tfpi_session_precision(s), "fp16") == 0;
    tfpi_session_free(s);
    tfpi_graph_free(graph);
    return fp16;
}

/* The worst differences seen by a test, printed at its end. */
typedef struct worst {
    double logits, probs, tf_logits;
} worst;

static void note(double *worst_value, double value)
{
    if (value > *worst_value)
        *worst_value = value;
}

/* Runs input ([1, size, size, 3]) and fetches outputs[0..count-1]; false
 * (with a failed CHECK) if the run fails. */
static bool run(tfpi_session *session, const float *input, int size, const char *const *fetches, int count,
                tfpi_tensor **outputs)
{
    tfpi_status status;
    const int64_t dims[4] = {1, size, size, 3};
    const char *feed = "input";
    tfpi_tensor *in = tfpi_tensor_new(TFPI_FLOAT, dims, 4, &status);
    if (in)
        memcpy(tfpi_tensor_data(in), input, tfpi_tensor_byte_size(in));
    const bool ok = in && tfpi_session_run(session, &feed, &in, 1, fetches, outputs, count, &status) == TFPI_OK;
    CHECK_MSG(ok, "run: %s", status.message);
    tfpi_tensor_free(in);
    return ok;
}

/* Checks fp16's output against fp32's: top-1 the same, max |d| within
 * bound and not 0 (then fp16 did not run); returns the max |d|. */
static double compare(const tfpi_tensor *fp32, const tfpi_tensor *fp16, double bound, const char *what)
{
    const size_t n = (size_t)tfpi_tensor_num_elements(fp32);
    const float *x = tfpi_tensor_const_data(fp32), *y = tfpi_tensor_const_data(fp16);
    const double max_abs = compare_floats(x, y, n).max_abs;
    CHECK_MSG(argmax_f32(x, n) == argmax_f32(y, n), "%s: top-1 %d in fp16, %d in fp32", what, argmax_f32(y, n),
              argmax_f32(x, n));
    CHECK_MSG(max_abs <= bound, "%s: max |d| %.3g > %.3g", what, max_abs, bound);
    CHECK_MSG(max_abs > 0, "%s: fp16 gave fp32's exact outputs: not run in fp16?", what);
    return max_abs;
}

/* One input through both sessions: logits and probabilities compared, and
 * fp16's logits against TensorFlow's (tf, if given: the same top-1). */
static void compare_mobilenet(tfpi_session *fp32, tfpi_session *fp16, const float *input, int size,
                              const float *tf, const char *what, worst *w)
{
    const char *const fetches[2] = {LOGITS, PROBS};
    tfpi_tensor *a[2] = {0}, *b[2] = {0};
    if (run(fp32, input, size, fetches, 2, a) && run(fp16, input, size, fetches, 2, b)) {
        char name[128];
        snprintf(name, sizeof name, "%s logits", what);
        note(&w->logits, compare(a[0], b[0], MAX_LOGIT_DIFF, name));
        snprintf(name, sizeof name, "%s probabilities", what);
        note(&w->probs, compare(a[1], b[1], MAX_PROB_DIFF, name));
        const float *logits = tfpi_tensor_const_data(b[0]);
        if (tf) {
            CHECK_MSG(argmax_f32(logits, NUM_CLASSES) == argmax_f32(tf, NUM_CLASSES),
                      "%s: fp16 top-1 %d, TensorFlow's %d", what, argmax_f32(logits, NUM_CLASSES),
                      argmax_f32(tf, NUM_CLASSES));
            note(&w->tf_logits, compare_floats(logits, tf, NUM_CLASSES).max_abs);
        }
    }
    for (int i = 0; i < 2; i++) {
        tfpi_tensor_free(a[i]);
        tfpi_tensor_free(b[i]);
    }
}

/* The photos run, every photo_step-th of them (retrained_photo_step for
 * the retrained graph): where fp16 is emulated (many times slower), not
 * all of them (main). */
static int photo_step = 1, retrained_photo_step = 1;

static void test_plates_fp16(void)
{
    static char stems[64][64];
    const int n = reference_stems(PLATES_DIR, stems, 64);
    CHECK_EQ_INT(n, 21);
    tfpi_graph *graph = load_graph_or_fail(testdata_path("mobilenet_v1_0.25_128/frozen_graph.pb"));
    tfpi_session *fp32 = new_session(graph, "fp32"), *fp16 = new_session(graph, "fp16");
    worst w = {0, 0, 0};
    for (int i = 0; fp32 && fp16 && i < n; i += photo_step) {
        char path[8192];
        snprintf(path, sizeof path, "%s/%s.tf_logits.f32", PLATES_DIR, stems[i]);
        float *tf = read_f32_file(testdata_path(path), NUM_CLASSES, NULL);
        snprintf(path, sizeof path, "%s/%s.input_nhwc_1x128x128x3.f32", PLATES_DIR, stems[i]);
        float *input = read_f32_file(testdata_path(path), 128 * 128 * 3, NULL);
        if (input && tf)
            compare_mobilenet(fp32, fp16, input, 128, tf, stems[i], &w);
        free(tf);
        free(input);
    }
    printf("  plates (MobileNet v1 0.25 128, %d photos): fp16 vs fp32 max |d| logits %.3g, probabilities %.3g; "
           "fp16 vs TensorFlow logits %.3g; top-1 as both on every photo\n",
           (n + photo_step - 1) / photo_step, w.logits, w.probs, w.tf_logits);
    tfpi_session_free(fp32);
    tfpi_session_free(fp16);
    tfpi_graph_free(graph);
}

/* grace_hopper through a MobileNet in both precisions, from the TF image
 * path's input of opencv_reference/. */
static void check_grace_hopper(const char *model, int size, const char *input_file)
{
    tfpi_graph *graph = load_graph_or_fail(testdata_path(model));
    tfpi_session *fp32 = new_session(graph, "fp32"), *fp16 = new_session(graph, "fp16");
    float *input = read_f32_file(testdata_path(input_file), (size_t)(size * size * 3), NULL);
    worst w = {0, 0, 0};
    if (fp32 && fp16 && input) {
        compare_mobilenet(fp32, fp16, input, size, NULL, "grace_hopper", &w);
        printf("  grace_hopper (%s): fp16 vs fp32 max |d| logits %.3g, probabilities %.3g\n", model, w.logits,
               w.probs);
    }
    free(input);
    tfpi_session_free(fp32);
    tfpi_session_free(fp16);
    tfpi_graph_free(graph);
}

static void test_grace_hopper_224_fp16(void)
{
    check_grace_hopper("mobilenet_v1_0.25_224/frozen_graph.pb", 224,
                       "opencv_reference/grace_hopper.input_nhwc_1x224x224x3.f32");
}

/* The retrained graph: its MatMul head over the MobileNet bottleneck, on
 * the photos (every retrained_photo_step-th). */
static void test_plates_retrained_fp16(void)
{
    tfpi_graph *graph = load_graph_or_fail(testdata_path("plates_retrained_0.25_128/retrained_graph.pb"));
    tfpi_session *fp32 = new_session(graph, "fp32"), *fp16 = new_session(graph, "fp16");
    static char stems[64][64];
    const int n = reference_stems(PLATES_DIR, stems, 64);
    double probs = 0;
    const char *fetch = "final_result";
    for (int i = 0; fp32 && fp16 && i < n; i += retrained_photo_step) {
        char path[8192];
        snprintf(path, sizeof path, "%s/%s.input_nhwc_1x128x128x3.f32", PLATES_DIR, stems[i]);
        float *input = read_f32_file(testdata_path(path), 128 * 128 * 3, NULL);
        tfpi_tensor *a = NULL, *b = NULL;
        if (input && run(fp32, input, 128, &fetch, 1, &a) && run(fp16, input, 128, &fetch, 1, &b))
            note(&probs, compare(a, b, MAX_PROB_DIFF, stems[i]));
        tfpi_tensor_free(a);
        tfpi_tensor_free(b);
        free(input);
    }
    printf("  retrained plates graph (%d photos): fp16 vs fp32 max |d| probabilities %.3g\n",
           (n + retrained_photo_step - 1) / retrained_photo_step, probs);
    tfpi_session_free(fp32);
    tfpi_session_free(fp16);
    tfpi_graph_free(graph);
}

int main(void)
{
    bool all_models = true;
    if (!fp16_available()) {
        const char *qemu = getenv("QEMU");
        CHECK_MSG(!(qemu && strstr(qemu, "qemu-aarch64")), "no fp16 under QEMU=%s", qemu);
        tp_cpu_emulate_fp16(true);
        CHECK(fp16_available());
        /* emulated fp16 under an emulator (qemu, valgrind) takes minutes:
         * there a sample, the host suite runs the rest */
        all_models = !(qemu && *qemu);
        retrained_photo_step = all_models ? 3 : 64;
        photo_step = all_models ? 1 : 64;
        printf("no fp16 arithmetic here: fp16 emulated by the portable kernels%s\n",
               all_models ? "" : " (under an emulator: the first photo of each graph only)");
    }
    RUN(test_plates_fp16);
    if (all_models)
        RUN(test_grace_hopper_224_fp16);
    RUN(test_plates_retrained_fp16);
    return check_summary();
}
