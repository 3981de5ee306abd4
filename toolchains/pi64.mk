# Toolchain for TARGET=PI64: Raspberry Pi 3/4/5 with a 64-bit OS (Cortex-A53
# tuning, runs on every Pi that boots arm64), Debian's arm64 port.
ARCH_FLAGS := -march=armv8-a -mtune=cortex-a53
MULTIARCH := aarch64-linux-gnu
DEBIAN_ARCH := arm64
QEMU_PROGRAM := qemu-aarch64
include toolchains/shared/arm_cross.mk
