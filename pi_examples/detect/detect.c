/* detect - finds objects in an image with a TensorFlow Object Detection API
 * graph (frozen_inference_graph.pb as exported: uint8 image_tensor in, the
 * four detection_* outputs out) and prints one line per detection scoring
 * at least --threshold: "label score ymin xmin ymax xmax", corners in pixels
 * of the image, or says that nothing scored that much and names the best
 * candidate. --output=boxes.png also writes the picture with the boxes and
 * their labels drawn on it. Defaults: frozen_inference_graph.pb and
 * labelmap.txt in the current folder or beside the program (no labels:
 * class numbers), and the default picture. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "box_drawing.h"
#include "data_path.h"
#include "flags.h"
#include "graphdef_io.h"
#include "load_flags.h"
#include "limit_flags.h"
#include "object_detector.h"
#include "png_writer.h"

#define MAX_DETECTIONS 100

typedef struct options {
    const char *graph, *labels, *image, *output;
    load_flags load;
    float threshold;
    int num_threads;
    limit_flags limits;
} options;

/* The detections scoring at least --threshold (found holds every one the
 * model gives, best first): one line each, or, when there is none, one line
 * on stderr naming the best candidate and the threshold that would show it. */
static int report(const options *o, tfpi_image *image, const detection *d, int found, tfpi_status *status)
{
    int count = 0;
    while (count < found && d[count].score >= o->threshold)
        count++;
    for (int i = 0; i < count; i++)
        printf("%s %.4f %.1f %.1f %.1f %.1f\n", d[i].label, (double)d[i].score, (double)d[i].ymin,
               (double)d[i].xmin, (double)d[i].ymax, (double)d[i].xmax);
    if (count == 0 && found > 0)
        fprintf(stderr, "detect: nothing scored at least --threshold=%g; the best was %s %.4f at %.1f %.1f %.1f %.1f "
                        "(--threshold=%.2f shows it)\n", (double)o->threshold, d[0].label, (double)d[0].score,
                (double)d[0].ymin, (double)d[0].xmin, (double)d[0].ymax, (double)d[0].xmax,
                floor((double)d[0].score * 100) / 100);
    else if (count == 0)
        fprintf(stderr, "detect: the model found no object at all\n");
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
    tfpi_session_options session_options = limit_flags_apply(&o->limits, o->num_threads);
    int count = -1, rc = 1;
    if (o->labels && labels_load(o->labels, &labels, &status) != TFPI_OK)
        fprintf(stderr, "error: --labels: %s\n", status.message);
    else if (!(graph = load_flags_graph(&o->load, o->graph, &status)))
        fprintf(stderr, "error: --graph: %s\n", status.message);
    else if (tfpi_image_load(o->image, &image, &status) != TFPI_OK)
        fprintf(stderr, "error: --image: %s\n", status.message);
    else if (image.channels != 3)
        fprintf(stderr, "error: --image: %s: expected an RGB picture\n", o->image);
    else if (!(session = tfpi_session_new(graph, &session_options, &status)) ||
             (count = detect_objects(graph, session, &image, &labels, 0, found, MAX_DETECTIONS, &status)) < 0)
        fprintf(stderr, "error: --graph: %s: %s\n", o->graph, status.message);
    else
        rc = report(o, &image, found, count, &status);
    limit_flags_check_session(&o->limits, session);
    tfpi_session_free(session);
    tfpi_graph_free(graph);
    tfpi_image_free(&image);
    labels_free(&labels);
    return rc;
}

/* The defaults: the Object Detection API's file name and a label map
 * (the name detection tutorials give it) in the current folder or beside
 * the program, and the default picture; NULL where there is none. */
static void find_defaults(options *o, char *graph, char *labels, char *image, size_t size)
{
    o->graph = data_path("frozen_inference_graph.pb", graph, size);
    o->labels = data_path("labelmap.txt", labels, size);
    o->image = data_path("images/grace_hopper.jpg", image, size);
}

int main(int argc, char **argv)
{
    options o = {.threshold = 0.5f};
    char default_graph[PATH_MAX], default_labels[PATH_MAX], default_image[PATH_MAX];
    find_defaults(&o, default_graph, default_labels, default_image, PATH_MAX);
    const tool_flag flags[] = {
        {"graph", FLAG_STRING, &o.graph, "Object Detection API graph (frozen_inference_graph.pb or saved_model/)"},
        LOAD_FLAGS(o.load),
        {"labels", FLAG_STRING, &o.labels, "class names, one per line from class 0 (or index:name); none: class numbers"},
        {"image", FLAG_STRING, &o.image, "picture to look at (JPEG or PNG)"},
        {"threshold", FLAG_FLOAT, &o.threshold, "lowest score printed, 0 to 1"},
        NUM_THREADS_FLAG(o.num_threads),
        LIMIT_FLAGS(o.limits),
        {"output", FLAG_STRING, &o.output, "also write the picture with the boxes drawn as this PNG file"},
    };
    const int num_flags = sizeof flags / sizeof flags[0];
    int rc = flags_parse(argc, argv, flags, num_flags, "--graph=G.pb --labels=L.txt --image=I.jpg [--output=boxes.png]");
    char why[PATH_MAX + 160];
    if (rc == 0 && (!o.graph || !o.image)) {
        fprintf(stderr, "error: %s: none given and no default: %s; give %s\n", o.graph ? "--image" : "--graph",
                data_path_missing(o.graph ? "grace_hopper.jpg" : "frozen_inference_graph.pb", why, sizeof why),
                o.graph ? "--image=PICTURE.jpg" : "--graph=frozen_inference_graph.pb");
        rc = 1;
    }
    if (rc == 0 && !(o.threshold >= 0 && o.threshold <= 1)) {
        fprintf(stderr, "error: --threshold must be between 0 and 1\n");
        rc = 1;
    }
    if (rc == 0 && (!flags_check_threads(o.num_threads) || !limit_flags_valid(&o.limits)))
        rc = 1;
    if (rc == 0)
        rc = detect(&o);
    flags_free(flags, num_flags);
    return rc == 2 ? 0 : rc;
}
