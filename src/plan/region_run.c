/* region_run.c - runs a region of a flow plan (flow_region.c) on its
 * boundary inputs. The first time, and whenever an input's dtype or shape
 * changes (or a string input's bytes), it builds a static plan over the
 * same graph: the boundary inputs are its feeds, the region's outputs its
 * fetches, so the region gets the arena, folded constants, fused epilogues
 * and packed weights of a straight-line graph. The plan's bytes count
 * against the session's memory budget with the executor's values. A
 * region the planner refuses (a kernel whose prepare needs the value of an
 * input from outside, a shape the kernels reject) runs node by node as the
 * dynamic executor would, so the same errors come out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "plan/flow_plan.h"
#include "plan/plan.h"

static bool plan_fits(const tp_flow_region *r, tp_value *const *inputs)
{
    if (!r->planned)
        return false;
    for (int i = 0; i < r->num_inputs; i++) {
        const tfpi_tensor *t = &inputs[i]->t;
        if (t->dtype != r->planned_inputs[i].dtype || !tp_same_shape(t, &r->planned_inputs[i]))
            return false;
        if (t->dtype == TFPI_STRING && r->plan && !tp_same_strings(t, tp_plan_tensor(r->plan, r->plan->feeds[i])))
            return false;
    }
    return true;
}

/* "node:index" for each edge; NULL if out of memory. */
static char **edge_names(const tfpi_graph *g, const tp_edge *edges, int n)
{
    char **names = calloc((size_t)n + 1, sizeof *names);
    for (int i = 0; names && i < n; i++) {
        const char *node = g->nodes[edges[i].node].def->name;
        size_t size = strlen(node) + 16;
        if (!(names[i] = malloc(size))) {
            for (int j = 0; j < i; j++)
                free(names[j]);
            free(names);
            return NULL;
        }
        snprintf(names[i], size, "%s:%d", node, edges[i].index);
    }
    return names;
}

static void free_names(char **names, int n)
{
    for (int i = 0; names && i < n; i++)
        free(names[i]);
    free(names);
}

static void forget_region_plan(tp_flow_plan *plan, tp_flow_region *r)
{
    tp_plan_free(r->plan);
    r->plan = NULL;
    free(r->timings);
    r->timings = NULL;
    tp_value_pool_unreserve(&plan->pool, r->reserved);
    r->reserved = 0;
    r->planned = false;
}

/* Plans the region for these inputs; leaves r->plan NULL if it cannot. */
static tfpi_code replan(tp_flow_plan *plan, tp_flow_region *r, tp_value *const *inputs, tfpi_status *status)
{
    forget_region_plan(plan, r);
    if (!r->planned_inputs && !(r->planned_inputs = calloc((size_t)r->num_inputs + 1, sizeof *r->planned_inputs)))
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory");
    char **feed_names = edge_names(plan->graph, r->inputs, r->num_inputs);
    char **fetch_names = edge_names(plan->graph, r->outputs, r->num_outputs);
    tfpi_tensor **feeds = calloc((size_t)r->num_inputs + 1, sizeof *feeds);
    tfpi_code code = TFPI_OK;
    if (!feed_names || !fetch_names || !feeds)
        code = tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory");
    for (int i = 0; code == TFPI_OK && i < r->num_inputs; i++) {
        feeds[i] = &inputs[i]->t;
        tp_tensor_set_shape(&r->planned_inputs[i], inputs[i]->t.dtype, inputs[i]->t.ndims, inputs[i]->t.dims);
    }
    bool *inside = code == TFPI_OK ? calloc((size_t)plan->graph->num_nodes + 1, sizeof *inside) : NULL;
    if (code == TFPI_OK && !inside)
        code = tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory");
    if (code == TFPI_OK) {
        for (int m = 0; m < r->num_members; m++)
            inside[r->members[m]] = true;
        tfpi_status quiet = {0};
        uint64_t room = plan->pool.max_bytes ? plan->pool.max_bytes - plan->pool.held : UINT64_MAX;
        tp_plan_env env = plan->env;
        env.max_memory = room;
        r->plan = tp_plan_new_region(plan->graph, inside, (const char *const *)feed_names, feeds, r->num_inputs,
                                     (const char *const *)fetch_names, r->num_outputs, &env, &quiet);
        if (r->plan)
            r->plan->inside = NULL; /* only planning reads it */
        r->planned = true;
        if (r->plan && tp_value_pool_reserve(&plan->pool, r->plan->memory_used)) {
            r->reserved = r->plan->memory_used;
        } else {
            tp_plan_free(r->plan);
            r->plan = NULL;
        }
    }
    free_names(feed_names, r->num_inputs);
    free_names(fetch_names, r->num_outputs);
    free(feeds);
    free(inside);
    return code;
}

static tfpi_code run_planned(tp_flow_plan *plan, tp_flow_region *r, tp_value *const *inputs, tp_value **outputs,
                             tfpi_status *status)
{
    tp_plan *p = r->plan;
    for (int i = 0; i < r->num_inputs; i++)
        if (p->nodes[p->feeds[i].node].needed && inputs[i]->t.dtype != TFPI_STRING && tp_byte_size(&inputs[i]->t))
            memcpy(tp_plan_tensor(p, p->feeds[i])->data, inputs[i]->t.data, tp_byte_size(&inputs[i]->t));
    if (plan->profiling && !r->timings && !(r->timings = calloc((size_t)p->num_steps + 1, sizeof *r->timings)))
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory for the profile");
    double start = plan->profiling ? tp_now_us() : 0;
    tfpi_code code = tp_plan_execute(p, plan->profiling ? r->timings : NULL, status);
    for (int s = 0; plan->profiling && s < p->num_steps; s++)
        r->timings[s].start_us += start - plan->run_start_us;
    r->profiled = plan->profiling;
    for (int o = 0; code == TFPI_OK && o < r->num_outputs; o++) {
        const tfpi_tensor *t = tp_plan_tensor(p, p->fetches[o]);
        if (!(outputs[o] = tp_flow_new_value(plan, r->outputs[o].node, r->outputs[o].index, t, status)))
            return status->code;
        if (tp_byte_size(t))
            memcpy(outputs[o]->t.data, t->data, tp_byte_size(t));
        if (t->dtype == TFPI_STRING)
            code = tp_flow_own_strings(plan, r->outputs[o].node, r->outputs[o].index, outputs[o], status);
    }
    return code;
}

