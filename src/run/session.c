/* session.c - the public session API: a thread pool, the plan for the last
 * set of feeds and fetches (rebuilt when names, types or shapes change), and
 * running it: copy feeds into the arena, run the steps, copy fetches out.
 * Graphs with control flow or data-dependent shapes get a flow plan instead
 * and run on the dynamic executor (flow_run.c); straight-line graphs never
 * touch it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/memory_limit.h"
#include "kernel/resource_store.h"
#include "plan/switch_fold.h"
#include "run/flow_run.h"
#include "run/profile.h"

struct tfpi_session {
    const tfpi_graph *graph;
    tp_threadpool *pool;
    tp_plan *plan;
    tp_flow_plan *flow; /* instead of plan, for graphs that need the dynamic executor */
    tfpi_graph *resolved; /* the graph with known Switches resolved, if any: what the plan runs */
    int64_t max_loop_iterations;
    /* what the plan was built for */
    char **feed_names, **fetch_names;
    tfpi_tensor *feed_shapes; /* dtype and shape only; string feeds are in the plan */
    int num_feeds, num_fetches;
    bool profiling;
    tfpi_node_profile *profile; /* one record per step run (fused steps are not) */
    const tp_op_ctx **profiled_steps; /* the step of each record: its outputs */
    int num_profiled;
    uint64_t max_memory; /* the plans' memory budget */
    tp_resource_store variables; /* resource variables, kept from run to run */
};

tfpi_session *tfpi_session_new(const tfpi_graph *graph, const tfpi_session_options *options,
                               tfpi_status *status)
{
    tfpi_session *s = calloc(1, sizeof *s);
    if (!graph) {
        free(s);
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "no graph given for the session");
        return NULL;
    }
    int threads = options ? options->num_threads : 0;
    if (!s || !(s->pool = tp_threadpool_new(threads))) {
        free(s);
        tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "cannot create a session with %d threads", threads);
        return NULL;
    }
    const char *cpu_name = options ? options->cpu : NULL, *bad_env = tp_cpu_check_env();
    tp_cpu cpu;
    if (bad_env || !tp_cpu_force(cpu_name, &cpu)) {
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s%s is not a CPU: use a53, a72, a76 or generic",
                        bad_env ? "TFPI_CPU=" : "cpu option ", bad_env ? bad_env : cpu_name);
        tp_threadpool_free(s->pool);
        free(s);
        return NULL;
    }
    tp_threadpool_set_cpu(s->pool, cpu);
    const char *precision_name = options ? options->precision : NULL;
    tp_precision precision;
    if (!tp_precision_named(precision_name, &precision)) {
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "precision option %s is not a precision: use fp32 or fp16",
                        precision_name);
        tp_threadpool_free(s->pool);
        free(s);
        return NULL;
    }
    tp_threadpool_set_precision(s->pool, tp_cpu_precision(cpu, precision));
    s->graph = graph;
    int64_t budget = options ? options->max_memory_bytes : 0;
    if (budget == 0 && !tp_default_memory_budget(&budget, status)) {
        tfpi_session_free(s);
        return NULL;
    }
    s->max_memory = budget < 0 ? UINT64_MAX : (uint64_t)budget;
    s->max_loop_iterations = TFPI_DEFAULT_MAX_LOOP_ITERATIONS;
    s->variables.max_bytes = s->max_memory;
    return s;
}

int64_t tfpi_default_max_memory(void)
{
    int64_t budget;
    tfpi_status ignored;
    return tp_default_memory_budget(&budget, &ignored) ? budget : (int64_t)1 << 30;
}

static void free_profile(tfpi_session *s)
{
    free(s->profile);
    free(s->profiled_steps);
    s->profile = NULL;
    s->profiled_steps = NULL;
    s->num_profiled = 0;
}

static void forget_plan(tfpi_session *s)
{
    tp_plan_free(s->plan);
    s->plan = NULL;
    tp_flow_plan_free(s->flow);
    s->flow = NULL;
    tfpi_graph_free(s->resolved);
    s->resolved = NULL;
    free_profile(s);
    for (int i = 0; i < s->num_feeds; i++)
        free(s->feed_names[i]);
    for (int i = 0; i < s->num_fetches; i++)
        free(s->fetch_names[i]);
    free(s->feed_names);
    free(s->fetch_names);
    free(s->feed_shapes);
    s->feed_names = s->fetch_names = NULL;
    s->feed_shapes = NULL;
    s->num_feeds = s->num_fetches = 0;
}

