# Toolchain for TARGET=AARCH64: generic 64-bit ARM Linux (armv8-a baseline),
# Debian's arm64 port.
ARCH_FLAGS := -march=armv8-a
MULTIARCH := aarch64-linux-gnu
DEBIAN_ARCH := arm64
QEMU_PROGRAM := qemu-aarch64
include toolchains/shared/arm_cross.mk
