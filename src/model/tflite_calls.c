/* tflite_calls.c - the subgraphs a model's operators run (WHILE's cond and
 * body, IF's branches, CALL_ONCE's init, CALL's subgraph), checked once at
 * load: every index names a subgraph, and no subgraph reaches itself
 * through them (a file that did would recurse for ever). */
#include "model/tflite_calls.h"

#include <stdlib.h>

#include "model/tflite_options.h"

int tp_tfl_called_subgraphs(const tp_tfl_model *m, const tp_tfl_operator *op, int32_t called[2],
                            const char *fields[2])
{
    static const struct {
        int32_t builtin;
        const char *fields[2];
    } calls[] = {
        {TP_TFL_OP_WHILE, {"cond_subgraph_index", "body_subgraph_index"}},
        {TP_TFL_OP_IF, {"then_subgraph_index", "else_subgraph_index"}},
        {TP_TFL_OP_CALL_ONCE, {"init_subgraph_index", NULL}},
        {TP_TFL_OP_CALL, {"subgraph", NULL}},
    };
    int32_t builtin = m->codes[op->opcode].builtin;
    for (size_t c = 0; c < sizeof calls / sizeof calls[0]; c++) {
        if (calls[c].builtin != builtin)
            continue;
        int n = 0;
        for (int k = 0; k < 2 && calls[c].fields[k]; k++) {
            int64_t index = -1;
            tp_tfl_option_int(&m->fb, op->options_type, &op->options, calls[c].fields[k], &index);
            called[n] = index < INT32_MIN || index > INT32_MAX ? -1 : (int32_t)index;
            fields[n++] = calls[c].fields[k];
        }
        return n;
    }
    return 0;
}

enum { UNSEEN, OPEN, DONE };

/* Where a depth-first walk is in one subgraph: operator i, call k. */
typedef struct frame {
    int subgraph, op, call;
} frame;

static tfpi_code bad_index(int s, int op, const char *field, int32_t index, const tp_tfl_model *m, const char *source,
                           tfpi_status *status)
{
    return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: subgraph %d, operator %d: %s %d is past the model's %d "
                           "subgraphs", source, s, op, field, index, m->num_subgraphs);
}

/* Depth-first from subgraph `start` with an explicit stack (a file may
 * chain as many subgraphs as it has): an OPEN subgraph reached again is a
 * cycle. */
static tfpi_code walk(const tp_tfl_model *m, int start, unsigned char *mark, frame *stack, const char *source,
                      tfpi_status *status)
{
    int top = 0;
    stack[top++] = (frame){start, 0, 0};
    mark[start] = OPEN;
    while (top > 0) {
        frame *f = &stack[top - 1];
        const tp_tfl_subgraph *g = &m->subgraphs[f->subgraph];
        if (f->op == g->num_operators) {
            mark[f->subgraph] = DONE;
            top--;
            continue;
        }
        int32_t called[2];
        const char *fields[2];
        int n = tp_tfl_called_subgraphs(m, &g->operators[f->op], called, fields);
        if (f->call >= n) {
            f->op++;
            f->call = 0;
            continue;
        }
        int k = f->call++;
        if (called[k] < 0 || called[k] >= m->num_subgraphs)
            return bad_index(f->subgraph, f->op, fields[k], called[k], m, source, status);
        if (mark[called[k]] == OPEN)
            return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: subgraph %d calls itself%s (operator %d of "
                                   "subgraph %d, %s %d)", source, called[k],
                                   called[k] == f->subgraph ? "" : " through the subgraphs it calls", f->op,
                                   f->subgraph, fields[k], called[k]);
        if (mark[called[k]] == UNSEEN) {
            mark[called[k]] = OPEN;
            stack[top++] = (frame){called[k], 0, 0};
        }
    }
    return TFPI_OK;
}

tfpi_code tp_tfl_check_calls(const tp_tfl_model *m, const char *source, tfpi_status *status)
{
    unsigned char *mark = calloc((size_t)m->num_subgraphs + 1, 1);
    frame *stack = calloc((size_t)m->num_subgraphs + 1, sizeof *stack); /* each subgraph is on it once at most */
    tfpi_code code = mark && stack ? TFPI_OK : tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory",
                                                               source);
    for (int s = 0; s < m->num_subgraphs && code == TFPI_OK; s++)
        if (mark[s] == UNSEEN)
            code = walk(m, s, mark, stack, source, status);
    free(mark);
    free(stack);
    return code;
}
