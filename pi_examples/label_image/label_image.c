/* label_image - classifies one image with a model and prints the top
 * labels as "<label> (<index>): <score>", like TensorFlow's pi_examples
 * label_image. With no flags it runs the default MobileNet v1 0.25 224 model
 * that download_dependencies.sh provides on grace_hopper.jpg. An Object
 * Detection API graph (--input_layer=image_tensor, uint8) gets the picture
 * as it is and its best detections are the labels: "<label> (<class>):
 * <score>". A .tflite's input size comes from the model; uint8 and int8
 * models get the picture's bytes as TensorFlow Lite's label_image gives
 * them, and quantized scores are dequantized. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data_path.h"
#include "file_util.h"
#include "flags.h"
#include "graph_inputs.h"
#include "graphdef_io.h"
#include "labels.h"
#include "limit_flags.h"
#include "model_flags.h"
#include "object_detector.h"
#include "tfpi.h"
#include "tflite_io.h"
#include "top_k.h"
#include "xor_cipher.h"

/* The top-1 index --self_test expects for the default model and image. */
#define SELF_TEST_INDEX 458

typedef struct options {
    classifier_model model;
    const char *image, *root_dir, *decrypt_key;
    int num_threads, top_k;
    limit_flags limits;
    bool self_test;
} options;

/* root_dir/path for relative paths when --root_dir is set; malloc'd (NULL
 * for a NULL path: no such file). */
static char *with_root(const char *root, const char *path)
{
    if (!path)
        return NULL;
    size_t n = strlen(root) + strlen(path) + 2;
    char *out = malloc(n);
    if (out)
        snprintf(out, n, "%s%s%s", *root && path[0] != '/' ? root : "",
                 *root && path[0] != '/' ? "/" : "", path);
    return out;
}

/* Decodes and preprocesses the image into a [1,h,w,3] tensor of the
 * input's type (float: normalised; uint8/int8: TFLite's label_image way). */
static tfpi_tensor *image_tensor(const options *o, const tfpi_graph *graph, const char *path, tfpi_status *status)
{
    tfpi_image image = {0};
    if (tfpi_image_load(path, &image, status) != TFPI_OK)
        return NULL;
    const classifier_model *m = &o->model;
    tfpi_dtype dtype = input_dtype(graph, m->input_layer);
    tfpi_tensor *t = image_input_tensor(&image, m->input_width, m->input_height, m->input_mean, m->input_std,
                                        dtype ? dtype : TFPI_FLOAT, status);
    tfpi_image_free(&image);
    return t;
}

/* A model encrypted by tools/encrypt_model: read, then decrypted by the
 * library through the callback. */
static tfpi_graph *load_encrypted(const char *path, const char *key_text, tfpi_status *status)
{
    size_t size;
    uint8_t *data = read_file(path, &size, status);
    if (!data)
        return NULL;
    xor_key key = {(const uint8_t *)key_text, strlen(key_text)};
    tfpi_graph *graph = tfpi_graph_load_buffer_decrypted(data, size, xor_cipher, &key, status);
    free(data);
    if (!graph) {
        char detail[sizeof status->message];
        memcpy(detail, status->message, sizeof detail);
        snprintf(status->message, sizeof status->message, "%s: %.400s (wrong --decrypt_key?)", path, detail);
    }
    return graph;
}

static tfpi_graph *load_graph(options *o, const char *graph_path, tfpi_status *status)
{
    return o->decrypt_key ? load_encrypted(graph_path, o->decrypt_key, status)
                          : classifier_model_load(&o->model, graph_path, status);
}

/* The feed for the graph's input: the decoded, resized, normalised image,
 * or for a graph that decodes images itself (a string input such as the
 * unstripped Inception's DecodeJpeg/contents) the file's bytes. */
static tfpi_tensor *input_tensor(const options *o, const tfpi_graph *graph, const char *path,
                                 tfpi_status *status)
{
    if (tfpi_graph_node_dtype(graph, o->model.input_layer) != TFPI_STRING)
        return image_tensor(o, graph, path, status);
    return read_file_tensor(path, status);
}

/* --input_layer names a node, and the picture's [1,h,w,3] fits it (a
 * graph fed the file's bytes takes any string). */
