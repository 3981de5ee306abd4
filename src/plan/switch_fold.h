/* switch_fold.h - resolving tf.cond Switches whose predicate is known while
 * planning (control_flow.md §1.8): the batch norms of facenet-style graphs
 * sit between Switch and Merge on a phase_train PlaceholderWithDefault(False)
 * that is not fed. The untaken branch is removed, the Switch and Merge
 * become Identities, and the graph usually becomes straight-line again, so
 * it runs on the static plan at full speed. */
#ifndef TFPI_SWITCH_FOLD_H
#define TFPI_SWITCH_FOLD_H

#include "graph/graph.h"

/* A rewritten copy of graph for these feeds and fetches, or NULL when there
 * is nothing to resolve or the fetches need what would be removed (a dead
 * fetch, a Merge's value_index): then plan the graph as it is. NULL with an
 * error in status only if the copy fails. */
tfpi_graph *tp_fold_static_switches(const tfpi_graph *graph, const char *const *feed_names, int num_feeds,
                                    const char *const *fetch_names, int num_fetches, tfpi_status *status);

#endif
