/* test_detection_model.c - the real Object Detection API export in
 * ../shared/testdata/detection/ssd_aiy (SSD, MobileNet v1 backbone, with its
 * Preprocessor/map and BatchMultiClassNonMaxSuppression/map while loops,
 * TensorArrays, NonMaxSuppressionV3, Where and Assert), run from
 * image_tensor as exported, for two images on 1 and 3 threads, and one
 * session run twice (buffers reused). All four outputs must be within 1e-4
 * of TensorFlow.js's (num_detections exactly). */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "npy.h"
#include "test_util.h"

static const char *const outputs[] = {"detection_boxes", "detection_scores", "detection_classes",
                                      "num_detections"};

static tfpi_tensor *load_npy(const char *image, const char *what)
{
    char rel[200];
    snprintf(rel, sizeof rel, "detection/ssd_aiy/%s.%s.npy", image, what);
    tfpi_status status;
    tfpi_tensor *t = npy_read(testdata_path(rel), &status);
    CHECK_MSG(t != NULL, "%s", status.message);
    return t;
}

static void compare(const tfpi_tensor *got, const tfpi_tensor *want, const char *name, const char *image)
{
    CHECK_MSG(got && tfpi_tensor_num_elements(got) == tfpi_tensor_num_elements(want), "%s %s: shape", image, name);
    if (!got || tfpi_tensor_num_elements(got) != tfpi_tensor_num_elements(want))
        return;
    const float *a = tfpi_tensor_const_data(got), *b = tfpi_tensor_const_data(want);
    double worst = compare_floats(a, b, (size_t)tfpi_tensor_num_elements(got)).max_abs; /* NaN: infinite */
    CHECK_MSG(worst <= (tfpi_tensor_num_elements(got) == 1 ? 0 : 1e-4), "%s %s: max |d| %g", image, name, worst);
}

static void check_image(tfpi_session *session, const char *image)
{
    tfpi_tensor *input = load_npy(image, "image_tensor");
    const char *feed = "image_tensor";
    tfpi_tensor *got[4] = {0};
    tfpi_status status;
    CHECK_MSG(input && tfpi_session_run(session, &feed, &input, 1, outputs, got, 4, &status) == TFPI_OK, "%s: %s",
              image, status.message);
    for (int i = 0; i < 4; i++) {
        char what[80];
        snprintf(what, sizeof what, "tfjs.%s", outputs[i]);
        tfpi_tensor *want = load_npy(image, what);
        if (want)
            compare(got[i], want, outputs[i], image);
        tfpi_tensor_free(want);
        tfpi_tensor_free(got[i]);
    }
    tfpi_tensor_free(input);
}

static void run_on_threads(int threads)
{
    tfpi_graph *graph = load_graph_or_fail(testdata_path("detection/ssd_aiy/frozen_inference_graph.pb"));
    tfpi_status status;
    tfpi_session_options options = {.num_threads = threads};
    tfpi_session *session = graph ? tfpi_session_new(graph, &options, &status) : NULL;
    CHECK_MSG(session || !graph, "session: %s", status.message);
    if (session) {
        check_image(session, "image_11");
        check_image(session, "grace_hopper");
        check_image(session, "image_11"); /* the same session again */
    }
    tfpi_session_free(session);
    tfpi_graph_free(graph);
}

static void test_ssd_one_thread(void) { run_on_threads(1); }
static void test_ssd_three_threads(void) { run_on_threads(3); }

int main(void)
{
    RUN(test_ssd_one_thread);
    RUN(test_ssd_three_threads);
    return check_summary();
}
