# swaptune - GNU make build. `make` builds ./swaptune, `make check` runs every
# test, `make check-asan` runs them under ASan+UBSan, `make bench` runs the
# benchmarks, `make deps` installs missing Debian packages, `make check-tsan`
# runs the TUI's engine-thread tests under ThreadSanitizer.
# Quiet unless V=1. -Werror in a git checkout (developer and CI builds), off
# for tarball users; force with WERROR=1 or WERROR=0.

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/swaptune
DOCDIR  ?= $(PREFIX)/share/doc/swaptune
# where systemd, systemd-tmpfiles and bash-completion look
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
TMPFILESDIR ?= $(PREFIX)/lib/tmpfiles.d
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/vendor-completions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
DESTDIR ?=
BUILD   ?= build
# the binary; check-asan builds its own so ./swaptune is never an ASan build
BIN     ?= swaptune

CC      ?= cc
PKGS    := libcgroup sqlite3 ncursesw libcjson libcurl
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
ifeq ($(PKG_LIBS),)
PKG_LIBS := -lcgroup -lsqlite3 -lncursesw -ltinfo -lcjson -lcurl
endif
# libpfm4 ships no pkg-config file on Debian.
PFM_LIBS := -lpfm
CMOCKA_LIBS := $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)

ifneq ($(wildcard .git),)
WERROR ?= 1
endif
WERROR ?= 0
WARN    := -Wall -Wextra -Wshadow -Wformat=2 -Wno-unused-parameter -Wno-format-truncation
ifeq ($(WERROR),1)
WARN    += -Werror
endif

VERSION := $(shell cat VERSION 2>/dev/null || echo 0.1.0)
CFLAGS  ?= -O2 -g
ALL_CFLAGS = -std=gnu11 $(WARN) -Iinclude $(PKG_CFLAGS) \
	-DSWAPTUNE_VERSION='"$(VERSION)"' -DSWAPTUNE_DATADIR='"$(DATADIR)"' \
	-D_GNU_SOURCE -MMD -MP $(CPPFLAGS) $(CFLAGS) $(SAN)
ALL_LDFLAGS = $(LDFLAGS) $(SAN)
LIBS    = $(PKG_LIBS) $(PFM_LIBS) -lm -lpthread

ifeq ($(V),1)
Q :=
else
Q := @
endif

