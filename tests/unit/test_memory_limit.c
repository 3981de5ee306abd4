/* test_memory_limit.c - the default memory budget (src/core/memory_limit.c):
 * half of the least of the physical RAM, RLIMIT_AS, RLIMIT_DATA and the
 * cgroup's limit (read here from fake /proc/self/cgroup texts and cgroup
 * trees, v1 and v2, nested), and TFPI_MAX_MEMORY over all of them. The
 * expected values are worked out here from the numbers written. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "core/memory_limit.h"
#include "graph_builder.h"
#include "tfpi.h"

static char root[64];

/* Writes text to root/rel, making its folders. */
static void put(const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
        *p = 0;
        mkdir(path, 0700);
        *p = '/';
    }
    FILE *f = fopen(path, "w");
    CHECK_MSG(f, "cannot write %s", path);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void test_cgroup_limits(void)
{
    strcpy(root, "/tmp/tfpi_cgroup_XXXXXX");
    CHECK(mkdtemp(root));
    put("memory.max", "max\n");
    put("system.slice/memory.max", "1073741824\n");
    put("system.slice/tfpi.service/memory.max", "max\n");
    put("memory/app/memory.limit_in_bytes", "536870912\n");
    put("memory/memory.limit_in_bytes", "9223372036854771712\n");
    /* v2: the parent's limit holds for the child that has none */
    CHECK_EQ_INT(tp_cgroup_memory_limit("0::/system.slice/tfpi.service\n", root), 1073741824);
    /* v1: the memory controller's line, among others */
    CHECK_EQ_INT(tp_cgroup_memory_limit("5:cpu,cpuacct:/x\n4:memory:/app\n0::/\n", root), 536870912);
    CHECK_EQ_INT(tp_cgroup_memory_limit("4:cpuset,memory:/app", root), 536870912);
    /* no limit anywhere, a path that does not exist, garbage */
    CHECK_EQ_INT(tp_cgroup_memory_limit("0::/\n", root), INT64_MAX);
    CHECK_EQ_INT(tp_cgroup_memory_limit("0::/no/such/group\n", root), INT64_MAX);
    CHECK_EQ_INT(tp_cgroup_memory_limit("garbage\n::\n4:memoryless:/app\n", root), INT64_MAX);
    /* the default budget is half of a cgroup limit below RAM and the rlimits (64 MiB here) */
    unsetenv("TFPI_MAX_MEMORY");
    put("small/memory.max", "67108864\n");
    put("proc_cgroup", "0::/small\n");
    char proc[128];
    snprintf(proc, sizeof proc, "%s/proc_cgroup", root);
    int64_t budget = 0;
    tfpi_status status = {0};
    CHECK(tp_memory_budget_from(proc, root, &budget, &status));
    CHECK_EQ_INT(budget, 33554432);
    char command[128];
    snprintf(command, sizeof command, "rm -rf %s", root);
    CHECK(system(command) == 0);
}

static int64_t least_limit(void)
{
    int64_t least = (int64_t)sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE);
    int resources[2] = {RLIMIT_AS, RLIMIT_DATA};
    for (int i = 0; i < 2; i++) {
        struct rlimit r;
        if (getrlimit(resources[i], &r) == 0 && r.rlim_cur != RLIM_INFINITY && (int64_t)r.rlim_cur < least)
            least = (int64_t)r.rlim_cur;
    }
    return least;
}

/* This process's cgroup limit, read as tp_cgroup_memory_limit reads it
 * (that reader is checked on the fake trees above): the groups
 * /proc/self/cgroup names, and the mount's root. */
static int64_t own_cgroup(void)
{
    char text[8192] = "";
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (f) {
        text[fread(text, 1, sizeof text - 1, f)] = 0;
        fclose(f);
    }
    int64_t named = tp_cgroup_memory_limit(text, "/sys/fs/cgroup");
    int64_t mount = tp_cgroup_memory_limit("0::/\n1:memory:/\n", "/sys/fs/cgroup");
    return named < mount ? named : mount;
}

static void test_default_budget(void)
{
    unsetenv("TFPI_MAX_MEMORY");
    /* exactly half of the least of RAM, the rlimits and the cgroup's limit */
    int64_t least = least_limit(), cgroup = own_cgroup();
    int64_t half = (cgroup < least ? cgroup : least) / 2, budget = tfpi_default_max_memory();
    CHECK_MSG(budget > 0 && budget == half, "budget %lld, half of the least limit %lld", (long long)budget,
              (long long)half);
    struct rlimit saved, lower;
    CHECK(getrlimit(RLIMIT_DATA, &saved) == 0);
    lower = saved;
    lower.rlim_cur = (rlim_t)3 << 30; /* 3 GiB: well above what this program uses */
    if (lower.rlim_max == RLIM_INFINITY || lower.rlim_max >= lower.rlim_cur) {
        CHECK(setrlimit(RLIMIT_DATA, &lower) == 0);
        least = least_limit();
        int64_t want = (cgroup < least ? cgroup : least) / 2; /* exactly half: 1.5 GiB unless RAM or a limit is lower */
        CHECK_MSG(tfpi_default_max_memory() == want, "RLIMIT_DATA 3 GiB: budget %lld, want %lld",
                  (long long)tfpi_default_max_memory(), (long long)want);
        CHECK(setrlimit(RLIMIT_DATA, &saved) == 0);
    }
    const struct {
        const char *text;
        int64_t bytes;
    } sizes[] = {{"3M", 3 << 20}, {"2G", (int64_t)2 << 30}, {"123456", 123456}, {"64K", 65536}, {"-1", -1}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        setenv("TFPI_MAX_MEMORY", sizes[i].text, 1);
        CHECK_MSG(tfpi_default_max_memory() == sizes[i].bytes, "TFPI_MAX_MEMORY=%s gave %lld", sizes[i].text,
                  (long long)tfpi_default_max_memory());
    }
    gb_graph *g = gb_new();
    gb_const(g, "c", TFPI_FLOAT, NULL, 0, (float[]){1});
    tfpi_status status;
    tfpi_graph *graph = gb_load(g, &status);
    CHECK_MSG(graph, "%s", status.message);
    const char *bad[] = {"abc", "0", "-5", "12Q", "99999999999G"};
    for (size_t i = 0; graph && i < sizeof bad / sizeof bad[0]; i++) {
        setenv("TFPI_MAX_MEMORY", bad[i], 1);
        tfpi_session *session = tfpi_session_new(graph, NULL, &status);
        CHECK_MSG(!session && strstr(status.message, "TFPI_MAX_MEMORY=") && strstr(status.message, bad[i]),
                  "TFPI_MAX_MEMORY=%s: %s", bad[i], session ? "accepted" : status.message);
        tfpi_session_free(session);
    }
    /* an explicit budget needs no default: the variable is not read */
    tfpi_session_options options = {.num_threads = 1, .max_memory_bytes = 1 << 20};
    tfpi_session *session = graph ? tfpi_session_new(graph, &options, &status) : NULL;
    CHECK_MSG(session, "%s", status.message);
    tfpi_session_free(session);
    tfpi_graph_free(graph);
    gb_free(g);
    unsetenv("TFPI_MAX_MEMORY");
}

int main(void)
{
    RUN(test_cgroup_limits);
    RUN(test_default_budget);
    return check_summary();
}
