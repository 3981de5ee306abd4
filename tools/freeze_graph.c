/* freeze_graph - TensorFlow's freeze_graph: a graph plus the checkpoint of
 * its variables becomes one frozen GraphDef (variables as constants, only
 * what the outputs need) that TensorFlow and every tfpi tool load:
 *   freeze_graph --input_graph=g.pb --input_checkpoint=model.ckpt --output_node_names=y --output_graph=f.pb
 *   freeze_graph --input_meta_graph=model.ckpt.meta --input_checkpoint=model.ckpt ...
 *   freeze_graph --input_saved_model_dir=dir [--saved_model_tags=serve] ...
 * The flags are TensorFlow's; --input_checkpoint may also be a directory with
 * a `checkpoint` file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flags.h"
#include "freeze.h"
#include "graphdef_io.h"
#include "limit_flags.h"
#include "model_source.h"
#include "xalloc.h"

typedef struct settings {
    const char *input_graph, *input_saver, *input_checkpoint, *output_graph, *output_node_names;
    const char *restore_op_name, *filename_tensor_name, *initializer_nodes, *allow, *deny, *allow_new, *deny_new;
    const char *input_meta_graph, *input_saved_model_dir, *saved_model_tags;
    bool input_binary, clear_devices;
    int checkpoint_version;
    limit_flags limits;
} settings;

/* Splits "a,b:0, c" into node names, dropping ":k" (with a warning, as
 * users pass tensor names). */
static char **split_names(const char *list, int *n)
{
    char **names = xcalloc(strlen(list) + 2, sizeof *names);
    *n = 0;
    for (const char *p = list; *p;) {
        p += strspn(p, " ,");
        size_t len = strcspn(p, ",");
        size_t name_len = len;
        while (name_len > 0 && p[name_len - 1] == ' ')
            name_len--;
        const char *colon = memchr(p, ':', name_len);
        if (colon) {
            fprintf(stderr, "warning: --output_node_names takes node names: '%.*s' is read as '%.*s'\n", (int)name_len,
                    p, (int)(colon - p), p);
            name_len = (size_t)(colon - p);
        }
        if (name_len > 0)
            names[(*n)++] = xstrndup(p, name_len);
        p += len;
    }
    return names;
}

static int check_settings(const settings *s)
{
    int inputs = !!s->input_graph + !!s->input_meta_graph + !!s->input_saved_model_dir;
    if (!s->output_node_names || !*s->output_node_names)
        fprintf(stderr, "error: You need to supply the name of a node to --output_node_names.\n");
    else if (inputs != 1)
        fprintf(stderr, "error: give one of --input_graph, --input_meta_graph or --input_saved_model_dir\n");
    else if (!s->output_graph)
        fprintf(stderr, "error: --output_graph is required\n");
    else if (s->input_graph && !s->input_checkpoint)
        fprintf(stderr, "error: --input_graph needs --input_checkpoint (the checkpoint of its variables)\n");
    else if (s->checkpoint_version != 2)
        fprintf(stderr, "error: --checkpoint_version=%d: tfpi reads V2 checkpoints (.index + .data files) only\n",
                s->checkpoint_version);
    else
        return 0;
    return 1;
}

/* Initializer nodes (table initializers) need no run: tfpi reads no table
 * into the frozen graph. They must exist, as TensorFlow would run them. */
