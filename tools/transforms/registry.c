/* registry.c - the transforms by name, with the parameters each accepts
 * (besides ignore_errors, which every transform takes). */
#include <string.h>

#include "transforms.h"

static const transform_def transforms[] = {
    {"add_default_attributes", transform_add_default_attributes, ""},
    {"backport_concatv2", transform_backport_concatv2, ""},
    {"flatten_atrous_conv", transform_flatten_atrous_conv, ""},
    {"fold_batch_norms", transform_fold_batch_norms, ""},
    {"fold_constants", transform_fold_constants, "clear_output_shapes"},
    {"fold_old_batch_norms", transform_fold_old_batch_norms, ""},
    {"freeze_requantization_ranges", transform_freeze_requantization_ranges,
     "min_max_log_file min_percentile max_percentile"},
    {"fuse_pad_and_conv", transform_fuse_pad_and_conv, ""},
    {"fuse_resize_and_conv", transform_fuse_resize_and_conv, ""},
    {"fuse_resize_pad_and_conv", transform_fuse_resize_pad_and_conv, ""},
    {"insert_logging", transform_insert_logging, "op prefix show_name show_op message first_n summarize"},
    {"merge_duplicate_nodes", transform_merge_duplicate_nodes, ""},
    {"obfuscate_names", transform_obfuscate_names, ""},
    {"quantize_nodes", transform_quantize_nodes, "input_min input_max fallback_min fallback_max ignore_op"},
    {"quantize_weights", transform_quantize_weights, "minimum_size"},
    {"remove_attribute", transform_remove_attribute, "attribute_name op_name"},
    {"remove_control_dependencies", transform_remove_control_dependencies, ""},
    {"remove_device", transform_remove_device, ""},
    {"remove_nodes", transform_remove_nodes, "op"},
    {"rename_attribute", transform_rename_attribute, "old_attribute_name new_attribute_name op_name"},
    {"rename_op", transform_rename_op, "old_op_name new_op_name"},
    {"round_weights", transform_round_weights, "num_steps minimum_size"},
    {"set_device", transform_set_device, "device if_default"},
    {"sort_by_execution_order", transform_sort_by_execution_order, ""},
    {"strip_unused_nodes", transform_strip_unused_nodes, "type shape name type_for_name shape_for_name"},
};

const transform_def *transform_find(const char *name)
{
    for (size_t i = 0; i < sizeof transforms / sizeof transforms[0]; i++)
        if (strcmp(transforms[i].name, name) == 0)
            return &transforms[i];
    return NULL;
}

void transform_print_names(FILE *out)
{
    for (size_t i = 0; i < sizeof transforms / sizeof transforms[0]; i++)
        fprintf(out, "%s%s", i ? ", " : "", transforms[i].name);
}
