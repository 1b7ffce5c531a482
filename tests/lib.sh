# shellcheck shell=bash
# lib.sh - what debloat's end-to-end tests share: where the binary is, assertions that
# print what they expected, skips (exit 77), network namespaces removed on exit, and the
# closing "N passed, N failed" line that tests/run.sh adds up.
#
#	. "$(dirname "$0")/lib.sh"
#	require_root; require_netns; require_cmd jq
#	NS=dbt-audit-$$; netns_add "$NS"     # deleted by the EXIT trap, even on failure
#	run "$DEBLOAT" audit lo              # sets RC, OUT, ERR
#	assert_eq "lo is loopback" loopback "$(jq -r '.interfaces[0].kind' <<<"$OUT")"
#	finish
#
# The build directory is $BUILD (default build); the binary $DEBLOAT if set and there,
# else $BUILD/debloat.

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in
/*) ;;
*) BUILD="$TOP/$BUILD" ;;
esac
for _candidate in "${DEBLOAT:-}" "$BUILD/debloat"; do
	if [ -n "$_candidate" ] && [ -x "$_candidate" ] && [ -f "$_candidate" ]; then
		DEBLOAT=$_candidate
		break
	fi
done

_passed=0
_failed=0
_finished=0
_netns=()

pass() {
	_passed=$((_passed + 1))
	echo "ok   $1"
}

fail() {
	_failed=$((_failed + 1))
	echo "FAIL $1"
}

# The summary line; exit 1 if anything failed.
finish() {
	_finished=1
	echo "$_passed passed, $_failed failed"
	[ "$_failed" -eq 0 ]
}

# A test that cannot run here is skipped, never passed.
skip() {
	_finished=1
	echo "SKIP: $*"
	echo "$_passed passed, $_failed failed, 1 skipped"
	exit 77
}

require_root() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces)"
}

require_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || skip "needs $c"
	done
}

require_netns() {
	require_cmd ip tc
	local probe="dbt-probe-$$"
	ip netns add "$probe" 2>/dev/null || skip "cannot create network namespaces here"
	ip netns del "$probe"
	# A test that makes an ifb device loads the module, whose default (numifbs=2)
	# also makes ifb0 and ifb1 in the machine's own namespace: load it without them.
	[ -d /sys/module/ifb ] || modprobe ifb numifbs=0 2>/dev/null || true
}

require_debloat() {
	if [ -z "${DEBLOAT:-}" ] || [ ! -x "$DEBLOAT" ]; then
		fail "no debloat binary in $BUILD (build first)"
		finish || exit 1
	fi
}

# Create a namespace that the EXIT trap deletes. Use "$$" in the name.
netns_add() {
	ip netns add "$1"
	_netns+=("$1")
}

# netns_server NS PORT LOG [SERVER OPTIONS...]: `debloat server` on PORT in namespace NS
# (at most SERVER_TIMEOUT seconds, default 120), its output in LOG; sets SERVER_PID and
# returns once it listens. cleanup stops it.
SERVER_PID=
netns_server() {
	local ns=$1 port=$2 log=$3
	shift 3
	ip netns exec "$ns" timeout "${SERVER_TIMEOUT:-120}" "$DEBLOAT" server -p "$port" "$@" \
		>"$log" 2>&1 &
	SERVER_PID=$!
	for _ in $(seq 50); do
		ip netns exec "$ns" ss -Hltn "sport = :$port" | grep -q . && return 0
		sleep 0.1
	done
	fail "the server did not start: $(cat "$log")"
}

cleanup() {
	local rc=$? ns
	if [ -n "${SERVER_PID:-}" ]; then
		kill "$SERVER_PID" 2>/dev/null || true
		wait "$SERVER_PID" 2>/dev/null || true
	fi
	for ns in "${_netns[@]+"${_netns[@]}"}"; do
		ip netns del "$ns" 2>/dev/null || true
	done
	if [ "$_finished" -eq 0 ]; then
		# set -e stopped the script midway: say so in the summary run.sh reads.
		echo "FAIL aborted (exit $rc) before the end of $(basename "$0")"
		_failed=$((_failed + 1))
		echo "$_passed passed, $_failed failed"
		exit 1
	fi
}
trap cleanup EXIT
# A test stopped by a signal (run.sh's timeout, ^C) still runs its EXIT trap, so its
# namespaces and processes go too.
trap 'exit 143' TERM
trap 'exit 130' INT

# Run a command; keep its status in RC and its output in OUT and ERR. Never fails.
# shellcheck disable=SC2034 # RC, OUT and ERR are for the calling test
run() {
	local errf
	errf=$(mktemp)
	RC=0
	OUT=$("$@" 2>"$errf") || RC=$?
	ERR=$(cat "$errf")
	rm -f "$errf"
}

assert_eq() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1: expected '$2', got '$3'"
	fi
}

assert_contains() {
	if [[ "$2" == *"$3"* ]]; then
		pass "$1"
	else
		fail "$1: expected to find '$3' in: $(head -c 400 <<<"$2")"
	fi
}

assert_not_contains() {
	if [[ "$2" != *"$3"* ]]; then
		pass "$1"
	else
		fail "$1: expected no '$3' in: $(head -c 400 <<<"$2")"
	fi
}

# assert_true DESC TEST...: passes when the test command succeeds.
assert_true() {
	local desc=$1
	shift
	if "$@"; then pass "$desc"; else fail "$desc"; fi
}

# assert_status DESC EXPECTED: checks $RC from the last run.
assert_status() {
	if [ "$RC" -eq "$2" ]; then
		pass "$1"
	else
		fail "$1: expected exit status $2, got $RC; stderr: $(head -c 400 <<<"$ERR")"
	fi
}
