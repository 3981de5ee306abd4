/* cpu.c - detects the ARM core family and extensions (cpu.h): MIDR_EL1 read
 * with mrs where the kernel emulates it for user space (HWCAP_CPUID), else
 * the first "CPU implementer" and "CPU part" of /proc/cpuinfo; extensions
 * from getauxval(AT_HWCAP). */
#include "core/cpu.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__aarch64__) || defined(__arm__)
#include <sys/auxv.h>
#endif

/* HWCAP bits of the aarch64 Linux ABI (asm/hwcap.h), spelled out so that old
 * headers build too. */
enum {
    HWCAP64_FPHP = 1 << 9,
    HWCAP64_ASIMDHP = 1 << 10,
    HWCAP64_CPUID = 1 << 11,
    HWCAP64_ASIMDDP = 1 << 20,
};

static const char *const core_names[TP_CPU_CORES] = {"generic", "a53", "a72", "a76"};

const char *tp_cpu_core_name(tp_cpu_core core)
{
    return core >= 0 && core < TP_CPU_CORES ? core_names[core] : "generic";
}

tp_cpu_core tp_cpu_core_of_part(unsigned implementer, unsigned part)
{
    if (implementer != 0x41) /* not ARM's own design: treat as a big out-of-order core */
        return TP_CPU_A72;
    switch (part) {
    case 0xc07: /* Cortex-A7 */
    case 0xd03: /* A53 */
    case 0xd04: /* A35 */
    case 0xd05: /* A55 */
        return TP_CPU_A53;
    case 0xd0b: /* A76 */
    case 0xd0c: /* Neoverse N1 */
    case 0xd0d: /* A77 */
    case 0xd0e: /* A76AE */
    case 0xd41: /* A78 */
    case 0xd44: /* X1 */
    case 0xd4b: /* A78C */
        return TP_CPU_A76;
    default:
        return TP_CPU_A72;
    }
}

#if defined(__aarch64__) || (defined(__arm__) && defined(__ARM_NEON))
/* The first core's implementer and part from /proc/cpuinfo; false if absent
 * (an emulator shows its host's). */
static bool cpuinfo_part(unsigned *implementer, unsigned *part)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return false;
    char line[256];
    bool have_implementer = false, have_part = false;
    while (fgets(line, sizeof line, f) && !(have_implementer && have_part)) {
        const char *colon = strchr(line, ':');
        if (!colon)
            continue;
        if (!have_implementer && strncmp(line, "CPU implementer", 15) == 0)
            have_implementer = sscanf(colon + 1, "%x", implementer) == 1;
        else if (!have_part && strncmp(line, "CPU part", 8) == 0)
            have_part = sscanf(colon + 1, "%x", part) == 1;
    }
    fclose(f);
    return have_implementer && have_part;
}
#endif

static tp_cpu detected;

static void detect_once(void)
{
    tp_cpu cpu = {TP_CPU_GENERIC, false, false};
#if defined(__aarch64__)
    const unsigned long hwcap = getauxval(AT_HWCAP);
    cpu.fp16 = (hwcap & HWCAP64_FPHP) && (hwcap & HWCAP64_ASIMDHP);
    cpu.dotprod = (hwcap & HWCAP64_ASIMDDP) != 0;
    unsigned implementer = 0, part = 0;
    if (hwcap & HWCAP64_CPUID) {
        unsigned long midr;
        __asm__("mrs %0, midr_el1" : "=r"(midr));
        implementer = (unsigned)(midr >> 24) & 0xff;
        part = (unsigned)(midr >> 4) & 0xfff;
        cpu.core = tp_cpu_core_of_part(implementer, part);
    } else {
        cpu.core = cpuinfo_part(&implementer, &part) ? tp_cpu_core_of_part(implementer, part) : TP_CPU_A72;
    }
#elif defined(__arm__) && defined(__ARM_NEON)
    unsigned implementer = 0, part = 0;
    cpu.core = cpuinfo_part(&implementer, &part) ? tp_cpu_core_of_part(implementer, part) : TP_CPU_A72;
#endif
    detected = cpu;
}

tp_cpu tp_cpu_detect(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, detect_once);
    return detected;
}

/* The family called `name`; false if none is. */
static bool core_named(const char *name, tp_cpu_core *core)
{
    for (int c = 0; c < TP_CPU_CORES; c++) {
        if (strcmp(name, core_names[c]) == 0) {
            *core = (tp_cpu_core)c;
            return true;
        }
    }
    return false;
}

const char *tp_cpu_check_env(void)
{
    const char *env = getenv("TFPI_CPU");
    tp_cpu_core core;
    return !env || !*env || core_named(env, &core) ? NULL : env;
}

tp_cpu tp_cpu_default(void)
{
    tp_cpu cpu = tp_cpu_detect();
    const char *env = getenv("TFPI_CPU");
    if (env && *env)
        core_named(env, &cpu.core); /* an invalid name keeps the detected family */
    return cpu;
}

bool tp_cpu_force(const char *name, tp_cpu *out)
{
    *out = tp_cpu_default();
    return !name || !*name || core_named(name, &out->core);
}

const char *tp_precision_name(tp_precision precision)
{
    return precision == TP_PRECISION_FP16 ? "fp16" : "fp32";
}

bool tp_precision_named(const char *name, tp_precision *out)
{
    if (!name || !*name || strcmp(name, "fp32") == 0)
        *out = TP_PRECISION_FP32;
    else if (strcmp(name, "fp16") == 0)
        *out = TP_PRECISION_FP16;
    else
        return false;
    return true;
}

static atomic_bool fp16_emulated;

void tp_cpu_emulate_fp16(bool on) { atomic_store(&fp16_emulated, on); }

tp_precision tp_cpu_precision(tp_cpu cpu, tp_precision wanted)
{
    if (wanted != TP_PRECISION_FP16)
        return TP_PRECISION_FP32;
#if defined(__aarch64__)
    if (cpu.fp16)
        return TP_PRECISION_FP16;
#else
    (void)cpu;
#endif
    return atomic_load(&fp16_emulated) ? TP_PRECISION_FP16 : TP_PRECISION_FP32;
}
