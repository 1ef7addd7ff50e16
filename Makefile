# libchoke: the CHOKe queue discipline. Plain make; see README.md.
#
#   make            library (static + shared), the `choke` command
#   make demo       the main job on its built-in default
#   make check      every test (gcc, clang, ASan+UBSan, valgrind)
#   make bench      the benchmark (docs/performance.md)
#   make install PREFIX=/usr/local DESTDIR=

VERSION_MAJOR := 0
VERSION := 0.1.0
PREFIX ?= /usr/local
DESTDIR ?=
CC ?= cc
BUILD ?= build
OPT ?= -O2
SAN ?=

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CSTD := -std=c11
BASE_CFLAGS := $(CSTD) $(OPT) -g $(WARN) -Iinclude -D_GNU_SOURCE $(SAN)
# The core is freestanding: no libc, no floating point (the same code builds
# into a kernel module).
CORE_CFLAGS := $(BASE_CFLAGS) -ffreestanding -fno-builtin -mgeneral-regs-only -fPIC
LIB_CFLAGS := $(BASE_CFLAGS) -fPIC
LDLIBS := -lm
PCAP_LIBS := -lpcap

DPDK := $(shell pkg-config --exists libdpdk 2>/dev/null && echo yes)
ifeq ($(DPDK),yes)
DPDK_CFLAGS := -DHAVE_DPDK $(shell pkg-config --cflags libdpdk) -Wno-shadow -Wno-strict-prototypes -Wno-missing-prototypes
DPDK_LIBS := -lrte_sched -lrte_eal
endif

CORE_SRC := src/core/choke.c src/core/hh.c
PKT_SRC := src/pkt/flow.c src/pkt/ecn.c src/pkt/csum.c
PARAMS_SRC := src/params/params.c
LIB_SRC := $(CORE_SRC) $(PKT_SRC) $(PARAMS_SRC)
CLI_SRC := src/cli/main.c src/cli/cmd_params.c src/cli/cmd_demo.c \
	src/cli/workload.c src/cli/cmd_replay.c src/replay/replay.c \
	src/cli/cmd_bridge.c src/bridge/bridge.c src/bridge/afp.c
BENCH_SRC := bench/bench.c bench/bench_pkt.c
# the simulator (src/sim/) and `choke sim`
SIM_SRC := src/sim/engine.c src/sim/tcp.c src/sim/scenario.c src/sim/report.c
CLI_SRC += src/cli/cmd_sim.c $(SIM_SRC)
SIM_TEST_SRC := tests/sim/test_sim.c
TEST_SRC := tests/test_main.c tests/refmodel.c tests/test_core.c \
	tests/test_model.c tests/test_params.c tests/test_red.c tests/test_pkt.c \
	tests/test_hh.c
