# tfpi: the one build entry.
#
#   make [TARGET=LINUX|PI|PI64|AARCH64|ARMV6] [HOST_OS=...] [OPTFLAGS=...]
#        [STATIC=0|1] [SANITIZE=1] [VALGRIND=1] [TF_OP_FILES=path]
#   make test [TEST_JOBS=N] [TEST_SKIP="test_a test_b"]
#                  builds and runs the test suite (under qemu-user for ARM),
#                  N test programs at a time (default: one per core)
#   make fuzz [FUZZ_SECONDS=N] [FUZZ_RUNS=N] [FUZZ_MAX_LEN=N] [FUZZ_ONLY=name]
#             [FUZZ_JOBS=N]
#                  builds the libFuzzer harnesses (tests/fuzz/) with clang
#                  and runs each for N seconds (or N executions, split
#                  over FUZZ_JOBS processes)
#   make bench     benchmarks the large models (see README)
#   make install   [PREFIX=/usr/local] [DESTDIR=...]; make uninstall undoes it
#   make install-strip  the same with the programs stripped
#   make strip     strips this target's programs in gen/<target>/bin
#   make deb       Debian packages for the TARGET (see packaging/)
#   make wheel     the Python module as a wheel for the TARGET (see packaging/)
#   make clean     removes gen/
#
# Every target builds into gen/<target>/{obj,lib,bin}; protoc-c output goes to
# gen/proto/. toolchains/<target>.mk holds each target's compiler and flags.

HOST_OS ?= $(shell uname -s | tr a-z A-Z)
ifeq ($(HOST_OS),PI)
TARGET ?= PI
else
TARGET ?= LINUX
endif
target := $(shell echo $(TARGET) | tr A-Z a-z)

ifeq ($(wildcard toolchains/$(target).mk),)
$(error unknown TARGET=$(TARGET): expected one of LINUX PI PI64 AARCH64 ARMV6 (files in toolchains/))
endif
include toolchains/$(target).mk

# DEBIAN_RELEASE=trixie: build for Debian 13 against its own libraries
# (toolchains/shared/trixie.mk); bookworm, the default, is this machine's.
DEBIAN_RELEASE ?= bookworm
PKG_CONFIG := pkg-config
ifeq ($(DEBIAN_RELEASE),trixie)
include toolchains/shared/trixie.mk
else ifneq ($(DEBIAN_RELEASE),bookworm)
$(error unknown DEBIAN_RELEASE=$(DEBIAN_RELEASE): expected bookworm or trixie)
endif

# `make CC=clang` on the command line overrides this.
CC := $(CROSS_PREFIX)gcc
AR := $(CROSS_PREFIX)ar

# The one place the version is set: tfpi_version(), every tool's --version,
# the soname (libtfpi.so.MAJOR), tfpi.pc and the packages come from it.
VERSION := 1.0.0
VERSION_MAJOR := $(firstword $(subst ., ,$(VERSION)))
SONAME := libtfpi.so.$(VERSION_MAJOR)

OPTFLAGS ?= -O2
TF_OP_FILES ?= tf_op_files.txt

# VALGRIND=1: `make test` runs every test program and tool under valgrind's
# memcheck (exit status 99 on an error or a leak); on this machine the build
# targets x86-64-v3 (AVX2), since valgrind cannot decode AVX-512.
ifneq ($(VALGRIND),)
ifeq ($(target),linux)
ARCH_FLAGS := -march=x86-64-v3
endif
QEMU := valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
        --show-leak-kinds=definite
endif

# FUZZ=1 (set by `make fuzz`): clang, with libFuzzer, ASan and UBSan
# instrumentation and FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION defined (the
# function expander's smaller node cap: src/graph/function_expand.h), in
# gen/<target>-fuzz/.
ifneq ($(FUZZ),)
CC := clang
SANITIZE :=
endif

# A sanitizer build by clang (`make test SANITIZE=1 CC=clang`, as CI runs it:
# clang's UBSan also checks pointer arithmetic on NULL, which gcc's does not)
# has a folder of its own, so the two compilers' objects never mix.
BUILD := gen/$(target)$(BUILD_SUFFIX)$(if $(SANITIZE),$(if $(findstring clang,$(CC)),-clang)-sanitize)$(if $(VALGRIND),-valgrind)$(if $(FUZZ),-fuzz)
OBJ := $(BUILD)/obj
LIB := $(BUILD)/lib
BIN := $(BUILD)/bin
PROTO_OUT := gen/proto

