/* model_flags.c - the default classifier's file paths, and loading a
 * classifier (see model_flags.h). */
#include "model_flags.h"

#include "tflite_io.h"

#include <stdio.h>

#include "data_path.h"

void classifier_model_find_defaults(classifier_model *m)
{
    m->graph = data_path("models/mobilenet_v1_0.25_224/frozen_graph.pb", m->default_graph,
                         sizeof m->default_graph);
    m->labels = data_path("models/mobilenet_v1_0.25_224/labels.txt", m->default_labels,
                          sizeof m->default_labels);
}

bool classifier_model_check_defaults(const classifier_model *m, const char **image, const char *default_image)
{
    char why[PATH_MAX + 160];
    if (!m->graph) {
        fprintf(stderr, "error: --graph: no model given and no default: %s; give --graph=MODEL.pb\n",
                data_path_missing("models/mobilenet_v1_0.25_224/frozen_graph.pb", why, sizeof why));
        return false;
    }
    if (image && !*image) {
        fprintf(stderr, "error: --image: no picture given and no default: %s; give --image=PICTURE.jpg\n",
                data_path_missing(default_image, why, sizeof why));
        return false;
    }
    return true;
}

bool classifier_model_packed_labels(const classifier_model *m, const tfpi_graph *graph, label_list *labels)
{
    if (m->labels && m->labels != m->default_labels)
        return false; /* --labels given */
    label_list packed;
    tfpi_status status = {0};
    if (labels_from_model(graph, m->graph, &packed, &status) != TFPI_OK)
        return false;
    labels_free(labels);
    *labels = packed;
    return true;
}

tfpi_graph *classifier_model_load(classifier_model *m, const char *path, tfpi_status *status)
{
    static const classifier_model defaults = CLASSIFIER_MODEL_DEFAULTS;
    tfpi_graph *graph = load_flags_graph(&m->load, path, status);
    if (graph) {
        m->input_layer = load_flags_signature_default(graph, m->input_layer, defaults.input_layer, 1);
        m->output_layer = load_flags_signature_default(graph, m->output_layer, defaults.output_layer, 0);
        tflite_input_size(graph, m->input_layer, &m->input_width, &m->input_height);
    }
    return graph;
}