static int check_input(const options *o, const tfpi_graph *graph)
{
    const classifier_model *m = &o->model;
    int64_t dims[4] = {1, m->input_height, m->input_width, 3};
    bool bytes = tfpi_graph_node_dtype(graph, m->input_layer) == TFPI_STRING;
    return graph_inputs_check(graph, m->input_layer, bytes ? NULL : dims, 4, "--input_layer",
                              "--input_width/--input_height");
}

/* The scores (quantized ones as floats). */
static tfpi_tensor *classify(const options *o, tfpi_graph *graph, tfpi_tensor *input, tfpi_status *status)
{
    tfpi_tensor *output = NULL, *scores = NULL;
    tfpi_session_options session_options = limit_flags_apply(&o->limits, o->num_threads);
    tfpi_session *session = tfpi_session_new(graph, &session_options, status);
    limit_flags_check_session(&o->limits, session);
    if (session)
        tfpi_session_run(session, &o->model.input_layer, &input, 1, &o->model.output_layer, &output, 1,
                         status);
    tfpi_session_free(session);
    if (output && tfpi_tensor_dtype(output) != TFPI_FLOAT)
        scores = scores_as_float(graph, o->model.output_layer, output, status);
    if (scores) {
        tfpi_tensor_free(output);
        return scores;
    }
    return output;
}

static int print_top_labels(const options *o, const tfpi_tensor *scores, const label_list *labels,
                            const char *labels_path)
{
    if (tfpi_tensor_dtype(scores) != TFPI_FLOAT || tfpi_tensor_num_elements(scores) < 1) {
        fprintf(stderr, "error: --output_layer=%s is not a float score vector\n", o->model.output_layer);
        return 1;
    }
    int n = (int)tfpi_tensor_num_elements(scores);
    int k = o->top_k < n ? o->top_k : n; /* --top_k past the label count prints them all */
    int *best = malloc(sizeof(int) * (size_t)k);
    if (!best) {
        fprintf(stderr, "error: out of memory ranking %d scores\n", n);
        return 1;
    }
    const float *s = tfpi_tensor_const_data(scores);
    int count = top_k(s, n, k, best);
    labels_check_count(labels, labels_path, n);
    for (int i = 0; i < count; i++) {
        char name[32];
        printf("%s (%d): %g\n", labels_name(labels, best[i], name, sizeof name), best[i], (double)s[best[i]]);
    }
    int rc = 0;
    if (o->self_test) {
        rc = count > 0 && best[0] == SELF_TEST_INDEX ? 0 : 1;
        fprintf(stderr, "self test %s: top index %d, expected %d\n", rc ? "FAILED" : "passed",
                count > 0 ? best[0] : -1, SELF_TEST_INDEX);
    }
    free(best);
    return rc;
}

static bool is_detector(const options *o, const tfpi_graph *graph)
{
    return strcmp(o->model.input_layer, "image_tensor") == 0 &&
           tfpi_graph_node_dtype(graph, o->model.input_layer) == TFPI_UINT8;
}

/* The top_k detections of an Object Detection API graph as labels. */
static int print_detections(const options *o, const tfpi_graph *graph, const char *image_path,
                            const label_list *labels, const char *graph_path)
{
    enum { MAX_DETECTIONS = 100 };
    tfpi_status status = {0};
    tfpi_image image = {0};
    detection found[MAX_DETECTIONS];
    tfpi_session_options session_options = limit_flags_apply(&o->limits, o->num_threads);
    tfpi_session *session = NULL;
    int count = -1, max = o->top_k < MAX_DETECTIONS ? o->top_k : MAX_DETECTIONS;
    if (tfpi_image_load(image_path, &image, &status) != TFPI_OK)
        fprintf(stderr, "error: --image: %s\n", status.message);
    else if (!(session = tfpi_session_new(graph, &session_options, &status)) ||
             (count = detect_objects(graph, session, &image, labels, 0, found, max, &status)) < 0)
        fprintf(stderr, "error: --graph: %s: %s\n", graph_path, status.message);
    limit_flags_check_session(&o->limits, session);
    for (int i = 0; i < count; i++)
        printf("%s (%d): %g\n", found[i].label, found[i].class_id, (double)found[i].score);
    tfpi_session_free(session);
    tfpi_image_free(&image);
    return count < 0;
}

