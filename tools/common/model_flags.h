/* model_flags.h - the flags that name an image classifier and say how to
 * feed it (--graph, --labels, --input_layer, --output_layer, --input_width,
 * --input_height, --input_mean, --input_std, and how to open a SavedModel
 * or checkpoint), with their defaults: the
 * MobileNet v1 0.25 224 that download_dependencies.sh provides (or that
 * `make install` put in share/tfpi). Shared by the label_image and camera
 * examples. */
#ifndef TFPI_MODEL_FLAGS_H
#define TFPI_MODEL_FLAGS_H

#include <limits.h>
#include <stdbool.h>

#include "flags.h"
#include "labels.h"
#include "load_flags.h"

typedef struct classifier_model {
    const char *graph, *labels, *input_layer, *output_layer;
    load_flags load; /* --saved_model_tags, --signature_def, --checkpoint */
    int input_width, input_height;
    float input_mean, input_std;
    char default_graph[PATH_MAX], default_labels[PATH_MAX]; /* what graph and labels point at first */
} classifier_model;

/* Points m->graph and m->labels at the default model's files, wherever
 * data_path() finds them (NULL where it finds nothing); call before parsing
 * the flags. */
void classifier_model_find_defaults(classifier_model *m);

/* After parsing: true if there is a model (and, if `image` is not NULL, a
 * picture: *image, the default data file `default_image` when not given);
 * otherwise prints one error line saying where the default was looked for.
 * No labels is fine: the tools then print class numbers. */
bool classifier_model_check_defaults(const classifier_model *m, const char **image, const char *default_image);

/* Loads m->graph (at path: the flag's value, maybe under a root directory)
 * with m->load; for a SavedModel served through a one-input, one-output
 * signature, --input_layer and --output_layer left at their defaults become
 * its keys; a .tflite's first input and output (its signature's, if it
 * has one), and its input's height and width are the picture's size, as
 * TensorFlow Lite's label_image takes them. */
tfpi_graph *classifier_model_load(classifier_model *m, const char *path, tfpi_status *status);

/* Without --labels, a .tflite's packed labels (Model Maker's zip) replace
 * *labels; true if they did. */
bool classifier_model_packed_labels(const classifier_model *m, const tfpi_graph *graph, label_list *labels);

/* An initializer for a classifier_model holding the defaults but the paths
 * (classifier_model_find_defaults fills those). */
#define CLASSIFIER_MODEL_DEFAULTS                                                                      \
    {                                                                                                  \
        .input_layer = "input",                                                                        \
        .output_layer = "MobilenetV1/Predictions/Reshape_1",                                           \
        .input_width = 224,                                                                            \
        .input_height = 224,                                                                           \
        .input_mean = 127.5f,                                                                          \
        .input_std = 127.5f,                                                                           \
    }

/* The tool_flag table entries that set the fields of the classifier_model m. */
#define CLASSIFIER_MODEL_FLAGS(m)                                                                      \
    {"graph", FLAG_STRING, &(m).graph, "model: frozen GraphDef (.pb, .pbtxt, memmapped), SavedModel dir, .meta, .tflite"}, \
        {"labels", FLAG_STRING, &(m).labels, "labels file (name or index:name per line; none: class numbers)"},   \
        {"input_width", FLAG_INT, &(m).input_width, "width the model expects"},                        \
        {"input_height", FLAG_INT, &(m).input_height, "height the model expects"},                     \
        {"input_mean", FLAG_FLOAT, &(m).input_mean, "subtracted from each pixel value"},               \
        {"input_std", FLAG_FLOAT, &(m).input_std, "pixel values are divided by this"},                 \
        {"input_layer", FLAG_STRING, &(m).input_layer, "name of the input node"},                      \
        {"output_layer", FLAG_STRING, &(m).output_layer, "name of the output node (scores)"},           \
        LOAD_FLAGS((m).load)

#endif
