/* meta_graph.h - TensorFlow's MetaGraphDef (a tf.train.Saver .meta file,
 * or one of the meta graphs of a SavedModel's saved_model.pb): the
 * GraphDef with its tags, signatures, saver and collections, and the
 * SavedModel file around them.
 *
 * The messages are walked field by field over the file's bytes: the
 * GraphDef and the TF2 object graph stay where they are (borrowed), only the
 * small parts are unpacked. */
#ifndef TFPI_META_GRAPH_H
#define TFPI_META_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "saved_model.pb-c.h"
#include "tfpi.h"

typedef struct tp_bytes_range {
    const uint8_t *data;
    size_t size;
} tp_bytes_range;

typedef struct tp_meta_graph {
    Tfpi__MetaInfoDef *info; /* tags, stripped_op_list...; NULL when absent */
    tp_bytes_range graph_def;
    Tfpi__SaverDef *saver_def; /* NULL when absent */
    size_t num_signatures;
    Tfpi__SignatureDefEntry **signatures; /* in file order */
    size_t num_collections;
    Tfpi__CollectionDefEntry **collections;
    size_t num_assets;
    Tfpi__AssetFileDef **assets;
    tp_bytes_range object_graph_def; /* SavedObjectGraph (TF2); size 0 when absent */
} tp_meta_graph;

/* Reads a serialized MetaGraphDef; *out borrows data. `source` starts
 * every error message. */
tfpi_code tp_meta_graph_read(const uint8_t *data, size_t size, const char *source, tp_meta_graph *out,
                             tfpi_status *status);
void tp_meta_graph_free(tp_meta_graph *mg);

/* The signature called key, or NULL. */
const Tfpi__SignatureDef *tp_meta_graph_signature(const tp_meta_graph *mg, const char *key);
/* The node names of collection key (a node_list), or NULL. */
const Tfpi__CollectionDef__NodeList *tp_meta_graph_node_list(const tp_meta_graph *mg, const char *key);
/* "a, b, c": the signature keys, internal ones ("__saved_model_init_op")
 * left out, into buf; "(none)" if there are none. */
const char *tp_meta_graph_signature_names(const tp_meta_graph *mg, char *buf, size_t size);

/* A SavedModel's saved_model.pb, mapped, with each meta graph's tags. */
typedef struct tp_saved_model {
    char *path; /* of saved_model.pb or saved_model.pbtxt */
    uint8_t *bytes; /* the binary SavedModel: the mapped file, or the text form packed */
    size_t size;
    bool packed_text; /* bytes are malloc'd */
    size_t num_meta_graphs;
    tp_bytes_range *meta_graphs;
    Tfpi__MetaInfoDef **infos; /* each meta graph's MetaInfoDef (NULL when it has none) */
} tp_saved_model;

/* Opens dir/saved_model.pb, or else dir/saved_model.pbtxt (the text form
 * is parsed and packed into the binary one). */
tfpi_code tp_saved_model_open(const char *dir, tp_saved_model *out, tfpi_status *status);
void tp_saved_model_close(tp_saved_model *sm);

/* Reads the first meta graph whose tag set equals `tags` (comma-separated;
 * order and repeats do not matter; NULL or "" = "serve"). Errors list the
 * tag sets the file has. *out borrows sm's bytes. */
tfpi_code tp_saved_model_select(const tp_saved_model *sm, const char *dir, const char *tags, tp_meta_graph *out,
                                tfpi_status *status);
/* "{ serve } { serve, gpu }": the tag sets of the file, into buf. */
const char *tp_saved_model_tag_sets(const tp_saved_model *sm, char *buf, size_t size);

#endif
