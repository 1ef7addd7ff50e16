# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# libchoke: the CHOKe queue discipline. Plain make; see README.md.
#
#   make            library (static + shared), the `choke` command
#   make demo       the main job on its built-in default (needs only a C compiler)
#   make check      every test (gcc, clang, ASan+UBSan, valgrind)
#   make bench      builds and runs choke-bench (docs/performance.md)
#   make install PREFIX=/usr/local DESTDIR=
#
# Each goal first runs tools/deps.sh for the Debian packages it needs: as
# root it installs what is missing, otherwise it prints the apt-get line
# and stops. DEPS=no skips that.

# The version, in one place: the file VERSION (docs/release.md). `choke
# version`, choke.pc, the man page, the library's file name, the kernel
# module's MODULE_VERSION (kmod/Kbuild) and dkms.conf (kmod/Makefile) take it
# from there; debian/changelog must agree (tests/version.sh).
VERSION := $(strip $(file <VERSION))
ifeq ($(VERSION),)
$(error VERSION is missing or empty: it holds the version, e.g. 1.2.3)
endif
VERSION_MAJOR := $(firstword $(subst ., ,$(VERSION)))
PREFIX ?= /usr/local
# where the libraries and choke.pc go (Debian: /usr/lib/$(DEB_HOST_MULTIARCH))
LIBDIR ?= $(PREFIX)/lib
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
# the bridge's AF_XDP backend (src/bridge/xdp.c): Debian's libxdp and libbpf
XDP_LIBS := -lxdp -lbpf

# DPDK is the benchmark's alone (its rte_red peer; docs/performance.md).
# Deferred (=): evaluated when choke-bench is compiled, after tools/deps.sh
# has had its chance to install libdpdk-dev.
DPDK = $(shell pkg-config --exists libdpdk 2>/dev/null && echo yes)
DPDK_CFLAGS = $(if $(DPDK),-DHAVE_DPDK $(shell pkg-config --cflags libdpdk) \
	-Wno-shadow -Wno-strict-prototypes -Wno-missing-prototypes)
DPDK_LIBS = $(if $(DPDK),-lrte_sched -lrte_eal)

CORE_SRC := src/core/choke.c src/core/hh.c
PKT_SRC := src/pkt/flow.c src/pkt/ecn.c src/pkt/csum.c
PARAMS_SRC := src/params/params.c
LIB_SRC := $(CORE_SRC) $(PKT_SRC) $(PARAMS_SRC)
# the bridge (src/bridge/, docs/bridge.md)
BRIDGE_SRC := src/bridge/bridge.c src/bridge/runtime.c src/bridge/config.c \
	src/bridge/control.c src/bridge/dataplane.c src/bridge/dp_setup.c src/bridge/stats.c \
	src/bridge/stats_om.c src/bridge/afp.c src/bridge/xdp.c
# options declared once, for the command line and the bridge's config file
BRIDGE_SRC += src/util/opt.c
# the exporter (src/exporter/, docs/operations.md)
EXPORTER_SRC := src/exporter/exporter.c src/exporter/ask.c src/exporter/http.c \
	src/exporter/merge.c src/exporter/nlqdisc.c src/exporter/qdisc_om.c
# the replayer (src/replay/, docs/replay.md): libpcap and its own pcap reader
REPLAY_SRC := src/replay/replay.c src/replay/pcapfile.c
CLI_SRC := src/cli/main.c src/util/cmdline.c src/cli/cmd_params.c src/cli/cmd_demo_open_loop.c \
	src/cli/workload.c src/cli/cmd_replay.c $(REPLAY_SRC) \
	src/cli/cmd_bridge.c $(BRIDGE_SRC) src/cli/cmd_exporter.c $(EXPORTER_SRC)
# output files written through a temporary and a rename (src/util/outfile.h)
CLI_SRC += src/util/outfile.c
BENCH_SRC := bench/main.c bench/bench.c bench/bench_pkt.c
# the simulator (src/sim/) and `choke sim`
SIM_SRC := src/sim/engine.c src/sim/heap.c src/sim/tcp.c src/sim/scenario.c \
	src/sim/scenario_find.c src/sim/report.c src/sim/sweep.c src/sim/runner.c \
	src/sim/plot.c src/sim/shard.c
CLI_SRC += src/cli/cmd_sim.c $(SIM_SRC)
SIM_TEST_SRC := tests/sim/test_sim.c tests/sim/test_runner.c
TEST_SRC := tests/test_main.c tests/refmodel.c tests/test_core.c \
	tests/test_model.c tests/test_params.c tests/test_red.c tests/test_pkt.c \
	tests/test_hh.c tests/test_opt.c src/util/cmdline.c src/util/opt.c \
	tests/test_protect.c
