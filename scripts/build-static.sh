#!/usr/bin/env bash
# build-static.sh - one fully static, stripped debloat for a board: `make static ARCH=...`.
#
#   scripts/build-static.sh armhf|arm64|native [MESON_OPTS...]
#
# armhf (BeagleBone Black, Wandboard, Raspberry Pi 2-4 on a 32-bit OS) and arm64
# (Raspberry Pi 3-5 on a 64-bit OS) use Debian's cross toolchains and cross/ARCH.ini;
# native uses the host's gcc. The dependencies are the static libraries of the
# multiarch -dev packages (libjson-c.a, libz.a, libnghttp2.a); netlink is our own
# (src/base/nl.c), the same code every build links. Everything, the unit
# tests too, is linked with -static, so tests/test-static.sh can run them under
# qemu-user. Leaves build-static-ARCH/debloat (with symbols) and
# build-static-ARCH/bin/debloat (stripped: the one to copy to a board), and prints
# the stripped size.
#
# No TLS (-Dtls=disabled): Debian's libssl-dev:armhf/arm64 would install, but a static
# libcrypto alone is larger than the whole 2 MB goal; the boards run test rpm over
# http:// (h2c) and say "this build has no TLS" for https://.
set -euo pipefail

[ $# -ge 1 ] || { echo "usage: $0 armhf|arm64|native [MESON_OPTS...]" >&2; exit 2; }
arch=$1
shift
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

# arm64: segments aligned to 16 KB, not the linker's 64 KB, which only pads the file:
# arm64 kernels run 4 KB pages (Debian, Raspberry Pi OS) or 16 KB (the Pi 5's own).
page=
case "$arch" in
armhf) triplet=arm-linux-gnueabihf cross=(--cross-file "cross/armhf.ini") ;;
arm64) triplet=aarch64-linux-gnu cross=(--cross-file "cross/arm64.ini") page=16384 ;;
native) triplet=$(gcc -dumpmachine) cross=() ;;
*)
	echo "build-static: unknown ARCH \"$arch\" (armhf, arm64 or native)" >&2
	exit 2
	;;
esac
command -v "$triplet-gcc" >/dev/null || {
	echo "build-static: no $triplet-gcc (scripts/install-deps.sh cross installs it)" >&2
	exit 1
}

build=build-static-$arch
for lib in libjson-c.a libz.a libnghttp2.a; do
	[ -f "/usr/lib/$triplet/$lib" ] || {
		echo "build-static: no /usr/lib/$triplet/$lib (scripts/install-deps.sh cross)" >&2
		exit 1
	}
done

link="'-static','-Wl,--gc-sections'"
[ -z "$page" ] || link+=",'-Wl,-z,max-page-size=$page'"
if [ ! -f "$build/build.ninja" ]; then
	# release: -O3 would grow the binary for nothing a board notices; -O2 is enough.
	meson setup "$build" "${cross[@]}" \
		-Dbuildtype=release -Doptimization=2 \
		-Dtls=disabled -Ddefault_library=static -Dprefer_static=true -Dc_args="['-ffunction-sections','-fdata-sections']" \
		-Dc_link_args="[$link]" "$@" >"$top/$build.setup.log" 2>&1 || {
		cat "$top/$build.setup.log" >&2
		exit 1
	}
	mv "$top/$build.setup.log" "$build/setup.log"
fi
# glibc's static getaddrinfo/getpwnam warnings are expected: see README ("static builds").
ninja -C "$build" >"$build/ninja.log" 2>&1 || { tail -n 60 "$build/ninja.log" >&2; exit 1; }
grep -E 'warning: Using .* in statically linked' "$build/ninja.log" | sed -E 's/.*warning: /build-static: linker: /' |
	sort -u >&2 || true

mkdir -p "$build/bin"
"$triplet-strip" -o "$build/bin/debloat" "$build/debloat"
size=$(stat -c %s "$build/bin/debloat")
if readelf -d "$build/bin/debloat" 2>/dev/null | grep -q NEEDED; then
	echo "build-static: $build/bin/debloat is not static:" >&2
	readelf -d "$build/bin/debloat" | grep NEEDED >&2
	exit 1
fi
printf '%s/bin/debloat: %d bytes (%d KiB), static, stripped, %s\n' "$build" "$size" \
	$((size / 1024)) "$triplet"
# The goal: 2 MB. It was 1.5 MB until the binary took libnghttp2 for the responsiveness
# test (about 145 KB); arm64's code is about 40% larger than armhf's Thumb-2, and -Os
# with LTO saves only 5% of it (1610 KiB measured), so the goal moved rather than the
# optimization.
[ "$size" -le $((2048 * 1024)) ] ||
	echo "build-static: warning: $build/bin/debloat is over the 2 MB goal" >&2
