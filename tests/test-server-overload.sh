#!/usr/bin/env bash
# test-server-overload.sh - several rrul clients at once against one `debloat server`
# pinned to one CPU (taskset), on the loopback of a namespace of its own:
#
#	[ ns dbt-ovl-$$, lo ]
#	  debloat server -p 9911            (taskset: one CPU, shared with nobody else's test)
#	  debloat test rrul --local 127.0.0.11 .. 127.0.0.1N   (N at once, -l 6 -s 0.05)
#
# The server's core saturates with bulk data. Its probes must not silently wait behind
# that work: for every client, either its UDP probes' loaded p99 stays within 5 ms of
# the ICMP probes' (which the kernel answers), or its result says the server was
# overloaded (JSON server_overloaded, and the text summary's warning). And the two ends
# agree: every test the server logged with a probe held past its bound (--max-hold)
# is flagged in the client's result. About 20 s.
# run.sh: timing net
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_root
require_netns
require_debloat
require_cmd jq taskset

N=${OVERLOAD_CLIENTS:-4}
NS=dbt-ovl-$$
PORT=9911
T=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]+"${pids[@]}"}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$T"; cleanup' EXIT
netns_add "$NS"
ip -n "$NS" link set lo up

# The first CPU this script may use; the server gets that one only.
cpu=$(taskset -pc $$ | sed -E 's/.*: *//; s/[-,].*//')
SERVER_TIMEOUT=90 netns_server "$NS" "$PORT" "$T/server.log" --json
taskset -pc "$cpu" "$SERVER_PID" >/dev/null
# The server runs under `timeout`: pin its child, the server itself, too.
for p in $(pgrep -P "$SERVER_PID"); do taskset -pc "$cpu" "$p" >/dev/null; done

for i in $(seq "$N"); do
	ip netns exec "$NS" timeout 60 "$DEBLOAT" test rrul 127.0.0.1 -p "$PORT" \
		--local "127.0.0.$((10 + i))" -l 6 -d 1 -s 0.05 -o "$T/c$i.json" \
		>"$T/c$i.txt" 2>"$T/c$i.err" &
	pids+=($!)
done
rc=0
for p in "${pids[@]}"; do
	wait "$p" || rc=$?
done
pids=()
assert_eq "$N rrul clients at once all finish" 0 "$rc"
# The server logs each test as it ends: wait for the lines (at most 5 s).
for _ in $(seq 50); do
	[ "$(grep -c '"client"' "$T/server.log")" -ge "$N" ] && break
	sleep 0.1
done
grep '^{' "$T/server.log" >"$T/tests.jsonl" || true

# Three UDP streams and ICMP, each with a loaded p99 from more than 20 samples.
has_probes() {
	jq -e '[.summary.probes[] | select(.name | test("UDP|ICMP")) | .latency_loaded_ms.samples]
		| length == 4 and min > 20' "$1" >/dev/null
}

flagged=0
for i in $(seq "$N"); do
	f=$T/c$i.json
	addr=127.0.0.$((10 + i))
	assert_true "client $i: a result with loaded UDP and ICMP latency" has_probes "$f"
	udp=$(jq '[.summary.probes[] | select(.name | test("UDP")) | .latency_loaded_ms.p99] | max' "$f")
	icmp=$(jq '.summary.probes[] | select(.name | test("ICMP")) | .latency_loaded_ms.p99' "$f")
	over=$(jq '.server_overloaded' "$f")
	held=$(jq -r --arg a "$addr" 'select(.client == $a) | .probes_held' "$T/tests.jsonl")
	hold=$(jq -r --arg a "$addr" 'select(.client == $a) | .hold_max_us' "$T/tests.jsonl")
	echo "# client $i ($addr): UDP p99 $udp ms, ICMP p99 $icmp ms, server_overloaded $over, held $held (longest $hold us)"
	if [ "$over" = true ]; then
		flagged=$((flagged + 1))
		assert_contains "client $i: the text summary says so too" "$(cat "$T/c$i.txt")" \
			"the server reported it was overloaded"
	else
		assert_true "client $i: UDP p99 within 5 ms of ICMP's, or flagged" \
			awk -v u="$udp" -v i="$icmp" 'BEGIN { exit !(u <= i + 5) }'
	fi
	assert_true "client $i: the server logged its test" test -n "$held"
	if [ -n "$held" ] && [ "$held" -gt 0 ]; then
		assert_eq "client $i: probes held past the bound: the result is flagged" true "$over"
	fi
done
echo "# $flagged of $N results flagged server_overloaded"
finish
