/* table_init.c - ties each lookup table's readers to its initializer. A
 * TF1 or Estimator export fills its tables in an init op the loader runs
 * once (legacy_init_op -> init_all_tables -> InitializeTableV2); tfpi's
 * sessions have no such step, so every LookupTableFindV2 / SizeV2 of a
 * HashTableV2 gets a control input from the InitializeTableV2 or
 * LookupTableImportV2 nodes that fill it: the first run that looks a key up
 * fills the table (the session keeps it), later runs skip the
 * initializer. Tables are found through Identity nodes. */
#include <stdio.h>
#include <string.h>

#include "graph/graph.h"
#include "graph/node_build.h"

/* The node name of input 0 of def, past Identity nodes, into buf. */
static const char *table_of(Tfpi__NodeDef **defs, const tp_name_map *names, const Tfpi__NodeDef *def, char *buf,
                            size_t size)
{
    for (int hops = 0; def && def->n_input > 0 && def->input[0][0] != '^' && hops < 1000; hops++) {
        size_t len = strcspn(def->input[0], ":");
        snprintf(buf, size, "%.*s", (int)len, def->input[0]);
        int i = tp_name_map_find(names, buf, strlen(buf));
        if (i < 0 || strcmp(defs[i]->op, "Identity") != 0)
            return buf;
        def = defs[i];
    }
    return NULL;
}

static bool is_op(const Tfpi__NodeDef *def, const char *a, const char *b)
{
    return strcmp(def->op, a) == 0 || strcmp(def->op, b) == 0;
}

tfpi_code tp_tie_table_initializers(Tfpi__NodeDef **defs, int n, const char *source, tfpi_status *status)
{
    bool any = false;
    for (int i = 0; i < n && !any; i++)
        any = is_op(defs[i], "InitializeTableV2", "LookupTableImportV2");
    if (!any)
        return TFPI_OK;
    tp_name_map names;
    if (!tp_name_map_init(&names, (size_t)n))
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", source);
    for (int i = 0; i < n; i++)
        tp_name_map_insert(&names, defs[i]->name, i); /* duplicates: tp_graph_build refuses them */
    char table[512], init_table[512];
    tfpi_code code = TFPI_OK;
    for (int r = 0; r < n && code == TFPI_OK; r++) {
        if (!is_op(defs[r], "LookupTableFindV2", "LookupTableSizeV2") ||
            !table_of(defs, &names, defs[r], table, sizeof table))
            continue;
        for (int w = 0; w < n && code == TFPI_OK; w++)
            if (is_op(defs[w], "InitializeTableV2", "LookupTableImportV2") &&
                table_of(defs, &names, defs[w], init_table, sizeof init_table) && strcmp(table, init_table) == 0 &&
                !tp_node_add_control(defs[r], defs[w]->name))
                code = tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", source);
    }
    tp_name_map_free(&names);
    return code;
}
