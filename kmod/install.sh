#!/usr/bin/env bash
# install.sh - our BQL drivers built on the board itself, for a kernel installed there
# (`make -C kmod install`, and DKMS through kmod/dkms.conf). docs/drivers.md.
#
#   kmod/install.sh install [MODULE...]      build for the running kernel, install into
#                                            the store /lib/debloat/RELEASE/
#   kmod/install.sh uninstall                remove what install put there
#   kmod/install.sh build RELEASE OUT [MODULE...]
#                                            build only, leaving OUT/MODULE.ko (DKMS)
#
# MODULE defaults to every module of kmod/modules.txt whose driver the kernel ships as a
# module (lan78xx on a Raspberry Pi 3B+, fec on a Wandboard, ...). Needs the kernel's
# headers (/lib/modules/RELEASE/build) and the driver's source: KSRC=DIR (a kernel tree
# of the same version), else Debian's linux-source-X.Y (/usr/src/linux-source-X.Y.tar.xz,
# unpacked once into DEBLOAT_KMOD_CACHE, default /var/cache/debloat-kmod). Says which
# package brings what is missing. Nothing is loaded: replacing a NIC's driver cuts that
# NIC's traffic for a moment, so the last lines say how, for the operator to choose when.
#
# The store is outside the tree depmod reads (/lib/modules/RELEASE), so the kernel's own
# module stays the one modprobe loads at boot: `debloat fix --driver IFACE` loads ours
# from the store, `debloat undo` puts the kernel's back, and `--persist` makes ours the
# boot one with a depmod.d override (docs/design/driver-swap.md). An older install.sh
# put ours under updates/debloat/, which depmod prefers: install moves it to the store.
# shellcheck disable=SC2012 # ls lists our own patch series (no blanks)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${DEBLOAT_KMOD_CACHE:-/var/cache/debloat-kmod}
libmod=${KMOD_LIBMODULES:-/lib/modules} # another root only for tests
store_root=$(dirname "$libmod")/debloat # the store: host/kmod.h reads the same place
etc=${KMOD_ETC:-/etc}                   # another root only for tests

die() {
	echo "kmod: $*" >&2
	exit 1
}

# depmod for a release, on the tree install works on.
depmod_rel() { # RELEASE
	if [ "$libmod" = /lib/modules ]; then
		depmod -a "$1"
	else
		depmod -a -b "$(dirname "$(dirname "$libmod")")" "$1"
	fi
}

# Raspberry Pi OS names its kernels 6.6.51+rpt-rpi-v8, 6.1.21-v7+, ...
is_pi_kernel() { [[ $1 == *+rpt* || $1 == *-v7* || $1 == *-v8* || $1 == *-v6* ]] || [ -e /etc/rpi-issue ]; }

headers_pkg() { # RELEASE
	if is_pi_kernel "$1"; then
		echo "raspberrypi-kernel-headers (or linux-headers-rpi-v8 / linux-headers-rpi-v7 on newer releases)"
	else
		echo "linux-headers-$1"
	fi
}

