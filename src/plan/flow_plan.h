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
    bool fed;           /* its outputs come from the run's feeds */
    int num_back_inputs; /* Merge: inputs from NextIteration (a loop header) */
    int local;          /* index among its frame's nodes */
    int slot_base;      /* first input slot in its frame's iteration state */
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
    tp_value_pool pool; /* buffers reused across runs */
    tp_threadpool *threads;
    int64_t max_iterations;
} tp_flow_plan;

/* True if the nodes the fetches need (not looking past fed nodes) include a
 * control-flow op or a TP_DYNAMIC kernel, so the graph needs this executor.
 * Unknown names are left to tp_plan_new to report. */
bool tp_flow_needed(const tfpi_graph *graph, const char *const *feed_names, int num_feeds,
                    const char *const *fetch_names, int num_fetches);

/* Builds the plan: checks kernels, frames and cycles, folds root-frame
 * constants. NULL with status set on failure. */
tp_flow_plan *tp_flow_plan_new(const tfpi_graph *graph, const char *const *feed_names, int num_feeds,
                               const char *const *fetch_names, int num_fetches, tp_threadpool *threads,
                               int64_t max_iterations, tfpi_status *status);
void tp_flow_plan_free(tp_flow_plan *plan);

/* Runs node's kernel on values (dead inputs are not allowed here): prepares
 * it for these shapes (or reuses the kernel prepared for the same shapes
 * and constants), allocates outputs from the pool, runs.
 * outputs[0..num_outputs) receive new references. */
tfpi_code tp_flow_run_kernel(tp_flow_plan *plan, int node, tp_value *const *inputs, tp_value **outputs,
                             tp_resource **resources, tfpi_status *status);
/* Releases the kernel a node keeps prepared (flow_kernel.c). */
void tp_flow_forget_kernel(tp_flow_node *fn);

#endif
