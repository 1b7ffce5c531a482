#!/usr/bin/env bash
# test-kernel-diff.sh - libdebloat against the kernel's own code, decision for decision
# (docs/design/kernel-fidelity.md).
#
#   Debian's linux-source-6.12 package  --(the few files needed, in a temp dir)-->
#   kernel CoDel, DQL, fq_codel and ptr_ring + our shims (tests/kdiff/shim) + libdebloat  -->  tests/kdiff/*-diff
#
# fq_codel: the kernel's enqueue and dequeue paths taken out of sch_fq_codel.c (the rest
# of the file is netlink and statistics); pfifo_fast: its bands, the kernel's ptr_ring,
# driven as sch_generic.c drives them.
#
# The package (about 150 MB) is downloaded once into a cache outside the tree
# (DEBLOAT_KSRC_CACHE, default /var/cache/debloat-ksrc) and reused; nothing of it
# enters the repository. Without it (no root, no registry) the test says so and skips.
# KDIFF_TRACES sets the number of seeded traces per algorithm (default 2000).
# run.sh: parallel
# shellcheck disable=SC2012 # ls picks among Debian's .deb file names (no blanks), sort -V orders them
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

require_cmd gcc tar xz dpkg-deb
cache=${DEBLOAT_KSRC_CACHE:-/var/cache/debloat-ksrc}
want=6.12.118-1~deb12u1
traces=${KDIFF_TRACES:-2000}
lib="$BUILD/lib/libdebloat.a"
[ -f "$lib" ] || skip "no $lib: build first"

deb=$(ls "$cache"/linux-source-6.12_*.deb 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$deb" ]; then
	[ "$(id -u)" -eq 0 ] || skip "no linux-source-6.12 in $cache, and not root to download it"
	mkdir -p "$cache"
	(cd "$cache" && apt-get download -q "linux-source-6.12=$want" >/dev/null 2>&1 ||
		apt-get download -q linux-source-6.12 >/dev/null 2>&1) ||
		skip "linux-source-6.12 cannot be downloaded here (apt-get download failed)"
	deb=$(ls "$cache"/linux-source-6.12_*.deb 2>/dev/null | sort -V | tail -n 1 || true)
	[ -n "$deb" ] || skip "linux-source-6.12 did not arrive in $cache"
fi
version=$(dpkg-deb -f "$deb" Version)
pass "kernel source: Debian linux-source-6.12 $version ($deb)"

dir=$(mktemp -d)
trap 'rm -rf "$dir"; cleanup' EXIT
if ! dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dir" --wildcards '*/linux-source-6.12.tar.xz'; then
	fail "the package holds no linux-source-6.12.tar.xz"
	finish
fi
mkdir -p "$dir/k/net" "$dir/k/linux"
k=linux-source-6.12
tar -xJf "$dir/usr/src/$k.tar.xz" -C "$dir" $k/include/net/codel.h $k/include/net/codel_impl.h \
	$k/include/linux/dynamic_queue_limits.h $k/lib/dynamic_queue_limits.c \
	$k/include/linux/ptr_ring.h $k/include/net/codel_qdisc.h $k/net/sched/sch_fq_codel.c
rm -f "$dir/usr/src/$k.tar.xz"
cp "$dir"/$k/include/net/codel*.h "$dir/k/net/"
cp "$dir"/$k/include/linux/dynamic_queue_limits.h "$dir"/$k/include/linux/ptr_ring.h "$dir/k/linux/"

# compare NAME WHAT [CFLAGS and extra sources...]: build tests/kdiff/NAME-diff.c with the
# kernel's files and libdebloat, run it on $traces traces, pass when it says every
# decision matched.
compare() {
	local name=$1 what=$2
	shift 2
	if ! gcc -O2 -std=gnu11 -Wall -Wno-unused-function -D__KERNEL__ \
		-I "$TOP/tests/kdiff/shim" -I "$dir/k" -I "$TOP/include" "$@" \
		"$TOP/tests/kdiff/$name-diff.c" "$lib" -o "$dir/$name-diff" 2>"$dir/cc.err"; then
		fail "the kernel's $what does not compile: $(head -c 600 "$dir/cc.err")"
		return
	fi
	run "$dir/$name-diff" "$traces"
	echo "$OUT" | grep -E '^(info|FAIL) ' || true
	assert_status "$what: $traces traces, every decision as Linux $version" 0
}

compare codel "CoDel"
compare dql "DQL" "$dir/$k/lib/dynamic_queue_limits.c"

# fq_codel: its structures and its enqueue, overload-drop and dequeue paths, as they
# stand in sch_fq_codel.c from the first structure to fq_codel_dequeue(), less
# fq_codel_classify() (the harness stands for its no-filter fast path).
awk '
/^struct fq_codel_flow \{/ { on = 1 }
on && /^static unsigned int fq_codel_classify\(/ { skip = 1 }
on && !skip { print }
on && /^static struct sk_buff \*fq_codel_dequeue\(/ { last = 1 }
/^\}/ { if (skip) skip = 0; else if (last) exit }
' "$dir/$k/net/sched/sch_fq_codel.c" >"$dir/k/fq_codel_core.c"
if grep -q '^static struct sk_buff \*fq_codel_dequeue(' "$dir/k/fq_codel_core.c"; then
	compare fq_codel "fq_codel enqueue and dequeue"
else
	fail "sch_fq_codel.c has no fq_codel_dequeue() where expected: the extraction needs updating"
fi

# pfifo_fast's bands on the kernel's ptr_ring: 64-byte cache lines give this machine's
# batch of 16; 128 gives 32, a 32-bit ARM board's (two lines of 4-byte pointers).
compare pfifo_fast "ptr_ring under pfifo_fast, batch 16" -DKDIFF_CACHE_BYTES=64
compare pfifo_fast "ptr_ring under pfifo_fast, batch 32" -DKDIFF_CACHE_BYTES=128
finish
