/* flow_plan.h - the static side of the dynamic executor, for graphs with
 * control flow (Switch/Merge, while loops) or ops whose output shapes depend
 * on values (Where, NonMaxSuppression, TensorArrays). Built once per set of
 * feeds and fetches: the nodes the fetches need, what kind of routing each
 * one gets, which frame (loop) it runs in, who consumes each output, and
 * the root-frame values that depend only on constants (computed once).
 * src/run/flow_run.c executes it. */
#ifndef TFPI_FLOW_PLAN_H
#define TFPI_FLOW_PLAN_H

#include "graph/graph.h"
#include "kernel/kernel.h"
#include "plan/flow_value.h"

typedef enum tp_flow_kind {
    TP_FLOW_OP,      /* an ordinary kernel */
    TP_FLOW_SWITCH,  /* data to port pred, the other port dead */
    TP_FLOW_MERGE,   /* the first live input */
    TP_FLOW_ENTER,   /* into a child frame */
    TP_FLOW_EXIT,    /* out to the parent frame */
    TP_FLOW_NEXT,    /* NextIteration: into the next iteration */
    TP_FLOW_FORWARD, /* LoopCond: passes its input on */
    TP_FLOW_REGION,  /* stands for a region of ordinary nodes run as one static plan */
} tp_flow_kind;

typedef struct tp_flow_consumer {
    int output; /* -1: a control edge */
    int node;
    int slot; /* input index at the consumer; -1 for a control edge */
} tp_flow_consumer;

typedef struct tp_flow_node {
    tp_flow_kind kind;
    const tp_kernel *kernel;
    int frame;          /* static frame the node runs in (0: root) */
    int child_frame;    /* Enter: the frame it feeds */
    bool is_constant;   /* Enter: every iteration sees the value */
    int exit_index;     /* Exit: its place in its frame's exits */
    tfpi_dtype merge_type; /* Merge: the type its T gives every input (0: no T) */
    bool fed;           /* its outputs come from the run's feeds */
    int num_back_inputs; /* Merge: inputs from NextIteration (a loop header) */
    int local;          /* index among its frame's nodes */
    int slot_base;      /* first input slot in its frame's iteration state */
    int num_slots;      /* data inputs it receives (a region: its boundary inputs) */
    int num_pending;    /* inputs and control signals it waits for (Merge: control signals) */
    int region;         /* the region it belongs to, -1 if none */
    int region_index;   /* its index among the region's members */
    bool absorbed;      /* a region member other than the one standing for it: never queued */
    int num_outputs;
    int num_consumers;
    tp_flow_consumer *consumers;
    tp_value **folded; /* root-frame outputs computed once from constants; NULL if not */
    tfpi_tensor **ctx_inputs; /* the kernel's view of its inputs: &views[i] */
    tfpi_tensor *views;       /* its inputs' shapes, and data while it runs */
    tfpi_tensor *ctx_outputs;
    /* A prepared kernel kept for the next execution with the same input
     * shapes and constants (flow_kernel.c); prepared is false if none. */
    bool prepared, uncacheable;
    void *state;
    tfpi_tensor *prepared_outputs;
    tfpi_tensor *prepared_inputs; /* dtype and shape per input */
    const tp_value **prepared_constants; /* per input: the constant value, or NULL */
} tp_flow_node;

typedef struct tp_flow_frame {
    const char *name; /* frame_name ("" for the root) */
    int parent;       /* -1 for the root */
    int num_nodes;    /* nodes running in this frame */
    int num_slots;    /* their data inputs, summed */
    int num_enters;   /* needed Enter nodes feeding this frame */
    int *nodes;       /* those nodes, in order */
    int num_exits;
    int *exits;       /* needed Exit nodes of this frame */
} tp_flow_frame;

/* A region (flow_region.c): ordinary root-frame nodes that are certain to
 * run live every time, grouped so that no path leaves the region and comes
 * back. One member (the anchor, kind TP_FLOW_REGION) stands for all: it
 * waits for the region's boundary inputs and emits the outputs read
 * outside. It runs as a static plan (region_run.c). */
typedef struct tp_flow_region {
    int anchor;
    int num_members;
    int *members;     /* in execution order */
    int num_inputs;
    tp_edge *inputs;  /* edges from outside (not constants) the members read, sorted */
    int num_outputs;
    tp_edge *outputs; /* members' outputs read outside or fetched, sorted */
    struct tp_plan *plan; /* for the inputs' current shapes; NULL: not planned or not plannable */
    bool planned;         /* a plan was attempted for planned_inputs */
    tfpi_tensor *planned_inputs; /* dtype and shape per input */
    uint64_t reserved;    /* the plan's bytes, counted in the value pool */
    /* With profiling on: the time of each step the plan ran, from the
     * start of the flow run; profiled says this run filled them. */
    tfpi_node_profile *timings;
    bool profiled;
} tp_flow_region;

