#!/usr/bin/env bash
# test-install-deps.sh - scripts/install-deps.sh against a Debian archive that is half
# broken, as a fresh machine meets it, with apt-get, apt-cache, dpkg-query, dpkg and id
# replaced by small fakes on PATH (no root, no network, nothing installed):
#
#	apt-get update fails one index (bookworm-security armhf, "unexpected size")
#	                              -> names that index and goes on
#	the host has zlib1g and linux-libc-dev from security; the armhf index only has
#	the main archive's versions   -> both architectures installed at main's version,
#	                                 never with a removal (--no-remove)
#	libssl3 moves down, libssl-dev beside it would be removed
#	                              -> libssl-dev moves with it
#	a wanted package no index offers
#	                              -> exit 1, naming it and the failed index
#	everything installed already  -> no apt-get at all
# run.sh: parallel
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

fake=$(mktemp -d)
trap 'rm -rf "$fake"; cleanup' EXIT
export FAKE=$fake

# The archive: "name arch version" rows the fake apt-cache madison answers from.
cat >"$fake/index" <<'EOF'
zlib1g amd64 1:1.2.13.dfsg-1+deb12u1
zlib1g amd64 1:1.2.13.dfsg-1
zlib1g armhf 1:1.2.13.dfsg-1
zlib1g arm64 1:1.2.13.dfsg-1+deb12u1
zlib1g arm64 1:1.2.13.dfsg-1
zlib1g-dev amd64 1:1.2.13.dfsg-1+deb12u1
zlib1g-dev amd64 1:1.2.13.dfsg-1
zlib1g-dev armhf 1:1.2.13.dfsg-1
zlib1g-dev arm64 1:1.2.13.dfsg-1
linux-libc-dev amd64 6.1.192-3
linux-libc-dev amd64 6.1.176-1
linux-libc-dev armhf 6.1.176-1
linux-libc-dev arm64 6.1.192-3
linux-libc-dev arm64 6.1.176-1
libssl3 amd64 3.0.22-1~deb12u2
libssl3 amd64 3.0.20-1~deb12u2
libssl3 armhf 3.0.20-1~deb12u2
libssl3 arm64 3.0.20-1~deb12u2
libssl-dev amd64 3.0.22-1~deb12u2
libssl-dev amd64 3.0.20-1~deb12u2
EOF
# What the host has: "name:arch version multi-arch".
cat >"$fake/installed" <<'EOF'
gcc:amd64 12.2.0-3 no
zlib1g:amd64 1:1.2.13.dfsg-1+deb12u1 same
zlib1g-dev:amd64 1:1.2.13.dfsg-1+deb12u1 same
linux-libc-dev:amd64 6.1.192-3 same
libssl3:amd64 3.0.22-1~deb12u2 same
libssl-dev:amd64 3.0.22-1~deb12u2 same
EOF

cat >"$fake/id" <<'EOF'
#!/bin/sh
echo 0
EOF
cat >"$fake/dpkg" <<'EOF'
#!/bin/sh
case "$1" in
--print-architecture) echo amd64 ;;
--print-foreign-architectures) printf 'armhf\narm64\n' ;;
--add-architecture) ;;
*) exec /usr/bin/dpkg "$@" ;;
esac
EOF
# dpkg-query -W -f=FORMAT NAME[:ARCH]
cat >"$fake/dpkg-query" <<'EOF'
#!/bin/sh
fmt=$2 name=$3
case "$name" in *:*) ;; *) name=$name:amd64 ;; esac
row=$(grep "^$name " "$FAKE/installed") || exit 1
case "$fmt" in
*Status*) echo "install ok installed" ;;
*Multi-Arch*) echo "$row" | cut -d' ' -f3 ;;
*Version*) echo "$row" | cut -d' ' -f2 ;;
esac
EOF
cat >"$fake/apt-cache" <<'EOF'
#!/bin/sh
case "$1" in
policy)
	n=${2%%:*}
	if [ -n "${FAKE_NOCAND:-}" ] && [ "$n" = "$FAKE_NOCAND" ]; then
		echo "  Candidate: (none)"
	else
		echo "  Candidate: 1"
	fi
	;;
