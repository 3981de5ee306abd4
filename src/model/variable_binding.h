/* variable_binding.h - a model's variables bound to its checkpoint.
 *
 * TF1 variables (VariableV2, Variable) are bound to their checkpoint
 * tensors, the way freezing binds them, instead of running the saver's
 * restore graph: the restore graph's RestoreV2 + Assign pairs (or, without
 * one, the node names) say which key each variable takes, and a variable's
 * value is read from the mapped data file the first time a plan needs it,
 * so unused optimizer slots are never touched. */
#ifndef TFPI_VARIABLE_BINDING_H
#define TFPI_VARIABLE_BINDING_H

#include "graph/model_info.h"
#include "model/checkpoint.h"

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

/* The variable called node, or NULL. */
tp_variable *tp_model_info_find_variable(tp_model_info *info, const char *node);

/* The value of variable node `def` of graph, read from the checkpoint on
 * first use and shared after (out borrows it). max_bytes bounds what a
 * read allocates (slices are copies; whole tensors are views of the
 * mapped file where the layout allows). */
tfpi_code tp_graph_variable_value(const tfpi_graph *graph, const Tfpi__NodeDef *def, int64_t max_bytes,
                                  tfpi_tensor *out, tfpi_status *status);

#endif
