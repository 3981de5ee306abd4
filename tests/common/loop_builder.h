/* loop_builder.h - writes TF1 while loops and conds into graph_builder
 * graphs with the node names and shapes tf.while_loop and tf.cond emit
 * (control_flow.md §1.5, §1.6), for the control-flow tests. */
#ifndef TFPI_LOOP_BUILDER_H
#define TFPI_LOOP_BUILDER_H

#include <stdbool.h>

#include "graph_builder.h"

/* "<scope>/Enter_k" into frame `frame` (is_constant as given). */
void lb_enter(gb_graph *g, const char *name, const char *input, const char *frame, bool constant);

/* Loop variable k of the loop under `scope` (frame `frame`), starting from
 * `init` (a tensor outside the loop): <scope>/Enter_k, Merge_k (inputs
 * Enter_k and NextIteration_k), Switch_k (on <scope>/LoopCond), the body's
 * view Identity_k (Switch_k:1) and Exit_k (Switch_k:0). The caller adds
 * <scope>/LoopCond and lb_next(). */
void lb_loop_var(gb_graph *g, const char *scope, const char *frame, int k, const char *init);

/* <scope>/NextIteration_k carrying `value` back to Merge_k. */
void lb_next(gb_graph *g, const char *scope, int k, const char *value);

/* A name built from a scope: "<scope>/<suffix>" (static buffer rotation of
 * 8, enough for one call's arguments). */
const char *lb_name(const char *scope, const char *suffix);

/* tf.cond(pred, x * 2, x + 10) as tf.cond writes it, under "cond/": the
 * pivot Switch on pred (cond/switch_t, cond/switch_f), cond/pred_id, one
 * data Switch per branch, the branches cond/mul and cond/add (their
 * constants hang off the pivots) and cond/Merge. */
void lb_cond_mul_add(gb_graph *g, const char *pred, const char *x);

/* An int32 Const scalar, with an optional control input ("^node" or NULL). */
void lb_const_i32(gb_graph *g, const char *name, int32_t value, const char *control);
void lb_const_f32(gb_graph *g, const char *name, float value, const char *control);

#endif
