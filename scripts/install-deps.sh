#!/usr/bin/env bash
# install-deps.sh - install the Debian packages a make target needs, and only the missing ones.
#
#   scripts/install-deps.sh build   compiler, meson, ninja, json-c, zlib, libnghttp2,
#                                   libssl-dev (OpenSSL 3: https:// in test rpm; optional
#                                   to meson, left out of the static board builds)
#   scripts/install-deps.sh test    build + what the tests drive: iproute2, ethtool, procps,
#                                   scdoc and man-db (tests/test-install.sh), librsvg2-bin
#                                   and libxml2-utils (tests/test-plot.sh); curl, prometheus
#                                   (promtool) and prometheus-node-exporter
#                                   (tests/test-exporter.sh, bench/bench-exporter.sh); the
#                                   responsiveness test's peers (tests/test-rpm-nghttpd.sh,
#                                   test-rpm-server.sh, test-rpm-path.sh):
#                                   nghttp2-server (nghttpd), nghttp2-client, python3, and
#                                   openssl (the CLI: the certificates of test-rpm-tls.sh and
#                                   test-rpm-server.sh), tcpdump (the packets of a short
#                                   answer, test-rpm-server.sh); systemd
#                                   and udev (systemd.network(5), systemd.link(5) and udevadm
#                                   for tests/test-fix-emit.sh), python3-gi and gir1.2-nm-1.0
#                                   (NetworkManager's libnm, same test), ansible-core
#                                   (tests/test-ansible.sh); the benchmarks' anchors: iperf3,
#                                   irtt, rt-tests (cyclictest)
#   scripts/install-deps.sh fuzz    test + clang and its libFuzzer/sanitizer runtime
#   scripts/install-deps.sh cross   build + the armhf and arm64 cross toolchains, the
#                                   dependencies' -dev packages for both (multiarch),
#                                   and qemu-user
#   scripts/install-deps.sh install build + scdoc (man pages) and man-db (to render them)
#   scripts/install-deps.sh vm      cross + what tests/vm/vm-check.sh boots Debian's kernels
#                                   with: qemu-system-x86, busybox-static, cpio, kmod,
#                                   xz-utils, jq (the kernels themselves it downloads)
#   scripts/install-deps.sh kmod    build + what `make kmod` cross-builds the driver modules
#                                   with: gcc 12 for armhf and arm64 (the kernels' own
#                                   compiler), patch, xz-utils, kmod (modinfo); Debian's
#                                   kernel packages themselves it downloads
#   scripts/install-deps.sh kmod-check  kmod + what `make kmod-check` boots the fec module
#                                   with: qemu-system-arm, busybox-static, cpio, jq,
#                                   iproute2, and the armhf C library for its static prober
#
# Already-installed packages cost one dpkg-query each and no network. As root it
# runs apt-get (update once, then install); otherwise it names what is missing and fails.
set -euo pipefail

group=${1:-build}
build_pkgs=(gcc libc6-dev make meson ninja-build pkg-config libjson-c-dev zlib1g-dev libnghttp2-dev libssl-dev)
test_pkgs=(iproute2 ethtool procps kmod jq flent python3-matplotlib irtt iperf3 iputils-ping librsvg2-bin libxml2-utils rt-tests
	curl prometheus prometheus-node-exporter nghttp2-server nghttp2-client python3 openssl tcpdump
	systemd udev python3-gi gir1.2-nm-1.0 ansible-core)
fuzz_pkgs=(clang libclang-rt-14-dev)
install_pkgs=(scdoc man-db)
kmod_pkgs=(gcc-12-arm-linux-gnueabihf gcc-12-aarch64-linux-gnu patch xz-utils kmod)
kmod_check_pkgs=(qemu-system-arm busybox-static cpio jq iproute2 libc6-dev-armhf-cross)
vm_pkgs=(qemu-system-x86 qemu-system-arm busybox-static cpio kmod xz-utils zstd jq iproute2)
cross_arches=(armhf arm64)
cross_pkgs=(crossbuild-essential-armhf crossbuild-essential-arm64 qemu-user
	libjson-c-dev:armhf zlib1g-dev:armhf libnghttp2-dev:armhf
	libjson-c-dev:arm64 zlib1g-dev:arm64 libnghttp2-dev:arm64)

case "$group" in
build) want=("${build_pkgs[@]}") ;;
test) want=("${build_pkgs[@]}" "${test_pkgs[@]}" "${install_pkgs[@]}") ;;
fuzz) want=("${build_pkgs[@]}" "${test_pkgs[@]}" "${install_pkgs[@]}" "${fuzz_pkgs[@]}") ;;
install) want=("${build_pkgs[@]}" "${install_pkgs[@]}") ;;
cross) want=("${build_pkgs[@]}" "${cross_pkgs[@]}") ;;
vm) want=("${build_pkgs[@]}" "${cross_pkgs[@]}" "${vm_pkgs[@]}") ;;
kmod) want=("${build_pkgs[@]}" "${kmod_pkgs[@]}") ;;
kmod-check) want=("${build_pkgs[@]}" "${kmod_pkgs[@]}" "${kmod_check_pkgs[@]}") ;;
*)
	echo "usage: $0 build|test|fuzz|install|cross|vm|kmod|kmod-check" >&2
	exit 2
	;;
esac

command -v dpkg-query >/dev/null || {
	echo "install-deps: not a Debian system (no dpkg-query); install by hand: ${want[*]}" >&2
	exit 0
}

missing=()
for p in "${want[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[[ "$status" == *"install ok installed"* ]] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing Debian packages: ${missing[*]}" >&2
	echo "install-deps: run as root, or: sudo apt-get install ${missing[*]}" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
echo "install-deps: installing ${missing[*]}" >&2
if [ "$group" = cross ] || [ "$group" = vm ]; then
	# Multiarch: the ARM -dev packages install beside the host's, under
	# /usr/lib/<triplet>/. dpkg must know the architectures before apt-get update.
	for a in "${cross_arches[@]}"; do
		dpkg --print-foreign-architectures | grep -qx "$a" || dpkg --add-architecture "$a"
	done
fi
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
