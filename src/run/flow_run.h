/* flow_run.h - the dynamic executor: runs a tp_flow_plan (graphs with
 * control flow or data-dependent shapes) with TensorFlow's dataflow rules:
 * live and dead tensors, frames for while loops, one iteration state per
 * live iteration, values reference counted and their buffers pooled. */
#ifndef TFPI_FLOW_RUN_H
#define TFPI_FLOW_RUN_H

#include "plan/flow_plan.h"

/* Feeds are borrowed for the call; outputs[i] receives a new tensor. */
tfpi_code tp_flow_run(tp_flow_plan *plan, tfpi_tensor *const *feeds, tfpi_tensor **outputs,
                      tfpi_status *status);

#endif