HDRS := $(wildcard include/choke/*.h src/*/*.h tests/*.h bench/*.h)

# where `make install` puts the scenarios; compiled into the simulator, which
# looks there after $CHOKE_SCENARIO_PATH and ./scenarios
SCENARIO_DIR = $(PREFIX)/share/choke/scenarios

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
UDPFLOOD := $(BUILD)/udpflood
BLAST := $(BUILD)/choke-blast
BENCH := $(BUILD)/choke-bench
SIM_TESTS := $(BUILD)/sim-tests
BRIDGE_TESTS := $(BUILD)/bridge-tests
EXPORTER_TESTS := $(BUILD)/exporter-tests
DEMO := $(BUILD)/choke-demo
# the tc plugin of sch_libchoke's second qdisc id, chokeplus (docs/kernel.md)
TC_PLUGIN := $(BUILD)/q_chokeplus.so
TC_PLUGIN_TEST := $(BUILD)/tc-plugin-test
# `choke demo` alone, for `make demo`: the simulator and libchoke, no libpcap
DEMO_SRC := src/cli/demo_main.c src/cli/cmd_sim.c src/cli/cmd_demo_open_loop.c \
	src/cli/workload.c src/cli/cmd_params.c src/util/cmdline.c src/util/opt.c
DEMO_OBJ := $(DEMO_SRC:%.c=$(BUILD)/%.o) $(SIM_SRC:%.c=$(BUILD)/%.o)

.PHONY: all demo check check-one bench bench-fwd install uninstall clean fuzz deb check-deb
all: $(STATIC) $(SHARED) $(CHOKE) $(BLAST) $(DEMO) $(TC_PLUGIN)

# The packages of the goals on the command line (tools/deps.sh TARGET):
# check-one is check's, eval-kernel-* check-kernel's; anything but the
# names below (all, install, a file) is build's; clean and uninstall need none.
DEPS ?= yes
DEPS_GOALS := demo check bench bench-fwd fuzz kmod check-kernel ns3 deb check-deb dist check-dist
deps_of = $(if $(filter check-one soak,$1),check,$(if $(filter check-ns3 ns3-compare sim-vs-ns3,$1),ns3,$(if \
	$(filter lib install-lib bakeconf ns3-latest,$1),demo,$(if \
	$(filter eval-kernel-peers eval-kernel-rtt eval-kernel-hosts,$1),check-kernel,$(if $(filter check-dkms-newest,$1),check-deb,$(if \
	$(filter $(DEPS_GOALS),$1),$1,$(if $(filter clean uninstall,$1),,build)))))))
DEPS_FOR := $(sort $(foreach g,$(or $(MAKECMDGOALS),all),$(call deps_of,$g)))
.PHONY: deps
deps:
	@$(if $(filter no,$(DEPS))$(if $(DEPS_FOR),,none),:,sh tools/deps.sh $(DEPS_FOR))

$(BUILD)/src/core/%.o: src/core/%.c $(HDRS) | deps
	@mkdir -p $(dir $@)
	$(CC) $(CORE_CFLAGS) -c $< -o $@

$(BUILD)/src/pkt/%.o: src/pkt/%.c $(HDRS) | deps
	@mkdir -p $(dir $@)
	$(CC) $(CORE_CFLAGS) -c $< -o $@

$(BUILD)/bench/%.o: bench/%.c $(HDRS) | deps
	@mkdir -p $(dir $@)
	$(CC) $(LIB_CFLAGS) $(DPDK_CFLAGS) -c $< -o $@

$(BUILD)/%.o: %.c $(HDRS) | deps
	@mkdir -p $(dir $@)
	$(CC) $(LIB_CFLAGS) -c $< -o $@

# `choke version` (src/cli/main.c), rebuilt when VERSION changes
$(BUILD)/src/cli/main.o: LIB_CFLAGS += -DCHOKE_VERSION='"$(VERSION)"'
$(BUILD)/src/cli/main.o: VERSION

# The simulator knows the installed scenario directory: its objects are
# rebuilt when PREFIX changes ($(BUILD)/prefix holds the last one).
$(BUILD)/src/sim/%.o: LIB_CFLAGS += -DCHOKE_SCENARIO_DIR='"$(SCENARIO_DIR)"'
$(SIM_SRC:%.c=$(BUILD)/%.o): $(BUILD)/prefix
$(BUILD)/prefix: FORCE
	@mkdir -p $(BUILD)
	@[ "$$(cat $@ 2>/dev/null)" = '$(PREFIX)' ] || echo '$(PREFIX)' >$@
.PHONY: FORCE
FORCE:

$(STATIC): $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $^

$(SHARED): $(LIB_OBJ)
	$(CC) -shared -Wl,-soname,$(SONAME) $(SAN) $(LDFLAGS) -o $@ $^ $(LDLIBS)
	ln -sf libchoke.so.$(VERSION) $(BUILD)/$(SONAME)
	ln -sf $(SONAME) $(BUILD)/libchoke.so

# the installed command: libc, libm, libpcap, libxdp and libbpf only
# (tests/install.sh)
$(CHOKE): $(CLI_OBJ) $(STATIC)
	$(CC) $(SAN) $(LDFLAGS) -o $@ $(CLI_OBJ) $(STATIC) $(PCAP_LIBS) $(XDP_LIBS) $(LDLIBS)

# the benchmarks (not installed): the core, flow keys, the replay, DPDK's rte_red
$(BENCH): $(BENCH_OBJ) $(REPLAY_SRC:%.c=$(BUILD)/%.o) $(STATIC)
	$(CC) $(SAN) -o $@ $(BENCH_OBJ) $(REPLAY_SRC:%.c=$(BUILD)/%.o) $(STATIC) \
		$(DPDK_LIBS) $(PCAP_LIBS) $(LDLIBS)

$(TESTS): $(TEST_OBJ) $(STATIC)
	$(CC) $(SAN) -o $@ $^ $(LDLIBS)

$(BLAST): bench/blast.c src/bridge/afp.c $(STATIC) $(HDRS) | deps
	$(CC) $(LIB_CFLAGS) $(SAN) -o $@ bench/blast.c src/bridge/afp.c $(STATIC) $(LDLIBS)

$(SIM_TESTS): $(SIM_TEST_SRC) $(SIM_SRC:%.c=$(BUILD)/%.o) $(STATIC) $(HDRS) | deps
	$(CC) $(LIB_CFLAGS) $(SAN) -o $@ $(SIM_TEST_SRC) $(SIM_SRC:%.c=$(BUILD)/%.o) $(STATIC) $(LDLIBS)

# the bridge's rooms on in-memory rings (no root): tests/bridge/
$(BRIDGE_TESTS): tests/bridge/test_bridge.c $(BRIDGE_SRC:%.c=$(BUILD)/%.o) $(STATIC) $(HDRS)
	$(CC) $(LIB_CFLAGS) $(SAN) -o $@ tests/bridge/test_bridge.c \
		$(BRIDGE_SRC:%.c=$(BUILD)/%.o) $(STATIC) $(XDP_LIBS) $(LDLIBS)

# the exporter's rooms (no root): tests/exporter/
$(EXPORTER_TESTS): tests/exporter/test_exporter.c $(EXPORTER_SRC:%.c=$(BUILD)/%.o) \
		$(BRIDGE_SRC:%.c=$(BUILD)/%.o) $(STATIC) $(HDRS)
	$(CC) $(LIB_CFLAGS) $(SAN) -o $@ tests/exporter/test_exporter.c \
		$(EXPORTER_SRC:%.c=$(BUILD)/%.o) $(BRIDGE_SRC:%.c=$(BUILD)/%.o) $(STATIC) \
		$(XDP_LIBS) $(LDLIBS)

$(MKPCAP): tests/mkpcap.c tests/pktbuild.h $(STATIC) | deps
	$(CC) $(LIB_CFLAGS) $(SAN) -o $@ tests/mkpcap.c $(STATIC) $(LDLIBS)

# the peers evaluation's flood source for fast links (tests/kernel/eval-peers.sh)
$(UDPFLOOD): tests/kernel/udpflood.c | deps
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) $(SAN) -o $@ tests/kernel/udpflood.c

# libc and libm only: `make demo` works on a machine with nothing but a C
# compiler (tests/fresh.sh); its output is `choke demo`'s (tests/demo.sh)
$(DEMO): $(DEMO_OBJ) $(STATIC)
	$(CC) $(SAN) $(LDFLAGS) -o $@ $(DEMO_OBJ) $(STATIC) $(LDLIBS)

demo: $(DEMO) | deps
	./$(DEMO)

# Fuzz targets: each with its driver (replays files, used by check) and,
# with clang, its libFuzzer build (make fuzz).
FUZZ_TARGETS := flow params replay ctl scenario set exporter
FUZZ_SRC_flow := fuzz/fuzz_flow.c
FUZZ_SRC_params := fuzz/fuzz_params.c
FUZZ_SRC_replay := fuzz/fuzz_replay.c $(REPLAY_SRC)
FUZZ_SRC_ctl := fuzz/fuzz_ctl.c src/bridge/control.c src/bridge/config.c src/util/opt.c
FUZZ_SRC_scenario := fuzz/fuzz_scenario.c $(SIM_SRC)
FUZZ_SRC_set := fuzz/fuzz_set.c $(SIM_SRC)
FUZZ_SRC_exporter := fuzz/fuzz_exporter.c src/exporter/http.c src/exporter/merge.c \
	src/exporter/nlqdisc.c src/exporter/qdisc_om.c
FUZZ_SECONDS ?= 60
FUZZ_FLAGS := -std=c11 -g -O1 -Iinclude -D_GNU_SOURCE \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
FUZZ_LIB_SRC := $(LIB_SRC)
DRIVERS := $(FUZZ_TARGETS:%=$(BUILD)/fuzz-driver-%)

$(BUILD)/fuzz-driver-%: fuzz/driver.c fuzz/fuzz_%.c $(STATIC) $(HDRS) $(REPLAY_SRC) | deps
	$(CC) $(LIB_CFLAGS) $(SAN) -o $@ fuzz/driver.c $(FUZZ_SRC_$*) $(STATIC) \
		$(PCAP_LIBS) $(LDLIBS)

$(BUILD)/fuzz-driver-scenario $(BUILD)/fuzz-driver-set build/fuzz/fuzz_scenario \
	build/fuzz/fuzz_set: $(SIM_SRC) fuzz/sim_check.h

build/fuzz/fuzz_%: fuzz/fuzz_%.c $(HDRS) $(FUZZ_LIB_SRC) $(REPLAY_SRC) | deps
	@mkdir -p build/fuzz
	clang $(FUZZ_FLAGS) -o $@ $(FUZZ_SRC_$*) $(FUZZ_LIB_SRC) $(PCAP_LIBS) -lm

$(BUILD)/fuzz-driver-ctl build/fuzz/fuzz_ctl: src/bridge/control.c src/bridge/config.c \
	src/util/opt.c
$(BUILD)/fuzz-driver-exporter build/fuzz/fuzz_exporter: $(EXPORTER_SRC)

# Run every target for FUZZ_SECONDS from the seed corpus, FUZZ_JOBS at a
# time (default: one per CPU); a crash fails (its input is left in
# build/fuzz/crash-TARGET-*: add it to fuzz/regress/).
FUZZ_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
fuzz: $(FUZZ_TARGETS:%=build/fuzz/fuzz_%) | deps
	@$(MAKE) --no-print-directory -j$(FUZZ_JOBS) $(FUZZ_TARGETS:%=fuzz-run-%)

fuzz-run-%: build/fuzz/fuzz_%
	@mkdir -p build/fuzz/corpus-$*
	@echo "fuzz $* for $(FUZZ_SECONDS) s"
	@./build/fuzz/fuzz_$* -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix=build/fuzz/crash-$*- \
		build/fuzz/corpus-$* fuzz/corpus/$* 2>build/fuzz/$*.log \
		|| { tail -40 build/fuzz/$*.log; echo "fuzz $*: FAILED (input in build/fuzz/crash-$*-*)"; exit 1; }
	@echo "fuzz $*: $$(grep -E '^stat::number_of_executed_units|^stat::new_units_added' build/fuzz/$*.log | tr '\n' ' ')"

# One configuration: build and run the test binary and the CLI tests.
check-one: $(TESTS) $(CHOKE) $(BENCH) $(DEMO) $(MKPCAP) $(UDPFLOOD) $(DRIVERS) $(SIM_TESTS) $(BRIDGE_TESTS) \
		$(TC_PLUGIN) $(TC_PLUGIN_TEST) $(EXPORTER_TESTS) | deps
	./$(TESTS)
	./$(TC_PLUGIN_TEST) ./$(TC_PLUGIN)
	./$(SIM_TESTS)
	./$(BRIDGE_TESTS)
	./$(EXPORTER_TESTS)
	for t in $(FUZZ_TARGETS); do ./$(BUILD)/fuzz-driver-$$t fuzz/corpus/$$t/* \
		$$(ls fuzz/regress/$$t/* 2>/dev/null) || exit 1; done
	CHOKE=./$(CHOKE) sh tests/cli.sh
	CHOKE=./$(CHOKE) sh tests/help.sh
	CHOKE=./$(CHOKE) sh tests/bridge-cli.sh
	CHOKE=./$(CHOKE) EXPORTER_TESTS=./$(EXPORTER_TESTS) sh tests/exporter-cli.sh
	CHOKE=./$(CHOKE) MKPCAP=./$(MKPCAP) sh tests/replay.sh
	CHOKE=./$(CHOKE) sh tests/replay-captures.sh
	CHOKE=./$(CHOKE) sh tests/sim.sh
	CHOKE=./$(CHOKE) sh tests/sim-shard.sh
	BENCH=./$(BENCH) CHOKE=./$(CHOKE) sh tests/bench.sh
	DEMO=./$(DEMO) CHOKE=./$(CHOKE) sh tests/demo.sh
	UDPFLOOD=./$(UDPFLOOD) sh tests/udpflood.sh

# Every configuration CI cares about.
check: | deps
	python3 tests/layers.py
	python3 tests/testing-doc.py
	python3 tools/licences.py --check
	@if command -v reuse >/dev/null 2>&1; then reuse lint -q && echo "reuse lint: compliant"; \
	else echo "SKIP reuse lint: the reuse tool is not installed (Debian package reuse; tools/deps.sh check installs it)"; fi
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
	BUILD=build/gcc sh tests/version.sh
	BUILD=build/gcc sh tests/symbols.sh
	@if [ "$$(id -u)" = 0 ]; then CHOKE=./build/gcc/choke sh tests/replay-real.sh && \
		CHOKE=./build/gcc/choke sh tests/bridge.sh && \
		CHOKE=./build/gcc/choke sh tests/soak.sh 120 && \
		CHOKE=./build/gcc/choke sh tests/bridge-protect.sh && \
		TC_PLUGIN=./build/gcc/q_chokeplus.so sh tests/tc-plugin.sh && \
		CHOKE=./build/gcc/choke sh tests/exporter.sh; \
	else echo "SKIP replay-real, bridge, soak, exporter: need root (network namespaces); CI runs them"; fi
	@echo "make check: all passed"

# The release tarball (docs/release.md): build/dist/choke-VERSION.tar.gz from
# the committed tree (HEAD), the same bytes from the same commit, with its
# SHA-256 beside it (tools/dist.sh); check-dist builds it twice and runs
# make demo and the unit tests in it, unpacked elsewhere (tests/dist.sh).
.PHONY: dist check-dist
dist: | deps
	sh tools/dist.sh

check-dist: | deps
	sh tests/dist.sh

# The kernel module (kmod/, docs/kernel.md), against the running kernel's
# headers or KDIR=...; and its User-Mode Linux harness (not part of check:
# it builds a kernel; .ci/run runs it after check).
.PHONY: kmod check-kernel kernel-fuzz bench-kernel eval-kernel-peers eval-kernel-rtt \
	eval-kernel-hosts
kmod: | deps
	$(MAKE) -C kmod $(if $(KDIR),KDIR=$(KDIR))

check-kernel: | deps
	sh tests/kernel/check-kernel.sh

# The Debian packages (debian/, docs/operations.md): dpkg-buildpackage -b
# in a copy of the working tree, the packages and lintian's report in
# build/deb/ (tools/build-deb.sh); check-deb installs them into a fresh
# Debian 12 root, boots it with systemd-nspawn and purges them (tests/deb.sh).
deb: | deps
	sh tools/build-deb.sh

check-deb: deb | deps
	sh tests/deb.sh

# choke-dkms against the newest kernel headers Debian 12 offers
# (bookworm-backports), built by DKMS in a fresh root (tests/dkms-newest.sh;
# not in CI: it downloads a kernel; docs/kernel.md has the result)
.PHONY: check-dkms-newest
check-dkms-newest: deb | deps
	sh tests/dkms-newest.sh

# The netlink fuzzer, 10^5 requests against mainline and ours in UML, and
# the per-packet cost table (docs/kernel.md has the results of both).
kernel-fuzz: | deps
	sh tests/kernel/kernel-fuzz.sh

bench-kernel: | deps
	sh tests/kernel/bench-kernel.sh

# protect in the kernel against the kernel's own schedulers (fq_codel, sfb,
# cake, pie, red, mainline choke) in UML, root, with a ping through the
# loaded bottleneck: the tables of docs/results.md sections 12 and 13
# (build/kernel/peers/*/table.md). EVAL_PEERS_ARGS: e.g. "--repeats 3
# --udp-len 1448" (defaults: 2 repeats of a 20-s window, about 35 minutes);
# protect's words: tests/protect-words, or PROTECT_WORDS='LABEL=WORDS;...'.
# eval-kernel-rtt: 16 TCP flows with RTTs from 4 to 220 ms and a flood, at
# 10 and 100 Mbit/s (EVAL_RTT_RATES; above 20 Mbit/s the floods come from
# tests/kernel/udpflood.c, which keeps up inside UML where iperf3 cannot:
# results.md section 15.12); eval-kernel-hosts: 4 hosts, one of 16 TCP
# connections.
EVAL_RTT_RATES ?= 10mbit 100mbit
eval-kernel-peers: | deps
	sh tests/kernel/eval-peers.sh $(EVAL_PEERS_ARGS)

