#!/usr/bin/env bash
# test-server-prefix.sh - the latency test server counts an IPv6 client by its /64:
# one host with many addresses of its prefix holds one address's share of the tests.
#
#	[ ns dbt-spx-$$ ]
#	  lo: 2001:db8:1:2::1 .. ::5/64 (one host's addresses), 2001:db8:1:3::1/64 (a
#	      neighbour), all on loopback
#	  debloat test ping --local ADDR  x5 from the /64, x1 from the neighbour
#	      debloat server -p 19916 (4 tests an address; --v6-prefix 128 below)
#
#  - with the default (/64): of five ping tests from five addresses of one /64, four
#    run and one is refused (busy); the neighbour's test runs meanwhile;
#  - with --v6-prefix 128 (per address, as before), all five run: the limit really is
#    the prefix's.
# About 15 s.
# run.sh: timing net
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_root
require_netns
require_debloat

NS=dbt-spx-$$
PORT=19916
T=$(mktemp -d)
trap 'rm -rf "$T"; cleanup' EXIT
netns_add "$NS"
ip -n "$NS" link set lo up
for i in 1 2 3 4 5; do
	ip -n "$NS" addr add "2001:db8:1:2::$i/64" dev lo nodad
done
ip -n "$NS" addr add 2001:db8:1:3::1/64 dev lo nodad
nsrun() { ip netns exec "$NS" "$@"; }

# five tests from the /64 at once, then the neighbour's; prints each one's exit status,
# one per line
round() {
	local pids=() i
	for i in 1 2 3 4 5; do
		nsrun timeout 20 "$DEBLOAT" test -6 -l 3 -d 0.5 --local "2001:db8:1:2::$i" \
			ping ::1 -p "$PORT" >"$T/out$i" 2>&1 &
		pids+=($!)
		sleep 0.2
	done
	nsrun timeout 20 "$DEBLOAT" test -6 -l 1 -d 0.5 --local 2001:db8:1:3::1 ping ::1 \
		-p "$PORT" >"$T/out6" 2>&1 &
	pids+=($!)
	for i in 1 2 3 4 5 6; do
		local rc=0
		wait "${pids[$((i - 1))]}" || rc=$?
		echo "$i $rc"
	done
}

netns_server "$NS" "$PORT" "$T/server.log" -6
r=$(round)
kill "$SERVER_PID" 2>/dev/null || true
wait "$SERVER_PID" 2>/dev/null || true
assert_eq "/64: four of the five run, one is refused" "4 1" \
	"$(awk '$1 <= 5 { ok += $2 == 0; no += $2 != 0 } END { print ok, no }' <<<"$r")"
assert_eq "/64: the server ran four tests for the prefix" 4 \
	"$(grep -c 'test from 2001:db8:1:2::' "$T/server.log" || true)"
assert_eq "/64: the neighbour's test runs meanwhile" "6 0" "$(grep '^6 ' <<<"$r")"

netns_server "$NS" "$PORT" "$T/server2.log" -6 --v6-prefix 128
r=$(round)
assert_eq "--v6-prefix 128: all five run" "5 0" \
	"$(awk '$1 <= 5 { ok += $2 == 0; no += $2 != 0 } END { print ok, no }' <<<"$r")"
kill "$SERVER_PID" 2>/dev/null || true
wait "$SERVER_PID" 2>/dev/null || true
assert_eq "--v6-prefix 128: the server ran five" 5 \
	"$(grep -c 'test from 2001:db8:1:2::' "$T/server2.log" || true)"
finish