const char *tfpi_session_precision(const tfpi_session *session)
{
    return tp_precision_name(tp_threadpool_precision(session ? session->pool : NULL));
}

void tfpi_session_free(tfpi_session *session)
{
    if (!session)
        return;
    forget_plan(session);
    tp_resource_store_free(&session->variables);
    tp_threadpool_free(session->pool);
    free(session);
}

static bool plan_matches(const tfpi_session *s, const char *const *feed_names,
                         tfpi_tensor *const *feeds, int num_feeds, const char *const *fetch_names,
                         int num_fetches)
{
    if ((!s->plan && !s->flow) || s->num_feeds != num_feeds || s->num_fetches != num_fetches)
        return false;
    /* A plan that took variables' values as constants stays right: none of
     * its nodes writes one (a plan with a writer reads them as it runs), and
     * the session keeps one plan, so a run that writes replaces it. */
    for (int i = 0; i < num_feeds; i++)
        if (strcmp(s->feed_names[i], feed_names[i]) != 0)
            return false;
    for (int i = 0; i < num_fetches; i++)
        if (strcmp(s->fetch_names[i], fetch_names[i]) != 0)
            return false;
    if (s->flow) /* a flow plan does not depend on feed shapes */
        return true;
    for (int i = 0; i < num_feeds; i++)
        if (feeds[i]->dtype != s->feed_shapes[i].dtype ||
            !tp_same_shape(feeds[i], &s->feed_shapes[i]))
            return false;
    /* A fed node the fetches do not need has no output slots. */
    for (int i = 0; i < num_feeds; i++)
        if (feeds[i]->dtype == TFPI_STRING && s->plan->nodes[s->plan->feeds[i].node].needed &&
            !tp_same_strings(feeds[i], tp_plan_tensor(s->plan, s->plan->feeds[i])))
            return false;
    return true;
}

static bool copy_names(char ***out, const char *const *names, int n)
{
    *out = calloc((size_t)n + 1, sizeof **out);
    for (int i = 0; *out && i < n; i++)
        if (!((*out)[i] = strdup(names[i])))
            return false;
    return *out != NULL;
}

static tfpi_code replan(tfpi_session *s, const char *const *feed_names, tfpi_tensor *const *feeds,
                        int num_feeds, const char *const *fetch_names, int num_fetches,
                        tfpi_status *status)
{
    forget_plan(s);
    tfpi_status fold_status = {0};
    s->resolved = tp_fold_static_switches(s->graph, feed_names, num_feeds, fetch_names, num_fetches, &fold_status);
    if (fold_status.code != TFPI_OK) {
        *status = fold_status;
        return status->code;
    }
    const tfpi_graph *g = s->resolved ? s->resolved : s->graph;
    tp_plan_env env = {s->pool, s->max_memory, &s->variables, true};
    if (tp_flow_needed(g, feed_names, num_feeds, fetch_names, num_fetches))
        s->flow = tp_flow_plan_new(g, feed_names, num_feeds, fetch_names, num_fetches, &env, s->max_loop_iterations,
                                   status);
    else
        s->plan = tp_plan_new(g, feed_names, feeds, num_feeds, fetch_names, num_fetches, &env, status);
    if (!s->plan && !s->flow)
        return status ? status->code : TFPI_INVALID_ARGUMENT;
    s->num_feeds = num_feeds;
    s->num_fetches = num_fetches;
    s->feed_shapes = calloc((size_t)num_feeds + 1, sizeof *s->feed_shapes);
    if (!s->feed_shapes || !copy_names(&s->feed_names, feed_names, num_feeds) ||
        !copy_names(&s->fetch_names, fetch_names, num_fetches)) {
        forget_plan(s);
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory");
    }
    for (int i = 0; i < num_feeds; i++)
        tp_tensor_set_shape(&s->feed_shapes[i], feeds[i]->dtype, feeds[i]->ndims, feeds[i]->dims);
    return TFPI_OK;
}