eval-kernel-rtt: | deps
	for r in $(EVAL_RTT_RATES); do \
		sh tests/kernel/eval-peers.sh --workload rtt --rate $$r $(EVAL_PEERS_ARGS) || exit 1; \
	done

eval-kernel-hosts: | deps
	sh tests/kernel/eval-peers.sh --workload hosts $(EVAL_PEERS_ARGS)

bench: $(BENCH) | deps
	./$(BENCH)

# protect in the simulator against CHOKe, its variants, RED and FIFO: the
# tables and plot of docs/results.md section 8 (minutes; not part of check)
.PHONY: eval-protect
eval-protect: $(CHOKE)
	python3 tools/eval-protect.py --choke ./$(CHOKE) --seeds 10 --plot docs/img/protect-2c.png

# protect and the others through `choke bridge` with Linux TCP, 8 streams
# and 1 or 4 UDP floods (docs/results.md section 11; root, about 12 minutes)
.PHONY: eval-bridge
eval-bridge: $(CHOKE)
	CHOKE=./$(CHOKE) sh tests/bridge-protect.sh --table 2

# beside the kernel's tables (docs/results.md section 13), each with a ping
# through the queue: 8 TCP + 1 or 4 floods at 4 Mbit/s; 16 TCP flows with RTTs
# from 4 to 220 ms and a flood at 10 and 100 Mbit/s; 4 hosts of 16, 1, 1, 1
# TCP flows. Seconds each; protect's words: tests/protect-words, or
# PROTECT_WORDS='LABEL=WORDS;...'.
.PHONY: eval-protect-latency eval-protect-rtt eval-protect-hosts
eval-protect-latency eval-protect-rtt eval-protect-hosts: $(CHOKE)
	python3 tools/eval-protect.py --choke ./$(CHOKE) --part $(@:eval-protect-%=%) --seeds 5

