/* object_detector.c - one Object Detection API run (see object_detector.h). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "object_detector.h"
#include "tflite_io.h"

static const char *const fetch_names[] = {"detection_boxes", "detection_scores", "detection_classes",
                                          "num_detections"};

static bool floats(const tfpi_tensor *t, int64_t at_least)
{
    return t && tfpi_tensor_dtype(t) == TFPI_FLOAT && tfpi_tensor_num_elements(t) >= at_least;
}

/* A .tflite SSD (TFLite_Detection_PostProcess): its input takes the
 * picture resized to its size (uint8 bytes, or floats in [-1, 1]); its four
 * outputs are boxes, classes, scores and count, fetched in the order the
 * Object Detection API's are. False for a graph that is not a .tflite. */
static bool tflite_detector(const tfpi_graph *graph, const tfpi_image *image, const char **feed,
                            const char *fetches[4], tfpi_tensor **input, tfpi_status *status)
{
    tfpi_tflite_tensor in, out[4];
    if (tfpi_tflite_num_inputs(graph) != 1 || tfpi_tflite_num_outputs(graph) != 4 ||
        tfpi_tflite_get_tensor(graph, tfpi_tflite_input(graph, 0), &in, NULL) != TFPI_OK)
        return false;
    for (int i = 0; i < 4; i++)
        if (tfpi_tflite_get_tensor(graph, tfpi_tflite_output(graph, i), &out[i], NULL) != TFPI_OK)
            return false;
    static const int order[4] = {0, 2, 1, 3}; /* boxes, scores, classes, count */
    for (int i = 0; i < 4; i++)
        fetches[i] = out[order[i]].graph_name;
    *feed = in.graph_name;
    if (in.ndims != 4 || in.dims[1] <= 0 || in.dims[2] <= 0 || in.dims[3] != 3)
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "the model's input is not a [1,h,w,3] picture");
    else
        *input = image_input_tensor(image, (int)in.dims[2], (int)in.dims[1], 127.5f, 127.5f,
                                    in.dtype == TFPI_UINT8 ? TFPI_UINT8 : TFPI_FLOAT, status);
    return true;
}

int detect_objects(const tfpi_graph *graph, tfpi_session *session, const tfpi_image *image, const label_list *labels,
                   float threshold, detection *out, int max, tfpi_status *status)
{
    int64_t dims[4] = {1, image->height, image->width, 3};
    tfpi_tensor *input = NULL, *got[4] = {0};
    const char *feed = "image_tensor", *fetches[4] = {fetch_names[0], fetch_names[1], fetch_names[2], fetch_names[3]};
    if (!tflite_detector(graph, image, &feed, fetches, &input, status)) {
        if ((input = tfpi_tensor_new(TFPI_UINT8, dims, 4, status)))
            memcpy(tfpi_tensor_data(input), image->pixels, (size_t)image->width * (size_t)image->height * 3);
    }
    if (!input)
        return -1;
    int count = -1;
    if (tfpi_session_run(session, &feed, &input, 1, fetches, got, 4, status) == TFPI_OK) {
        int n = floats(got[3], 1) ? (int)*(const float *)tfpi_tensor_const_data(got[3]) : -1;
        if (n < 0 || !floats(got[0], 4 * (int64_t)n) || !floats(got[1], n) || !floats(got[2], n)) {
            tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                            "the graph's detection outputs do not have the Object Detection API's shapes");
        } else {
            const float *box = tfpi_tensor_const_data(got[0]), *score = tfpi_tensor_const_data(got[1]),
                        *cls = tfpi_tensor_const_data(got[2]);
            count = 0;
            for (int i = 0; i < n && count < max; i++) {
                if (score[i] < threshold)
                    continue;
                detection *d = &out[count++];
                d->class_id = (int)cls[i];
                char name[32];
                snprintf(d->label, sizeof d->label, "%s", labels_name(labels, d->class_id, name, sizeof name));
                d->score = score[i];
                d->ymin = box[4 * i] * (float)image->height;
                d->xmin = box[4 * i + 1] * (float)image->width;
                d->ymax = box[4 * i + 2] * (float)image->height;
                d->xmax = box[4 * i + 3] * (float)image->width;
            }
        }
    }
    for (int i = 0; i < 4; i++)
        tfpi_tensor_free(got[i]);
    tfpi_tensor_free(input);
    return count;
}
