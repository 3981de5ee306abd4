/* model_flags.c - the default classifier's file paths (see model_flags.h). */
#include "model_flags.h"

#include "data_path.h"

void classifier_model_find_defaults(classifier_model *m)
{
    m->graph = data_path("models/mobilenet_v1_0.25_224/frozen_graph.pb", m->default_graph,
                         sizeof m->default_graph);
    m->labels = data_path("models/mobilenet_v1_0.25_224/labels.txt", m->default_labels,
                          sizeof m->default_labels);
}
