/* src/kernel/ - the op kernel contract: what a kernel in kernels/ sees
 * (this file), the argument checks kernels share, and the op registry
 * generated from tf_op_files.txt. Uses src/core/ and src/graph/.
 *
 * kernel.h - the contract between the runtime and the op kernels in
 * kernels/ files: how a kernel sees its node, inputs and outputs, reads
 * attributes, reports errors, and how a kernel file lists its ops.
 *
 * Lifecycle, per session plan:
 *   prepare(ctx): inputs have dtype and shape; an input's data is non-NULL
 *     only if its value is known while planning (constants and what folds
 *     from them). prepare checks the inputs, sets every output's dtype and
 *     shape (tp_tensor_set_shape), may keep per-node state in ctx->state
 *     (packed weights...), and may point an output's data at memory it owns
 *     (in ctx->state) or at a known input, which makes that output known.
 *   run(ctx): inputs and outputs have data; compute the outputs.
 *   release(state): frees ctx->state when the plan is dropped.
 * When every input is known and the kernel is not TP_STATEFUL the runtime
 * runs it once while planning (constant folding) and never again. */
#ifndef TFPI_KERNEL_H
#define TFPI_KERNEL_H

#include <stdbool.h>

#include "graph.pb-c.h"
#include "tfpi.h"
#include "core/tensor.h"
#include "core/threadpool.h"
#include "graph/node_def.h"

/* An object a kernel creates during one run (a TensorArray) and the run
 * frees when it ends: kernels link it into *ctx->resources. */
typedef struct tp_resource {
    struct tp_resource *next;
    void (*destroy)(struct tp_resource *resource);
} tp_resource;

struct tp_resource_store;

/* What a plan's kernels run with, from the session. */
typedef struct tp_plan_env {
    tp_threadpool *pool;       /* may be NULL: single-threaded */
    uint64_t max_memory;       /* the memory budget */
    struct tp_resource_store *variables; /* the session's resource variables; NULL: none can be used */
    /* No node of the plan assigns a variable: a read gives the stored value
     * itself, known while planning (the session replans when one changes). */
    bool variables_frozen;
} tp_plan_env;

typedef struct tp_op_ctx {
    const Tfpi__NodeDef *def; /* name, op, attrs */
    const tfpi_graph *graph;  /* the node's graph (memmapped regions) */
    int num_inputs;
    tfpi_tensor **inputs;
    int num_outputs; /* outputs the graph uses: max referenced index + 1 */
    tfpi_tensor *outputs;
    void *state;
    tp_threadpool *pool; /* may be NULL: single-threaded */
    uint64_t max_bytes;  /* the session's memory budget: no output may be larger */
    tfpi_status *status;
    tp_resource **resources; /* the run's resources; NULL while planning */
    struct tp_resource_store *variables; /* the session's resource variables (may be NULL) */
    bool variables_frozen;          /* see tp_plan_env */
} tp_op_ctx;

/* What a producer can absorb from the elementwise node after it. */
typedef enum tp_fuse_op {
    TP_FUSE_SCALE, /* y = x * values (per output channel, or one value) */
    TP_FUSE_BIAS,  /* y = x + values */
    TP_FUSE_RELU,
    TP_FUSE_RELU6,
} tp_fuse_op;

typedef tfpi_code (*tp_prepare_fn)(tp_op_ctx *ctx);
typedef tfpi_code (*tp_run_fn)(tp_op_ctx *ctx);
typedef void (*tp_release_fn)(void *state);
/* Folds `op` into the node's computation (count is 1 or the number of
 * output channels); TFPI_OK if absorbed, anything else leaves it unfused.
 * Called after prepare, only for constant values. */
typedef tfpi_code (*tp_fuse_fn)(tp_op_ctx *ctx, tp_fuse_op op, const float *values, int64_t count);
/* Takes over the work of `next`, the only reader of the node's output 0
 * (as next's input 0; or of the last node it absorbed): from then on the
 * node's run also writes next's outputs, output 0 into the node's own
 * output 0 buffer, which next's output 0 shares (the buffer grows to the
 * larger of the two). TFPI_OK if absorbed, anything else leaves next to
 * run alone. Called after prepare, in chain order. */
typedef tfpi_code (*tp_absorb_fn)(tp_op_ctx *ctx, tp_op_ctx *next);

enum {
    TP_STATEFUL = 1 << 0,      /* never folded (random numbers) */
    TP_ALIAS_INPUT0 = 1 << 1,  /* output 0 is input 0's bytes (Identity, Reshape) */
    /* Output shapes depend on input values (Where, NonMaxSuppression) or the
     * op keeps per-run state (TensorArray): a graph that needs it runs on
     * the dynamic executor, where prepare always sees every input's data. */
    TP_DYNAMIC = 1 << 2,
    /* Switch, Merge, Enter, Exit, NextIteration, LoopCond: routed by the
     * dynamic executor itself; the kernel only checks the node. */
    TP_CONTROL_FLOW = 1 << 3,
    /* Reads the session's variables (ReadVariableOp): folded like a constant
     * while the plan's variables are frozen, else run every time, its
     * output shape known only then. */
    TP_READS_VARIABLES = 1 << 4,
    /* Assigns variables (AssignVariableOp): a plan with one runs on the
     * dynamic executor and its variables are not frozen. */
    TP_WRITES_VARIABLES = 1 << 5,
    /* A TensorFlow Lite operator (compute/tflite_node.h): its "T" gives
     * output 0's dtype, which need not be input 0's (QUANTIZE). */
    TP_TFLITE_OP = 1 << 6,
};
/* An op with a fixed number of outputs other than one declares it in its
 * flags: TP_OUTPUTS(3) for QuantizedConv2D, TP_OUTPUTS(0) for NoOp. Ops
 * whose count comes from an attribute are in tp_op_output_count. */
