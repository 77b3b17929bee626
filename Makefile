# swaptune - GNU make build. `make` builds ./swaptune, `make check` runs every
# test, `make check-asan` runs them under ASan+UBSan, `make bench` runs the
# benchmarks, `make deps` installs missing Debian packages.
# Quiet unless V=1. -Werror in a git checkout (developer and CI builds), off
# for tarball users; force with WERROR=1 or WERROR=0.

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/swaptune
DESTDIR ?=
BUILD   ?= build
# the binary; check-asan builds its own so ./swaptune is never an ASan build
BIN     ?= swaptune

CC      ?= cc
PKGS    := libcgroup sqlite3 ncursesw libcjson
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
ifeq ($(PKG_LIBS),)
PKG_LIBS := -lcgroup -lsqlite3 -lncursesw -ltinfo -lcjson
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
	-D_GNU_SOURCE -MMD -MP $(CFLAGS) $(SAN)
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

.PHONY: all deps check check-unit check-cmd check-asan bench install uninstall clean calibrate

all: $(BIN)

$(BIN): $(MAIN_OBJ) $(BUILD)/libswaptune.a
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
	$(Q)$(CC) $(ALL_CFLAGS) -Itests/unit -o $@ $< $(BUILD)/libswaptune.a $(LIBS) $(CMOCKA_LIBS) $(ALL_LDFLAGS)

$(BUILD)/bench/%: tests/bench/%.c $(BUILD)/libswaptune.a
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(BUILD)/libswaptune.a $(LIBS) $(ALL_LDFLAGS)

$(BUILD)/helpers/%: tests/helpers/%.c $(BUILD)/libswaptune.a
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(BUILD)/libswaptune.a $(LIBS) $(ALL_LDFLAGS)

# WITH_CHROMIUM=1 also installs chromium, the optional HTML-report test tool
deps:
	$(Q)WITH_CHROMIUM=$(WITH_CHROMIUM) sh share/install-deps.sh

# Unit tests, then command tests driving ./swaptune; one summary line at the end.
check: $(BIN) $(UNIT_BIN) $(HELPER_BIN)
	$(Q)BUILD=$(BUILD) SWAPTUNE=$(abspath $(BIN)) sh tests/run-tests.sh

check-unit: $(UNIT_BIN)
	$(Q)BUILD=$(BUILD) ONLY=unit sh tests/run-tests.sh

check-cmd: $(BIN) $(HELPER_BIN)
	$(Q)BUILD=$(BUILD) SWAPTUNE=$(abspath $(BIN)) ONLY=cmd sh tests/run-tests.sh

check-asan:
	$(Q)$(MAKE) --no-print-directory BUILD=build-asan BIN=build-asan/swaptune \
		SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
		CFLAGS="-O1 -g" check

bench: $(BENCH_BIN) $(BIN)
	$(Q)for b in $(BENCH_BIN); do echo "== $$b"; $$b || exit 1; done

calibrate: $(BIN)
	$(Q)SWAPTUNE=$(abspath $(BIN)) sh tests/calibrate.sh

install: swaptune
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(DATADIR)/schema
	install -m 0755 swaptune $(DESTDIR)$(BINDIR)/swaptune
	install -m 0644 share/man/swaptune.8 $(DESTDIR)$(MANDIR)/man8/swaptune.8
	install -m 0644 share/schema/*.json $(DESTDIR)$(DATADIR)/schema/
	install -d $(DESTDIR)$(DATADIR)/systemd
	sed 's|/usr/local/bin/swaptune|$(BINDIR)/swaptune|g' share/systemd/swaptune-boot.service \
		>$(DESTDIR)$(DATADIR)/systemd/swaptune-boot.service

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/swaptune $(DESTDIR)$(MANDIR)/man8/swaptune.8
	rm -rf $(DESTDIR)$(DATADIR)

clean:
	rm -rf build build-asan swaptune

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