# light flows, floods that come and go, short transfers (docs/results.md
# section 10; about 25 s on two cores)
.PHONY: eval-protect-more
eval-protect-more: $(CHOKE)
	python3 tools/eval-protect.py --choke ./$(CHOKE) --part more --seeds 10 \
		--plot-onoff docs/img/protect-onoff.png

# A long run of the bridge: a flood through it with a reconfigure every 10 s
# and its counters polled every second (choke stats and choke exporter),
# SOAK_SECONDS per backend, one after the other, nice'd; memory and
# descriptors flat, frames conserved (root; about an hour; docs/bridge.md,
# "A long run"). make check runs 120 s of it, both backends at once.
SOAK_SECONDS ?= 1800
.PHONY: soak
soak: $(CHOKE) | deps
	st=0; for b in afpacket xdp; do SOAK_BACKEND=$$b CHOKE=./$(CHOKE) nice sh tests/soak.sh \
		$(SOAK_SECONDS) || st=1; done; exit $$st

# choke bridge against the kernel's bridge on the same veths (root)
bench-fwd: $(CHOKE) $(BLAST) | deps
	CHOKE=./$(CHOKE) BLAST=./$(BLAST) sh bench/fwd.sh

install: all install-lib $(BUILD)/choke.1
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(CHOKE) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(BUILD)/choke.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -d $(DESTDIR)$(LIBDIR)/tc
	install -m 644 $(TC_PLUGIN) $(DESTDIR)$(LIBDIR)/tc/
	install -d $(DESTDIR)$(SCENARIO_DIR)
	install -m 644 $(wildcard scenarios/*) $(DESTDIR)$(SCENARIO_DIR)/
	$(if $(DESTDIR),,-ldconfig 2>/dev/null)

# tc finds it as TC_LIB_DIR/q_chokeplus.so (Debian's default directory:
# /usr/lib/x86_64-linux-gnu/tc, which is LIBDIR/tc for LIBDIR=/usr/lib/x86_64-linux-gnu). The params code and the core are linked in
# and kept local (--exclude-libs): the plugin exports chokeplus_qdisc_util
# alone; tc's own functions (addattr_l, print_color_uint, ...) resolve when
# tc loads it.
$(TC_PLUGIN): kmod/tc/q_chokeplus.c kmod/chokeplus.h $(STATIC) $(HDRS) | deps
	$(CC) $(LIB_CFLAGS) -fvisibility=hidden -shared $(LDFLAGS) -o $@ kmod/tc/q_chokeplus.c \
		-Wl,--exclude-libs,ALL $(STATIC) -lm

# The plugin loaded as tc loads it, this program standing in for tc.
$(TC_PLUGIN_TEST): tests/tc-plugin.c kmod/chokeplus.h $(STATIC) $(HDRS) | deps
	$(CC) $(LIB_CFLAGS) -rdynamic -o $@ tests/tc-plugin.c $(STATIC) -ldl -lm

# the man page with the version in its footer (.TH's fourth field)
$(BUILD)/choke.1: man/choke.1 VERSION
	@mkdir -p $(BUILD)
	sed '/^\.TH /s/"choke"/"choke $(VERSION)"/' man/choke.1 >$@.tmp
	grep -q '^\.TH .*"choke $(VERSION)"' $@.tmp || { echo "man/choke.1: no .TH line with \"choke\"" >&2; exit 1; }
	mv $@.tmp $@

$(BUILD)/choke.pc: choke.pc.in $(BUILD)/prefix VERSION FORCE
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@VERSION@|$(VERSION)|' \
		choke.pc.in >$@.tmp
	mv $@.tmp $@

# libchoke alone: the library, its headers and choke.pc (a C compiler is
# all it needs). What a program that embeds the core installs, and what
# ns-3's bake builds from a tarball of this repository (ns3/bakeconf.xml.in).
.PHONY: lib install-lib
lib: $(STATIC) $(SHARED) $(BUILD)/choke.pc
install-lib: lib
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(PREFIX)/include/choke
	install -m 644 $(STATIC) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(SHARED) $(DESTDIR)$(LIBDIR)/
	ln -sf libchoke.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libchoke.so
	install -m 644 include/choke/*.h $(DESTDIR)$(PREFIX)/include/choke/
	install -m 644 $(BUILD)/choke.pc $(DESTDIR)$(LIBDIR)/pkgconfig/

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libchoke.* $(DESTDIR)$(PREFIX)/bin/choke \
		$(DESTDIR)$(LIBDIR)/pkgconfig/choke.pc \
		$(DESTDIR)$(PREFIX)/share/man/man1/choke.1 \
		$(DESTDIR)$(LIBDIR)/tc/q_chokeplus.so
	rm -rf $(DESTDIR)$(PREFIX)/include/choke $(DESTDIR)$(PREFIX)/share/choke

clean:
	rm -rf build

# ns-3: ns3::ChokeQueueDisc on libchoke (ns3/, docs/ns3.md), built against
# the installed ns-3 (Debian 12: apt-get install libns3-dev, ns-3.37) into
# build/ns3/: the module as a shared library, its test binary and the
# choke-paper example. Not part of `make check`; .ci/run runs
# `make ns3 check-ns3`. Debian's ns3-*.pc files cannot be used as they are
# (Cflags carry a stray "-I/usr;", Libs name libgsl.so, which libns3-dev does
# not pull in), so pkg-config only says whether the modules exist and the
# libraries are named directly.
.PHONY: ns3 check-ns3 ns3-compare sim-vs-ns3
NS3_OUT := $(BUILD)/ns3
NS3_CXX ?= g++
NS3_PKGS := ns3-core ns3-network ns3-internet ns3-point-to-point ns3-applications \
	ns3-traffic-control ns3-flow-monitor
# Users' programs (the examples) see ns-3's headers and the module's only:
# the module keeps libchoke behind a pointer, so they need no -Iinclude.
# NS3_LOG_ENABLE and NS3_ASSERT_ENABLE as ns-3's own default build profile
# compiles its modules (the decisions' NS_LOG_DEBUG lines, the asserts).
NS3_USERFLAGS := -std=c++17 $(OPT) -g -fPIC -Wall -Wextra -Wshadow -Werror \
	-DNS3_LOG_ENABLE -DNS3_ASSERT_ENABLE -I$(NS3_OUT)/include $(SAN) \
	-DCHOKE_VERSION='"$(VERSION)"'
NS3_CXXFLAGS := $(NS3_USERFLAGS) -Iinclude
NS3_LIBS := $(NS3_PKGS:ns3-%=-lns3-%)
NS3_LIB := $(NS3_OUT)/libns3-choke.so
NS3_RPATH := -Wl,-rpath,'$$ORIGIN'
NS3_EXAMPLES := choke-paper choke-red-swap

ns3: $(NS3_LIB) $(NS3_OUT)/choke-ns3-tests $(NS3_EXAMPLES:%=$(NS3_OUT)/%)

$(NS3_OUT)/.ns3-found: | deps
	@pkg-config --exists $(NS3_PKGS) && [ -e /usr/include/ns3/core-module.h ] || { \
		echo "make ns3: ns-3 not found (pkg-config $(NS3_PKGS));" \
			"on Debian: apt-get install libns3-dev" >&2; exit 1; }
	@mkdir -p $(NS3_OUT) && touch $@

$(NS3_OUT)/include/ns3/choke-queue-disc.h: ns3/model/choke-queue-disc.h $(NS3_OUT)/.ns3-found
	@mkdir -p $(dir $@)
	cp ns3/model/choke-queue-disc.h $@

# the module: its code and libchoke's, whose symbols it does not re-export
$(NS3_LIB): ns3/model/choke-queue-disc.cc $(NS3_OUT)/include/ns3/choke-queue-disc.h $(STATIC) $(HDRS)
	$(NS3_CXX) $(NS3_CXXFLAGS) -shared -Wl,-soname,libns3-choke.so -o $@ \
		ns3/model/choke-queue-disc.cc $(STATIC) -Wl,--exclude-libs,ALL \
		-lns3-traffic-control -lns3-internet -lns3-network -lns3-core

$(NS3_OUT)/choke-ns3-tests: ns3/test/choke-queue-disc-test-suite.cc ns3/utils/test-runner.cc $(NS3_LIB) $(STATIC)
	$(NS3_CXX) $(NS3_CXXFLAGS) -o $@ ns3/test/choke-queue-disc-test-suite.cc \
		ns3/utils/test-runner.cc -L$(NS3_OUT) -lns3-choke $(NS3_RPATH) $(STATIC) $(NS3_LIBS)

$(NS3_EXAMPLES:%=$(NS3_OUT)/%): $(NS3_OUT)/%: ns3/examples/%.cc $(NS3_LIB) VERSION
	$(NS3_CXX) $(NS3_USERFLAGS) -o $@ $< -L$(NS3_OUT) -lns3-choke $(NS3_RPATH) $(NS3_LIBS)

# the unit suite, the system suite (a TCP dumbbell, 15 simulated seconds),
# then the examples end to end, as ns-3's test.py would run them
check-ns3: ns3
	./$(NS3_OUT)/choke-ns3-tests --suite=choke-queue-disc --verbose
	./$(NS3_OUT)/choke-ns3-tests --suite=choke-queue-disc-system --verbose
	CHOKE_PAPER=./$(NS3_OUT)/choke-paper CHOKE_RED_SWAP=./$(NS3_OUT)/choke-red-swap \
		sh ns3/test/example.sh
	$(MAKE) --no-print-directory $(CHOKE)
	sh tools/ns3/build.sh $(NS3_OUT)/ns3-paper
	DURATION=0.2 WARMUP=0.1 REPEATS=1 SIM_RUNS=1 sh tools/ns3/speed.sh ./$(CHOKE) \
		./$(NS3_OUT)/ns3-paper >$(NS3_OUT)/speed-smoke.txt
	cat $(NS3_OUT)/speed-smoke.txt
	grep -q '^goal: choke sim >= 1000x ns-3 on this scenario: ' $(NS3_OUT)/speed-smoke.txt

# The simulator against ns-3 on speed-1000 for the same simulated seconds,
# both timed here (docs/performance.md, "Against ns-3"; minutes, not in CI).
sim-vs-ns3: $(CHOKE) $(NS3_OUT)/.ns3-found
	sh tools/ns3/build.sh $(NS3_OUT)/ns3-paper
	sh tools/ns3/speed.sh ./$(CHOKE) ./$(NS3_OUT)/ns3-paper

# ns-3 (ChokeQueueDisc, RED, FIFO, FQ-CoDel) against `choke sim` on the
# paper's link; prints docs/results.md's table (minutes; not in CI).
ns3-compare: ns3 $(CHOKE)
	python3 ns3/compare.py --ns3 ./$(NS3_OUT)/choke-paper --choke ./$(CHOKE)

# The module in a source tree of the latest ns-3 release (docs/ns3.md): as
# bake would, libchoke from a tarball of this repository (CHOKE_TARBALL, the
# pattern `make dist` makes: choke-VERSION.tar.gz holding choke-VERSION/;
# without one, `git archive` of HEAD in that form) installed under
# build/ns3-latest/prefix, ns3/ copied to NS3_SRC/contrib/choke, ns-3
# configured with the modules it needs, built (nice, NS3_JOBS), the suites
# and examples run by test.py, and RED's own ARED examples run with
# ChokeQueueDisc swapped in. Not in CI (no ns-3 source tree there).
#   make ns3-latest NS3_SRC=/path/to/ns-3.48
.PHONY: ns3-latest bakeconf
NS3_SRC ?=
NS3_JOBS ?= 2
CHOKE_TARBALL ?= $(BUILD)/dist/choke-$(VERSION).tar.gz
ns3-latest:
	@[ -n "$(NS3_SRC)" ] || { echo "make ns3-latest: give NS3_SRC=/path/to/an/ns-3/source/tree" >&2; exit 1; }
	NS3_SRC="$(NS3_SRC)" NS3_JOBS="$(NS3_JOBS)" CHOKE_TARBALL="$(CHOKE_TARBALL)" \
		CHOKE_VERSION=$(VERSION) OUT=$(BUILD)/ns3-latest sh ns3/latest.sh

# bake's configuration for the module and libchoke (ns3/bakeconf.xml.in)
# with this version and where the tarball is (CHOKE_DIST_URL; by default
# the local CHOKE_TARBALL as a file:// URL)
CHOKE_DIST_URL ?= file://$(abspath $(CHOKE_TARBALL))
bakeconf: $(BUILD)/bakeconf.xml
$(BUILD)/bakeconf.xml: ns3/bakeconf.xml.in FORCE
	@mkdir -p $(BUILD)
	sed -e 's|@VERSION@|$(VERSION)|g' -e 's|@URL@|$(CHOKE_DIST_URL)|g' ns3/bakeconf.xml.in >$@.tmp
	mv $@.tmp $@
