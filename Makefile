# Thin wrapper over meson/ninja for the README's commands. The build lives in $(BUILD);
# the program is left at $(BUILD)/debloat.
#
#   make            build
#   make demo       the main job: the 2014 BeagleBone result in the lab (root, ~2 min)
#   make check      every test: unit tests, fuzz corpora, end-to-end scripts
#   make asan-check the unit tests and corpora again under ASan+UBSan
#   make fuzz       libFuzzer (clang) on every harness for FUZZ_SECONDS each
#   make bench      benchmarks (table; BENCH_ARGS=--json for JSON)
#   make static     a static, stripped binary for a board: ARCH=armhf|arm64|native,
#                   in build-static-ARCH/bin/debloat (scripts/build-static.sh)
#   make smoke      both ARM static binaries under qemu-user (tests/test-static.sh)
#   make vm-check   the static binaries inside Debian's own kernels under QEMU (amd64,
#                   armhf, arm64), real e1000e and virtio-net NICs (root;
#                   tests/vm/vm-check.sh)
#   make kmod       our BQL driver patches (kmod/) built as modules for Debian's armmp
#                   and arm64 6.1 kernels, cross-compiled, and its amd64 6.12 kernel,
#                   in build-kmod/ARCH-RELEASE/ (kmod/build.sh; downloads cached in
#                   /var/cache/debloat-kmod)
#   make kmod-check those modules checked: the patched fec beside the stock one under
#                   QEMU -M sabrelite (root; tests/kmod/kmod-check.sh)
#   make install    binary, man pages, bash completion, systemd units into
#                   $(DESTDIR)$(PREFIX); make uninstall removes what it installed
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
MESON_OPTS ?=
BENCH_ARGS ?=
ARCH ?= native
PREFIX ?= /usr/local
DESTDIR ?=
# The build's progress is shown by make demo only.
NINJA_QUIET ?= >/dev/null

.PHONY: all build check demo asan-check fuzz bench clean static smoke vm-check kmod kmod-check install uninstall

all: build

build:
	@scripts/install-deps.sh build
	@[ -f $(BUILD)/build.ninja ] || meson setup $(BUILD) $(MESON_OPTS) >/dev/null
	@ninja -C $(BUILD) $(NINJA_QUIET)

# The main job: `debloat lab seed`, the four BeagleBone setups of the 2014 email on the
# lab's emulated link, short enough to take about two minutes (DEMO_ARGS to change).
# The lab needs root (network namespaces, tun devices) and nothing else at run time.
DEMO_ARGS ?= -l 20 -d 3
demo:
	@[ "$$(id -u)" -eq 0 ] || { echo "make demo: the lab needs root (network namespaces, tun devices): sudo make demo" >&2; exit 1; }
	@[ -c /dev/net/tun ] || { modprobe tun 2>/dev/null; [ -c /dev/net/tun ]; } || { echo "make demo: no /dev/net/tun: this kernel has no tun driver (modprobe tun)" >&2; exit 1; }
	@echo "make demo: checking the Debian packages it needs, then building debloat"
	@[ -f $(BUILD)/debloat ] || echo "make demo: a first build takes about 2 minutes on 2 cores"
	@$(MAKE) --no-print-directory build NINJA_QUIET=
	@echo "make demo: debloat lab seed $(DEMO_ARGS): four runs of about 30 s each"
	./$(BUILD)/debloat lab seed $(DEMO_ARGS)

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

static:
	@scripts/install-deps.sh cross
	@scripts/build-static.sh $(ARCH) $(MESON_OPTS)

# The static ARM binaries, freshly built, against the native one under qemu-user.
smoke:
	@scripts/install-deps.sh cross
	@$(MAKE) --no-print-directory build
	@scripts/build-static.sh armhf $(MESON_OPTS)
	@scripts/build-static.sh arm64 $(MESON_OPTS)
	STATIC_SMOKE=1 BUILD=$(BUILD) bash tests/test-static.sh

# Debian's kernels under QEMU with real NIC drivers; kernel packages are cached in
# DEBLOAT_VM_CACHE (default /var/cache/debloat-vm).
vm-check:
	@scripts/install-deps.sh vm
	@for a in native armhf arm64; do scripts/build-static.sh $$a $(MESON_OPTS) >/dev/null || exit 1; done
	tests/vm/vm-check.sh || [ $$? -eq 77 ]

kmod:
	@scripts/install-deps.sh kmod
	@kmod/build.sh

# The static armhf binary is best effort: without it the guest's audit checks are skipped.
kmod-check:
	@scripts/install-deps.sh kmod-check
	@scripts/build-static.sh armhf $(MESON_OPTS) >/dev/null 2>&1 || echo "kmod-check: no static armhf debloat (make static ARCH=armhf): audit checks skipped"
	tests/kmod/kmod-check.sh || [ $$? -eq 77 ]

# meson installs into $(DESTDIR)$(PREFIX) and logs what it installed, for uninstall.
install:
	@scripts/install-deps.sh install
	@$(MAKE) --no-print-directory build
	@meson configure $(BUILD) -Dprefix=$(PREFIX) -Dman=enabled >/dev/null
	@DESTDIR="$(DESTDIR)" meson install -C $(BUILD) --quiet --strip >/dev/null

uninstall:
	@[ -f $(BUILD)/meson-logs/install-log.txt ] || { echo "uninstall: nothing installed from $(BUILD)" >&2; exit 1; }
	@ninja -C $(BUILD) uninstall >/dev/null

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