# -fPIC everywhere: the same objects go into libtfpi.a and libtfpi.so (the
# README gives the measured cost: none that callgrind can see).
# -ffp-contract=off: a*b+c is two roundings on every target (gcc's ISO C default;
# clang would fuse), so the 8-bit kernels give the same bytes as TF on every target.
CFLAGS := -std=c11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -Wall -Wextra -Werror -ffp-contract=off $(OPTFLAGS) \
          $(ARCH_FLAGS) -fPIC -Isrc -I$(PROTO_OUT) -Itools/common -Itests/common -MMD -MP -pthread
LDFLAGS := -pthread
LDLIBS := -lprotobuf-c -lpng -ljpeg -lminizip -lz -lext2fs -lm

ifneq ($(SYSROOT),)
# A cross compiler searches its own C library's headers before a --sysroot's;
# a native one given --sysroot (DEBIAN_RELEASE=trixie) searches only the sysroot's.
ifneq ($(CROSS_PREFIX),)
CFLAGS += -isystem $(SYSROOT)/usr/include -isystem $(SYSROOT)/usr/include/$(MULTIARCH)
endif
LDFLAGS += -L$(SYSROOT)/usr/lib/$(MULTIARCH) -L$(SYSROOT)/usr/lib
endif
CFLAGS += $(RELEASE_FLAGS)
LDFLAGS += $(RELEASE_FLAGS)
ifeq ($(STATIC),1)
LDFLAGS += -static
endif
ifneq ($(SANITIZE),)
CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif
ifneq ($(FUZZ),)
CFLAGS += -g -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined \
          -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
LDFLAGS += -fsanitize=fuzzer,address,undefined
endif

# Quiet output; `make V=1` shows the full commands.
Q := $(if $(V),,@)