static int check_initializers(const Tfpi__GraphDef *g, const char *list)
{
    int n = 0, rc = 0;
    char **names = split_names(list ? list : "", &n);
    for (int i = 0; i < n; i++) {
        bool found = false;
        for (size_t k = 0; k < g->n_node && !found; k++)
            found = strcmp(g->node[k]->name, names[i]) == 0;
        if (!found && !rc) {
            fprintf(stderr, "error: --initializer_nodes: '%s' is not in the graph\n", names[i]);
            rc = 1;
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

static int freeze(const settings *s)
{
    const char *input = s->input_graph ? s->input_graph : s->input_meta_graph ? s->input_meta_graph
                                                                              : s->input_saved_model_dir;
    model_source_options mo = {s->saved_model_tags, NULL, s->input_saved_model_dir ? NULL : s->input_checkpoint};
    model_source src;
    tfpi_status status = {0};
    if (model_source_open(&src, input, &mo, &status) != TFPI_OK) {
        fprintf(stderr, "error: %s\n", status.message);
        return 1;
    }
    int n = 0, converted = 0;
    char **outputs = split_names(s->output_node_names, &n);
    tfpi_session_options limits = limit_flags_apply(&s->limits, 1);
    freeze_options fo = {
        .outputs = (const char *const *)outputs,
        .num_outputs = n,
        .allow = s->allow_new ? s->allow_new : s->allow,
        .deny = s->deny_new ? s->deny_new : s->deny,
        .clear_devices = s->clear_devices,
        .max_bytes = limits.max_memory_bytes ? limits.max_memory_bytes : tfpi_default_max_memory(),
    };
    int rc = check_initializers(src.graph, s->initializer_nodes);
    if (rc == 0 && freeze_source(&src, &fo, &converted, &status) != TFPI_OK) {
        fprintf(stderr, "error: %s: %s\n", input, status.message);
        rc = 1;
    } else if (rc == 0 && converted == 0 && !fo.allow) {
        fprintf(stderr, "error: %s: No variables were found in this model. It is likely the model was frozen "
                        "previously. You cannot freeze a graph twice.\n", input);
        rc = 1;
    } else if (rc == 0 && graphdef_write(s->output_graph, src.graph, false, &status) != TFPI_OK) {
        fprintf(stderr, "error: --output_graph: %s\n", status.message);
        rc = 1;
    } else if (rc == 0) {
        printf("Converted %d variables to const ops.\n%zu ops in the final graph.\n", converted, src.graph->n_node);
    }
    for (int i = 0; i < n; i++)
        free(outputs[i]);
    free(outputs);
    model_source_close(&src);
    return rc;
}

int main(int argc, char **argv)
{
    settings s = {.input_binary = true, .clear_devices = true, .checkpoint_version = 2, .saved_model_tags = "serve"};
    const tool_flag flags[] = {
        {"input_graph", FLAG_STRING, &s.input_graph, "GraphDef file to freeze (.pb, or text .pbtxt)"},
        {"input_saver", FLAG_STRING, &s.input_saver, "ignored (TensorFlow's SaverDef file)"},
        {"input_binary", FLAG_BOOL, &s.input_binary, "accepted: the input's form is read from the file"},
        {"input_checkpoint", FLAG_STRING, &s.input_checkpoint, "checkpoint prefix (model.ckpt) or its directory"},
        {"output_node_names", FLAG_STRING, &s.output_node_names, "the nodes to keep, comma-separated"},
        {"output_graph", FLAG_STRING, &s.output_graph, "frozen GraphDef to write"},
        {"restore_op_name", FLAG_STRING, &s.restore_op_name, "ignored (deprecated in TensorFlow)"},
        {"filename_tensor_name", FLAG_STRING, &s.filename_tensor_name, "ignored (deprecated in TensorFlow)"},
        {"clear_devices", FLAG_BOOL, &s.clear_devices, "blank every node's device (default true)"},
        {"initializer_nodes", FLAG_STRING, &s.initializer_nodes, "nodes TensorFlow runs after restoring (checked)"},
        {"variable_names_whitelist", FLAG_STRING, &s.allow, "only these variables become constants"},
        {"variable_names_blacklist", FLAG_STRING, &s.deny, "these variables stay variables"},
        {"variable_names_allowlist", FLAG_STRING, &s.allow_new, "the same as --variable_names_whitelist"},
        {"variable_names_denylist", FLAG_STRING, &s.deny_new, "the same as --variable_names_blacklist"},
        {"input_meta_graph", FLAG_STRING, &s.input_meta_graph, "MetaGraphDef (.meta) to freeze"},
        {"input_saved_model_dir", FLAG_STRING, &s.input_saved_model_dir, "SavedModel directory to freeze"},
        {"saved_model_tags", FLAG_STRING, &s.saved_model_tags, "the SavedModel meta graph's tags (default serve)"},
        {"checkpoint_version", FLAG_INT, &s.checkpoint_version, "2 (V2 checkpoints; V1 is not supported)"},
        LIMIT_FLAGS(s.limits),
    };
    const int num_flags = sizeof flags / sizeof flags[0];
    int rc = flags_parse(argc, argv, flags, num_flags,
                         "--input_saved_model_dir=D | --input_meta_graph=M --input_checkpoint=P | --input_graph=G "
                         "--input_checkpoint=P, --output_node_names=N --output_graph=F.pb");
    if (rc == 0)
        rc = check_settings(&s);
    if (rc == 0)
        rc = freeze(&s);
    flags_free(flags, num_flags);
    return rc == 2 ? 0 : rc;
}
