# Toolchain for TARGET=ARMV6: Raspberry Pi Zero/1 (ARM1176, VFPv2, no NEON).
# Debian's armhf port needs armv7, so this target uses the armel port
# (arm-linux-gnueabi-gcc, soft-float calling convention) with VFP enabled
# for the arithmetic; its static binaries run on any 32-bit Pi OS.
ARCH_FLAGS := -march=armv6zk -mfpu=vfp -mfloat-abi=softfp -marm
MULTIARCH := arm-linux-gnueabi
DEBIAN_ARCH := armel
QEMU_PROGRAM := qemu-arm -cpu arm1176
include toolchains/shared/arm_cross.mk
