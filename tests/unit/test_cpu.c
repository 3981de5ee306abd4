/* test_cpu.c - the CPU a session's kernels are chosen for (src/core/cpu.c):
 * MIDR part numbers to core families, the names TFPI_CPU and the session
 * option accept, a bad name failing tfpi_session_new with a message that
 * names it, and what this machine (or qemu's model of a core) detects. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/cpu.h"
#include "graph_builder.h"
#include "tfpi.h"

static void test_cpu_parts(void)
{
    CHECK_EQ_INT(tp_cpu_core_of_part(0x41, 0xd03), TP_CPU_A53); /* Pi 3 */
    CHECK_EQ_INT(tp_cpu_core_of_part(0x41, 0xd05), TP_CPU_A53); /* A55 */
    CHECK_EQ_INT(tp_cpu_core_of_part(0x41, 0xc07), TP_CPU_A53); /* Pi 2's A7 */
    CHECK_EQ_INT(tp_cpu_core_of_part(0x41, 0xd08), TP_CPU_A72); /* Pi 4 */
    CHECK_EQ_INT(tp_cpu_core_of_part(0x41, 0xd0b), TP_CPU_A76); /* Pi 5 */
    CHECK_EQ_INT(tp_cpu_core_of_part(0x41, 0xd0c), TP_CPU_A76); /* Neoverse N1 */
    CHECK_EQ_INT(tp_cpu_core_of_part(0x61, 0x022), TP_CPU_A72); /* another maker's core */
    CHECK(strcmp(tp_cpu_core_name(TP_CPU_A76), "a76") == 0);
}

static void test_cpu_names(void)
{
    static const char *const names[] = {"generic", "a53", "a72", "a76"};
    for (int i = 0; i < 4; i++) {
        tp_cpu cpu;
        CHECK(tp_cpu_force(names[i], &cpu));
        CHECK_EQ_INT(cpu.core, i);
        CHECK(cpu.fp16 == tp_cpu_detect().fp16); /* extensions are never forced */
    }
    tp_cpu cpu;
    CHECK(tp_cpu_force(NULL, &cpu) && tp_cpu_force("", &cpu));
    CHECK(!tp_cpu_force("A53", &cpu) && !tp_cpu_force("cortex-a53", &cpu));
    setenv("TFPI_CPU", "a53", 1);
    CHECK(tp_cpu_default().core == TP_CPU_A53 && !tp_cpu_check_env());
    CHECK(tp_cpu_force("a76", &cpu) && cpu.core == TP_CPU_A76); /* the option wins */
    setenv("TFPI_CPU", "pentium", 1);
    CHECK(tp_cpu_check_env() && strcmp(tp_cpu_check_env(), "pentium") == 0);
    unsetenv("TFPI_CPU");
}

/* Whether a session with option cpu = name is made (else the error is in
 * status). */
static bool session_on(const char *name, tfpi_status *status)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", TFPI_FLOAT, (const int64_t[]){2}, 1);
    tfpi_graph *graph = gb_load(g, status);
    gb_free(g);
    const tfpi_session_options options = {.num_threads = 1, .cpu = name};
    tfpi_session *s = graph ? tfpi_session_new(graph, &options, status) : NULL;
    tfpi_session_free(s);
    tfpi_graph_free(graph);
    return s != NULL;
}

static void test_cpu_session_option(void)
{
    tfpi_status status = {0};
    CHECK(session_on("a72", &status));
    CHECK(!session_on("z80", &status) && strstr(status.message, "z80") && strstr(status.message, "a53"));
    setenv("TFPI_CPU", "m68k", 1);
    CHECK(!session_on(NULL, &status) && strstr(status.message, "TFPI_CPU=m68k"));
    unsetenv("TFPI_CPU");
}

int main(void)
{
    const tp_cpu cpu = tp_cpu_detect();
    printf("detected: %s%s%s\n", tp_cpu_core_name(cpu.core), cpu.fp16 ? " fp16" : "", cpu.dotprod ? " dotprod" : "");
    RUN(test_cpu_parts);
    RUN(test_cpu_names);
    RUN(test_cpu_session_option);
    return check_summary();
}
