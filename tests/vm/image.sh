#!/usr/bin/env bash
# image.sh - a boot image for one of Debian's kernels: its vmlinuz and an initramfs of
# busybox-static, the kernel's modules the guest checks need, our static binary and
# the guest's script. Debian packages only; downloads are cached.
#
#   tests/vm/image.sh KERNEL DEBLOAT GUEST_SCRIPT OUTDIR
#
# KERNEL is one of the pinned kernels (kernels.txt, or the file VM_KERNELS names:
# NAME PACKAGE PATTERN ...), whose
# name begins with its Debian architecture (amd64-, armhf-, arm64-): the named
# package is fetched with `apt-get download PACKAGE:ARCH` into $DEBLOAT_VM_CACHE
# (default /var/cache/debloat-vm) once; when Debian no longer carries it, the newest
# package matching PATTERN is taken, and the choice is printed. Leaves OUTDIR/vmlinuz,
# OUTDIR/initrd.gz and OUTDIR/kernel (the package and version used), and
# OUTDIR/board.dtb when the kernel's MODE has the word "fec". (For a MODE with
# "reboot", vm-check.sh later appends a second cpio of boot 1's /etc/debloat to a copy
# of initrd.gz: a newc archive, as here.) DEBLOAT must be
# a static binary for that architecture; busybox is the host's for its own
# architecture, else busybox-static:ARCH downloaded the same way.
#
# The initramfs: /init (the guest script), /bin/busybox with its applets, /bin/debloat,
# /lib/modules/VERSION with the modules below and what they depend on (uncompressed,
# depmod run over them), so that the kernel's own request_module() of a qdisc finds
# /sbin/modprobe as /proc/sys/kernel/modprobe says.
# shellcheck disable=SC2012 # ls picks among Debian's package and module directory names (no blanks)
set -euo pipefail

[ $# -eq 4 ] || { echo "usage: $0 KERNEL DEBLOAT GUEST_SCRIPT OUTDIR" >&2; exit 2; }
name=$1 debloat=$2 guest=$3 out=$4
here=$(cd "$(dirname "$0")" && pwd)
cache=${DEBLOAT_VM_CACHE:-/var/cache/debloat-vm}
mkdir -p "$cache" "$out"

# VM_KERNELS: another list of the same form (tests/kmod/kernels.txt).
kernels=${VM_KERNELS:-$here/kernels.txt}
line=$(awk -v n="$name" '$1 == n' "$kernels")
[ -n "$line" ] || { echo "image: unknown kernel \"$name\" ($kernels)" >&2; exit 2; }
read -r _ pkg pattern modules mode _ <<<"$line"
arch=${name%%-*}
host_arch=$(dpkg --print-architecture)

# The package: pinned, else the newest of its line that Debian carries.
deb=$(ls "$cache/${pkg}_"*.deb 2>/dev/null | head -n 1 || true)
if [ -z "$deb" ]; then
	if ! (cd "$cache" && apt-get download "$pkg:$arch" >/dev/null 2>&1); then
		alt=$(apt-cache search --names-only "$pattern" 2>/dev/null | awk '{ print $1 }' | sort -V | tail -n 1)
		[ -n "$alt" ] || { echo "image: Debian carries neither $pkg nor anything like $pattern" >&2; exit 1; }
		echo "image: $pkg is gone from Debian's archive; using $alt" >&2
		pkg=$alt
		(cd "$cache" && apt-get download "$pkg:$arch" >/dev/null 2>&1) ||
			{ echo "image: cannot download $pkg" >&2; exit 1; }
	fi
	deb=$(ls "$cache/${pkg}_"*.deb | head -n 1)
fi
tree=$cache/tree-$(basename "$deb" .deb)
if [ ! -d "$tree/lib/modules" ]; then
	rm -rf "$tree.tmp"
	mkdir -p "$tree.tmp"
	dpkg-deb -x "$deb" "$tree.tmp"
	mv "$tree.tmp" "$tree"
fi
kver=$(ls "$tree/lib/modules" | head -n 1)
cp "$tree/boot/vmlinuz-$kver" "$out/vmlinuz"
# A board's own machine needs its device tree (the Wandboard's i.MX6: sabrelite's).
if [[ ,${mode:-}, == *,fec,* ]]; then
	cp "$tree/usr/lib/linux-image-$kver/imx6q-sabrelite.dtb" "$out/board.dtb"
elif [[ ,${mode:-}, == *,usbnet,* ]]; then # the Raspberry Pi 3B's, under -M raspi3b
	cp "$tree/usr/lib/linux-image-$kver/broadcom/bcm2837-rpi-3-b.dtb" "$out/board.dtb"
fi
echo "$pkg $kver" >"$out/kernel"

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,proc,sys,dev,tmp,run,var/lib,etc,lib/modules/"$kver"}
if [ "$arch" = "$host_arch" ]; then
	cp /bin/busybox "$root/bin/busybox"