# The module names kmod/modules.txt knows, or only those given.
wanted() { # RELEASE [MODULE...]
	local rel=$1 m
	shift
	if [ $# -gt 0 ]; then
		for m in "$@"; do
			awk -v m="$m" '$1 == m { f = 1 } END { exit !f }' "$here/modules.txt" ||
				die "unknown module \"$m\" (kmod/modules.txt has: $(awk '!/^#/ && NF { printf "%s ", $1 }' "$here/modules.txt"))"
			echo "$m"
		done
		return
	fi
	# shellcheck disable=SC2013 # one module name (no blanks) per word
	for m in $(awk '!/^#/ && NF { print $1 }' "$here/modules.txt"); do
		[ -z "$(find "$libmod/$rel/kernel" -name "$m.ko*" -print -quit 2>/dev/null)" ] || echo "$m"
	done
}

# The driver sources: KSRC, or the folders the modules need from linux-source-X.Y.
source_root() { # SERIES RELEASE
	local series=$1 rel=$2 tarball dir dirs
	if [ -n "${KSRC:-}" ]; then
		[ -d "$KSRC/drivers" ] || die "KSRC=$KSRC is not a kernel source tree (no drivers/)"
		echo "$KSRC"
		return
	fi
	tarball=/usr/src/linux-source-$series.tar.xz
	if [ ! -f "$tarball" ]; then
		if is_pi_kernel "$rel"; then
			die "no source for Linux $series: Raspberry Pi OS has no linux-source package; give KSRC=DIR, \
a checkout of github.com/raspberrypi/linux at the commit of the running kernel"
		fi
		die "no source for Linux $series: install linux-source-$series (apt install linux-source-$series), or give KSRC=DIR"
	fi
	dir=$cache/src-local-$series-$(stat -c %Y "$tarball")
	if [ ! -f "$dir/.done" ]; then
		dirs=$(awk '!/^#/ && NF { print "linux-source-'"$series"'/" $2 }' "$here/modules.txt" | sort -u)
		rm -rf "$dir" && mkdir -p "$dir"
		echo "kmod: unpacking the drivers from $tarball (once)" >&2
		# shellcheck disable=SC2086
		tar -xJf "$tarball" -C "$dir" --strip-components=1 $dirs
		touch "$dir/.done"
	fi
	# Debian's source package and the running kernel should be the same upload.
	local have want
	have=$(dpkg-query -W -f='${Version}' "linux-source-$series" 2>/dev/null || true)
	want=$(sed -n 's/.*Debian \([^ )]*\).*/\1/p' /proc/version 2>/dev/null || true)
	if [ -n "$have" ] && [ -n "$want" ] && [ "$have" != "$want" ] && [ "$rel" = "$(uname -r)" ]; then
		echo "kmod: warning: linux-source-$series is $have, the running kernel is $want: upgrade both to the same version" >&2
	fi
	echo "$dir"
}

build() { # RELEASE OUT [MODULE...]
	local rel=$1 out=$2 series kdir src m n=0
	shift 2
	series=$(echo "$rel" | sed -n 's/^\([0-9]*\.[0-9]*\).*/\1/p')
	kdir=$libmod/$rel/build
	[ -f "$kdir/Makefile" ] || die "no headers for $rel ($kdir): install $(headers_pkg "$rel")"
	[ -d "$here/patches/$series" ] || die "no patches for Linux $series here (kmod/patches has: $(ls "$here/patches" | tr '\n' ' '))"
	mapfile -t mods < <(wanted "$rel" "$@")
	[ ${#mods[@]} -gt 0 ] || die "this kernel ships none of the drivers kmod/ patches as a module"
	src=$(source_root "$series" "$rel")
	mkdir -p "$out"
	for m in "${mods[@]}"; do
		"$here/prepare.sh" "$m" "$src" "$series" "$out/.work/$m" ||
			die "$m: our patch does not apply to this source (a different kernel version?)"
		if ! make -C "$kdir" M="$out/.work/$m" modules >"$out/.work/$m/build.log" 2>&1; then
			tail -n 15 "$out/.work/$m/build.log" >&2
			die "$m: the build failed (log: $out/.work/$m/build.log)"
		fi
		cp "$out/.work/$m/$m.ko" "$out/$m.ko"
		echo "kmod: built $m.ko for $rel"
		n=$((n + 1))
	done
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
build)
	[ $# -ge 2 ] || die "usage: install.sh build RELEASE OUT [MODULE...]"
	build "$@"
	;;
install)
	[ "$(id -u)" -eq 0 ] || die "install writes $store_root: run it as root (sudo make -C kmod install)"
	rel=$(uname -r)
	dest=$store_root/$rel
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	build "$rel" "$tmp" "$@"
	mkdir -p "$dest"
	for ko in "$tmp"/*.ko; do
		install -m 0644 "$ko" "$dest/"
		echo "kmod: installed $dest/$(basename "$ko")"
	done
	# The upgrade: an older install.sh put ours under updates/debloat/, which depmod
	# prefers at every boot; the store replaces it.
	if [ -d "$libmod/$rel/updates/debloat" ]; then
		rm -rf "$libmod/$rel/updates/debloat"
		depmod_rel "$rel"
		echo "kmod: removed $libmod/$rel/updates/debloat (an older install, which depmod"
		echo "      preferred at every boot): the kernel's own drivers load at boot again"
	fi
	if [ -d "$libmod/$rel/updates/dkms" ]; then
		echo "kmod: note: DKMS installed modules under $libmod/$rel/updates/dkms, which depmod"
		echo "      prefers: those load at every boot (dkms remove debloat-bql/1 --all stops it)"
	fi
	echo "kmod: the kernel's own drivers still load at boot. To switch a NIC now (it cuts"
	echo "      that NIC's traffic for a moment; from a console, not over an SSH session on it):"
	echo "        debloat fix --driver IFACE            (debloat undo puts the kernel's back)"
	echo "        debloat fix --driver IFACE --persist  (and ours at every boot, until undo)"
	echo "kmod: then measure: debloat audit IFACE (BQL in use), debloat prove (docs/drivers.md)"
	;;
uninstall)
	[ "$(id -u)" -eq 0 ] || die "uninstall writes $store_root: run it as root"
	rel=$(uname -r)
	for conf in "$etc"/depmod.d/debloat-*.conf; do
		[ -e "$conf" ] || continue
		die "$conf makes ours load at boot (fix --driver --persist): run \`debloat undo\` first"
	done
	rm -rf "${store_root:?}/$rel"
	rmdir "$store_root" 2>/dev/null || true
	echo "kmod: removed $store_root/$rel"
	if [ -d "$libmod/$rel/updates/debloat" ]; then
		rm -rf "$libmod/$rel/updates/debloat"
		depmod_rel "$rel"
		echo "kmod: removed $libmod/$rel/updates/debloat (an older install); the kernel's own drivers load next time"
	fi
	;;
*)
	die "usage: install.sh install [MODULE...] | uninstall | build RELEASE OUT [MODULE...]"
	;;
esac