typedef struct tp_flow_plan {
    const tfpi_graph *graph;
    tp_flow_node *nodes; /* indexed like graph->nodes */
    bool *needed;
    int *order;          /* needed nodes, inputs first (back edges ignored) */
    int num_needed;
    tp_flow_frame *frames;
    int num_frames;
    int num_feeds;
    tp_edge *feeds;
    int num_fetches;
    tp_edge *fetches;
    tp_edge *fetch_from; /* per fetch: the node that emits it and its output there (a region's anchor) */
    int num_regions;
    tp_flow_region *regions;
    tp_value_pool pool; /* buffers reused across runs; its budget is the session's */
    tp_plan_env env;    /* the session's threads, budget and variables; frozen: no needed node assigns one */
    int64_t max_iterations;
    bool profiling;      /* regions time their steps */
    double run_start_us; /* when the current run started (profiling) */
} tp_flow_plan;

/* True if the nodes the fetches need (not looking past fed nodes) include a
 * control-flow op or a TP_DYNAMIC kernel, so the graph needs this executor.
 * Unknown names are left to tp_plan_new to report. */
bool tp_flow_needed(const tfpi_graph *graph, const char *const *feed_names, int num_feeds,
                    const char *const *fetch_names, int num_fetches);

/* Builds the plan: checks kernels, frames and cycles, folds root-frame
 * constants. NULL with status set on failure. */
tp_flow_plan *tp_flow_plan_new(const tfpi_graph *graph, const char *const *feed_names, int num_feeds,
                               const char *const *fetch_names, int num_fetches, const tp_plan_env *env,
                               int64_t max_iterations, tfpi_status *status);
void tp_flow_plan_free(tp_flow_plan *plan);

/* Per needed node: true if it is in the root frame and certainly live on
 * every run (flow_liveness.c): not downstream of a Switch except through a
 * Merge that joins both branches of one predicate. */
bool *tp_flow_certainly_live(const tp_flow_plan *plan);

/* Groups the eligible nodes into regions and rewires the consumers so that
 * each region's anchor receives and emits for it (flow_region.c). */
tfpi_code tp_flow_form_regions(tp_flow_plan *plan, tfpi_status *status);
void tp_flow_regions_free(tp_flow_plan *plan);
/* Index of e in edges sorted by node and index (a region's inputs or
 * outputs), -1 if absent. */
int tp_flow_find_edge(const tp_edge *edges, int n, tp_edge e);

/* Runs region `region` on its boundary inputs: through its static plan,
 * built (or rebuilt) for the inputs' shapes, or node by node if the
 * planner cannot plan it. outputs[i] receive new references. */
tfpi_code tp_flow_run_region(tp_flow_plan *plan, int region, tp_value *const *inputs, tp_value **outputs,
                             tfpi_status *status);

/* Index of the frame a node's outputs live in. */
int tp_flow_output_frame(const tp_flow_plan *plan, int node);
/* Source node of input i of gn (data inputs first, then control inputs). */
int tp_flow_source(const tp_node *gn, int i);

/* Runs node's kernel on values (dead inputs are not allowed here): prepares
 * it for these shapes (or reuses the kernel prepared for the same shapes
 * and constants), allocates outputs from the pool, runs.
 * outputs[0..num_outputs) receive new references. */
tfpi_code tp_flow_run_kernel(tp_flow_plan *plan, int node, tp_value *const *inputs, tp_value **outputs,
                             tp_resource **resources, tfpi_status *status);
/* A new value for output `output` of node, from the pool; over the memory
 * budget, an error naming the node, the output, its shape and bytes. */
tp_value *tp_flow_new_value(tp_flow_plan *plan, int node, int output, const tfpi_tensor *t, tfpi_status *status);
/* tp_value_own_strings for output `output` of node, naming the node. */
tfpi_code tp_flow_own_strings(tp_flow_plan *plan, int node, int output, tp_value *v, tfpi_status *status);
/* Routing nodes (Switch, Enter, Exit, NextIteration, LoopCond, Merge)
 * check their inputs with their kernel's prepare, which depends only on the
 * inputs' dtypes and shapes: seen says the last ones accepted were these,
 * accepted remembers them (flow_kernel.c). A loop's routing nodes are then
 * checked once, not on every iteration. */
bool tp_flow_routing_seen(const tp_flow_node *fn, tp_value *const *inputs, int n);
void tp_flow_routing_accepted(tp_flow_node *fn, tp_value *const *inputs, int n);

/* Releases the kernel a node keeps prepared (flow_kernel.c). */
void tp_flow_forget_kernel(tp_flow_node *fn);

#endif
