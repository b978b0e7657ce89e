# llm-speed server.  `make run` serves, `make check` runs every test.
# Sources are globbed: a new server/<layer>/*.c or tests/<layer>/check_*.c needs no edit here.

CC      ?= cc
PKGS    := libmicrohttpd jansson libsodium sqlite3 zlib icu-uc icu-i18n
# The version /metrics names (llmspeed_build_info): the commit built from.
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo unknown)
CSTD    := -std=c11 -D_DEFAULT_SOURCE -D_GNU_SOURCE -DLLMSPEED_VERSION='"$(VERSION)"'
WARN    := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-unused-parameter
CFLAGS  ?= -O2 -g
ALL_CFLAGS = $(CSTD) $(WARN) $(CFLAGS) -Iserver $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LIBS    := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lmbedcrypto -lpthread -lm
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null)

# BUILD and BIN let parallel work use separate trees: make BUILD=/tmp/b BIN=/tmp/b/llm-speedd
BUILD    ?= build
BIN      ?= llm-speedd

SRC      := $(wildcard server/*.c server/*/*.c)
LIB_SRC  := $(filter-out server/main.c,$(SRC))
TEST_SRC := $(wildcard tests/*/check_*.c)
TEST_HDR := $(wildcard tests/*.h)

OBJ      := $(SRC:%.c=$(BUILD)/%.o)
TESTS    := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)

SAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
SAN_TESTS   := $(TEST_SRC:tests/%.c=$(BUILD)/san/tests/%)

PYTHON := /usr/bin/python3

# The daemon itself under AddressSanitizer, UndefinedBehaviorSanitizer and
# LeakSanitizer, for the HTTP tests (san-http-tests).
SAN_OBJ  := $(SRC:%.c=$(BUILD)/san/%.o)
SAN_BIN  := $(BUILD)/san/llm-speedd
SAN_REPORTS := $(abspath $(BUILD))/san/reports
# Which HTTP tests run against it: all of them (about 3x slower than
# http-tests); name files to run fewer, e.g. SAN_HTTP_TESTS="test_upload.py".
SAN_HTTP_TESTS ?= .

# libFuzzer targets (tests/fuzz/fuzz_<name>.c), built with clang, ASan and
# UBSan into $(BUILD)/fuzz/.  `make fuzz` runs each for FUZZ_SECONDS,
# `make fuzz-check` (part of `make check`) for FUZZ_CHECK_SECONDS.
FUZZ_CC    ?= clang
FUZZ_FLAGS := -O1 -g -fno-omit-frame-pointer -fno-sanitize-recover=undefined
FUZZ_CFLAGS = $(CSTD) $(filter-out -Werror,$(WARN)) $(FUZZ_FLAGS) -Iserver $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/fuzz/%.o)
FUZZ_SRC   := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS  := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/%)
FUZZ_SECONDS ?= 60
FUZZ_CHECK_SECONDS ?= 10

.PHONY: all deps run check check-fresh unit-tests san-tests http-tests browser-tests san-http-tests demo bench bench-scale bench-busy bench-tiles fuzz fuzz-check clean
all: $(BIN)

deps:
	@sh deploy/deps.sh

$(BIN): $(OBJ)
	$(CC) $(ALL_CFLAGS) -o $@ $(OBJ) $(LIBS)

# The compile and link rules, written once for each build tree: tree,
# then the names of its compiler and flags variables.  A tree holds the
# objects, libllms.a (everything but main.c) and the unit tests.
define tree_rules
$(1)/%.o: %.c
	@mkdir -p $$(dir $$@)
	$$($(2)) $$($(3)) -MMD -MP -c -o $$@ $$<

$(1)/libllms.a: $$(LIB_SRC:%.c=$(1)/%.o)
	rm -f $$@ && ar rcs $$@ $$^

$(1)/tests/%: tests/%.c $(1)/libllms.a $$(TEST_HDR)
	@mkdir -p $$(dir $$@)
	$$($(2)) $$($(3)) -Itests -o $$@ $$< $(1)/libllms.a $$(LIBS) $$(CHECK_LIBS)
endef

SAN_CFLAGS = $(CSTD) $(WARN) $(SAN_FLAGS) -Iserver $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
FUZZ_OBJ_CFLAGS = $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined
$(eval $(call tree_rules,$(BUILD),CC,ALL_CFLAGS))
$(eval $(call tree_rules,$(BUILD)/san,CC,SAN_CFLAGS))
$(eval $(call tree_rules,$(BUILD)/fuzz,FUZZ_CC,FUZZ_OBJ_CFLAGS))

# Where `make run` and `make demo` listen: make run LISTEN=127.0.0.1:9000
LISTEN ?= 127.0.0.1:8080

run: deps $(BIN)
	@mkdir -p data
	./llm-speedd --listen $(LISTEN) --db ./data/llm-speed.db

demo: deps $(BIN)
	@mkdir -p data
	./llm-speedd --demo --listen $(LISTEN) --db ./data/llm-speed.db

# Every test: unit tests, the real daemon over HTTP and in a real browser
# (Debian's Chromium), then the unit tests and
# the daemon again under AddressSanitizer, UndefinedBehaviorSanitizer and
# LeakSanitizer, then each fuzz target briefly with its regressions.
check: deps
	@$(MAKE) --no-print-directory unit-tests
	@$(MAKE) --no-print-directory http-tests
	@$(MAKE) --no-print-directory browser-tests
	@$(MAKE) --no-print-directory san-tests
	@$(MAKE) --no-print-directory san-http-tests
	@$(MAKE) --no-print-directory fuzz-check
	@echo "make check: all test stages passed"

unit-tests: $(TESTS) $(BIN)
	@sh tests/run_unit.sh $(TESTS)

san-tests: $(SAN_TESTS)
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		CK_FORK=no sh tests/run_unit.sh $(SAN_TESTS)

http-tests: $(BIN)
	cd tests/http && LLMSPEED_BIN=$(abspath $(BIN)) $(PYTHON) -m pytest -q -p no:cacheprovider .

# The pages in headless Chromium (/usr/bin/chromium driven by playwright-core
# from tests/node_modules): console and CSP errors, phone width, dark mode,
# the dispute form without JavaScript, the badge, keyboard focus.
browser-tests: $(BIN)
	cd tests/browser && LLMSPEED_BIN=$(abspath $(BIN)) node --test

$(SAN_BIN): $(SAN_OBJ)
	$(CC) $(SAN_CFLAGS) -o $@ $(SAN_OBJ) $(LIBS)

# Any sanitizer report fails the stage, even when the test that caused it
# passed: ASan and LSan reports (a leak at exit included) land in
# $(SAN_REPORTS), UBSan's go to the daemon's stderr, its server.log, kept
# under $(BUILD)/san/pytest.
san-http-tests: $(SAN_BIN)
	@rm -rf $(SAN_REPORTS) && mkdir -p $(SAN_REPORTS)
	cd tests/http && LLMSPEED_BIN=$(abspath $(SAN_BIN)) \
		ASAN_OPTIONS=detect_leaks=1:log_path=$(SAN_REPORTS)/asan \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		$(PYTHON) -m pytest -q -p no:cacheprovider --basetemp=$(abspath $(BUILD))/san/pytest $(SAN_HTTP_TESTS)
	@grep -rl --include=server.log -e 'runtime error:' -e 'Sanitizer' $(abspath $(BUILD))/san/pytest \
		>> $(SAN_REPORTS)/logs-with-reports || true
	@if [ -s $(SAN_REPORTS)/logs-with-reports ] || ls $(SAN_REPORTS)/asan.* >/dev/null 2>&1; then \
		cat $(SAN_REPORTS)/asan.* $$(cat $(SAN_REPORTS)/logs-with-reports) 2>/dev/null | head -n 200; \
		echo "san-http-tests: sanitizer reports above"; exit 1; fi

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(BUILD)/fuzz/libllms.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined -o $@ $< $(BUILD)/fuzz/libllms.a $(LIBS)

fuzz: deps $(FUZZ_BINS)
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS) $(BUILD)/fuzz $(FUZZ_BINS)

fuzz-check: $(FUZZ_BINS)
	@sh tests/fuzz/run.sh $(FUZZ_CHECK_SECONDS) $(BUILD)/fuzz $(FUZZ_BINS)

bench: deps $(BIN) $(BUILD)/bench/limits
	$(PYTHON) tests/bench/bench.py --bin $(abspath $(BIN)) --limits $(abspath $(BUILD)/bench/limits)

# A 1,000,000-run database built through the write path, then the pages
# measured on it (see tests/bench/README.md).  The database is kept in
# build/bench/ and reused while the fill program and migrations are the same.
bench-scale: deps $(BIN) $(BUILD)/bench/fill
	$(PYTHON) tests/bench/scale.py --bin $(abspath $(BIN)) --fill $(abspath $(BUILD)/bench/fill) \
		--cache $(abspath $(BUILD)/bench)

$(BUILD)/bench/fill: tests/bench/fill.c $(BUILD)/libllms.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(BUILD)/libllms.a $(LIBS)

# The WAL's high-water mark during 150,000 uploads with two CPU-bound
# processes beside the daemon (tests/bench/README.md; not part of make
# check: about five minutes with every core busy).
bench-busy: deps $(BIN)
	$(PYTHON) tests/bench/wal_busy.py --bin $(abspath $(BIN)) --bodies $(abspath $(BUILD)/bench/bodies-150k.txt) --check

# The log's tiles at 1M entries against nginx (not part of make bench: the
# fill takes a while): make bench-tiles
bench-tiles: $(BIN) $(BUILD)/bench/tlogfill
	$(PYTHON) tests/bench/tlog_tiles.py --bin $(abspath $(BIN)) --fill $(abspath $(BUILD)/bench/tlogfill)

$(BUILD)/bench/tlogfill: tests/bench/tlogfill.c $(BUILD)/libllms.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(BUILD)/libllms.a $(LIBS)

$(BUILD)/bench/limits: tests/bench/limits.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIBS)

# The README's two commands on a fresh Debian 12 root (debootstrap, needs
# root and network, takes long): not part of `make check`.
check-fresh:
	sh tests/fresh/run.sh

clean:
	rm -rf $(BUILD) $(BIN)

-include $(OBJ:.o=.d) $(SAN_OBJ:.o=.d) $(FUZZ_LIB_OBJ:.o=.d)
