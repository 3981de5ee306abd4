/* meta_graph_info.h - a loaded model's signatures and loader protocol
 * (graph/model_info.h) read from its MetaGraphDef. */
#ifndef TFPI_META_GRAPH_INFO_H
#define TFPI_META_GRAPH_INFO_H

#include "graph/model_info.h"
#include "model/meta_graph.h"

/* Selects signature `key` of mg (NULL: "serving_default", or the only
 * signature there is); an explicit key that is not there is an error
 * listing those that are. */
tfpi_code tp_model_info_set_signature(tp_model_info *info, const tp_meta_graph *mg, const char *key,
                                      tfpi_status *status);
/* Reads every signature of mg (but the internal ones, and those with
 * sparse or composite tensors) into info->signatures. */
tfpi_code tp_model_info_set_signatures(tp_model_info *info, const tp_meta_graph *mg, tfpi_status *status);
/* The saver's names and the init op of mg. */
tfpi_code tp_model_info_set_protocol(tp_model_info *info, const tp_meta_graph *mg, tfpi_status *status);

#endif
