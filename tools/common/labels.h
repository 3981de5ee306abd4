/* labels.h - class label files: one label per line, either "name" or
 * "index:name" (the index then places the label). A tool without a labels
 * file uses an empty list and says "class N". */
#ifndef TFPI_LABELS_H
#define TFPI_LABELS_H

#include <stddef.h>
#include <stdint.h>

#include "tfpi.h"

typedef struct label_list {
    int count;
    char **names; /* names[i] may be NULL if the file skipped index i */
} label_list;

tfpi_code labels_load(const char *path, label_list *out, tfpi_status *status);
/* The labels packed with a .tflite (Model Maker's zip: labels.txt, or the
 * first .txt); TFPI_NOT_FOUND when it has none. `source` names it. */
tfpi_code labels_from_model(const tfpi_graph *graph, const char *source, label_list *out, tfpi_status *status);
/* The name of class `index`: "unknown" if the file has none for it, and
 * "class N" (written to buf) when there is no labels file at all (an empty
 * list: --labels is optional). */
const char *labels_name(const label_list *labels, int index, char *buf, size_t size);
/* One warning line on stderr if a labels file (path; NULL: the labels
 * packed with the model) does not have one name per score (a 1001-line
 * file on a 1000-class model shifts every name). */
void labels_check_count(const label_list *labels, const char *path, int64_t scores);
/* The first name of a synonym list ("bow tie" of "bow tie, bow-tie,
 * bowtie"), into buf: what is worth saying out loud. */
const char *labels_first_name(const char *label, char *buf, size_t size);
void labels_free(label_list *labels);

#endif