LIB_SRC  := $(filter-out src/main.c,$(wildcard src/*.c)) \
	    $(wildcard advisor/*.c) $(wildcard probes/*.c) $(wildcard tui/*.c)
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
MAIN_OBJ := $(BUILD)/src/main.o
UNIT_SRC := $(wildcard tests/unit/test-*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
BENCH_SRC := $(wildcard tests/bench/bench-*.c)
BENCH_BIN := $(BENCH_SRC:tests/bench/%.c=$(BUILD)/bench/%)
HELPER_SRC := $(wildcard tests/helpers/*.c)
HELPER_BIN := $(HELPER_SRC:tests/helpers/%.c=$(BUILD)/helpers/%)
# LD_PRELOAD libraries of the race tests (tests/helpers/preload/)
PRELOAD_SRC := $(wildcard tests/helpers/preload/*.c)
HELPER_BIN += $(PRELOAD_SRC:tests/helpers/preload/%.c=$(BUILD)/helpers/%.so)
FUZZ_SRC := $(wildcard tests/fuzz/fuzz-*.c)
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/%)

.PHONY: all deps check check-build check-unit check-cmd check-kernels check-asan check-tsan bench install uninstall clean calibrate chaos \
	fuzz fuzz-build fuzz-targets deb sim sim-check switchback-pg switchback-memcached

all: $(BIN)

# linked into every program of a sanitizer build that sets it (check-tsan's options)
SAN_OBJ ?=

$(BIN): $(MAIN_OBJ) $(BUILD)/libswaptune.a $(SAN_OBJ)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/libswaptune.a: $(LIB_OBJ)
	@echo "  AR      $@"
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libswaptune.a
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -Itests/unit -o $@ $< $(BUILD)/libswaptune.a $(SAN_OBJ) $(LIBS) $(CMOCKA_LIBS) $(ALL_LDFLAGS)

$(BUILD)/bench/%: tests/bench/%.c $(BUILD)/libswaptune.a
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(BUILD)/libswaptune.a $(LIBS) $(ALL_LDFLAGS)

$(BUILD)/helpers/%.so: tests/helpers/preload/%.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -fPIC -shared -o $@ $< -ldl

$(BUILD)/helpers/%: tests/helpers/%.c $(BUILD)/libswaptune.a
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(BUILD)/libswaptune.a $(LIBS) $(ALL_LDFLAGS)

# libFuzzer harnesses (tests/fuzz/): clang, with the library itself built
# for coverage and ASan+UBSan in build-fuzz/.
$(BUILD)/fuzz/%: tests/fuzz/%.c $(BUILD)/libswaptune.a
	@mkdir -p $(dir $@)
	@echo "  FUZZ    $<"
	$(Q)$(CC) $(ALL_CFLAGS) -DFUZZ_FIXTURES='"$(abspath tests/fixtures)"' -fsanitize=fuzzer \
		-o $@ $< $(BUILD)/libswaptune.a $(LIBS) $(ALL_LDFLAGS)

fuzz-targets: $(FUZZ_BIN)

FUZZ_SAN := -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
fuzz-build:
	$(Q)$(MAKE) --no-print-directory CC=clang WERROR=0 BUILD=build-fuzz \
		SAN="$(FUZZ_SAN)" CFLAGS="-O1 -g -Wno-unknown-warning-option" fuzz-targets

# Long runs: FUZZ_SECONDS per target (default 600); crashes are kept in
# build-fuzz/crashes/ — add them to tests/fuzz/regress/<target>/.
fuzz: fuzz-build
	$(Q)FUZZ_SECONDS=$${FUZZ_SECONDS:-600} FUZZ_KEEP=build-fuzz/crashes sh tests/fuzz/run.sh

# Offline simulator of verdicts (tests/sim): `make sim` builds it,
# `make sim-check` runs tests/sim/sim-check.sh: SIM_N (100 000) A/A and A/B
# probes per noise model through the real decision code for 3- and 2-arm
# designs, the persistent operator, the figures the docs quote, and the old
# and naive rules that must fail the same gates (outputs in build/sim/).
SIM_BIN := $(BUILD)/sim/sim
SIM_N ?= 100000
# the switchback simulator (tests/sim/sim-switchback.c): 20 000 A/A runs per
# model for the real sb_analyse(), and two naive methods the gates must reject
SIMSB_BIN := $(BUILD)/sim/sim-switchback

sim: $(SIM_BIN) $(SIMSB_BIN)

# tests/sim/sim-common.c: the random numbers and Clopper-Pearson bounds both share
SIM_COMMON := tests/sim/sim-common.c tests/sim/sim-common.h

$(SIMSB_BIN): tests/sim/sim-switchback.c $(SIM_COMMON) $(BUILD)/libswaptune.a
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< tests/sim/sim-common.c $(BUILD)/libswaptune.a $(LIBS) $(ALL_LDFLAGS)

$(SIM_BIN): tests/sim/sim.c $(SIM_COMMON) $(BUILD)/libswaptune.a
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< tests/sim/sim-common.c $(BUILD)/libswaptune.a $(LIBS) $(ALL_LDFLAGS)

sim-check: $(SIM_BIN) $(SIMSB_BIN)
	$(Q)$(SIMSB_BIN) -n 20000 -p 5000 -m sb || exit 1; \
	for m in naive-win naive-sec; do if $(SIMSB_BIN) -n 20000 -p 0 -m $$m; then \
		echo "switchback $$m passed the gates: gates too weak"; exit 1; \
	else echo "switchback $$m rejected by the gates, as it must be"; fi; done
	$(Q)SIM_OUT=$(BUILD)/sim sh tests/sim/sim-check.sh $(SIM_BIN) $(SIM_N)

# NO_TEST_TOOLS=1: only what the build needs, not the test suite's tools
deps:
	$(Q)NO_TEST_TOOLS=$(NO_TEST_TOOLS) sh share/install-deps.sh

# Unit tests, then command tests driving ./swaptune; one summary line at the end.
# The build runs on every CPU (a sub-make, so `make deps check` still installs
# first); the tests run one at a time (live ones change the host).
check:
	$(Q)$(MAKE) --no-print-directory -j$$(nproc 2>/dev/null || echo 2) $(BIN) $(UNIT_BIN) $(HELPER_BIN) \
		$(SIM_BIN) $(SIMSB_BIN)
	$(Q)BUILD=$(BUILD) SWAPTUNE=$(abspath $(BIN)) sh tests/run-tests.sh

# everything `make check` builds (the binary, unit tests, test helpers, the
# simulators), without running anything: then run single tests by name
check-build: $(BIN) $(UNIT_BIN) $(HELPER_BIN) $(SIM_BIN) $(SIMSB_BIN)

check-unit: $(UNIT_BIN)
	$(Q)BUILD=$(BUILD) ONLY=unit sh tests/run-tests.sh

check-cmd: $(BIN) $(HELPER_BIN) $(SIM_BIN) $(SIMSB_BIN)
	$(Q)BUILD=$(BUILD) SWAPTUNE=$(abspath $(BIN)) ONLY=cmd sh tests/run-tests.sh

# Debian 12's 6.1 kernel in a QEMU TCG guest on cgroup v2 (docs/kernels.md);
# installs qemu-system-x86 through make deps when missing.
check-kernels: $(BIN) $(BUILD)/helpers/memcg-ops
	$(Q)command -v qemu-system-x86_64 >/dev/null || KERNELS=1 sh share/install-deps.sh
	$(Q)sh tests/kernels/check-kernels.sh; rc=$$?; [ $$rc -eq 77 ] && rc=0; exit $$rc

check-asan:
	$(Q)$(MAKE) --no-print-directory BUILD=build-asan BIN=build-asan/swaptune \
		SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
		CFLAGS="-O1 -g" check

# ThreadSanitizer over what the TUI runs in threads (tests/check-tsan.sh says
# which tests); reports go to build-tsan/tsan.<pid> and fail the run.
TSAN_BUILD := build-tsan
TSAN_UNIT := test-threads test-tui-view test-tui-form
check-tsan:
	$(Q)$(MAKE) --no-print-directory BUILD=$(TSAN_BUILD) BIN=$(TSAN_BUILD)/swaptune \
		SAN="-fsanitize=thread" CFLAGS="-O1 -g" SAN_OBJ=$(TSAN_BUILD)/tsan-options.o \
		$(TSAN_BUILD)/swaptune $(TSAN_UNIT:%=$(TSAN_BUILD)/tests/%)
	$(Q)BUILD=$(TSAN_BUILD) SWAPTUNE=$(abspath $(TSAN_BUILD)/swaptune) sh tests/check-tsan.sh

$(TSAN_BUILD)/tsan-options.o: tests/tsan-options.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -DTSAN_LOG='"$(abspath $(TSAN_BUILD))/tsan"' -c -o $@ $<

bench: $(BENCH_BIN) $(BIN)
	$(Q)for b in $(BENCH_BIN); do echo "== $$b"; $$b || exit 1; done

calibrate: $(BIN) $(BUILD)/helpers/known-effect
	$(Q)SWAPTUNE=$(abspath $(BIN)) KNOWN_EFFECT=$(abspath $(BUILD)/helpers/known-effect) sh tests/calibrate.sh

# the long chaos run (live, root; changes the host: run it under the host lock)
CHAOS_KILLS ?= 300
CHAOS_SEED ?= $(shell date +%s)
chaos: $(BIN)
	$(Q)CHAOS_KILLS=$(CHAOS_KILLS) CHAOS_SEED=$(CHAOS_SEED) BUILD=$(BUILD) TOP=$(CURDIR) \
		SWAPTUNE=$(abspath $(BIN)) sh tests/t0810-chaos-kill.sh

# the real-service switchback (live, root, ~18 min: PostgreSQL + pgbench, pc3
# against pc0, 30 s windows, 15 s washout, 15 blocks); takes the host lock;
# keeps the report, the HTML timeline and the JSON in SB_ARTIFACTS
SB_ARTIFACTS ?= /tmp/swaptune-sb-pg
switchback-pg: $(BIN)
	$(Q)SWAPTUNE_SB_LONG=1 SB_ARTIFACTS=$(SB_ARTIFACTS) BUILD=$(BUILD) TOP=$(CURDIR) \
		SWAPTUNE=$(abspath $(BIN)) sh tests/t0330-switchback-pg.sh

# the same on memcached under memcaslap (tests/t0333), kept in MC_ARTIFACTS;
# SB_DESIGN="--window 20s --washout 10s --blocks 10" for a shorter one
MC_ARTIFACTS ?= /tmp/swaptune-sb-memcached
switchback-memcached: $(BIN)
	$(Q)SWAPTUNE_SB_LONG=1 SB_ARTIFACTS=$(MC_ARTIFACTS) SB_DESIGN="$(SB_DESIGN)" BUILD=$(BUILD) TOP=$(CURDIR) \
		SWAPTUNE=$(abspath $(BIN)) sh tests/t0333-switchback-memcached.sh

install: swaptune
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(DATADIR)/schema \
		$(DESTDIR)$(SYSTEMDUNITDIR) $(DESTDIR)$(TMPFILESDIR) $(DESTDIR)$(COMPLETIONDIR) \
		$(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR) $(DESTDIR)$(DOCDIR)
	install -m 0755 swaptune $(DESTDIR)$(BINDIR)/swaptune
	install -m 0644 share/man/swaptune.8 $(DESTDIR)$(MANDIR)/man8/swaptune.8
	install -m 0644 share/schema/*.json $(DESTDIR)$(DATADIR)/schema/
	sed 's|/usr/local/bin/swaptune|$(BINDIR)/swaptune|g' share/systemd/swaptune-boot.service \
		>$(DESTDIR)$(SYSTEMDUNITDIR)/swaptune-boot.service
	chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/swaptune-boot.service
	sed 's|/usr/local/bin/swaptune|$(BINDIR)/swaptune|g' share/systemd/swaptune-prom.service \
		>$(DESTDIR)$(SYSTEMDUNITDIR)/swaptune-prom.service
	install -m 0644 share/systemd/swaptune-prom.timer $(DESTDIR)$(SYSTEMDUNITDIR)/swaptune-prom.timer
	chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/swaptune-prom.service
	install -m 0644 share/tmpfiles.d/swaptune.conf $(DESTDIR)$(TMPFILESDIR)/swaptune.conf
	./swaptune --completion bash >$(DESTDIR)$(COMPLETIONDIR)/swaptune
	./swaptune --completion zsh >$(DESTDIR)$(ZSHCOMPDIR)/_swaptune
	./swaptune --completion fish >$(DESTDIR)$(FISHCOMPDIR)/swaptune.fish
	chmod 0644 $(DESTDIR)$(COMPLETIONDIR)/swaptune $(DESTDIR)$(ZSHCOMPDIR)/_swaptune \
		$(DESTDIR)$(FISHCOMPDIR)/swaptune.fish
	install -m 0644 LICENSE $(DESTDIR)$(DOCDIR)/LICENSE
	if [ -d share/ansible ]; then cp -R share/ansible $(DESTDIR)$(DATADIR)/ && \
		chmod -R u=rwX,go=rX $(DESTDIR)$(DATADIR)/ansible; fi

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/swaptune $(DESTDIR)$(MANDIR)/man8/swaptune.8 \
		$(DESTDIR)$(SYSTEMDUNITDIR)/swaptune-boot.service \
		$(DESTDIR)$(SYSTEMDUNITDIR)/swaptune-prom.service $(DESTDIR)$(SYSTEMDUNITDIR)/swaptune-prom.timer \
		$(DESTDIR)$(TMPFILESDIR)/swaptune.conf $(DESTDIR)$(COMPLETIONDIR)/swaptune \
		$(DESTDIR)$(ZSHCOMPDIR)/_swaptune $(DESTDIR)$(FISHCOMPDIR)/swaptune.fish
	rm -rf $(DESTDIR)$(DATADIR) $(DESTDIR)$(DOCDIR)

# A Debian package (debian/), built from a clean copy of the tracked files in
# build-deb/; the .deb lands in build-deb/ and is checked with lintian.
deb:
	$(Q)rm -rf build-deb && mkdir -p build-deb/swaptune-$(VERSION)
	$(Q)git ls-files -z | xargs -0 tar cf - | tar xf - -C build-deb/swaptune-$(VERSION)
	$(Q)cd build-deb/swaptune-$(VERSION) && dpkg-buildpackage -us -uc -b >../build.log 2>&1 || \
		{ tail -30 ../build.log; exit 1; }
	$(Q)lintian --fail-on error,warning build-deb/swaptune_$(VERSION)_*.deb
	@ls build-deb/*.deb

clean:
	rm -rf build build-asan build-tsan build-fuzz build-deb swaptune

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