HDRS := $(wildcard include/choke/*.h src/*/*.h tests/*.h bench/*.h)

CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/%.o) $(PKT_SRC:%.c=$(BUILD)/%.o)
LIB_OBJ := $(CORE_OBJ) $(PARAMS_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/%.o)
BENCH_OBJ := $(BENCH_SRC:%.c=$(BUILD)/%.o)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o)

STATIC := $(BUILD)/libchoke.a
SHARED := $(BUILD)/libchoke.so.$(VERSION)
SONAME := libchoke.so.$(VERSION_MAJOR)
CHOKE := $(BUILD)/choke
TESTS := $(BUILD)/choke-tests
MKPCAP := $(BUILD)/mkpcap
BLAST := $(BUILD)/choke-blast
SIM_TESTS := $(BUILD)/sim-tests

.PHONY: all demo check check-one bench bench-fwd install uninstall clean fuzz
all: $(STATIC) $(SHARED) $(CHOKE) $(BLAST)

$(BUILD)/src/core/%.o: src/core/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CORE_CFLAGS) -c $< -o $@

$(BUILD)/src/pkt/%.o: src/pkt/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CORE_CFLAGS) -c $< -o $@

$(BUILD)/bench/%.o: bench/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(LIB_CFLAGS) $(DPDK_CFLAGS) -c $< -o $@

$(BUILD)/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(LIB_CFLAGS) -c $< -o $@

$(STATIC): $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $^

$(SHARED): $(LIB_OBJ)
	$(CC) -shared -Wl,-soname,$(SONAME) $(SAN) -o $@ $^ $(LDLIBS)
	ln -sf libchoke.so.$(VERSION) $(BUILD)/$(SONAME)
	ln -sf $(SONAME) $(BUILD)/libchoke.so

$(CHOKE): $(CLI_OBJ) $(BENCH_OBJ) $(STATIC)
	$(CC) $(SAN) -o $@ $(CLI_OBJ) $(BENCH_OBJ) $(STATIC) $(DPDK_LIBS) $(PCAP_LIBS) $(LDLIBS)

$(TESTS): $(TEST_OBJ) $(STATIC)
	$(CC) $(SAN) -o $@ $^ $(LDLIBS)

$(BLAST): bench/blast.c src/bridge/afp.c $(STATIC) $(HDRS)
	$(CC) $(LIB_CFLAGS) $(SAN) -o $@ bench/blast.c src/bridge/afp.c $(STATIC) $(LDLIBS)

$(SIM_TESTS): $(SIM_TEST_SRC) $(SIM_SRC:%.c=$(BUILD)/%.o) $(STATIC) $(HDRS)
	$(CC) $(LIB_CFLAGS) $(SAN) -o $@ $(SIM_TEST_SRC) $(SIM_SRC:%.c=$(BUILD)/%.o) $(STATIC) $(LDLIBS)

$(MKPCAP): tests/mkpcap.c tests/pktbuild.h $(STATIC)
	$(CC) $(LIB_CFLAGS) $(SAN) -o $@ tests/mkpcap.c $(STATIC) $(LDLIBS)

demo: $(CHOKE)
	./$(CHOKE) demo

# Fuzz targets: each with its driver (replays files, used by check) and,
# with clang, its libFuzzer build (make fuzz).
FUZZ_TARGETS := flow params replay
FUZZ_SRC_flow := fuzz/fuzz_flow.c
FUZZ_SRC_params := fuzz/fuzz_params.c
FUZZ_SRC_replay := fuzz/fuzz_replay.c src/replay/replay.c
FUZZ_SECONDS ?= 60
FUZZ_FLAGS := -std=c11 -g -O1 -Iinclude -D_GNU_SOURCE \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
FUZZ_LIB_SRC := $(LIB_SRC)
DRIVERS := $(FUZZ_TARGETS:%=$(BUILD)/fuzz-driver-%)

$(BUILD)/fuzz-driver-%: fuzz/driver.c fuzz/fuzz_%.c $(STATIC) $(HDRS) src/replay/replay.c
	$(CC) $(LIB_CFLAGS) $(SAN) -o $@ fuzz/driver.c $(FUZZ_SRC_$*) $(STATIC) \
		$(PCAP_LIBS) $(LDLIBS)

build/fuzz/fuzz_%: fuzz/fuzz_%.c $(HDRS) $(FUZZ_LIB_SRC) src/replay/replay.c
	@mkdir -p build/fuzz
	clang $(FUZZ_FLAGS) -o $@ $(FUZZ_SRC_$*) $(FUZZ_LIB_SRC) $(PCAP_LIBS) -lm

# Run every target for FUZZ_SECONDS from the seed corpus; a crash fails
# (its input is left in build/fuzz/crash-TARGET-*: add it to fuzz/regress/).
fuzz: $(FUZZ_TARGETS:%=build/fuzz/fuzz_%)
	@for t in $(FUZZ_TARGETS); do \
		mkdir -p build/fuzz/corpus-$$t; \
		echo "fuzz $$t for $(FUZZ_SECONDS) s"; \
		./build/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
			-rss_limit_mb=2048 -print_final_stats=1 \
			-artifact_prefix=build/fuzz/crash-$$t- \
			build/fuzz/corpus-$$t fuzz/corpus/$$t 2>build/fuzz/$$t.log \
			|| { tail -40 build/fuzz/$$t.log; exit 1; }; \
		grep -E '^stat::number_of_executed_units|^stat::new_units_added' build/fuzz/$$t.log; \
	done

# One configuration: build and run the test binary and the CLI tests.
check-one: $(TESTS) $(CHOKE) $(MKPCAP) $(DRIVERS) $(SIM_TESTS)
	./$(TESTS)
	./$(SIM_TESTS)
	for t in $(FUZZ_TARGETS); do ./$(BUILD)/fuzz-driver-$$t fuzz/corpus/$$t/* \
		$$(ls fuzz/regress/$$t/* 2>/dev/null) || exit 1; done
	CHOKE=./$(CHOKE) sh tests/cli.sh
	CHOKE=./$(CHOKE) MKPCAP=./$(MKPCAP) sh tests/replay.sh
	CHOKE=./$(CHOKE) sh tests/sim.sh

# Every configuration CI cares about.
check:
	$(MAKE) --no-print-directory check-one BUILD=build/gcc CC=gcc
	$(MAKE) --no-print-directory check-one BUILD=build/clang CC=clang
	$(MAKE) --no-print-directory check-one BUILD=build/asan CC=clang OPT=-O1 \
		SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
	$(MAKE) --no-print-directory build/gcc/choke-tests BUILD=build/gcc CC=gcc
	valgrind -q --error-exitcode=1 --leak-check=full ./build/gcc/choke-tests --quick
	sh tests/freestanding.sh build/gcc/src/core/choke.o build/clang/src/core/choke.o \
		build/gcc/src/core/hh.o build/clang/src/core/hh.o \
		build/gcc/src/pkt/flow.o build/gcc/src/pkt/ecn.o \
		build/clang/src/pkt/flow.o build/clang/src/pkt/ecn.o
	BUILD=build/gcc sh tests/install.sh
	@if [ "$$(id -u)" = 0 ]; then CHOKE=./build/gcc/choke sh tests/replay-real.sh && \
		CHOKE=./build/gcc/choke sh tests/bridge.sh; \
	else echo "SKIP replay-real, bridge: need root (network namespaces); CI runs them"; fi
	@echo "make check: all passed"

# The kernel module (kmod/, docs/kernel.md), against the running kernel's
# headers or KDIR=...; and its User-Mode Linux harness (not part of check:
# it builds a kernel; .ci/run runs it after check).
.PHONY: kmod check-kernel kernel-fuzz bench-kernel
kmod:
	$(MAKE) -C kmod $(if $(KDIR),KDIR=$(KDIR))

check-kernel:
	sh tests/kernel/check-kernel.sh

# The netlink fuzzer, 10^5 requests against mainline and ours in UML, and
# the per-packet cost table (docs/kernel.md has the results of both).
kernel-fuzz:
	sh tests/kernel/kernel-fuzz.sh

bench-kernel:
	sh tests/kernel/bench-kernel.sh

bench: $(CHOKE)
	./$(CHOKE) bench

# choke bridge against the kernel's bridge on the same veths (root)
bench-fwd: $(CHOKE) $(BLAST)
	CHOKE=./$(CHOKE) BLAST=./$(BLAST) sh bench/fwd.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include/choke \
		$(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig \
		$(DESTDIR)$(PREFIX)/share/man/man1
	install -m 644 $(STATIC) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(SHARED) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libchoke.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(PREFIX)/lib/libchoke.so
	install -m 644 include/choke/*.h $(DESTDIR)$(PREFIX)/include/choke/
	install -m 755 $(CHOKE) $(DESTDIR)$(PREFIX)/bin/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' choke.pc.in \
		> $(DESTDIR)$(PREFIX)/lib/pkgconfig/choke.pc
	install -m 644 man/choke.1 $(DESTDIR)$(PREFIX)/share/man/man1/

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/lib/libchoke.* $(DESTDIR)$(PREFIX)/bin/choke \
		$(DESTDIR)$(PREFIX)/lib/pkgconfig/choke.pc \
		$(DESTDIR)$(PREFIX)/share/man/man1/choke.1
	rm -rf $(DESTDIR)$(PREFIX)/include/choke

clean:
	rm -rf build
