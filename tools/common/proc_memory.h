/* proc_memory.h - this process's memory and threads as Linux reports
 * them in /proc/self/status, for benchmark_model and the bench scripts. */
#ifndef TFPI_PROC_MEMORY_H
#define TFPI_PROC_MEMORY_H

/* The named field ("VmRSS" = resident now, "VmHWM" = peak resident) in
 * bytes, or -1 where /proc is not available. */
long long proc_status_bytes(const char *field);
/* The number a field holds as it is ("Threads": the process's threads),
 * or -1. */
long long proc_status_value(const char *field);

#endif
