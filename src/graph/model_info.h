/* model_info.h - what a graph loaded from a SavedModel, a .meta file, a
 * .tflite file or a GraphDef plus checkpoint knows beyond its nodes: the
 * signature it is served through (whose keys name inputs and outputs),
 * its variables and the checkpoint that holds their values, and the names
 * a restore/init protocol needs. The model readers fill it
 * (model/meta_graph_info.h, model/variable_binding.h); the graph answers
 * signature keys from it and frees it. */
#ifndef TFPI_MODEL_INFO_H
#define TFPI_MODEL_INFO_H

#include <pthread.h>
#include <stdbool.h>

#include "core/tensor.h"
#include "graph/graph.h"

typedef struct tp_checkpoint tp_checkpoint; /* model/checkpoint.h */

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
    void (*close_checkpoint)(tp_checkpoint *); /* how freeing the info closes it */
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

/* The tensor name a signature key stands for (inputs when `input`, else
 * outputs), or NULL. */
const char *tp_model_info_signature_tensor(const tp_model_info *info, const char *key, bool input);

/* "inputs: a, b" for a "feed", "outputs: y" for a "fetch", both for
 * anything else, into buf. */
const char *tp_model_info_signature_keys(const tp_model_info *info, const char *what, char *buf, size_t size);

/* Frees what a signature holds (not s itself). */
void tp_signature_free(tp_signature *s);

/* qsort/bsearch order of signature tensors: by key. */
int tp_signature_tensor_by_key(const void *a, const void *b);

#endif
