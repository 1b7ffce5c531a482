#!/usr/bin/env bash
# test-interrupt.sh - Ctrl-C (SIGINT) or SIGTERM during `debloat test` ends it early and
# keeps what was measured, as iperf3 prints its summary: the summary, the JSON file and
# the flent file are written, marked interrupted; the exit status is 1 (cut short).
# On the loopback of a namespace of its own; a 10 s upload interrupted after 3 s.
# run.sh: timing net
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_root
require_netns
require_debloat
require_cmd jq

NS=dbt-int-$$
PORT=9911
T=$(mktemp -d)
trap 'rm -rf "$T"; cleanup' EXIT
netns_add "$NS"
ip -n "$NS" link set lo up
netns_server "$NS" "$PORT" "$T/server.log"

for sig in INT TERM; do
	ip netns exec "$NS" "$DEBLOAT" test tcp_upload 127.0.0.1 -p "$PORT" -l 10 -d 1 \
		-o "$T/r.json" --flent "$T/r.flent.gz" >"$T/out" 2>"$T/err" &
	pid=$!
	(sleep 60 && kill -KILL "$pid") 2>/dev/null &
	watchdog=$!
	sleep 3
	kill "-$sig" "$pid"
	rc=0
	wait "$pid" || rc=$?
	kill "$watchdog" 2>/dev/null || true
	wait "$watchdog" 2>/dev/null || true
	assert_eq "SIG$sig: exit 1 (cut short)" 1 "$rc"
	assert_contains "  says it was interrupted" "$(cat "$T/err")" "interrupted after"
	assert_contains "  the summary is printed, marked" "$(cat "$T/out")" "warning: interrupted"
	assert_eq "  the JSON is written, marked interrupted" true "$(jq .interrupted "$T/r.json")"
	assert_true "  it holds the upload measured so far" \
		awk -v v="$(jq '.summary.upload_mbps // 0' "$T/r.json")" 'BEGIN { exit !(v > 0) }'
	assert_true "  the flent file is written" test -s "$T/r.flent.gz"
	rm -f "$T/r.json" "$T/r.flent.gz"
done

finish
