/* memory_limit.c - the default memory budget (memory_limit.h): half of the
 * least of the physical RAM, RLIMIT_AS, RLIMIT_DATA and the cgroup's
 * memory limit, unless TFPI_MAX_MEMORY sets it. */
#include "core/memory_limit.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* "512M" -> 536870912; -1 stays -1; false if text is not a size. */
static bool parse_size(const char *text, int64_t *bytes)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    int shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
    end += shift != 0;
    if (errno || end == text || *end || (v < 1 && v != -1) || v > (LLONG_MAX >> shift))
        return false;
    *bytes = v == -1 ? -1 : (int64_t)v << shift;
    return true;
}

/* The number in file `path` ("max" or anything else: none). */
static int64_t read_limit(const char *path)
{
    FILE *f = fopen(path, "r");
    long long v = 0;
    bool ok = f && fscanf(f, "%lld", &v) == 1 && v > 0;
    if (f)
        fclose(f);
    return ok ? (int64_t)v : INT64_MAX;
}

/* The least limit in `file` of dir/path and each of its parents. */
static int64_t lowest_along(const char *sys_root, const char *dir, const char *path, const char *file)
{
    char buf[4096];
    int64_t lowest = INT64_MAX;
    size_t len = strlen(path);
    for (;;) {
        int n = snprintf(buf, sizeof buf, "%s%s%.*s/%s", sys_root, dir, (int)len, path, file);
        if (n > 0 && (size_t)n < sizeof buf) {
            int64_t limit = read_limit(buf);
            lowest = limit < lowest ? limit : lowest;
        }
        if (len == 0)
            return lowest;
        while (len > 0 && path[len - 1] != '/')
            len--;
        while (len > 0 && path[len - 1] == '/')
            len--;
    }
}

/* Whether the comma-separated controller list [s, s + n) names "memory". */
static bool lists_memory(const char *s, size_t n)
{
    for (const char *end = s + n; s < end;) {
        const char *comma = memchr(s, ',', (size_t)(end - s));
        size_t len = (size_t)((comma ? comma : end) - s);
        if (len == 6 && memcmp(s, "memory", 6) == 0)
            return true;
        s += len + 1;
    }
    return false;
}

int64_t tp_cgroup_memory_limit(const char *proc_cgroup, const char *sys_root)
{
    int64_t lowest = INT64_MAX;
    for (const char *line = proc_cgroup; line && *line;) {
        const char *eol = strchr(line, '\n'), *end = eol ? eol : line + strlen(line);
        const char *c1 = memchr(line, ':', (size_t)(end - line));
        const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(end - c1 - 1)) : NULL;
        if (c2) {
            char path[2048];
            int n = snprintf(path, sizeof path, "%.*s", (int)(end - c2 - 1), c2 + 1);
            bool v2 = c2 == c1 + 1 && line[0] == '0' && c1 == line + 1;
            bool v1 = !v2 && lists_memory(c1 + 1, (size_t)(c2 - c1 - 1));
            int64_t limit = INT64_MAX;
            if (n > 0 && (size_t)n < sizeof path && (v1 || v2))
                limit = lowest_along(sys_root, v2 ? "" : "/memory", path,
                                     v2 ? "memory.max" : "memory.limit_in_bytes");
            lowest = limit < lowest ? limit : lowest;
        }
        line = eol ? eol + 1 : end;
    }
    return lowest;
}

/* The cgroup limit of the process whose /proc/PID/cgroup is proc_cgroup;
 * a namespaced view may not show the path it names, so the mount's own
 * root counts too. */
static int64_t own_cgroup_limit(const char *proc_cgroup, const char *sys_root)
{
    char text[8192];
    FILE *f = fopen(proc_cgroup, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    text[n] = 0;
    int64_t named = tp_cgroup_memory_limit(text, sys_root);
    int64_t root = tp_cgroup_memory_limit("0::/\n1:memory:/\n", sys_root);
    return named < root ? named : root;
}

static int64_t rlimit_bytes(int resource)
{
    struct rlimit r;
    if (getrlimit(resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY || r.rlim_cur > (rlim_t)INT64_MAX)
        return INT64_MAX;
    return (int64_t)r.rlim_cur;
}

bool tp_default_memory_budget(int64_t *bytes, tfpi_status *status)
{
    return tp_memory_budget_from("/proc/self/cgroup", "/sys/fs/cgroup", bytes, status);
}

bool tp_memory_budget_from(const char *proc_cgroup, const char *sys_root, int64_t *bytes, tfpi_status *status)
{
    const char *env = getenv("TFPI_MAX_MEMORY");
    if (env && *env) {
        if (parse_size(env, bytes))
            return true;
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                        "TFPI_MAX_MEMORY='%.40s' is not a memory size: give bytes with an optional K, M or G suffix "
                        "(e.g. 512M, 2G), or -1 for no budget", env);
        return false;
    }
    long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
    int64_t least = pages > 0 && page_size > 0 ? (int64_t)pages * page_size : (int64_t)2 << 30;
    int64_t limits[] = {rlimit_bytes(RLIMIT_AS), rlimit_bytes(RLIMIT_DATA), own_cgroup_limit(proc_cgroup, sys_root)};
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++)
        least = limits[i] < least ? limits[i] : least;
    *bytes = least / 2;
    return true;
}