#define TP_OUTPUTS(n) (((unsigned)(n) + 1u) << 8)

typedef struct tp_kernel {
    const char *op;
    tp_prepare_fn prepare;
    tp_run_fn run;
    tp_release_fn release; /* may be NULL */
    unsigned flags;
    tp_fuse_fn fuse; /* may be NULL: nothing is fused into this op */
    tp_absorb_fn absorb; /* may be NULL: this op takes over no following node */
} tp_kernel;

/* Each kernels/NAME.c defines `const tp_kernel tp_kernels_NAME[]`, one
 * TP_KERNEL line per op, ending with TP_KERNELS_END. tools/gen_op_registry.sh
 * reads these lines to build the registry, so keep one op per line. */
#define TP_KERNEL(op, prepare, run, release, flags) {op, prepare, run, release, flags, 0, 0}
/* The same for an op that can absorb a following scale, bias or activation. */
#define TP_KERNEL_FUSING(op, prepare, run, release, flags, fuse) {op, prepare, run, release, flags, fuse, 0}
/* The same for an op that can take over whole following nodes (tp_absorb_fn). */
#define TP_KERNEL_ABSORBING(op, prepare, run, release, flags, absorb) \
    {op, prepare, run, release, flags, 0, absorb}
#define TP_KERNELS_END {0, 0, 0, 0, 0, 0, 0}

/* ---- the registry (generated from tf_op_files.txt) ---- */
/* The compiled-in kernel lists, each ended by TP_KERNELS_END; NULL-ended. */
extern const tp_kernel *const tp_compiled_kernels[];
/* The kernel of op, or NULL (kernel_index.c). */
const tp_kernel *tp_find_kernel(const char *op);
/* The kernels/ file that implements op, whether compiled in or not; NULL
 * if no file in this tfpi source tree does. */
const char *tp_kernel_file_for_op(const char *op);

/* ---- the op registry's checks (op_signature.c) ---- */
/* How many outputs the node's op produces (num_split, num, ... for the
 * ops whose count is an attribute). */
int tp_op_output_count(const Tfpi__NodeDef *def, const tp_kernel *kernel);
/* Attribute kinds, N against the inputs, T / SrcT / dtype against the
 * input types (not T of a TP_TFLITE_OP kernel), no inputs into a Const;
 * runs before the kernel's prepare. */
tfpi_code tp_check_node_signature(tp_op_ctx *ctx, const tp_kernel *kernel);
/* Prepares kernel on ctx after those checks: how every executor prepares. */
tfpi_code tp_kernel_prepare(const tp_kernel *kernel, tp_op_ctx *ctx);

/* Runs kernel on ctx - unless it has outputs, every one of them is empty
 * and it is neither stateful, an alias nor control flow: an output such as
 * [1, 2^31, 2^31, 0] is no work, whatever loops the kernel would walk. */
tfpi_code tp_kernel_run(const tp_kernel *kernel, tp_op_ctx *ctx);

/* ---- errors: "node 'NAME' (OP): message" ---- */
tfpi_code tp_fail(tp_op_ctx *ctx, tfpi_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Checks input count and that every input is one of the allowed dtypes
 * (pass 0 to accept any). */
tfpi_code tp_expect_inputs(tp_op_ctx *ctx, int min, int max);
tfpi_code tp_expect_dtype(tp_op_ctx *ctx, int input, tfpi_dtype dtype);
/* Checks for exactly one input, of this dtype. */
tfpi_code tp_expect_one_input(tp_op_ctx *ctx, tfpi_dtype dtype);
/* Sets output o's dtype and shape, after checking that the shape is valid
 * (no negative dim, and the bytes within what a tensor may hold): kernels
 * whose output shape comes from input values (computed with
 * core/checked_math.h) call this before they use it. */
tfpi_code tp_set_output(tp_op_ctx *ctx, int o, tfpi_dtype dtype, int ndims, const int64_t *dims);
/* Error unless `count` items of `item_bytes` each (a kernel's own buffer,
 * such as a TensorArray's slots) fit the memory budget; `what` names them. */
tfpi_code tp_expect_within_budget(tp_op_ctx *ctx, int64_t count, size_t item_bytes, const char *what);
/* Error unless input i's value is known while planning. */
tfpi_code tp_expect_known(tp_op_ctx *ctx, int input);

#endif
