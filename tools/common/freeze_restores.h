/* freeze_restores.h - what a frozen graph still reads through a restore
 * op: the contents of a MutableHashTable a TF2 SavedModel's restore
 * function imports (RestoreV2 -> LookupTableImportV2), which every lookup
 * of the table waits for. Each RestoreV2 output the outputs need becomes a
 * Const holding the checkpoint tensor, so the frozen graph fills the table
 * itself, with no checkpoint and no saver filename to feed. */
#ifndef TFPI_FREEZE_RESTORES_H
#define TFPI_FREEZE_RESTORES_H

#include <stdint.h>

#include "model_source.h"

/* Rewrites s->graph (pruned to what the outputs need); *converted counts
 * the tensors made constants. Errors name the node and the key. */
tfpi_code freeze_restores(model_source *s, int64_t max_bytes, int *converted, tfpi_status *status);

#endif
