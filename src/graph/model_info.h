/* model_info.h - what a graph loaded from a SavedModel, a .meta file or a
 * GraphDef plus checkpoint knows beyond its nodes: the signature it is
 * served through (whose keys name inputs and outputs), its variables and
 * the checkpoint that holds their values, and the names a restore/init
 * protocol needs.
 *
 * TF1 variables (VariableV2, Variable) are bound to their checkpoint
 * tensors, the way freezing binds them, instead of running the saver's
 * restore graph: the restore graph's RestoreV2 + Assign pairs (or, without
 * one, the node names) say which key each variable takes, and a variable's
 * value is read from the mapped data file the first time a plan needs it,
 * so unused optimizer slots are never touched. */
#ifndef TFPI_MODEL_INFO_H
#define TFPI_MODEL_INFO_H

#include <pthread.h>
#include <stdbool.h>

#include "core/tensor.h"
#include "graph/checkpoint.h"
#include "graph/graph.h"
#include "graph/meta_graph.h"

typedef struct tp_signature_tensor {
    char *key;  /* the signature's name for it ("inputs", "conv2d_input") */
    char *name; /* the tensor ("dense_1_input:0") */
    int dtype;
    int ndims; /* -1: unknown rank */
    int64_t dims[TFPI_MAX_DIMS]; /* -1: unknown size */
} tp_signature_tensor;

/* One signature of the meta graph: its key, method and tensors (sorted by
 * key). */
typedef struct tp_signature {
    char *key, *method_name;
    int num_inputs, num_outputs;
    tp_signature_tensor *inputs, *outputs;
} tp_signature;

typedef struct tp_variable {
    char *node;  /* the variable node (VariableV2, Variable, VarHandleOp) */
    char *key;   /* its checkpoint key */
    char *slice; /* RestoreV2's shape_and_slices for it; "" = the whole tensor */
    tfpi_tensor value; /* once bound */
    bool bound;
} tp_variable;

typedef struct tp_model_info {
    char *source; /* "SavedModel DIR", "meta graph FILE" or the .pb, for messages */
    char *signature_key, *method_name; /* NULL: no signature selected */
    int num_inputs, num_outputs;
    tp_signature_tensor *inputs, *outputs;
    /* Every signature of the meta graph but the internal ones ("__..."),
     * sorted by key: any of them can run on the graph. */
    int num_signatures;
    tp_signature *signatures;
    tp_checkpoint *checkpoint; /* NULL: nothing was saved (a SavedModel without variables/) */
    int num_variables;
    tp_variable *variables; /* sorted by node name */
    pthread_mutex_t lock;   /* binding happens while sessions plan, maybe in several threads */
    /* The loader protocol's names ("" when absent): the saver's
     * filename_tensor_name and restore_op_name, and the init op (SavedModel
     * __saved_model_init_op, main_op or legacy_init_op). */
    char *filename_tensor, *restore_op, *init_op;
} tp_model_info;

tp_model_info *tp_model_info_new(const char *source, tfpi_status *status);
void tp_model_info_free(tp_model_info *info);

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

/* Works out which checkpoint key each variable node of graph takes (from
 * the restore graph under restore_op, if any; else every RestoreV2/Assign
 * pair; else node names) and checks every key the restore graph names
 * against the checkpoint: present, same dtype and shape. Takes ckpt (which
 * may be NULL) whatever the outcome. */
tfpi_code tp_model_info_bind_checkpoint(tp_model_info *info, const tfpi_graph *graph, tp_checkpoint *ckpt,
                                        tfpi_status *status);

/* Gives graph (which has no model info yet) the variables of the
 * checkpoint at `checkpoint` (a prefix, one of its files or a directory;
 * tp_checkpoint_find_prefix). `source` names the graph in messages. */
tfpi_code tp_graph_attach_checkpoint(tfpi_graph *graph, const char *source, const char *checkpoint,
                                     tfpi_status *status);

/* The tensor name a signature key stands for (inputs when `input`, else
 * outputs), or NULL. */
const char *tp_model_info_signature_tensor(const tp_model_info *info, const char *key, bool input);

/* "inputs: a, b" for a "feed", "outputs: y" for a "fetch", both for
 * anything else, into buf. */
const char *tp_model_info_signature_keys(const tp_model_info *info, const char *what, char *buf, size_t size);

/* The variable called node, or NULL. */
tp_variable *tp_model_info_find_variable(tp_model_info *info, const char *node);

/* The value of variable node `def` of graph, read from the checkpoint on
 * first use and shared after (out borrows it). max_bytes bounds what a
 * read allocates (slices are copies; whole tensors are views of the
 * mapped file where the layout allows). */
tfpi_code tp_graph_variable_value(const tfpi_graph *graph, const Tfpi__NodeDef *def, int64_t max_bytes,
                                  tfpi_tensor *out, tfpi_status *status);

#endif