static tfpi_code check_arguments(const char *const *feed_names, tfpi_tensor *const *feeds,
                                 int num_feeds, const char *const *fetch_names, tfpi_tensor **outputs,
                                 int num_fetches, tfpi_status *status)
{
    if (num_feeds < 0 || num_fetches < 1 || (num_feeds && (!feed_names || !feeds)) || !fetch_names ||
        !outputs)
        return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "run needs at least one fetch and valid arrays");
    for (int i = 0; i < num_feeds; i++)
        if (!feed_names[i] || !feeds[i] || !feeds[i]->data)
            return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "feed %d has no name or no tensor", i);
    for (int i = 0; i < num_fetches; i++)
        if (!fetch_names[i])
            return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "fetch %d has no name", i);
    return TFPI_OK;
}

static tfpi_code run_flow(tfpi_session *s, const char *const *feed_names, tfpi_tensor *const *feeds,
                          tfpi_tensor **outputs, tfpi_status *status)
{
    for (int f = 0; f < s->flow->num_feeds; f++) {
        tfpi_code code = tp_plan_check_feed(s->flow->graph->nodes[s->flow->feeds[f].node].def, feed_names[f], feeds[f],
                                            status);
        if (code != TFPI_OK)
            return code;
    }
    return tp_flow_run(s->flow, feeds, outputs, status);
}

void tfpi_session_set_max_loop_iterations(tfpi_session *session, int64_t limit)
{
    session->max_loop_iterations = limit > 0 ? limit : TFPI_DEFAULT_MAX_LOOP_ITERATIONS;
    if (session->flow)
        session->flow->max_iterations = session->max_loop_iterations;
}

void tfpi_session_set_profiling(tfpi_session *session, int enabled)
{
    session->profiling = enabled != 0;
    if (session->flow)
        session->flow->profiling = session->profiling;
}

/* A control-flow graph's profile: the steps its regions' static plans ran
 * in the last run (the nodes run one at a time are not timed). */
static tfpi_code collect_region_profiles(tfpi_session *s, tfpi_status *status)
{
    free_profile(s);
    for (int i = 0; i < s->flow->num_regions; i++) {
        tp_flow_region *r = &s->flow->regions[i];
        int count = 0;
        const tp_op_ctx **steps = NULL;
        tfpi_node_profile *records = r->profiled && r->plan ? tp_profile_new(r->plan, &count, &steps) : NULL;
        size_t total = (size_t)s->num_profiled + (size_t)count + 1;
        tfpi_node_profile *all = records ? realloc(s->profile, sizeof *all * total) : NULL;
        if (all)
            s->profile = all;
        const tp_op_ctx **all_steps = all ? realloc(s->profiled_steps, sizeof *all_steps * total) : NULL;
        if (all_steps)
            s->profiled_steps = all_steps;
        if (records && !all_steps) {
            free(records);
            free(steps);
            return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory for the profile");
        }
        for (int k = 0; k < count; k++) {
            records[k].start_us = r->timings[k].start_us;
            records[k].duration_us = r->timings[k].duration_us;
        }
        if (records) {
            memcpy(all + s->num_profiled, records, sizeof *all * (size_t)count);
            memcpy(all_steps + s->num_profiled, steps, sizeof *all_steps * (size_t)count);
            s->num_profiled += count;
        }
        free(records);
        free(steps);
        r->profiled = false;
    }
    return TFPI_OK;
}

int tfpi_session_profile(const tfpi_session *session, const tfpi_node_profile **nodes)
{
    *nodes = session->profile;
    return session->profile ? session->num_profiled : 0;
}

int tfpi_session_profile_num_outputs(const tfpi_session *session, int node)
{
    return session->profile && node >= 0 && node < session->num_profiled
               ? session->profiled_steps[node]->num_outputs
               : 0;
}