madison)
	n=${2%%:*} a=${2#*:}
	grep "^$n $a " "$FAKE/index" | while read -r _ _ v; do
		echo "$n | $v | http://deb.example/debian bookworm/main $a Packages"
	done
	;;
show) ;;
esac
EOF
# apt-get: update fails one index; install -s plays apt's resolver for the three
# conflicts above; a real install records its arguments.
cat >"$fake/apt-get" <<'EOF'
#!/bin/bash
echo "apt-get $*" >>"$FAKE/calls"
case "$1" in
update)
	echo "E: Failed to fetch http://deb.example/debian-security/dists/bookworm-security/main/binary-armhf/Packages.xz  File has unexpected size (356624 != 356976). Mirror sync in progress? [IP: 192.0.2.1 80]" >&2
	exit 100
	;;
esac
args=" $* "
if [ "$2" = -s ]; then
	ok=1
	if [[ "$args" != *" linux-libc-dev:amd64=6.1.176-1 "* || "$args" != *" linux-libc-dev:armhf=6.1.176-1 "* ]]; then
		echo " libc6-dev:armhf : Depends: linux-libc-dev:armhf but it is not going to be installed"
		ok=0
	fi
	if [[ "$args" != *" zlib1g:armhf=1:1.2.13.dfsg-1 "* ]]; then
		echo " zlib1g-dev:armhf : Depends: zlib1g:armhf (= 1:1.2.13.dfsg-1) but it is not going to be installed"
		ok=0
	fi
	if [[ "$args" != *" libssl3:armhf=3.0.20-1~deb12u2 "* ]]; then
		echo " libkrb5-3:armhf : Depends: libssl3:armhf (>= 3.0.0) but it is not going to be installed"
		ok=0
	fi
	[ $ok -eq 1 ] || exit 100
	if [[ "$args" != *" libssl-dev:amd64=3.0.20-1~deb12u2 "* ]]; then
		printf 'The following packages will be REMOVED:\n  libssl-dev\nThe following NEW packages will be installed:\n  libc6:armhf\n'
	fi
	exit 0
fi
echo "$*" >"$FAKE/installed-with"
EOF
chmod +x "$fake"/*
export PATH="$fake:$PATH"
deps="$TOP/scripts/install-deps.sh"

run "$deps" cross
assert_status "a failed index does not stop the set-up" 0
assert_contains "the failed index is named" "$ERR" \
	"could not read http://deb.example/debian-security/dists/bookworm-security/main/binary-armhf/Packages.xz: File has unexpected size"
assert_not_contains "the mirror's address is not echoed" "$ERR" "IP:"
with=$(cat "$fake/installed-with" 2>/dev/null || true)
assert_contains "the armhf -dev packages are installed" "$with" "zlib1g-dev:armhf"
for pin in linux-libc-dev:amd64=6.1.176-1 linux-libc-dev:armhf=6.1.176-1 \
	zlib1g:amd64=1:1.2.13.dfsg-1 zlib1g:armhf=1:1.2.13.dfsg-1 \
	libssl3:amd64=3.0.20-1~deb12u2 libssl3:armhf=3.0.20-1~deb12u2; do
	assert_contains "both architectures at the version both offer: $pin" " $with " " $pin "
done
assert_contains "a host package that would be removed moves with its library" " $with " \
	" libssl-dev:amd64=3.0.20-1~deb12u2 "
assert_contains "the real install never removes a package" "$with" "--no-remove"
assert_contains "downgrades to the common version are allowed" "$with" "--allow-downgrades"
assert_contains "the pins are said" "$ERR" "one version on every architecture:"

rm -f "$fake/installed-with" "$fake/calls"
FAKE_NOCAND=libnghttp2-dev run "$deps" cross
assert_status "a wanted package no index offers fails" 1
assert_contains "it names the package" "$ERR" "no index offers libnghttp2-dev"
assert_true "and installs nothing" test ! -e "$fake/installed-with"

rm -f "$fake/calls"
printf 'gcc:amd64 12 no\nlibc6-dev:amd64 2 same\nmake:amd64 4 no\nmeson:amd64 1 no\nninja-build:amd64 1 no\npkg-config:amd64 1 no\nlibjson-c-dev:amd64 1 same\nzlib1g-dev:amd64 1 same\nlibnghttp2-dev:amd64 1 same\nlibssl-dev:amd64 1 same\n' >"$fake/installed"
run "$deps" build
assert_status "everything there: success" 0
assert_true "everything there: no apt-get at all" test ! -e "$fake/calls"

finish
