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
#   scripts/install-deps.sh lint    git, shellcheck (scripts/check-shell.sh) and
#                                   clang-format (scripts/check-format.sh)
#   scripts/install-deps.sh vm      cross + what tests/vm/vm-check.sh boots Debian's kernels
#                                   with: qemu-system-x86, busybox-static, cpio, kmod,
#                                   xz-utils, jq (the kernels themselves it downloads)
#   scripts/install-deps.sh kmod    build + what `make kmod` cross-builds the driver modules
#                                   with: gcc 12 for armhf and arm64 (the kernels' own
#                                   compiler), patch, xz-utils, kmod (modinfo), dwarves
#                                   (pahole: the amd64 6.12 kernel's modules carry BTF);
#                                   Debian's kernel packages themselves it downloads
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
lint_pkgs=(git shellcheck clang-format)
kmod_pkgs=(gcc-12-arm-linux-gnueabihf gcc-12-aarch64-linux-gnu patch xz-utils kmod dwarves)
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
lint) want=("${lint_pkgs[@]}") ;;
cross) want=("${build_pkgs[@]}" "${cross_pkgs[@]}") ;;
vm) want=("${build_pkgs[@]}" "${cross_pkgs[@]}" "${vm_pkgs[@]}") ;;
kmod) want=("${build_pkgs[@]}" "${kmod_pkgs[@]}") ;;
kmod-check) want=("${build_pkgs[@]}" "${kmod_pkgs[@]}" "${kmod_check_pkgs[@]}") ;;
*)
	echo "usage: $0 build|test|fuzz|install|lint|cross|vm|kmod|kmod-check" >&2
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

# One index that fails to download (a mirror caught mid-sync: "File has unexpected
# size") must not stop the set-up: apt keeps the other indexes. Say which failed, go
# on, and fail below only if a package we want then has no candidate at all.
update_log=$(mktemp)
trap 'rm -f "$update_log"' EXIT
if ! apt-get update -qq >"$update_log" 2>&1; then
	failed_index=$(sed -nE 's/^E: Failed to fetch ([^ ]+) +(.*)/\1: \2/p' "$update_log" | sed -E 's/ *\[IP: [^]]*\]//' | sort -u)
	if [ -n "$failed_index" ]; then
		while IFS= read -r line; do
			echo "install-deps: apt-get update could not read $line; going on without that index" >&2
		done <<<"$failed_index"
	else
		sed 's/^/install-deps: apt-get update: /' "$update_log" >&2
	fi
fi

nocand=()
for p in "${missing[@]}"; do
	c=$(apt-cache policy "$p" 2>/dev/null | sed -nE 's/^ +Candidate: (.*)/\1/p')
	[ -n "$c" ] && [ "$c" != "(none)" ] || nocand+=("$p")
done
if [ ${#nocand[@]} -ne 0 ]; then
	echo "install-deps: no index offers ${nocand[*]}; the indexes that failed are named above (apt-get update)" >&2
	exit 1
fi

# Multi-Arch: same packages must have one version on every architecture. When a
# foreign architecture's index lacks the version the host has (its security index
# failed, or the host was installed from a newer snapshot), apt gives up ("Depends:
# zlib1g:armhf (= X) but it is not going to be installed"). Let apt name the packages
# in conflict, pin each on every architecture it is (or will be) installed for at the
# newest version all those architectures' indexes agree on (the main archive's, when
# one security index is missing), and ask again; a few rounds settle it.
native=$(dpkg --print-architecture)
# The versions of package $1 the index of architecture $2 offers, one a line.
versions_of() {
	apt-cache madison "$1:$2" 2>/dev/null | awk -F'|' -v a=" $2 Packages" '
		index($3, a) { v = $2; gsub(/ /, "", v); print v }'
}
# The newest version of package $1 every architecture in $2... offers, or nothing.
# One apt-cache call per architecture: each loads the whole cache.
common_version() {
	local name=$1 best="" v a common
	shift
	common=$(versions_of "$name" "$1")
	for a in "${@:2}"; do
		common=$(grep -xF -f <(versions_of "$name" "$a") <<<"$common" || true)
	done
	while IFS= read -r v; do
		[ -n "$v" ] || continue
		if [ -z "$best" ] || dpkg --compare-versions "$v" gt "$best"; then best=$v; fi
	done <<<"$common"
	printf '%s\n' "$best"
}
pins=()
opts=(-y --no-install-recommends --allow-downgrades)
for _round in 1 2 3 4 5 6 7 8; do
	# Without -qq: apt names the conflicts only then. A plan that removes a package
	# counts as failed (the real install below runs with --no-remove).
	if sim=$(apt-get install -s "${opts[@]}" "${missing[@]}" "${pins[@]}" 2>&1) &&
		! grep -q '^The following packages will be REMOVED' <<<"$sim"; then
		break
	fi
	# " libc6-dev:armhf : Depends: linux-libc-dev:armhf but ..." and its continuation
	# lines name both sides of each conflict.
	named=$(sed -nE 's/^ ([^ ]+) : (Pre)?Depends: ([^ ]+).*/\1\n\3/p; s/^ +(Pre)?Depends: ([^ ]+).*/\2/p; s/^ ([^ ]+) : Breaks: ([^ ]+).*/\1\n\2/p' <<<"$sim" |
		sed -E 's/:[a-z0-9]+$//' | sort -u)
	added=0
	for name in $named; do
		[ "$(dpkg-query -W -f='${Multi-Arch}' "$name:$native" 2>/dev/null || apt-cache show --no-all-versions "$name:$native" 2>/dev/null | sed -nE 's/^Multi-Arch: //p' | head -n 1)" = same ] || continue
		arches=("$native")
		for a in "${cross_arches[@]}"; do
			if grep -qE "(^| )$name:$a( |$)" <<<"$sim ${missing[*]}" ||
				[[ "$(dpkg-query -W -f='${Status}' "$name:$a" 2>/dev/null || true)" == *"install ok installed"* ]]; then
				arches+=("$a")
			fi
		done
		[ ${#arches[@]} -gt 1 ] || continue
		v=$(common_version "$name" "${arches[@]}")
		if [ -z "$v" ]; then
			echo "install-deps: no version of $name is offered for all of ${arches[*]}" >&2
			continue
		fi
		for a in "${arches[@]}"; do
			[[ " ${pins[*]} " == *" $name:$a=$v "* ]] && continue
			pins+=("$name:$a=$v")
			added=1
		done
	done
	# A host package that would be removed because a library it needs moved to the
	# version every architecture agrees on (libssl-dev beside libssl3) moves with it.
	removed=$(sed -n '/^The following packages will be REMOVED/,/^[^ ]/{/^ /p}' <<<"$sim" | tr ' ' '\n' | sed -E 's/:[a-z0-9]+$//; /^$/d' | sort -u)
	for name in $removed; do
		have=$(versions_of "$name" "$native")
		for pin in "${pins[@]}"; do
			v=${pin#*=}
			grep -qxF "$v" <<<"$have" || continue
			[[ " ${pins[*]} " == *" $name:$native=$v "* ]] && break
			pins+=("$name:$native=$v")
			added=1
			break
		done
	done
	[ $added -eq 1 ] || break
done
if [ ${#pins[@]} -ne 0 ]; then
	echo "install-deps: one version on every architecture: ${pins[*]}" >&2
fi
apt-get install -qq --no-remove "${opts[@]}" "${missing[@]}" "${pins[@]}" >/dev/null