static int label_image(options *o)
{
    tfpi_image_set_max_pixels(o->limits.max_image_pixels); /* before the image is decoded */
    tfpi_status status = {0};
    label_list labels = {0};
    char *image_path = with_root(o->root_dir, o->image);
    char *graph_path = with_root(o->root_dir, o->model.graph);
    char *labels_path = with_root(o->root_dir, o->model.labels);
    tfpi_tensor *input = NULL, *scores = NULL;
    tfpi_graph *graph = NULL;
    bool packed = false; /* the labels packed with a .tflite replaced the default ones */
    int rc = 1;
    if (!image_path || !graph_path || (o->model.labels && !labels_path))
        fprintf(stderr, "error: out of memory\n");
    else if (labels_path && labels_load(labels_path, &labels, &status) != TFPI_OK)
        fprintf(stderr, "error: --labels: %s\n", status.message);
    else if (!(graph = load_graph(o, graph_path, &status)))
        fprintf(stderr, "error: --graph: %s\n", status.message);
    else if ((packed = classifier_model_packed_labels(&o->model, graph, &labels)), is_detector(o, graph))
        rc = print_detections(o, graph, image_path, &labels, graph_path);
    else if (check_input(o, graph))
        ; /* reported */
    else if (!(input = input_tensor(o, graph, image_path, &status)))
        fprintf(stderr, "error: --image: %s\n", status.message);
    else if (!(scores = classify(o, graph, input, &status)))
        fprintf(stderr, "error: --graph: %s: %s\n", graph_path, status.message);
    else
        rc = print_top_labels(o, scores, &labels, packed ? NULL : labels_path);
    tfpi_graph_free(graph);
    tfpi_tensor_free(input);
    tfpi_tensor_free(scores);
    labels_free(&labels);
    free(image_path);
    free(graph_path);
    free(labels_path);
    return rc;
}

int main(int argc, char **argv)
{
    options o = {
        .model = CLASSIFIER_MODEL_DEFAULTS,
        .root_dir = "",
        .num_threads = 0,
        .top_k = 5,
    };
    char default_image[PATH_MAX];
    o.image = data_path("images/grace_hopper.jpg", default_image, sizeof default_image);
    classifier_model_find_defaults(&o.model);
    const tool_flag flags[] = {
        {"image", FLAG_STRING, &o.image, "image to classify (JPEG or PNG)"},
        CLASSIFIER_MODEL_FLAGS(o.model),
        {"self_test", FLAG_BOOL, &o.self_test, "check the default model's top label on grace_hopper.jpg"},
        {"root_dir", FLAG_STRING, &o.root_dir, "directory relative paths are taken from"},
        NUM_THREADS_FLAG(o.num_threads),
        LIMIT_FLAGS(o.limits),
        {"top_k", FLAG_INT, &o.top_k, "how many labels to print"},
        {"decrypt_key", FLAG_STRING, &o.decrypt_key, "the --graph was encrypted with tools/encrypt_model --key=this"},
    };
    const int num_flags = sizeof flags / sizeof flags[0];
    int rc = flags_parse(argc, argv, flags, num_flags, "[--image=F --graph=G.pb --labels=L ...]");
    if (rc == 0 && (o.model.input_width <= 0 || o.model.input_height <= 0 ||
                    o.model.input_width > 16384 || o.model.input_height > 16384)) {
        fprintf(stderr, "error: --input_width and --input_height must be between 1 and 16384\n");
        rc = 1;
    }
    if (rc == 0 && (!flags_check_threads(o.num_threads) || !limit_flags_valid(&o.limits)))
        rc = 1;
    if (rc == 0 && !classifier_model_check_defaults(&o.model, &o.image, "images/grace_hopper.jpg"))
        rc = 1;
    if (rc == 0 && o.decrypt_key && !*o.decrypt_key) {
        fprintf(stderr, "error: --decrypt_key must not be empty\n");
        rc = 1;
    }
    if (rc == 0 && o.model.input_std == 0.0f) {
        fprintf(stderr, "error: --input_std must not be 0: each pixel is divided by it (the model's training "
                        "scale, e.g. 127.5 for MobileNet)\n");
        rc = 1;
    }
    if (rc == 0 && o.top_k < 1) {
        fprintf(stderr, "error: --top_k must be at least 1 (it is %d): how many labels to print\n", o.top_k);
        rc = 1;
    }
    if (rc == 0)
        rc = label_image(&o);
    flags_free(flags, num_flags);
    return rc == 2 ? 0 : rc;
}
