/* plan_execute.c - runs a plan's steps in order over its arena (a session's
 * run, a region of a control-flow graph), timing each one when asked. */
#include "core/clock.h"
#include "plan/plan.h"

tfpi_code tp_plan_execute(tp_plan *plan, tfpi_node_profile *profile, tfpi_status *status)
{
    double run_start = profile ? tp_now_us() : 0;
    for (int s = 0, record = 0; s < plan->num_steps; s++) {
        tp_plan_node *pn = &plan->nodes[plan->steps[s]];
        if (pn->fused)
            continue;
        double start = profile ? tp_now_us() : 0;
        tfpi_code code = tp_kernel_run(pn->kernel, &pn->ctx);
        if (code != TFPI_OK) {
            *status = plan->status;
            return code;
        }
        if (profile) {
            profile[record].start_us = start - run_start;
            profile[record++].duration_us = tp_now_us() - start;
        }
    }
    return TFPI_OK;
}