/* The value a member reads through edge e (borrowed). */
static tp_value *member_input(const tp_flow_plan *plan, const tp_flow_region *r, tp_value *const *inputs,
                              tp_value ***values, tp_edge e)
{
    if (plan->nodes[e.node].region == plan->nodes[r->anchor].region)
        return values[plan->nodes[e.node].region_index][e.index];
    if (plan->nodes[e.node].folded)
        return plan->nodes[e.node].folded[e.index];
    return inputs[tp_flow_find_edge(r->inputs, r->num_inputs, e)];
}

/* Per member output: how many member inputs still read it, plus one if
 * the region hands it on. values[m] gets room for member m's outputs. */
static int **count_readers(const tp_flow_plan *plan, const tp_flow_region *r, tp_value ***values)
{
    int **left = calloc((size_t)r->num_members, sizeof *left);
    for (int m = 0; left && m < r->num_members; m++) {
        int outs = plan->nodes[r->members[m]].num_outputs;
        if (!(left[m] = calloc((size_t)outs + 1, sizeof **left)) ||
            !(values[m] = calloc((size_t)outs + 1, sizeof **values))) {
            for (int k = 0; k <= m; k++)
                free(left[k]);
            free(left);
            return NULL;
        }
    }
    for (int m = 0; left && m < r->num_members; m++) {
        const tp_node *gn = &plan->graph->nodes[r->members[m]];
        for (int i = 0; i < gn->num_inputs; i++)
            if (plan->nodes[gn->inputs[i].node].region == plan->nodes[r->anchor].region)
                left[plan->nodes[gn->inputs[i].node].region_index][gn->inputs[i].index]++;
    }
    for (int o = 0; left && o < r->num_outputs; o++)
        left[plan->nodes[r->outputs[o].node].region_index][r->outputs[o].index]++;
    return left;
}

/* Drops member output (m, o) once nothing is left to read it. */
static void release_if_read(tp_flow_plan *plan, tp_value ***values, int **left, int m, int o)
{
    if (left[m][o] == 0) {
        tp_value_unref(&plan->pool, values[m][o]);
        values[m][o] = NULL;
    }
}

/* The region's members one at a time, as the dynamic executor would run
 * them, each value dropped after its last reader. */
static tfpi_code run_node_by_node(tp_flow_plan *plan, tp_flow_region *r, tp_value *const *inputs,
                                  tp_value **outputs, tfpi_status *status)
{
    int region = plan->nodes[r->anchor].region;
    tp_value ***values = calloc((size_t)r->num_members, sizeof *values);
    int **left = values ? count_readers(plan, r, values) : NULL;
    tfpi_code code = left ? TFPI_OK : tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory");
    for (int m = 0; code == TFPI_OK && m < r->num_members; m++) {
        const tp_node *gn = &plan->graph->nodes[r->members[m]];
        tp_value **in = calloc((size_t)gn->num_inputs + 1, sizeof *in);
        if (!in) {
            code = tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory");
            break;
        }
        for (int i = 0; i < gn->num_inputs; i++)
            in[i] = member_input(plan, r, inputs, values, gn->inputs[i]);
        code = tp_flow_run_kernel(plan, r->members[m], in, values[m], NULL, status);
        free(in);
        for (int i = 0; i < gn->num_inputs; i++) {
            tp_edge e = gn->inputs[i];
            if (plan->nodes[e.node].region == region) {
                left[plan->nodes[e.node].region_index][e.index]--;
                release_if_read(plan, values, left, plan->nodes[e.node].region_index, e.index);
            }
        }
        for (int o = 0; o < plan->nodes[r->members[m]].num_outputs; o++)
            release_if_read(plan, values, left, m, o);
    }
    for (int o = 0; code == TFPI_OK && o < r->num_outputs; o++) {
        outputs[o] = values[plan->nodes[r->outputs[o].node].region_index][r->outputs[o].index];
        tp_value_ref(outputs[o]);
    }
    for (int m = 0; values && m < r->num_members; m++) {
        for (int o = 0; values[m] && o < plan->nodes[r->members[m]].num_outputs; o++)
            tp_value_unref(&plan->pool, values[m][o]);
        free(values[m]);
        free(left ? left[m] : NULL);
    }
    free(values);
    free(left);
    return code;
}

tfpi_code tp_flow_run_region(tp_flow_plan *plan, int region, tp_value *const *inputs, tp_value **outputs,
                             tfpi_status *status)
{
    tp_flow_region *r = &plan->regions[region];
    for (int o = 0; o < r->num_outputs; o++)
        outputs[o] = NULL;
    tfpi_code code = plan_fits(r, inputs) ? TFPI_OK : replan(plan, r, inputs, status);
    if (code != TFPI_OK)
        return code;
    code = r->plan ? run_planned(plan, r, inputs, outputs, status) : run_node_by_node(plan, r, inputs, outputs, status);
    if (code != TFPI_OK)
        for (int o = 0; o < r->num_outputs; o++) {
            tp_value_unref(&plan->pool, outputs[o]);
            outputs[o] = NULL;
        }
    return code;
}
