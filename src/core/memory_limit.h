/* memory_limit.h - where memory really ends for this process, for the
 * default memory budget: the physical RAM, the process's limits
 * (RLIMIT_AS, RLIMIT_DATA) and its cgroup's memory.max (systemd's
 * MemoryMax=, a container's limit), or what the TFPI_MAX_MEMORY
 * environment variable says. */
#ifndef TFPI_MEMORY_LIMIT_H
#define TFPI_MEMORY_LIMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "tfpi.h"

/* The default budget: TFPI_MAX_MEMORY if set (bytes with an optional K, M
 * or G suffix; -1: no budget, returned as -1), else half of the least of
 * the limits above. false, with the reason in status, if TFPI_MAX_MEMORY
 * is not a size. */
bool tp_default_memory_budget(int64_t *bytes, tfpi_status *status);
/* The same with the cgroup files it reads given: proc_cgroup for
 * /proc/self/cgroup, sys_root for /sys/fs/cgroup (tests pass fake ones). */
bool tp_memory_budget_from(const char *proc_cgroup, const char *sys_root, int64_t *bytes, tfpi_status *status);

/* The lowest memory limit of the cgroup (and its parents) named in
 * `proc_cgroup` (the text of /proc/self/cgroup), read below `sys_root`
 * (/sys/fs/cgroup): v2 memory.max, v1 memory.limit_in_bytes. INT64_MAX if
 * there is none. */
int64_t tp_cgroup_memory_limit(const char *proc_cgroup, const char *sys_root);

#endif
