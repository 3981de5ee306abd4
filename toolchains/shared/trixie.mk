# Included by the Makefile for DEBIAN_RELEASE=trixie: a build for Debian 13 (trixie)
# on this bookworm machine. It compiles and links against trixie's own C
# library and -dev packages, unpacked into downloads/sysroot-trixie-<Debian
# arch>/ by `DEBIAN_RELEASE=trixie ./download_dependencies.sh`, into
# gen/<target>-trixie/; `make deb` versions its packages VERSION+deb13 and
# their Depends name trixie's packages (the t64 names of its 32-bit ports,
# libcamera0.5).
TRIXIE_ARCH := $(or $(DEBIAN_ARCH),$(shell dpkg --print-architecture))
MULTIARCH := $(or $(MULTIARCH),$(shell gcc -print-multiarch))
SYSROOT := downloads/sysroot-trixie-$(TRIXIE_ARCH)
ifeq ($(wildcard $(SYSROOT)/.tfpi-complete),)
$(error DEBIAN_RELEASE=trixie needs $(SYSROOT): run DEBIAN_RELEASE=trixie ./download_dependencies.sh)
endif
# --sysroot and -B: trixie's libc.so, libc.a and crt*.o, not the ones of the
# compiler's own (bookworm's) C library.
RELEASE_FLAGS := --sysroot=$(SYSROOT) -B$(SYSROOT)/usr/lib/$(MULTIARCH)/
# trixie's 32-bit ports have a 64-bit time_t (its t64 libraries are built so).
ifneq ($(filter armhf armel,$(TRIXIE_ARCH)),)
RELEASE_FLAGS += -D_TIME_BITS=64
endif
# Programs run with trixie's dynamic loader and libraries (`make test`, and
# make_deb.sh's --help for the manual pages).
ifeq ($(CROSS_PREFIX),)
QEMU := $(CURDIR)/$(SYSROOT)/usr/lib64/ld-linux-x86-64.so.2 --library-path $(CURDIR)/$(SYSROOT)/usr/lib/$(MULTIARCH)
else
QEMU := $(QEMU_PROGRAM) -L $(CURDIR)/$(SYSROOT)
endif
PKG_CONFIG := PKG_CONFIG_SYSROOT_DIR=$(CURDIR)/$(SYSROOT) \
    PKG_CONFIG_LIBDIR=$(CURDIR)/$(SYSROOT)/usr/lib/$(MULTIARCH)/pkgconfig:$(CURDIR)/$(SYSROOT)/usr/share/pkgconfig pkg-config
# make_deb.sh reads the Depends from these packages' shlibs.
SHLIBS_DEBS := downloads/apt-trixie-$(TRIXIE_ARCH)/debs
BUILD_SUFFIX := -trixie
DEB_VERSION_SUFFIX := +deb13
