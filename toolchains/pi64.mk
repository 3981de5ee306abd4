# Toolchain for TARGET=PI64: Raspberry Pi 3/4/5 with a 64-bit OS (Cortex-A53
# tuning, runs on every Pi that boots arm64), Debian's arm64 port.
ARCH_FLAGS := -march=armv8-a -mtune=cortex-a53
MULTIARCH := aarch64-linux-gnu
DEBIAN_ARCH := arm64
# -cpu max (qemu-user's default, made explicit): armv8.2-a FP16 among its features, so
# the tests run the fp16 kernels (src/compute/gemm_fp16.c).
QEMU_PROGRAM := qemu-aarch64 -cpu max
include toolchains/shared/arm_cross.mk
