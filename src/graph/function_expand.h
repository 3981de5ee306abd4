/* function_expand.h - inside the function expander (function_expand.c,
 * function_inline.c, function_lower.c): the state that turns a GraphDef
 * with a function library into one flat graph, as TensorFlow does before
 * it runs one. Calls (PartitionedCall, StatefulPartitionedCall, a node
 * whose op is a library function) are replaced by the callee's body, its
 * nodes prefixed with the call's name; functional While/If/Case are
 * lowered to Switch/Merge/Enter/Exit/NextIteration around calls of their
 * bodies and branches. Consumers of a replaced node's outputs are
 * redirected by renames ("call:1" -> "call/add:0") applied once everything
 * is expanded; a node named like the call stays (IdentityN of its outputs)
 * so it can still be fetched. */
#ifndef TFPI_FUNCTION_EXPAND_H
#define TFPI_FUNCTION_EXPAND_H

#include "graph/function_library.h"
#include "graph/node_build.h"
#include "graph/node_def.h"

/* Calls may nest this deep (Keras nests about 6); the graph may grow to
 * this many nodes. Fuzz builds (`make fuzz` defines the usual
 * FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION) stop at 2^15 nodes: the same
 * checks run, but a few-KB graph whose calls validly expand to near the cap
 * costs a fuzzer 1 s under ASan instead of 7-23 s, so the campaign does not
 * stop on a timeout that is only the cap's size. */
#define TP_MAX_CALL_DEPTH 64
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define TP_MAX_EXPANDED_NODES (1 << 15)
#else
#define TP_MAX_EXPANDED_NODES (1 << 18)
#endif

/* A list of owned strings. */
typedef struct tp_strings {
    char **items;
    size_t n, cap;
} tp_strings;

bool tp_strings_addf(tp_strings *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tp_strings_free(tp_strings *s);

typedef struct tp_expander {
    tp_function_library lib;
    tp_node_list out;   /* the flat graph's nodes */
    tp_strings rename_from, rename_to; /* "node:k" or "^node" -> what replaces it */
    tp_name_map renames; /* rename_from[i] -> i */
    const char *stack[TP_MAX_CALL_DEPTH + 1]; /* functions being instantiated */
    int depth;
    bool *references_checked; /* per library function: its body's references were checked */
    const char *source;
    tfpi_status *status;
} tp_expander;

/* One call to instantiate: a PartitionedCall, a direct call, or a body or
 * branch of a functional control-flow op. */
typedef struct tp_call {
    const char *name;     /* the call's node name: the body's prefix */
    const char *op;       /* the node's op, for messages */
    const char *function; /* the callee */
    const tp_bindings *attrs; /* the callee's attribute values */
    char *const *inputs;  /* flat tensor names */
    size_t n_inputs;
    char *const *controls; /* node names this call waits for */
    size_t n_controls;
    const Tfpi__AttrValue *in_types, *out_types; /* the node's Tin / Tout, checked if given */
    const char *in_attr, *out_attr; /* their names ("Tin", "Tout"; While: "T") */
    bool keep_node; /* leave a node named `name` with the call's outputs */
    /* The call's one control input is live exactly when its inputs are (a
     * lowered loop's pivot, or the Merge that starts an iteration): the body
     * reads the inputs directly, and its input-less nodes and control edges
     * on arguments wait for that node, without an Identity per argument
     * and a NoOp (which would double a small loop's nodes per iteration). */
    bool control_guards_inputs;
    /* The call is a lowered loop's cond or body: nothing outside the loop
     * can fetch its nodes, so an Identity of its body that nothing waits for
     * is read through (its consumers read its input), not run each iteration. */
    bool in_loop;
} tp_call;

/* Expands a flat-form node (takes ownership of def): a call is inlined, a
 * functional control-flow op lowered, anything else kept as it is. */
tfpi_code tp_expand_node(tp_expander *x, Tfpi__NodeDef *def);
/* Appends a node to the flat graph (taking it). */
tfpi_code tp_expand_emit(tp_expander *x, Tfpi__NodeDef *def);
/* Consumers of `from` ("node:k" or "^node") read `to` instead. */
tfpi_code tp_expand_rename(tp_expander *x, const char *from, const char *to);
tfpi_code tp_expand_out_of_memory(tp_expander *x);
/* "SOURCE: node 'NAME' (OP): ..." */
tfpi_code tp_expand_error(tp_expander *x, const char *node, const char *op, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* function_inline.c: instantiates call->function in place of the call. */
tfpi_code tp_inline_call(tp_expander *x, const tp_call *call);
/* Splits a node's inputs into data inputs and control node names ("^"
 * dropped); the strings are borrowed from def. */
tfpi_code tp_split_inputs(tp_expander *x, const Tfpi__NodeDef *def, tp_strings *data, tp_strings *controls);

/* function_lower.c: While / StatelessWhile, If / StatelessIf, Case /
 * StatelessCase lowered to the control flow tfpi runs (takes def). */
tfpi_code tp_lower_while(tp_expander *x, Tfpi__NodeDef *def);
tfpi_code tp_lower_if(tp_expander *x, Tfpi__NodeDef *def);
tfpi_code tp_lower_case(tp_expander *x, Tfpi__NodeDef *def);

#endif
