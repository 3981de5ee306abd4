/* detect - finds objects in an image with a TensorFlow Object Detection API
 * graph (frozen_inference_graph.pb as exported: uint8 image_tensor in, the
 * four detection_* outputs out) and prints one line per detection scoring
 * at least --threshold: "label score ymin xmin ymax xmax", corners in pixels
 * of the image. --output=boxes.png also writes the picture with the boxes
 * and their labels drawn on it. */
#include <stdio.h>
#include <stdlib.h>

#include "box_drawing.h"
#include "flags.h"
#include "load_flags.h"
#include "object_detector.h"
#include "png_writer.h"

#define MAX_DETECTIONS 100

typedef struct options {
    const char *graph, *labels, *image, *output;
    load_flags load;
    float threshold;
    int num_threads;
} options;

static int report(const options *o, tfpi_image *image, const detection *d, int count, tfpi_status *status)
{
    for (int i = 0; i < count; i++)
        printf("%s %.4f %.1f %.1f %.1f %.1f\n", d[i].label, (double)d[i].score, (double)d[i].ymin,
               (double)d[i].xmin, (double)d[i].ymax, (double)d[i].xmax);
    if (!o->output)
        return 0;
    draw_detections(image, d, count);
    if (png_write_rgb(o->output, image, status) != TFPI_OK) {
        fprintf(stderr, "error: --output: %s\n", status->message);
        return 1;
    }
    return 0;
}

static int detect(const options *o)
{
    tfpi_status status = {0};
    label_list labels = {0};
    tfpi_image image = {0};
    tfpi_graph *graph = NULL;
    tfpi_session *session = NULL;
    detection found[MAX_DETECTIONS];
    tfpi_session_options session_options = {.num_threads = o->num_threads};
    int count = -1, rc = 1;
    if (labels_load(o->labels, &labels, &status) != TFPI_OK)
        fprintf(stderr, "error: --labels: %s\n", status.message);
    else if (!(graph = load_flags_graph(&o->load, o->graph, &status)))
        fprintf(stderr, "error: --graph: %s\n", status.message);
    else if (tfpi_image_load(o->image, &image, &status) != TFPI_OK)
        fprintf(stderr, "error: --image: %s\n", status.message);
    else if (image.channels != 3)
        fprintf(stderr, "error: --image: %s: expected an RGB picture\n", o->image);
    else if (!(session = tfpi_session_new(graph, &session_options, &status)) ||
             (count = detect_objects(session, &image, &labels, o->threshold, found, MAX_DETECTIONS, &status)) < 0)
        fprintf(stderr, "error: --graph: %s: %s\n", o->graph, status.message);
    else
        rc = report(o, &image, found, count, &status);
    tfpi_session_free(session);
    tfpi_graph_free(graph);
    tfpi_image_free(&image);
    labels_free(&labels);
    return rc;
}

int main(int argc, char **argv)
{
    options o = {.threshold = 0.5f};
    const tool_flag flags[] = {
        {"graph", FLAG_STRING, &o.graph, "Object Detection API graph (frozen_inference_graph.pb or saved_model/)"},
        LOAD_FLAGS(o.load),
        {"labels", FLAG_STRING, &o.labels, "class names, one per line from class 0 (or index:name)"},
        {"image", FLAG_STRING, &o.image, "picture to look at (JPEG or PNG)"},
        {"threshold", FLAG_FLOAT, &o.threshold, "lowest score printed, 0 to 1"},
        {"num_threads", FLAG_INT, &o.num_threads, "threads (0 = one per core)"},
        {"output", FLAG_STRING, &o.output, "also write the picture with the boxes drawn as this PNG file"},
    };
    const int num_flags = sizeof flags / sizeof flags[0];
    int rc = flags_parse(argc, argv, flags, num_flags, "--graph=G.pb --labels=L.txt --image=I.jpg [--output=boxes.png]");
    if (rc == 0 && (!o.graph || !o.labels || !o.image)) {
        fprintf(stderr, "error: --graph, --labels and --image are required\n");
        rc = 1;
    }
    if (rc == 0 && !(o.threshold >= 0 && o.threshold <= 1)) {
        fprintf(stderr, "error: --threshold must be between 0 and 1\n");
        rc = 1;
    }
    if (rc == 0)
        rc = detect(&o);
    flags_free(flags, num_flags);
    return rc == 2 ? 0 : rc;
}