else
	bb=$(ls "$cache"/busybox-static_*_"$arch".deb 2>/dev/null | head -n 1 || true)
	if [ -z "$bb" ]; then
		(cd "$cache" && apt-get download "busybox-static:$arch" >/dev/null 2>&1) ||
			{ echo "image: cannot download busybox-static:$arch" >&2; exit 1; }
		bb=$(ls "$cache"/busybox-static_*_"$arch".deb | head -n 1)
	fi
	dpkg-deb --fsys-tarfile "$bb" | tar -xO ./bin/busybox >"$root/bin/busybox"
	chmod +x "$root/bin/busybox"
fi
# The applets, as the host's busybox of the same Debian release names them.
for a in $(/bin/busybox --list); do
	[ -e "$root/bin/$a" ] || ln -s busybox "$root/bin/$a"
done
ln -s ../bin/busybox "$root/sbin/modprobe"
cp "$debloat" "$root/bin/debloat"
cp "$guest" "$root/init"
chmod +x "$root/init"

# The modules asked for, with their dependencies (modules.dep of a depmod over the
# package's tree, made once), uncompressed.
if [ ! -f "$tree/lib/modules/$kver/modules.dep" ]; then
	depmod -b "$tree" "$kver"
fi
# The modules.dep line of module NAME ("path.ko.xz: dep.ko.xz ..."), or nothing.
dep_line() {
	awk -F: -v m="$1" '{ n = $1; sub(/.*\//, "", n); sub(/\.ko(\.xz|\.zst|\.gz)?$/, "", n);
		gsub(/-/, "_", n); if (n == m) { print $0; exit } }' "$tree/lib/modules/$kver/modules.dep"
}
want=() ghosts=()
for m in ${modules//,/ }; do
	path=$(dep_line "${m#-}")
	[ -n "$path" ] || { echo "image: $kver has no module ${m#-} (built in?)" >&2; continue; }
	if [ "${m#-}" != "$m" ]; then # listed, its file left out: the kernel cannot load it
		path=${path%%:*}
		path=${path%.xz} path=${path%.zst} path=${path%.gz}
		ghosts+=("$path")
		continue
	fi
	for f in ${path//:/ }; do want+=("$f"); done
done
for f in $(printf '%s\n' "${want[@]}" | sort -u); do
	mkdir -p "$root/lib/modules/$kver/$(dirname "$f")"
	case "$f" in
	*.xz) xz -dc "$tree/lib/modules/$kver/$f" >"$root/lib/modules/$kver/${f%.xz}" ;;
	*.zst) zstd -qdc "$tree/lib/modules/$kver/$f" >"$root/lib/modules/$kver/${f%.zst}" ;;
	*) cp "$tree/lib/modules/$kver/$f" "$root/lib/modules/$kver/$f" ;;
	esac
done
cp "$tree/lib/modules/$kver/modules.builtin" "$tree/lib/modules/$kver/modules.order" \
	"$root/lib/modules/$kver/" 2>/dev/null || true
depmod -b "$root" "$kver"
for g in "${ghosts[@]}"; do
	[ -n "$g" ] && echo "$g:" >>"$root/lib/modules/$kver/modules.dep"
done
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$out/initrd.gz"
