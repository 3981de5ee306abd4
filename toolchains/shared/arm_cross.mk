# Shared by the ARM toolchain files, which set ARCH_FLAGS, MULTIARCH (the GNU
# triplet), DEBIAN_ARCH and QEMU_PROGRAM first. From Debian: cross-compile
# with <triplet>-gcc against the target's libraries unpacked into
# downloads/sysroot-<Debian arch>, link statically, test under qemu-user.
# HOST_OS=PI: build on the board itself with its own compiler and libraries.
ifeq ($(HOST_OS),PI)
CROSS_PREFIX :=
SYSROOT :=
QEMU :=
STATIC ?= 0
else
CROSS_PREFIX := $(MULTIARCH)-
SYSROOT := downloads/sysroot-$(DEBIAN_ARCH)
# -E LD_LIBRARY_PATH: STATIC=0 builds load the sysroot's .so files under qemu.
QEMU := $(QEMU_PROGRAM) -L /usr/$(MULTIARCH) -E LD_LIBRARY_PATH=$(CURDIR)/$(SYSROOT)/usr/lib/$(MULTIARCH)
STATIC ?= 1
endif
