# Thin wrapper over meson/ninja for the README's commands. The build lives in $(BUILD);
# the program is left at $(BUILD)/debloat.
#
#   make            build
#   make demo       the main job (today: audit this host)
#   make check      every test: unit tests, fuzz corpora, end-to-end scripts
#   make asan-check the unit tests and corpora again under ASan+UBSan
#   make fuzz       libFuzzer (clang) on every harness for FUZZ_SECONDS each
#   make bench      benchmarks (table; BENCH_ARGS=--json for JSON)
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
MESON_OPTS ?=
BENCH_ARGS ?=

.PHONY: all build check demo asan-check fuzz bench clean

all: build

build:
	@scripts/install-deps.sh build
	@[ -f $(BUILD)/build.ninja ] || meson setup $(BUILD) $(MESON_OPTS) >/dev/null
	@ninja -C $(BUILD) >/dev/null

demo: build
	./$(BUILD)/debloat audit

check:
	@scripts/install-deps.sh test
	@$(MAKE) --no-print-directory build
	tests/run.sh $(BUILD)

asan-check:
	@scripts/install-deps.sh test
	@[ -f $(ASAN_BUILD)/build.ninja ] || meson setup $(ASAN_BUILD) $(MESON_OPTS) \
		-Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug >/dev/null
	@ninja -C $(ASAN_BUILD) >/dev/null
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		tests/run.sh --unit $(ASAN_BUILD)

fuzz:
	@scripts/install-deps.sh fuzz
	@[ -f $(FUZZ_BUILD)/build.ninja ] || CC=clang meson setup $(FUZZ_BUILD) \
		-Dlibfuzzer=true -Db_lundef=false >/dev/null
	@ninja -C $(FUZZ_BUILD) >/dev/null
	fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

bench: build
	bench/run.sh $(BUILD) $(BENCH_ARGS)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
