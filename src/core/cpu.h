/* cpu.h - which ARM core the kernels run on, so that one static binary picks
 * the micro-kernels scheduled for it at run time: the core's family from its
 * MIDR (the register on aarch64, "CPU part" in /proc/cpuinfo on 32-bit ARM)
 * and the instruction-set extensions from HWCAP (getauxval). The
 * environment variable TFPI_CPU and the session option `cpu` force a family
 * (tests run every kernel under qemu that way); extensions are never forced,
 * so a forced family cannot make the program execute instructions the
 * machine lacks. Elsewhere than on ARM everything is TP_CPU_GENERIC. */
#ifndef TFPI_CPU_H
#define TFPI_CPU_H

#include <stdbool.h>

/* Core families: the kernels scheduled for one are chosen for all its
 * members. */
typedef enum tp_cpu_core {
    TP_CPU_GENERIC, /* no core-specific kernels: the portable SIMD ones */
    TP_CPU_A53,     /* in-order: Cortex-A53, A55, A35, A7 (Pi 3, Zero 2) */
    TP_CPU_A72,     /* out-of-order, one 128-bit FMA pipe: A72, A57, A73, A75 (Pi 4), and unknown cores */
    TP_CPU_A76,     /* out-of-order, two FMA pipes: A76, A77, A78, X1, Neoverse N1 (Pi 5) */
    TP_CPU_CORES
} tp_cpu_core;

typedef struct tp_cpu {
    tp_cpu_core core;
    bool fp16;    /* armv8.2-a half-precision arithmetic (HWCAP FPHP and ASIMDHP) */
    bool dotprod; /* 8-bit dot products (HWCAP ASIMDDP) */
} tp_cpu;

/* The machine's CPU as detected (cached after the first call; thread-safe). */
tp_cpu tp_cpu_detect(void);

/* The CPU kernels run as by default: tp_cpu_detect with the family forced
 * by TFPI_CPU when it is set to a valid name (tp_cpu_check_env reports an
 * invalid one). */
tp_cpu tp_cpu_default(void);

/* The CPU with its family forced to `name` ("a53", "a72", "a76", "generic");
 * false if the name is none of these. NULL or "" keeps tp_cpu_default. */
bool tp_cpu_force(const char *name, tp_cpu *out);

/* NULL if TFPI_CPU is unset, empty or valid; else its bad value. */
const char *tp_cpu_check_env(void);

/* "generic", "a53", "a72", "a76". */
const char *tp_cpu_core_name(tp_cpu_core core);

/* The family of an ARM part number (MIDR bits 15:4, implementer 0x41). */
tp_cpu_core tp_cpu_core_of_part(unsigned implementer, unsigned part);

/* The arithmetic of a session's convolutions and matrix products: fp32, or
 * fp16 (binary16 values and multiply-adds, armv8.2-a FP16: the Pi 5's
 * Cortex-A76), which the aarch64 build has kernels for (gemm_fp16.h). */
typedef enum tp_precision { TP_PRECISION_FP32, TP_PRECISION_FP16 } tp_precision;

/* "fp32", "fp16". */
const char *tp_precision_name(tp_precision precision);

/* The precision called `name` ("fp32", "fp16"; NULL or "" is fp32); false
 * if the name is none of these. */
bool tp_precision_named(const char *name, tp_precision *out);

/* The precision kernels can run on cpu when `wanted` is asked for: fp16
 * on an aarch64 build on a CPU with fp16 arithmetic, or anywhere while fp16
 * is emulated; else fp32. */
tp_precision tp_cpu_precision(tp_cpu cpu, tp_precision wanted);

/* For tests: while on, sessions asking for fp16 on a CPU without fp16
 * arithmetic get it, computed by the portable kernels (binary16.h: the
 * same values, many times slower) instead of falling back to
 * fp32. Off unless a test turns it on. */
void tp_cpu_emulate_fp16(bool on);

#endif
