#!/usr/bin/env bash
# test-lab-teardown.sh - `debloat lab` leaves nothing behind, however it ends:
#
#	[ ns dbl-PID-client ]   tun lab0   [ debloat lab PID ]   tun lab0   [ ns dbl-PID-board ]
#	  COMMAND (sleep 20, or      <-- emulator (this process) -->          debloat server
#	  a TCP download)                + its reaper (pid R, outlives it)
#
# Rounds with SIGINT, SIGTERM and SIGKILL sent at a random moment between 0 and 3 s
# after the lab's binary starts, which includes the set-up (namespaces, tun devices, server) and
# the run, with an idle command and with traffic. After each round, within a few
# seconds: no /run/netns/dbl-PID-* entry, no process in those namespaces, no process
# left of the lab's session (each lab runs under setsid, so its session id is its pid:
# the reaper, the server, the command and anything they started carry it), no lab0
# device in this namespace. SIGINT and SIGTERM end the lab with 128 + the signal. A
# command that fails (exit 3) makes the lab exit 3 after the same full clean-up.
#
# Bounded: 12 rounds of at most ~3 s plus clean-up, every wait has a deadline.
# run.sh: timing lab
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_root
require_netns
[ -c /dev/net/tun ] || skip "needs /dev/net/tun"
command -v setsid >/dev/null || skip "needs setsid"
require_debloat

T=$(mktemp -d)
LAB_PIDS=()
# A copy: a rebuild of the binary during the run must not make a command fail to start.
cp "$DEBLOAT" "$T/debloat"
DEBLOAT=$T/debloat
# If this script dies midway, what it started must not outlive it.
trap 'for p in "${LAB_PIDS[@]+"${LAB_PIDS[@]}"}"; do kill -KILL "$p" 2>/dev/null || true; done; rm -rf "$T"; cleanup' EXIT

# Processes whose session is $1 (the lab's pid), one pid a line.
session_procs() {
	ps -e -o sid= -o pid= | awk -v s="$1" '$1 == s { print $2 }'
}

# Processes whose network namespace is the one mounted at /run/netns/$1.
ns_procs() {
	local ino
	ino=$(stat -L -c %i "/run/netns/$1" 2>/dev/null) || return 0
	for p in /proc/[0-9]*; do
		[ "$(stat -L -c %i "$p/ns/net" 2>/dev/null)" = "$ino" ] && echo "${p#/proc/}"
	done
	return 0
}

# Wait up to 5 s for everything of lab $1 to be gone; say what is left, if anything.
leftovers() {
	local pid=$1 i left
	for ((i = 0; i < 100; i++)); do
		left=
		for role in client board; do
			[ -e "/run/netns/dbl-$pid-$role" ] && left+=" netns dbl-$pid-$role"
			[ -n "$(ns_procs "dbl-$pid-$role")" ] && left+=" processes in dbl-$pid-$role"
		done
		[ -n "$(session_procs "$pid")" ] && left+=" processes $(session_procs "$pid" | tr '\n' ' ')"
		ip link show lab0 >/dev/null 2>&1 && left+=" lab0 in this namespace"
		[ -z "$left" ] && return 0
		sleep 0.05
	done
	echo "$left"
}

# One round: start a lab running "$@", signal it after $delay_ms, check it is all gone.
round() {
	local sig=$1 delay_ms=$2 what=$3 rc=0 pid left i
	shift 3
	# A script's background jobs ignore SIGINT, and exec keeps that: restore it, and
	# count the delay from the moment the lab's binary runs.
	setsid env --default-signal=INT "$DEBLOAT" lab -q --profile fifo100 -- "$@" \
		>"$T/out" 2>"$T/err" &
	pid=$!
	LAB_PIDS+=("$pid")
	for ((i = 0; i < 400; i++)); do
		[ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = "$DEBLOAT" ] && break
		sleep 0.005
	done
	sleep "$(awk -v ms="$delay_ms" 'BEGIN { printf "%.3f", ms / 1000 }')"
	kill "-$sig" "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || rc=$?
	left=$(leftovers "$pid")
	if [ -z "$left" ]; then
		pass "SIG$sig at ${delay_ms} ms ($what): nothing left"
	else
		fail "SIG$sig at ${delay_ms} ms ($what): left:$left; stderr: $(head -c 300 "$T/err")"
		# Do not let one failure spoil the next rounds.
		for p in $(session_procs "$pid"); do kill -KILL "$p" 2>/dev/null || true; done
		for role in client board; do ip netns del "dbl-$pid-$role" 2>/dev/null || true; done
	fi
	case "$sig" in
	INT) assert_eq "SIGINT: exit status 130" 130 "$rc" ;;
	TERM) assert_eq "SIGTERM: exit status 143" 143 "$rc" ;;
	KILL) assert_eq "SIGKILL: killed" 137 "$rc" ;;
	esac
}

# shellcheck disable=SC2016 # expanded by the command's shell, inside the lab
traffic=(sh -c 'exec "$0" test tcp_download "$DEBLOAT_LAB_BOARD" -l 20 -d 0 -s 0.05 --cc "$DEBLOAT_LAB_CC" >/dev/null 2>&1' "$DEBLOAT")
sigs=(INT TERM KILL)
# Early moments on purpose: the set-up takes a few tens of milliseconds.
early=(0 5 20 60)
for ((i = 0; i < 12; i++)); do
	sig=${sigs[i % 3]}
	if ((i < 4)); then
		delay=${early[i]}
	else
		delay=$((RANDOM % 3000))
	fi
	if ((i % 2)); then
		round "$sig" "$delay" "traffic" "${traffic[@]}"
	else
		round "$sig" "$delay" "sleep 20" sleep 20
	fi
done

# A failing command: its status is the lab's, after the same clean-up.
setsid "$DEBLOAT" lab -q --profile fifo100 -- sh -c 'sleep 0.3; exit 3' >"$T/out" 2>"$T/err" &
pid=$!
LAB_PIDS+=("$pid")
rc=0
wait "$pid" || rc=$?
assert_eq "a command that exits 3: the lab exits 3" 3 "$rc"
assert_eq "a command that exits 3: nothing left" "" "$(leftovers "$pid")"

# A command that cannot run: 127, and nothing left.
setsid "$DEBLOAT" lab -q --profile fifo100 -- /nonexistent/program >"$T/out" 2>"$T/err" &
pid=$!
LAB_PIDS+=("$pid")
rc=0
wait "$pid" || rc=$?
assert_eq "a missing program: exit 127" 127 "$rc"
assert_contains "a missing program: says so" "$(cat "$T/err")" "cannot run \"/nonexistent/program\""
assert_eq "a missing program: nothing left" "" "$(leftovers "$pid")"

finish
