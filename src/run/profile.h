/* src/run/ - running: the public session API (session.c: plans cached by
 * feed shapes, feeds in, steps run, fetches out) and per-node profiling
 * (this file). The top of the flow: load (graph/) -> plan (plan/) -> run.
 *
 * profile.h - per-node timing records of a plan's steps, for
 * benchmark_model, and the FLOP estimates it reports. */
#ifndef TFPI_PROFILE_H
#define TFPI_PROFILE_H

#include "plan/plan.h"

/* One record per step the plan runs (not the fused ones), names and FLOPs
 * filled in, *count of them, and in *steps (freed with free()) the context of
 * each, which holds its outputs; NULL if out of memory. Freed with free(). */
tfpi_node_profile *tp_profile_new(const tp_plan *plan, int *count, const tp_op_ctx ***steps);


#endif
