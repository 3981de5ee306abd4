/* freeze_readers.h - after freeze.c makes a variable node a Const, what
 * read the variable must read the value: TensorFlow's rewrites, resource
 * handles followed wherever they flow (through Identity, IdentityN and the
 * Enter/Merge/Switch/Exit/NextIteration of lowered loops and conds, as in
 * a flat TF2 graph), and TF1 reference ops made their value forms. */
#ifndef TFPI_FREEZE_READERS_H
#define TFPI_FREEZE_READERS_H

#include <stdbool.h>

#include "graph.pb-c.h"
#include "tfpi.h"

typedef struct freeze_readers freeze_readers;

/* Who reads each node's outputs in g (built once, before any rewrite). */
freeze_readers *freeze_readers_new(const Tfpi__GraphDef *g);
void freeze_readers_free(freeze_readers *r);

/* Rewrites the readers of node `var`, now a Const of `dtype` that was a
 * VarHandleOp (resource) or a VariableV2/Variable:
 *   ReadVariableOp -> Identity; ResourceGather -> GatherV2 (+ an axis
 *   Const); VariableShape -> Shape; VarIsInitializedOp and
 *   IsVariableInitialized -> a true Const; what passes a handle on
 *   (Identity, IdentityN, Enter, Exit, NextIteration, Switch, _SwitchN,
 *   Merge) retyped to dtype and followed; RefSwitch, RefEnter, RefMerge,
 *   RefIdentity, RefExit, RefNextIteration -> their value forms.
 * A node that writes the variable (AssignVariableOp, Assign, ...) or takes
 * its handle otherwise is an error naming it: a constant cannot serve it. */
tfpi_code freeze_readers_rewrite(freeze_readers *r, Tfpi__GraphDef *g, int var, int dtype, bool resource,
                                 tfpi_status *status);

#endif