int tfpi_session_profile_output(const tfpi_session *session, int node, int k, tfpi_dtype *dtype, int64_t *dims,
                                int max_dims)
{
    if (k < 0 || k >= tfpi_session_profile_num_outputs(session, node))
        return -1;
    const tfpi_tensor *t = &session->profiled_steps[node]->outputs[k];
    *dtype = t->dtype;
    for (int i = 0; i < t->ndims && i < max_dims; i++)
        dims[i] = t->dims[i];
    return t->ndims;
}

void tfpi_session_reset(tfpi_session *session)
{
    forget_plan(session);
}

void tfpi_session_reset_variables(tfpi_session *session)
{
    forget_plan(session); /* its kernels hold handles into the store */
    tp_resource_store_free(&session->variables);
    session->variables.max_bytes = session->max_memory;
}

int tfpi_session_thread_work(tfpi_session *session, tfpi_thread_work *out, int max, int reset)
{
    const int threads = tp_threadpool_size(session->pool);
    tp_thread_work *work = calloc(2 * (size_t)threads, sizeof *work), *equal = work + threads;
    if (!work || !tp_threadpool_work(session->pool, work, equal, reset)) {
        free(work);
        return 0;
    }
    for (int t = 0; out && t < threads && t < max; t++)
        out[t] = (tfpi_thread_work){work[t].tasks,  work[t].multiply_adds,  work[t].idle,
                                    equal[t].tasks, equal[t].multiply_adds, equal[t].idle};
    free(work);
    return threads;
}

size_t tfpi_session_arena_bytes(const tfpi_session *session)
{
    size_t bytes = session->plan ? session->plan->arena_size : 0;
    for (int i = 0; session->flow && i < session->flow->num_regions; i++) /* its regions' plans */
        bytes += session->flow->regions[i].plan ? session->flow->regions[i].plan->arena_size : 0;
    return bytes;
}

tfpi_code tfpi_session_run(tfpi_session *session, const char *const *feed_names,
                           tfpi_tensor *const *feeds, int num_feeds, const char *const *fetch_names,
                           tfpi_tensor **outputs, int num_fetches, tfpi_status *status)
{
    tfpi_status local;
    if (!status)
        status = &local;
    tfpi_status_clear(status);
    tfpi_code code = check_arguments(feed_names, feeds, num_feeds, fetch_names, outputs, num_fetches,
                                     status);
    if (code != TFPI_OK)
        return code;
    for (int i = 0; i < num_fetches; i++)
        outputs[i] = NULL;
    if (!plan_matches(session, feed_names, feeds, num_feeds, fetch_names, num_fetches) &&
        (code = replan(session, feed_names, feeds, num_feeds, fetch_names, num_fetches, status)) != TFPI_OK)
        return code;
    if (session->flow) {
        session->flow->profiling = session->profiling;
        code = run_flow(session, feed_names, feeds, outputs, status);
        if (code == TFPI_OK && session->profiling && (code = collect_region_profiles(session, status)) != TFPI_OK)
            for (int i = 0; i < num_fetches; i++) {
                tfpi_tensor_free(outputs[i]);
                outputs[i] = NULL;
            }
        return code;
    }
    tp_plan *plan = session->plan;
    for (int f = 0; f < num_feeds; f++) {
        if (plan->nodes[plan->feeds[f].node].needed && feeds[f]->dtype != TFPI_STRING)
            memcpy(tp_plan_tensor(plan, plan->feeds[f])->data, feeds[f]->data, tp_byte_size(feeds[f]));
    }
    if (session->profiling && !session->profile &&
        !(session->profile = tp_profile_new(plan, &session->num_profiled, &session->profiled_steps)))
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory for the profile");
    if ((code = tp_plan_execute(plan, session->profiling ? session->profile : NULL, status)) != TFPI_OK)
        return code;
    for (int i = 0; i < num_fetches; i++) {
        if (plan->fetches[i].index == TP_TARGET)
            continue; /* outputs[i] stays NULL */
        outputs[i] = tp_tensor_clone(tp_plan_tensor(plan, plan->fetches[i]), status);
        if (!outputs[i]) {
            for (int j = 0; j < i; j++) {
                tfpi_tensor_free(outputs[j]);
                outputs[j] = NULL;
            }
            return status->code;
        }
    }
    return TFPI_OK;
}
