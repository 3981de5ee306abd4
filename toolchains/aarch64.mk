# Toolchain for TARGET=AARCH64: generic 64-bit ARM Linux (armv8-a baseline),
# Debian's arm64 port.
ARCH_FLAGS := -march=armv8-a
MULTIARCH := aarch64-linux-gnu
DEBIAN_ARCH := arm64
# -cpu max (qemu-user's default, made explicit): armv8.2-a FP16 among its features, so
# the tests run the fp16 kernels (src/compute/gemm_fp16.c).
QEMU_PROGRAM := qemu-aarch64 -cpu max
include toolchains/shared/arm_cross.mk
