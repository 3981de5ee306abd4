# Toolchain for TARGET=PI: Raspberry Pi 2/3/4 with a 32-bit OS (armv7-a, hard
# float, NEON), Debian's armhf port.
ARCH_FLAGS := -march=armv7-a -mfpu=neon-vfpv4 -mfloat-abi=hard
MULTIARCH := arm-linux-gnueabihf
DEBIAN_ARCH := armhf
QEMU_PROGRAM := qemu-arm
include toolchains/shared/arm_cross.mk
