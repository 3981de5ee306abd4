/* flags.h - TensorFlow-style command-line flags (--name=value) shared by the
 * tools and examples. Unknown flags and bad values are errors that name the
 * flag. */
#ifndef TFPI_FLAGS_H
#define TFPI_FLAGS_H

#include <stdbool.h>

/* FLAG_INT64: an int64_t, with an optional K, M or G suffix (powers of 1024);
 * FLAG_COUNT: the same, never negative. */
typedef enum { FLAG_STRING, FLAG_INT, FLAG_FLOAT, FLAG_BOOL, FLAG_LIST, FLAG_INT64, FLAG_COUNT } flag_type;

/* A repeatable flag's values. */
typedef struct flag_list {
    int count;
    const char **values;
} flag_list;

typedef struct tool_flag {
    const char *name;
    flag_type type;
    void *value; /* const char **, int *, float *, bool *, flag_list * or int64_t * */
    const char *help;
} tool_flag;

/* --num_threads, the same in every tool: -1 or 0 use one thread per core,
 * 1 creates none, N uses N. */
#define NUM_THREADS_FLAG(n) {"num_threads", FLAG_INT, &(n), "threads (-1 or 0 = one per core)"}
#define MAX_THREADS 1024
/* True if n is a --num_threads value; otherwise prints the error. */
bool flags_check_threads(int n);

/* Parses argv. Returns 0 on success, 1 after printing an error to stderr,
 * 2 after printing usage for --help (each flag with its help and the value
 * it has before parsing: its default) or the version for --version. flag_list storage is freed by
 * flags_free. */
int flags_parse(int argc, char **argv, const tool_flag *flags, int num_flags, const char *usage);
void flags_free(const tool_flag *flags, int num_flags);

#endif
