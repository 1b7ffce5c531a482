#!/usr/bin/env bash
# install-deps.sh - install the Debian packages a make target needs, and only the missing ones.
#
#   scripts/install-deps.sh build   compiler, meson, ninja, libmnl, json-c, zlib
#   scripts/install-deps.sh test    build + what the tests drive: iproute2, ethtool, procps
#   scripts/install-deps.sh fuzz    test + clang and its libFuzzer/sanitizer runtime
#
# Already-installed packages cost one dpkg-query each and no network. As root it
# runs apt-get (update once, then install); otherwise it names what is missing and fails.
set -euo pipefail

group=${1:-build}
build_pkgs=(gcc libc6-dev make meson ninja-build pkg-config libmnl-dev libjson-c-dev zlib1g-dev)
test_pkgs=(iproute2 ethtool procps kmod jq flent python3-matplotlib irtt iperf3)
fuzz_pkgs=(clang libclang-rt-14-dev)

case "$group" in
build) want=("${build_pkgs[@]}") ;;
test) want=("${build_pkgs[@]}" "${test_pkgs[@]}") ;;
fuzz) want=("${build_pkgs[@]}" "${test_pkgs[@]}" "${fuzz_pkgs[@]}") ;;
*)
	echo "usage: $0 build|test|fuzz" >&2
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

echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