# ---- sources ---------------------------------------------------------------
PROTOS := $(wildcard proto/*.proto)
PROTO_C := $(patsubst proto/%.proto,$(PROTO_OUT)/%.pb-c.c,$(PROTOS))
PROTO_H := $(PROTO_C:.c=.h)

KERNEL_SRCS := $(shell sed -e 's/\#.*//' $(TF_OP_FILES) | tr -s ' \t' '\n\n' | grep -v '^$$')
LIB_SRCS := $(wildcard src/*/*.c) $(KERNEL_SRCS)
REGISTRY_C := $(BUILD)/op_registry.c
LIB_OBJS := $(patsubst %.c,$(OBJ)/%.o,$(LIB_SRCS)) \
            $(patsubst $(PROTO_OUT)/%.c,$(OBJ)/proto/%.o,$(PROTO_C)) \
            $(OBJ)/op_registry.o
LIBTFPI := $(LIB)/libtfpi.a
LIBTFPI_SO := $(LIB)/libtfpi.so.$(VERSION)

TOOL_COMMON := $(wildcard tools/common/*.c)
TOOL_COMMON_OBJS := $(patsubst %.c,$(OBJ)/%.o,$(TOOL_COMMON))
# The tools' shared code is an archive too, so each program links only the
# parts it calls.
LIBTOOLS := $(LIB)/libtfpi_tools.a
TOOLS := $(patsubst tools/%.c,%,$(wildcard tools/*.c))
EXAMPLES := label_image detect
TOOL_BINS := $(addprefix $(BIN)/,$(TOOLS) $(EXAMPLES))

TEST_SRCS := $(wildcard tests/unit/*.c)
TEST_COMMON := $(wildcard tests/common/*.c)
TEST_COMMON_OBJS := $(patsubst %.c,$(OBJ)/%.o,$(TEST_COMMON))
TEST_BINS := $(patsubst tests/unit/%.c,$(BIN)/tests/%,$(TEST_SRCS))

.PHONY: all lib tools tests test bench clean install install-strip uninstall deb wheel strip fuzz fuzzers
# Keep objects that pattern rules chain through (make would delete them).
.SECONDARY:
all: $(LIBTFPI) $(LIBTFPI_SO) $(TOOL_BINS)
lib: $(LIBTFPI) $(LIBTFPI_SO)
tools: $(TOOL_BINS)
tests: $(TEST_BINS) $(TOOL_BINS) $(LIBTFPI_SO)

# ---- generated code --------------------------------------------------------
$(PROTO_OUT)/%.pb-c.c $(PROTO_OUT)/%.pb-c.h: proto/%.proto
	@mkdir -p $(PROTO_OUT)
	protoc-c --proto_path=proto --c_out=$(PROTO_OUT) $<

$(REGISTRY_C): $(TF_OP_FILES) tools/gen_op_registry.sh $(wildcard kernels/*.c)
	@mkdir -p $(dir $@)
	sh tools/gen_op_registry.sh $(TF_OP_FILES) > $@.tmp && mv $@.tmp $@

# ---- compile ---------------------------------------------------------------
# Every object waits for the protobuf headers (order-only), so -j is safe,
# and is rebuilt when the flags in this file or the toolchain file change.
BUILD_FILES := Makefile toolchains/$(target).mk $(wildcard toolchains/shared/*.mk)
$(OBJ)/%.o: %.c $(BUILD_FILES) | $(PROTO_H)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(OBJ)/proto/%.o: $(PROTO_OUT)/%.c $(BUILD_FILES) | $(PROTO_H)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(OBJ)/src/core/version.o: CFLAGS += -DTFPI_VERSION='"$(VERSION)"'

# The half-precision kernels (src/*/*_fp16.c): on a compiler for aarch64, built
# for armv8.2-a FP16 arithmetic (the Pi 5's Cortex-A76), which the rest of the
# build does not assume; the program runs them only where HWCAP says the CPU
# has it (src/core/cpu.c).
ifneq ($(findstring aarch64,$(shell $(CC) -dumpmachine)),)
$(patsubst %.c,$(OBJ)/%.o,$(wildcard src/*/*_fp16.c)): CFLAGS += -march=armv8.2-a+fp16
endif

$(OBJ)/op_registry.o: $(REGISTRY_C) $(BUILD_FILES) | $(PROTO_H)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(LIBTFPI): $(LIB_OBJS)
$(LIBTOOLS): $(TOOL_COMMON_OBJS)
$(LIBTFPI) $(LIBTOOLS):
	@mkdir -p $(dir $@)
	@echo "  AR      $@"
	$(Q)rm -f $@
	$(Q)$(AR) rcs $@ $^

# The shared library: the same objects, only tfpi_* exported (src/libtfpi.map),
# linked against the target's shared libraries whatever STATIC says; the
# soname and the development symlink sit beside it. Every symbol must resolve
# (--no-undefined), except under the sanitizers: clang leaves their runtime
# to the executable that loads the library.
SO_NO_UNDEFINED := $(if $(SANITIZE)$(FUZZ),,-Wl,--no-undefined)
$(LIBTFPI_SO): $(LIB_OBJS) src/libtfpi.map
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	$(Q)$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=src/libtfpi.map $(SO_NO_UNDEFINED) \
	    $(filter-out -static,$(LDFLAGS)) $(LIB_OBJS) $(LDLIBS) -o $@
	$(Q)ln -sfn libtfpi.so.$(VERSION) $(LIB)/$(SONAME)
	$(Q)ln -sfn $(SONAME) $(LIB)/libtfpi.so

# ---- link ------------------------------------------------------------------
$(BIN)/%: $(OBJ)/tools/%.o $(LIBTOOLS) $(LIBTFPI)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(BIN)/label_image: $(OBJ)/pi_examples/label_image/label_image.o $(LIBTOOLS) $(LIBTFPI)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

# detect draws with its own files (pi_examples/detect/*.c).
DETECT_OBJS := $(patsubst %.c,$(OBJ)/%.o,$(wildcard pi_examples/detect/*.c))
$(OBJ)/pi_examples/detect/%.o: CFLAGS += -Ipi_examples/detect
$(BIN)/detect: $(DETECT_OBJS) $(LIBTOOLS) $(LIBTFPI)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

# transform_graph also links its transforms (tools/transforms/*.c).
TRANSFORM_OBJS := $(patsubst %.c,$(OBJ)/%.o,$(wildcard tools/transforms/*.c))
$(BIN)/transform_graph: $(OBJ)/tools/transform_graph.o $(TRANSFORM_OBJS) $(LIBTOOLS) $(LIBTFPI)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

# ---- pi_examples/camera ------------------------------------------------------
# camera.c holds main(); the other objects also go into tests/unit/test_camera_*.
# The libcamera back end (C++) is built only natively (no cross prefix, not
# STATIC=1) and only when pkg-config finds libcamera (Debian: libcamera-dev).
# Programs with the C++ back end link with $(CXX), which brings the C++
# runtime (and, with SANITIZE=1, the sanitizers' C++ parts); CC=clang[-N]
# makes the default CXX clang++[-N] so both halves use one compiler's runtime.
CAMERA_OBJS := $(patsubst %.c,$(OBJ)/%.o,$(filter-out %/camera.c,$(wildcard pi_examples/camera/*.c)))
CAMERA_LDLIBS :=
CAMERA_LD := $(CC)
ifeq ($(origin CXX),default)
ifneq ($(findstring clang,$(CC)),)
CXX := $(subst clang,clang++,$(CC))
endif
endif
ifeq ($(CROSS_PREFIX)$(filter 1,$(STATIC)),)
ifeq ($(shell $(PKG_CONFIG) --exists libcamera 2>/dev/null && echo yes),yes)
CAMERA_OBJS += $(OBJ)/pi_examples/camera/capture_libcamera.o
CAMERA_LDLIBS := $(shell $(PKG_CONFIG) --libs libcamera)
CAMERA_LD := $(CXX)
CAMERA_CXXFLAGS := $(filter-out -std=c11,$(CFLAGS)) -std=c++17 \
                   $(patsubst -I%,-isystem %,$(shell $(PKG_CONFIG) --cflags libcamera))
$(OBJ)/pi_examples/camera/capture.o: CFLAGS += -DTFPI_HAVE_LIBCAMERA
$(OBJ)/pi_examples/camera/capture_libcamera.o: pi_examples/camera/capture_libcamera.cpp | $(PROTO_H)
	@mkdir -p $(dir $@)
	@echo "  CXX     $<"
	$(Q)$(CXX) $(CAMERA_CXXFLAGS) -c $< -o $@
endif
endif
all tools tests: $(BIN)/camera

$(BIN)/camera: $(OBJ)/pi_examples/camera/camera.o $(CAMERA_OBJS) $(LIBTOOLS) $(LIBTFPI)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	$(Q)$(CAMERA_LD) $(LDFLAGS) $^ $(LDLIBS) $(CAMERA_LDLIBS) -o $@

$(OBJ)/tests/unit/test_camera_%.o: CFLAGS += -Ipi_examples/camera
$(BIN)/tests/test_camera_%: $(OBJ)/tests/unit/test_camera_%.o $(CAMERA_OBJS) $(TEST_COMMON_OBJS) \
                            $(LIBTOOLS) $(LIBTFPI)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	$(Q)$(CAMERA_LD) $(LDFLAGS) $^ $(LDLIBS) $(CAMERA_LDLIBS) -o $@
# An LD_PRELOAD stand-in webcam for tests/cli/test_camera.sh (native builds only).
ifeq ($(CROSS_PREFIX),)
tests: $(LIB)/fake_v4l2.so
$(LIB)/fake_v4l2.so: tests/fakes/fake_v4l2.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) -std=c11 -shared -fPIC -O2 -Wall -Wextra -Werror $< -ldl -o $@
endif
# ---- end of pi_examples/camera -------------------------------------------------

$(BIN)/tests/%: $(OBJ)/tests/unit/%.o $(TEST_COMMON_OBJS) $(LIBTOOLS) $(LIBTFPI)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

# ---- run -------------------------------------------------------------------
# TEST_JOBS: test programs run at a time (default: one per core).
# TEST_SKIP: names of test programs to leave out (default: none).
TEST_JOBS ?= $(shell getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
test: tests
	TEST_JOBS=$(TEST_JOBS) TEST_SKIP="$(TEST_SKIP)" BIN=$(BIN) QEMU="$(QEMU)" TARGET=$(target) CC="$(CC)" CROSS_PREFIX="$(CROSS_PREFIX)" WHEEL_PLATFORM=$(WHEEL_PLATFORM) \
	    SYSROOT="$(SYSROOT)" MULTIARCH="$(MULTIARCH)" SANITIZE="$(SANITIZE)" $(INSTALL_ENV) \
	    sh tests/run_tests.sh

# fp32_peak (an FMA loop timing this CPU's float peak) is a bench helper.
$(BIN)/fp32_peak: $(OBJ)/tests/bench/fp32_peak.o $(LIBTOOLS) $(LIBTFPI)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

bench: $(TOOL_BINS) $(BIN)/fp32_peak
	BIN=$(BIN) sh tests/bench.sh

# ---- fuzzing ---------------------------------------------------------------
FUZZ_SECONDS ?= 60
FUZZ_RUNS ?=
FUZZ_MAX_LEN ?=
FUZZ_ONLY ?=
FUZZ_JOBS ?= 1
FUZZERS := $(patsubst tests/fuzz/%.c,$(BIN)/fuzz/%,$(wildcard tests/fuzz/*.c))
fuzzers: $(FUZZERS)
$(BIN)/fuzz/%: $(OBJ)/tests/fuzz/%.o $(TRANSFORM_OBJS) $(LIBTOOLS) $(LIBTFPI)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

fuzz:
	$(MAKE) all
	$(MAKE) FUZZ=1 fuzzers
	BIN=gen/$(target)-fuzz/bin TOOLS=$(BIN) FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_RUNS=$(FUZZ_RUNS) \
	    FUZZ_MAX_LEN=$(FUZZ_MAX_LEN) FUZZ_ONLY=$(FUZZ_ONLY) FUZZ_JOBS=$(FUZZ_JOBS) sh tests/fuzz/run_fuzzers.sh

# ---- install ---------------------------------------------------------------
# packaging/install.sh copies this target's build (or removes it again); the
# test suite and `make deb` call it the same way.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DATADIR ?= $(PREFIX)/share
# Where python3 looks on Debian and Raspberry Pi OS: the shared dist-packages
# for PREFIX=/usr (as the python3-tfpi package), else
# PREFIX/lib/python3.X/dist-packages, X from this machine's python3
# (/usr/local/lib/python3.X/dist-packages is on Debian's sys.path).
PYTHON_VERSION = $(shell /usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
PYTHONDIR ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/python3/dist-packages,$(PREFIX)/lib/python$(or $(PYTHON_VERSION),3)/dist-packages)
STRIP_PROGRAM := $(CROSS_PREFIX)strip
INSTALL_ENV = BUILD=$(BUILD) PROGRAMS="$(TOOLS) $(EXAMPLES) camera" VERSION=$(VERSION) SONAME=$(SONAME) \
              PREFIX=$(PREFIX) BINDIR=$(BINDIR) LIBDIR=$(LIBDIR) INCLUDEDIR=$(INCLUDEDIR) \
              DATADIR=$(DATADIR) PYTHONDIR=$(PYTHONDIR) DESTDIR="$(DESTDIR)"
install: all
	$(Q)$(INSTALL_ENV) sh packaging/install.sh install
install-strip: all
	$(Q)$(INSTALL_ENV) STRIP_PROGRAMS=$(STRIP_PROGRAM) sh packaging/install.sh install
uninstall:
	$(Q)$(INSTALL_ENV) sh packaging/install.sh uninstall

# The programs without their symbols, in place: what goes to a board.
strip: all
	$(Q)$(STRIP_PROGRAM) $(TOOL_BINS) $(BIN)/camera
	@ls -l $(TOOL_BINS) $(BIN)/camera | awk '{ print "  STRIPPED " $$5 " " $$NF }'

# The Python module as a wheel carrying this target's libtfpi.so
# (packaging/make_wheel.py), in gen/<target>/wheel/. The platform tag is the
# one pip computes on the target's Debian port: armhf linux_armv7l, arm64
# linux_aarch64, armel on a Pi Zero/1 (ARM1176) linux_armv6l.
WHEEL_PLATFORM_armhf := linux_armv7l
WHEEL_PLATFORM_arm64 := linux_aarch64
WHEEL_PLATFORM_armel := linux_armv6l
WHEEL_PLATFORM := $(or $(WHEEL_PLATFORM_$(DEBIAN_ARCH)),$(if $(CROSS_PREFIX),,linux_$(shell uname -m)))
wheel: $(LIBTFPI_SO)
	$(if $(WHEEL_PLATFORM),,$(error make wheel: no Python wheel platform for TARGET=$(TARGET); use PI, PI64, AARCH64, ARMV6 or LINUX))
	$(Q)/usr/bin/python3 packaging/make_wheel.py --version $(VERSION) --soname $(SONAME) --library $(LIBTFPI_SO) \
	    --platform $(WHEEL_PLATFORM) --out $(BUILD)/wheel

# Debian packages (packaging/make_deb.sh) into gen/<target>/deb/.
deb: all
	$(Q)$(INSTALL_ENV) DEBIAN_ARCH=$(or $(DEBIAN_ARCH),$(shell dpkg --print-architecture)) \
	    MULTIARCH=$(MULTIARCH) CROSS_PREFIX=$(CROSS_PREFIX) QEMU="$(QEMU)" OUT=$(BUILD)/deb \
	    DEB_VERSION=$(VERSION)$(DEB_VERSION_SUFFIX) SHLIBS_DEBS=$(SHLIBS_DEBS) \
	    sh packaging/make_deb.sh

clean:
	rm -rf gen

-include $(shell find $(OBJ) -name '*.d' 2>/dev/null)
