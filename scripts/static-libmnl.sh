#!/usr/bin/env bash
# static-libmnl.sh - a static libmnl for one architecture, for `make static`.
#
#   scripts/static-libmnl.sh TRIPLET PREFIX
#
# Debian's libmnl-dev (every architecture) ships libmnl.so and no libmnl.a, unlike
# libjson-c-dev and zlib1g-dev. So the static builds link cross/libmnl-subset.c: our
# own implementation (MIT, written from libmnl's documented API, not its source) of
# the few libmnl functions debloat calls, compiled against the multiarch libmnl-dev's
# header so the two cannot drift apart. Normal builds link Debian's libmnl.so.
# Installs into PREFIX (lib/libmnl.a, lib/pkgconfig/libmnl.pc) for meson's
# pkg_config_path; nothing goes into the system. Does nothing if PREFIX has it.
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 TRIPLET PREFIX" >&2; exit 2; }
triplet=$1
prefix=$(realpath -m "$2")
top=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$prefix/lib/libmnl.a" ] && [ -f "$prefix/lib/pkgconfig/libmnl.pc" ] && exit 0

obj=$prefix/obj
rm -rf "$obj" && mkdir -p "$obj" "$prefix/lib/pkgconfig"
"$triplet-gcc" -std=c11 -D_GNU_SOURCE -Os -Wall -Wextra -c "$top/cross/libmnl-subset.c" \
	-o "$obj/libmnl-subset.o"
rm -f "$prefix/lib/libmnl.a"
"$triplet-ar" rcs "$prefix/lib/libmnl.a" "$obj/libmnl-subset.o"
cat >"$prefix/lib/pkgconfig/libmnl.pc" <<PC
prefix=$prefix
libdir=\${prefix}/lib
includedir=/usr/include

Name: libmnl
Description: the libmnl functions debloat calls (cross/libmnl-subset.c), static
Version: 1.0.4
Libs: -L\${libdir} -lmnl
Cflags: -I\${includedir}
PC
