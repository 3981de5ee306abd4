/* flat_graph.h - a TF2 model (a GraphDef with a function library: a Keras
 * or tf.Module SavedModel) as one flat GraphDef, the way tfpi runs it and
 * TensorFlow's convert_variables_to_constants_v2 writes it: every call of
 * the library inlined under the call's name, every functional While/If/Case
 * lowered to Enter/Merge/Switch/Exit/NextIteration (graph/function_*.c),
 * no library left. */
#ifndef TFPI_FLAT_GRAPH_H
#define TFPI_FLAT_GRAPH_H

#include <stdbool.h>

#include "model_source.h"

/* True if s's GraphDef has a function library and the library loaded it. */
bool flat_graph_needed(const model_source *s);

/* Replaces s->graph by a copy of the loaded model's flat nodes (versions
 * kept, library dropped, "node:0" inputs written "node"). */
void flat_graph_replace(model_source *s);

/* Each IdentityN over a single result (what a call leaves under its name)
 * becomes an Identity, which TensorFlow writes and OpenCV reads. */
void flat_graph_single_results(Tfpi__GraphDef *g);

/* In a graph without loops or conds, the control edges only order what
 * the calls' boundaries ordered (reads before a function's NoOp, NoOp
 * before its results), which no frozen graph needs and OpenCV cannot
 * read: removes them all (the caller prunes what they alone kept) and
 * returns true; false, and nothing changed, for a graph with control flow
 * (whose frames and branches need them) or lookup tables (whose lookups
 * wait for the table's filling). */
bool flat_graph_drop_control_edges(Tfpi__GraphDef *g);

#endif
