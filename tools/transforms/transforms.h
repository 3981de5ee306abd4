/* transforms.h - every transform transform_graph offers; registry.c maps
 * their names to these functions and lists the parameters each takes. */
#ifndef TFPI_TRANSFORMS_H
#define TFPI_TRANSFORMS_H

#include "transform.h"

tfpi_code transform_add_default_attributes(Tfpi__GraphDef *graph, const transform_ctx *ctx);
tfpi_code transform_backport_concatv2(Tfpi__GraphDef *graph, const transform_ctx *ctx);
tfpi_code transform_flatten_atrous_conv(Tfpi__GraphDef *graph, const transform_ctx *ctx);
tfpi_code transform_fold_batch_norms(Tfpi__GraphDef *graph, const transform_ctx *ctx);
tfpi_code transform_fold_constants(Tfpi__GraphDef *graph, const transform_ctx *ctx);
tfpi_code transform_fold_old_batch_norms(Tfpi__GraphDef *graph, const transform_ctx *ctx);
tfpi_code transform_freeze_requantization_ranges(Tfpi__GraphDef *graph, const transform_ctx *ctx);
tfpi_code transform_fuse_pad_and_conv(Tfpi__GraphDef *graph, const transform_ctx *ctx);
tfpi_code transform_fuse_resize_and_conv(Tfpi__GraphDef *graph, const transform_ctx *ctx);
tfpi_code transform_fuse_resize_pad_and_conv(Tfpi__GraphDef *graph, const transform_ctx *ctx);
tfpi_code transform_insert_logging(Tfpi__GraphDef *graph, const transform_ctx *ctx);
tfpi_code transform_merge_duplicate_nodes(Tfpi__GraphDef *graph, const transform_ctx *ctx);
tfpi_code transform_obfuscate_names(Tfpi__GraphDef *graph, const transform_ctx *ctx);
tfpi_code transform_quantize_nodes(Tfpi__GraphDef *graph, const transform_ctx *ctx);
tfpi_code transform_quantize_weights(Tfpi__GraphDef *graph, const transform_ctx *ctx);
tfpi_code transform_remove_attribute(Tfpi__GraphDef *graph, const transform_ctx *ctx);
tfpi_code transform_remove_control_dependencies(Tfpi__GraphDef *graph, const transform_ctx *ctx);
tfpi_code transform_remove_device(Tfpi__GraphDef *graph, const transform_ctx *ctx);
tfpi_code transform_remove_nodes(Tfpi__GraphDef *graph, const transform_ctx *ctx);
tfpi_code transform_rename_attribute(Tfpi__GraphDef *graph, const transform_ctx *ctx);
tfpi_code transform_rename_op(Tfpi__GraphDef *graph, const transform_ctx *ctx);
tfpi_code transform_round_weights(Tfpi__GraphDef *graph, const transform_ctx *ctx);
tfpi_code transform_set_device(Tfpi__GraphDef *graph, const transform_ctx *ctx);
tfpi_code transform_sort_by_execution_order(Tfpi__GraphDef *graph, const transform_ctx *ctx);
tfpi_code transform_strip_unused_nodes(Tfpi__GraphDef *graph, const transform_ctx *ctx);

#endif
