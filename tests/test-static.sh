#!/usr/bin/env bash
# test-static.sh - the static board binaries (`make static ARCH=armhf|arm64`) under
# qemu-user, as `make smoke` runs them:
#
#   build-static-ARCH/bin/debloat  --qemu-arm/qemu-aarch64-->  same answers as build/debloat
#
# For each ARCH: the binary is static and under 2 MB (scripts/build-static.sh says why 2); --version; `audit --from` on
# every board fixture prints the same JSON and text as the native binary; every unit
# test of the cross build passes under qemu (two skipped, see below); a `debloat
# server` under qemu serves a native `debloat test ping` over loopback; and a
# `debloat test ping` under qemu against it, where qemu-user can run it.
#
# What qemu-user (7.2, Debian 12) cannot do, and so is skipped with the reason:
#  - the SIOCETHTOOL ioctl is not translated: ENOSYS (-38; test-host-ethtool);
#  - rtnetlink qdisc messages (RTM_GETQDISC) are not: EOPNOTSUPP (-95; test-nl);
#  - setsockopt(SO_TIMESTAMPNS) is not: ENOPROTOOPT (-92, "Protocol not available";
#    test-probe's kernel-timestamp cases; `debloat test` itself then reads the clock).
# A unit test whose every failed check got one of these errnos is counted as skipped
# (its failed cases are named); any other failure fails. All of it works natively
# on the boards, and natively in make check.
#
# `make smoke` runs it with STATIC_SMOKE=1 right after building every binary it
# compares; under tests/run.sh (make check) it skips, since the static builds there
# may be older than build/debloat. With STATIC_SMOKE=1 a missing build or qemu-user
# fails. STATIC_ARCHES picks the architectures (default: armhf arm64).
# run.sh: parallel
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_debloat

[ "${STATIC_SMOKE:-0}" = 1 ] ||
	skip "make smoke runs this (STATIC_SMOKE=1), after building the static binaries"
read -r -a arches <<<"${STATIC_ARCHES:-armhf arm64}"
skipped=0
server_pid=

note_skip() {
	skipped=$((skipped + 1))
	echo "SKIP $*"
}

# "check failed: EXPR: -92 != 0": the harness's line for a check that got an errno.
qemu_errnos=': -(38|92|95) != '


stop_server() {
	if [ -n "$server_pid" ]; then
		kill "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
		server_pid=
	fi
}
trap 'stop_server; cleanup' EXIT

version=$("$DEBLOAT" --version)
ran=0 # also varies the server's port between architectures
for arch in "${arches[@]}"; do
	case "$arch" in
	armhf) qemu="qemu-arm" ;;
	arm64) qemu="qemu-aarch64" ;;
	*)
		fail "unknown architecture $arch"
		continue
		;;
	esac
	dir=$TOP/build-static-$arch
	bin=$dir/bin/debloat
	if ! command -v "$qemu" >/dev/null || [ ! -x "$bin" ]; then
		why="no $qemu or no $bin (make static ARCH=$arch; scripts/install-deps.sh cross)"
		fail "$arch: $why"
		continue
	fi
	ran=$((ran + 1))

	# Static: no program interpreter, no shared libraries.
	if readelf -lW "$bin" | grep -q INTERP || readelf -dW "$bin" | grep -q NEEDED; then
		fail "$arch: $bin is not static"
	else
		pass "$arch: static"
	fi
	size=$(stat -c %s "$bin")
	echo "     $arch: bin/debloat is $size bytes stripped"
	if [ "$size" -le $((2048 * 1024)) ]; then
		pass "$arch: under 2 MB ($((size / 1024)) KiB)"
	else
		fail "$arch: $((size / 1024)) KiB, over the 2 MB goal"
	fi

	run "$qemu" "$bin" --version
	assert_eq "$arch: --version" "$version" "$OUT"

	for f in "$TOP"/boards/*.json; do
		name=$(basename "$f" .json)
		want=$("$DEBLOAT" audit --json --from "$f" 2>&1 || true)
		run "$qemu" "$bin" audit --json --from "$f"
		assert_eq "$arch: audit --json --from $name is the native JSON" "$want" "$OUT"
		want=$("$DEBLOAT" audit --from "$f" 2>&1 || true)
		run "$qemu" "$bin" audit --from "$f"
		assert_eq "$arch: audit --from $name is the native text" "$want" "$OUT"
	done

	# Unit tests of the cross build: the library's and the program's. A test whose
	# every failed check got one of qemu-user's errnos (above) is a skip, not a failure.
	for t in "$dir"/tests/test-*; do
		{ [ -f "$t" ] && [ -x "$t" ]; } || continue
		name=$(basename "$t")
		run timeout 300 "$qemu" "$t"
		OUT=$OUT$'\n'$ERR # the harness reports failed checks on stderr
		line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' <<<"$OUT" | tail -n 1)
		checks=$(grep -E 'check failed' <<<"$OUT" || true)
		if [ "$RC" -eq 0 ] && [[ "$line" == *" 0 failed"* ]]; then
			pass "$arch: $name under $qemu: $line"
		elif [ -n "$line" ] && [ -n "$checks" ] && ! grep -vqE "$qemu_errnos" <<<"$checks"; then
			note_skip "$arch: $name under $qemu: $line; qemu-user cannot:" \
				"$(grep -E '^FAIL ' <<<"$OUT" | cut -c6- | tr '\n' ' ')"
		else
			fail "$arch: $name under $qemu: exit $RC, ${line:-no summary}"
			grep -E '^(FAIL|  )' <<<"$OUT" | head -n 20 | sed 's/^/     /'
		fi
	done

	# Server under qemu, over loopback.
	port=$((20000 + ($$ + ran) % 20000))
	log=$(mktemp)
	"$qemu" "$bin" server -p "$port" -b 127.0.0.1 2>"$log" &
	server_pid=$!
	for _ in $(seq 50); do
		grep -q listening "$log" && break
		sleep 0.1
	done
	run "$DEBLOAT" test ping 127.0.0.1 -4 -p "$port" -l 1 -d 1
	assert_status "$arch: native test ping against the server under $qemu" 0
	assert_contains "$arch: the probes came back" "$OUT" "loss 0.00%"
	run "$qemu" "$bin" test ping 127.0.0.1 -4 -p "$port" -l 1 -d 1
	assert_status "$arch: test ping under $qemu against it" 0
	assert_contains "$arch: its probes came back" "$OUT" "loss 0.00%"
	stop_server
	assert_contains "$arch: the server logged the tests" "$(cat "$log")" "test from 127.0.0.1"
	rm -f "$log"
done

_finished=1
if [ "$skipped" -ne 0 ]; then
	echo "$_passed passed, $_failed failed, $skipped skipped"
else
	echo "$_passed passed, $_failed failed"
fi
[ "$_failed" -eq 0 ]
