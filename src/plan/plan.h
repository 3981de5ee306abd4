/* src/plan/ - planning a session run: pruning to the fetches, preparing
 * kernels (shape inference), constant folding, fusing epilogues into their
 * producers and laying out the one activation arena, running the steps;
 * for graphs with control flow, the flow plan and its regions (static
 * plans of their own). Uses the folders below it; never src/run/.
 *
 * plan.h - a session's plan for one set of feeds and fetches: the nodes the
 * fetches need in execution order, their prepared kernels, folded constants,
 * and one activation arena laid out by tensor lifetimes. */
#ifndef TFPI_PLAN_H
#define TFPI_PLAN_H

#include "graph/graph.h"
#include "kernel/kernel.h"

typedef struct tp_plan_node {
    const tp_kernel *kernel; /* NULL for fed nodes */
    tp_op_ctx ctx;           /* inputs, outputs, state for the kernel */
    bool needed;             /* the fetches depend on it */
    bool fed;                /* its outputs come from feeds */
    bool known;              /* outputs computed while planning */
    bool prepared;           /* kernel state must be released */
    bool fused;              /* absorbed by its producer: not run */
    int runner;              /* fused: the node whose run writes its outputs */
    int alias_input;         /* output 0 shares this input's bytes; -1: own buffer */
} tp_plan_node;

typedef struct tp_plan {
    const tfpi_graph *graph;
    tp_plan_node *nodes; /* indexed like graph->nodes */
    int *steps;          /* nodes to run, in order */
    int num_steps;
    void *arena;
    size_t arena_size;
    int num_feeds;
    tp_edge *feeds;
    int num_fetches;
    tp_edge *fetches;
    tfpi_status status; /* status of the kernels' ctx */
    uint64_t max_memory;  /* the budget for everything below */
    uint64_t memory_used; /* folded constants and string bytes held by the plan */
    const bool *inside;   /* while planning a region: its nodes (control inputs from others are ignored) */
} tp_plan;

/* Builds a plan; feeds give dtype and shape (their data is not read). */
tp_plan *tp_plan_new(const tfpi_graph *graph, const char *const *feed_names,
                     tfpi_tensor *const *feeds, int num_feeds, const char *const *fetch_names,
                     int num_fetches, const tp_plan_env *env, tfpi_status *status);
/* The same for a region of a larger graph (flow_region.c): control inputs
 * from nodes outside `inside` are left to the caller; data inputs from
 * outside must be fed or computable from constants. */
tp_plan *tp_plan_new_region(const tfpi_graph *graph, const bool *inside, const char *const *feed_names,
                            tfpi_tensor *const *feeds, int num_feeds, const char *const *fetch_names,
                            int num_fetches, const tp_plan_env *env, tfpi_status *status);
void tp_plan_free(tp_plan *plan);

/* Runs the plan's steps on the data in its arena; with profile non-NULL
 * (tp_profile_new's records), times each one. */
tfpi_code tp_plan_execute(tp_plan *plan, tfpi_node_profile *profile, tfpi_status *status);

/* Resolves n tensor names to a new array of edges (*out, freed by the
 * caller even on failure); `what` ("feed", "fetch") names them in errors.
 * A fetch "^node" is a target: run, nothing fetched (index TP_TARGET). */
#define TP_TARGET (-1)
tfpi_code tp_plan_resolve_names(const tfpi_graph *g, const char *const *names, int n, const char *what,
                                tp_edge **out, tfpi_status *status);

/* TensorFlow's rule: a tensor is fed at most once ("fed more than once"). */
tfpi_code tp_plan_refuse_repeated_feeds(const tfpi_graph *g, const char *const *names, const tp_edge *feeds, int n,
                                        tfpi_status *status);

/* A feed of a Placeholder must have its dtype and (known) shape. */
tfpi_code tp_plan_check_feed(const Tfpi__NodeDef *def, const char *name, const tfpi_tensor *t,
                             tfpi_status *status);

/* "node 'X' needs op 'Y', which is not compiled in: add the line ..." */
tfpi_code tp_plan_missing_kernel(const Tfpi__NodeDef *def, tfpi_status *status);

/* The tensor an edge refers to. */
tfpi_tensor *tp_plan_tensor(tp_plan *plan, tp_edge e);

/* Folds scale/bias/activation steps into the producers that accept them,
 * and lets the producers that take over whole following nodes (the 8-bit
 * products: tp_absorb_fn) absorb their chains (fuse.c). */
void tp_plan_fuse(tp_plan *plan);

/* Counts bytes the plan holds against its memory budget; fails naming the
 * node, output, shape and bytes that would pass it (node < 0: the arena). */
tfpi_code tp_plan_charge(tp_plan *plan, int node, int output, uint64_t bytes, tfpi_status *status);

/* Lays the runtime tensors out in one arena by lifetime (arena.c). */
tfpi_code tp_plan_arena(tp_plan *plan, tfpi_status *status);

#endif
